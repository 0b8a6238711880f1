use crate::detect::context::testing::{engine, findings, start};

const N: &str = "7b3e9f1a-2c4d-4e5f-8a6b-9c0d1e2f3a4b";
const G: &str = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";

#[test]
fn a_keystone_401_is_named() {
    let mut log = start(N, G, "compute-4", 180);
    log += &engine(
        "10:02:47.600",
        G,
        "WARNING",
        "masakari.engine.drivers.taskflow.driver",
        "Task 'DisableComputeServiceTask' (0b6f7a3e-0000-4000-8000-000000000002) transitioned into state 'FAILURE' from state 'RUNNING'",
    );
    log += "2024-05-21 10:02:47.600 41 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):\n\
            2024-05-21 10:02:47.600 41 ERROR masakari.engine.drivers.taskflow.driver keystoneauth1.exceptions.http.Unauthorized: The request you have made requires authentication. (HTTP 401) (Request-ID: req-0d1c2b3a-4958-4a6b-8c7d-6e5f4a3b2c1d)\n";
    log += &engine(
        "10:02:48.000",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: error."),
    );
    let found = findings(
        "recovery-failed",
        &[("ctl/var/log/masakari/masakari-engine.log", &log)],
    );
    assert_eq!(found.len(), 1);
    assert!(
        found[0]
            .title
            .contains("Keystone rejected Masakari's service credentials"),
        "{}",
        found[0].title
    );
    assert_eq!(found[0].severity, crate::detect::Severity::Critical);
}

/// Nova accepted one evacuation (200, rebuilt, polled, unlocked) and refused the other
/// (409): only the refused instance is named.
#[test]
fn only_the_instances_the_evidence_says_failed_are_named() {
    const OK: &str = "b7e3c2a1-4d5f-4a8b-9c6e-1f2d3e4a5b6c";
    const BAD: &str = "3f8a6d2c-9e1b-4c7a-8d5f-6a2b1c9e0d47";
    let nova = "masakari.compute.nova";
    let mut log = start(N, G, "compute-4", 180);
    for (t, i) in [("10:05:47.600", OK), ("10:05:47.700", BAD)] {
        log += &engine(
            t,
            G,
            "INFO",
            nova,
            &format!("Call evacuate command for instance {i} on host None"),
        );
    }
    log += &engine(
        "10:05:48.100",
        G,
        "WARNING",
        "masakari.engine.drivers.taskflow.host_failure",
        "Conflict: masakari.exception.Conflict: Conflict",
    );
    log += &engine(
        "10:05:49.000",
        G,
        "INFO",
        nova,
        &format!("Call get server command for instance {OK}"),
    );
    log += &engine(
        "10:05:52.000",
        G,
        "INFO",
        nova,
        &format!("Call unlock server command for instance {OK}"),
    );
    log += &engine(
        "10:05:53.000",
        G,
        "ERROR",
        "masakari.engine.manager",
        &format!(
            "Failed to process notification '{N}'. Reason: Failed to evacuate instances '{BAD}' from host 'compute-4': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{BAD}' from host 'compute-4'"
        ),
    );
    log += &engine(
        "10:05:53.100",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: error."),
    );
    let ctx = "[req-5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default]";
    let api = format!(
        "2024-05-21 10:05:47.900 23 INFO nova.api.openstack.requestlog {ctx} 10.0.0.5 \"POST /v2.1/servers/{OK}/action\" status: 200 len: 34 microversion: 2.53 time: 0.25\n\
         2024-05-21 10:05:47.950 23 INFO nova.api.openstack.requestlog {} 10.0.0.5 \"POST /v2.1/servers/{BAD}/action\" status: 409 len: 120 microversion: 2.53 time: 0.2\n\
         2024-05-21 10:05:49.200 23 INFO nova.api.openstack.requestlog {ctx} 10.0.0.5 \"GET /v2.1/servers/{OK}\" status: 200 len: 2310 microversion: 2.53 time: 0.1\n",
        ctx.replace("req-2b7c9d1e", "req-3c8d0e2f")
    );
    let found = findings(
        "recovery-failed",
        &[
            ("ctl/var/log/masakari/masakari-engine.log", &log),
            ("ctl/var/log/nova/nova-api-wsgi.log", &api),
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [BAD]);
}

#[test]
fn a_finished_recovery_is_not_a_failure() {
    let mut log = start(N, G, "compute-4", 180);
    log += &engine(
        "10:06:00.000",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: finished."),
    );
    assert!(
        findings(
            "recovery-failed",
            &[("ctl/var/log/masakari/masakari-engine.log", &log)]
        )
        .is_empty()
    );
}
