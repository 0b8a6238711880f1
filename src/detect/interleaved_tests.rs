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

fn bundle() -> Vec<(&'static str, String)> {
    let nova = "masakari.compute.nova";
    let manager = "masakari.engine.manager";
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
