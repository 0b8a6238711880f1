//! Two hosts' recoveries interleave in one pre-Zed engine, and every Nova call makes a
//! new context: the call, Masakari's warning and the notification carry different ids.

use crate::detect::context::testing::findings;

const N1: &str = "6916637e-b48a-42c6-b1ca-c1e4ee82d1e8";
const N2: &str = "cc60c118-a972-4441-9f9f-51b3e595444e";
const I1: &str = "6307306f-f3eb-4496-a751-db87e94fb0d6";
const I2: &str = "98ed2355-3d59-49e5-9558-b2b276a8e8c6";

fn masakari(time: &str, req: &str, level: &str, logger: &str, message: &str) -> String {
    format!("2022-06-14 {time} 27 {level} {logger} [req-{req} nova - - - -] {message}\n")
}

fn nova(time: &str, req: &str, logger: &str, message: &str) -> String {
    format!(
        "2022-06-14 {time} 25 INFO {logger} [req-{req} 08a0419364fb7ad609c321afda575cd1 feb5d25ac552ffcca04733134c03b994 - default default] {message}\n"
    )
}

/// The engine's lines of one host's run: disable, sleep, list, evacuate, the warning
/// quoting Nova's request `quoted`, the end.
fn run(n: &str, host: &str, instance: &str, t: u32, quoted: &str) -> Vec<(String, String)> {
    let at = |s: u32, ms: u32| format!("08:{:02}:{:02}.{ms:03}", 42 + (t + s) / 60, (t + s) % 60);
    let nova_logger = "masakari.compute.nova";
    let flow = "masakari.engine.drivers.taskflow.host_failure";
    vec![
        (
            at(0, 498),
            format!(
                "2022-06-14 {} 27 INFO masakari.engine.manager [req-f6e0022f-137f-4f07-aecd-7d67ef8f3cf9 bf3686bb416757925c9f0959ca6d5555 46b51d97572c202cfc183d3027888f4b - default default] Processing notification {n} of type: COMPUTE_HOST\n",
                at(0, 498)
            ),
        ),
        (
            at(0, 708),
            masakari(
                &at(0, 708),
                &format!("e2470ddb-0148-48a8-b046-b433bacdb{t:03}"),
                "INFO",
                nova_logger,
                &format!("Disable nova-compute on {host}"),
            ),
        ),
        (
            at(0, 958),
            masakari(
                &at(0, 958),
                &format!("e2470ddb-0148-48a8-b046-b433bacdb{t:03}"),
                "INFO",
                flow,
                "Sleeping 60 sec before starting recovery thread until nova recognizes the node down.",
            ),
        ),
        (
            at(61, 4),
            masakari(
                &at(61, 4),
                &format!("297cd4ef-dbd4-4047-a503-169d3bf0a{t:03}"),
                "INFO",
                nova_logger,
                &format!("Fetch Server list on {host}"),
            ),
        ),
        (
            at(62, 344),
            masakari(
                &at(62, 344),
                &format!("605a521d-6b51-44da-835c-d6e99aea0{t:03}"),
                "INFO",
                nova_logger,
                &format!("Call evacuate command for instance {instance} on host None"),
            ),
        ),
        (
            at(62, 764),
            masakari(
                &at(62, 764),
                &format!("28825d14-81a7-43b4-ba3a-16b082b0a{t:03}"),
                "WARNING",
                flow,
                &format!(
                    "Invalid input received: Compute service of {host} is still in use. (HTTP 400) (Request-ID: req-{quoted}): masakari.exception.InvalidInput: Invalid input received: Compute service of {host} is still in use. (HTTP 400) (Request-ID: req-{quoted})"
                ),
            ),
        ),
        (
            at(63, 820),
            masakari(
                &at(63, 820),
                &format!("fc71d7b6-265b-4e44-9682-88b9094ed{t:03}"),
                "INFO",
                "masakari.engine.manager",
                &format!("Notification {n} exits with status: error."),
            ),
        ),
    ]
}

#[test]
fn interleaved_runs_each_get_the_refusals_their_chains_prove() {
    let q1 = "6246a5f0-b0e6-4ecf-b80c-3fe380f00470";
    let q2 = "fa5af25c-2813-4cfc-ab3f-33948529a3d7";
    let mut lines = run(N1, "cmp02", I1, 10, q1);
    lines.extend(run(N2, "cmp03", I2, 30, q2));
    lines.sort();
    let engine: String = lines.into_iter().map(|(_, l)| l).collect();
    let mut api = String::new();
    for (time, q, host, i) in [
        ("08:43:12.724", q1, "cmp02", I1),
        ("08:43:32.724", q2, "cmp03", I2),
    ] {
        api += &nova(
            time,
            q,
            "nova.api.openstack.wsgi",
            &format!("HTTP exception thrown: Compute service of {host} is still in use."),
        );
        api += &nova(
            time,
            q,
            "nova.api.openstack.requestlog",
            &format!(
                "10.30.0.11 \"POST /v2.1/servers/{i}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000"
            ),
        );
    }
    let found = findings(
        "evacuate-400-race",
        &[
            ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
            ("ctl01/var/log/kolla/nova/nova-api.log", &api),
        ],
    );
    assert_eq!(found.len(), 2, "{found:#?}");
    for (n, i, host) in [(N1, I1, "cmp02"), (N2, I2, "cmp03")] {
        let f = found
            .iter()
            .find(|f| f.notification_id.as_deref() == Some(n))
            .unwrap_or_else(|| panic!("no finding for {n}: {found:#?}"));
        assert_eq!(f.instance_uuids, [i]);
        assert_eq!(f.failed_host.as_deref(), Some(host));
        assert!(
            f.evidence
                .iter()
                .any(|e| e.text.contains("status: 400") && e.text.contains(i))
        );
    }
}

/// Without the engine's notification lines, the chain alone still makes the finding.
#[test]
fn a_chain_without_its_recovery_is_still_a_finding() {
    let q = "6246a5f0-b0e6-4ecf-b80c-3fe380f00470";
    let engine: String = run(N1, "cmp02", I1, 10, q)
        .into_iter()
        .filter(|(_, l)| l.contains("WARNING"))
        .map(|(_, l)| l)
        .collect();
    let api = nova(
        "08:43:12.724",
        q,
        "nova.api.openstack.requestlog",
        &format!(
            "10.30.0.11 \"POST /v2.1/servers/{I1}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000"
        ),
    );
    let found = findings(
        "evacuate-400-race",
        &[
            ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
            ("ctl01/var/log/kolla/nova/nova-api.log", &api),
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [I1]);
    assert_eq!(found[0].failed_host.as_deref(), Some("cmp02"));
}
