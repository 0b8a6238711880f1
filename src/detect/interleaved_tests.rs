//! Two recoveries on one engine at once: each finding holds only its own lines, however
//! close in time the other's are.

use crate::detect::context::testing::analysis_of;
use crate::detect::{DetectOptions, Finding, run_all};

/// The race: notification N1 of host cmp02, pre-Zed contexts (no global id; each Nova
/// call a fresh local id, carried by the lines after it).
const N1: &str = "3330353d-4f69-4f1d-b1f9-3977329fb2cd";
const I1: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
/// The ignored one: notification N2 of host cmp05, received while N1 was evacuating.
const N2: &str = "9ace2da7-97d1-48cb-a96a-08ad4624481b";
const API2: &str = "req-5b7e1c3a-8d2f-4e6b-9a1c-0f3e5d7b9a2c";

fn line(time: &str, level: &str, logger: &str, req: &str, message: &str) -> String {
    format!("2021-03-04 {time} 235 {level} {logger} [{req} masakari - - - -] {message}\n")
}

/// N1's run up to the lock of its instance.
fn n1_locks() -> String {
    let nova = "masakari.compute.nova";
    let flow = "masakari.engine.drivers.taskflow.host_failure";
    let mut log = String::new();
    log += "2021-03-04 10:02:47.100 235 INFO masakari.engine.manager [req-1c0d9e8f-7a6b-4c5d-8e4f-3a2b1c0d9e8f 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - default default] Processing notification 3330353d-4f69-4f1d-b1f9-3977329fb2cd of type: COMPUTE_HOST\n";
    log += &line(
        "10:02:47.300",
        "INFO",
        nova,
        "req-2275b29c-7a9f-476c-a7dc-25635aab398b",
        "Disable nova-compute on cmp02",
    );
    log += &line(
        "10:02:47.400",
        "INFO",
        flow,
        "req-2275b29c-7a9f-476c-a7dc-25635aab398b",
        "Sleeping 30 sec before starting recovery thread until nova recognizes the node down.",
    );
    log += &line(
        "10:03:17.300",
        "INFO",
        nova,
        "req-009aadf7-5b16-4432-b987-2c4db03e5793",
        "Fetch Server list on cmp02",
    );
    log += &line(
        "10:03:17.350",
        "INFO",
        nova,
        "req-3b8f5237-b8f4-4ae1-9cbc-665f4c75e819",
        &format!("Call get server command for instance {I1}"),
    );
    log += &line(
        "10:03:17.400",
        "INFO",
        nova,
        "req-de081ecf-4201-4542-b092-e21b2f5ce942",
        &format!("Call lock server command for instance {I1}"),
    );
    log
}

/// N2 is received and ignored while N1's evacuate is in flight; N1 then fails.
fn n2_ignored_while_n1_evacuates() -> String {
    let nova = "masakari.compute.nova";
    let manager = "masakari.engine.manager";
    let flow = "masakari.engine.drivers.taskflow.host_failure";
    let mut log = String::new();
    // N2 arrives and is ignored while N1's evacuate is in flight.
    log += &format!(
        "2021-03-04 10:03:17.450 235 INFO masakari.engine.manager [{API2} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - default default] Processing notification {N2} of type: COMPUTE_HOST\n"
    );
    log += &line(
        "10:03:17.500",
        "INFO",
        nova,
        "req-de081ecf-4201-4542-b092-e21b2f5ce942",
        &format!("Call evacuate command for instance {I1} on host None"),
    );
    log += &format!(
        "2021-03-04 10:03:17.520 235 WARNING masakari.engine.manager [{API2} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - default default] Notification '{N2}' ignored as host_status is 'UNKNOWN'\n\
         2021-03-04 10:03:17.530 235 INFO masakari.engine.manager [{API2} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - default default] Notification {N2} exits with status: ignored.\n"
    );
    // The evacuate call's own context: first seen on the warning it logs.
    log += &line(
        "10:03:17.560",
        "WARNING",
        flow,
        "req-4f2e6d8a-1b3c-4d5e-8f7a-9b0c1d2e3f4a",
        "Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e): masakari.exception.InvalidInput: Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e)",
    );
    log += &line(
        "10:03:17.600",
        "INFO",
        nova,
        "req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8",
        &format!("Call unlock server command for instance {I1}"),
    );
    log += &line(
        "10:03:18.900",
        "ERROR",
        manager,
        "req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8",
        &format!(
            "Failed to process notification '{N1}'. Reason: Failed to evacuate instances '{I1}' from host 'cmp02': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{I1}' from host 'cmp02'"
        ),
    );
    log += &line(
        "10:03:18.910",
        "INFO",
        manager,
        "req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8",
        &format!("Notification {N1} exits with status: error."),
    );
    log
}

fn bundle() -> Vec<(&'static str, String)> {
    let log = n1_locks() + &n2_ignored_while_n1_evacuates();
    let access = format!(
        "10.0.0.5 - - [04/Mar/2021:10:03:17 +0000] \"POST /v2.1/servers/{I1}/action HTTP/1.1\" 202 0 \"-\" \"python-novaclient\"\n\
         10.0.0.5 - - [04/Mar/2021:10:03:17 +0000] \"POST /v2.1/servers/{I1}/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\"\n\
         10.0.0.5 - - [04/Mar/2021:10:03:17 +0000] \"POST /v2.1/servers/{I1}/action HTTP/1.1\" 202 0 \"-\" \"python-novaclient\"\n"
    );
    let api = "2021-03-04 10:03:17.540 23 INFO nova.api.openstack.wsgi [req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - default default] HTTP exception thrown: Compute service of cmp02 is still in use.\n".to_string();
    vec![
        ("ctl01/var/log/masakari/masakari-engine.log", log),
        (
            "ctl01/var/log/apache2/nova-api-os-compute_access.log",
            access,
        ),
        ("ctl01/var/log/nova/nova-api-wsgi.log", api),
    ]
}

fn findings(files: &[(&'static str, String)]) -> Vec<Finding> {
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    run_all(&analysis_of(&borrowed), &DetectOptions::default())
}

#[test]
fn each_notification_gets_its_own_finding_with_its_own_lines() {
    check(findings(&bundle()));
}

/// N2's `Processing notification` line is not in the bundle (rotated away): its lines
/// still name it, and are still not N1's.
#[test]
fn a_notification_seen_only_by_its_later_lines_is_still_its_own() {
    let mut files = bundle();
    files[0].1 = files[0]
        .1
        .lines()
        .filter(|l| !l.contains(&format!("Processing notification {N2}")))
        .map(|l| format!("{l}\n"))
        .collect();
    check(findings(&files));
}

fn check(found: Vec<Finding>) {
    let of = |n: &str| {
        found
            .iter()
            .find(|f| f.notification_id.as_deref() == Some(n))
            .unwrap_or_else(|| panic!("no finding for {n}: {found:#?}"))
    };
    assert_eq!(found.len(), 2, "{found:#?}");
    let race = of(N1);
    assert_eq!(race.detector, "evacuate-400-race");
    assert_eq!(race.instance_uuids, [I1]);
    assert!(race.evidence.iter().any(|e| e.text.contains("(HTTP 400)")));
    // Nova's own words, found through the Request-ID Masakari quoted.
    assert!(race.evidence.iter().any(|e| {
        e.text
            .contains("HTTP exception thrown: Compute service of cmp02")
    }));
    for e in &race.evidence {
        assert!(
            !e.text.contains(N2) && !e.text.contains(API2),
            "N2's line in N1's finding: {}",
            e.text
        );
    }
    let ignored = of(N2);
    assert_eq!(ignored.detector, "recovery-failed");
    assert!(ignored.title.contains("host_status"), "{}", ignored.title);
    assert!(ignored.instance_uuids.is_empty());
    for e in &ignored.evidence {
        assert!(
            e.text.contains(API2),
            "a line of another context in N2's finding: {}",
            e.text
        );
    }
}

/// N3 of cmp07 still polls its evacuated instance when N4 of cmp08 lists its servers;
/// N4's first call about an instance then fails before Nova logs anything (the only line
/// naming it, under a fresh context) and N4 ends `finished`.
const N3: &str = "6b1f0c2e-5d4a-4e3b-9c8d-7a6f5e4d3c2b";
const I3: &str = "74678033-7e9a-4c60-bfab-374c2702d815";
const N4: &str = "83289a66-4a11-4017-9c64-1d8f0aa19ffa";
const I4_MOVED: &str = "25115cbc-2ca6-4a8a-b044-0505bd3366db";
const I4_PENDING: &str = "edad64d8-ad28-4918-9e8c-6c70b59cac2c";

/// The engine's `Processing notification` line of `n`, under the API's context `req`.
fn processing(n: &str, req: &str, time: &str) -> String {
    format!(
        "2025-03-11 {time} 33813 INFO masakari.engine.manager [{req} bc731dd6f91ae57c60ea264fecde8b73 f5a965f924f7408a71a1f3d76c58bca5 - default default] Processing notification {n} of type: COMPUTE_HOST\n"
    )
}

/// A Nova call of the engine, under its fresh context `req`.
fn call(time: &str, req: &str, message: String) -> String {
    format!("2025-03-11 {time} 33813 INFO masakari.compute.nova [{req} nova - - - -] {message}\n")
}

/// N3's run up to its evacuate call and first poll of the instance.
fn n3_evacuates() -> String {
    let mut log = String::new();
    log += &processing(
        N3,
        "req-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "07:09:20.000",
    );
    log += &call(
        "07:09:20.100",
        "req-1a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "Disable nova-compute on sto-comp07".into(),
    );
    log += &call(
        "07:09:30.100",
        "req-2a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        "Fetch Server list on sto-comp07".into(),
    );
    log += &call(
        "07:09:30.200",
        "req-3a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        format!("Call get server command for instance {I3}"),
    );
    log += &call(
        "07:09:30.300",
        "req-4a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        format!("Call evacuate command for instance {I3} on host None"),
    );
    log += &call(
        "07:09:35.117",
        "req-5a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        format!("Call get server command for instance {I3}"),
    );
    log
}

/// N4 starts and lists its servers while N3 still polls its instance.
fn n4_runs_while_n3_polls() -> String {
    let mut log = String::new();
    log += &processing(
        N4,
        "req-5bab58be-41fe-47d1-8da8-d9f07c580561",
        "07:09:36.589",
    );
    log += &call(
        "07:09:36.639",
        "req-8e0cd4f1-cbe0-4e53-8ed0-7c914a44542a",
        "Disable nova-compute on sto-comp08".into(),
    );
    log += &call(
        "07:09:40.117",
        "req-c6d9eac6-b73e-4e59-939b-0eac972b8647",
        format!("Call get server command for instance {I3}"),
    );
    log += &call(
        "07:09:47.239",
        "req-1996c4be-c00c-4749-a678-7f7fd1fd82c1",
        "Fetch Server list on sto-comp08".into(),
    );
    log += &call(
        "07:09:47.798",
        "req-8e57b69c-df32-4cac-8edd-be373fc028a2",
        format!("Call get server command for instance {I4_PENDING}"),
    );
    log += &call(
        "07:09:47.982",
        "req-b6e4a001-8748-4291-9436-52c759de5fd7",
        format!("Call get server command for instance {I4_MOVED}"),
    );
    log += &call(
        "07:09:48.482",
        "req-efb27823-09ba-4795-93cf-42801fa1f8b0",
        format!("Call lock server command for instance {I4_MOVED}"),
    );
    log += &call(
        "07:09:48.782",
        "req-c8b710ca-ac70-47fb-8c56-6d13b7816ecd",
        format!("Call evacuate command for instance {I4_MOVED} on host None"),
    );
    log += &call(
        "07:09:50.117",
        "req-f1e9e371-04f5-4950-9217-9846d12ed1ee",
        format!("Call get server command for instance {I3}"),
    );
    log += &call(
        "07:09:57.982",
        "req-a1cc1582-a824-4696-80b4-e62310a0190e",
        format!("Call unlock server command for instance {I4_MOVED}"),
    );
    log
}

/// Both notifications end `finished`, N4 first.
fn both_finish() -> String {
    let mut log = String::new();
    log += &format!(
        "2025-03-11 07:10:10.537 33813 INFO masakari.engine.manager [req-670e3be2-8457-43c1-8b5b-d4174480f79d nova - - - -] Notification {N4} exits with status: finished.\n"
    );
    log += &call(
        "07:10:15.117",
        "req-9a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d",
        format!("Call unlock server command for instance {I3}"),
    );
    log += &format!(
        "2025-03-11 07:10:15.537 33813 INFO masakari.engine.manager [req-7a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d nova - - - -] Notification {N3} exits with status: finished.\n"
    );
    log
}

fn two_runs_one_lists_later() -> Vec<(&'static str, String)> {
    let log = n3_evacuates() + &n4_runs_while_n3_polls() + &both_finish();
    vec![("sto-ctrl01/var/log/kolla/masakari/masakari-engine.log", log)]
}

/// The call about the instance no run named yet is the run's that listed its servers
/// last, not nobody's: N4's pending instance is found, N3 has no finding.
#[test]
fn an_instance_first_named_after_a_listing_is_that_runs() {
    let found = findings(&two_runs_one_lists_later());
    let pending: Vec<&Finding> = found
        .iter()
        .filter(|f| f.detector == "pending-after-finished")
        .collect();
    assert_eq!(pending.len(), 1, "{found:#?}");
    assert_eq!(pending[0].notification_id.as_deref(), Some(N4));
    assert_eq!(pending[0].instance_uuids, [I4_PENDING]);
    assert!(
        !found
            .iter()
            .any(|f| f.notification_id.as_deref() == Some(N3)),
        "{found:#?}"
    );
}
