use crate::detect::context::testing::{engine, findings, start};

const N: &str = "46fcd802-f9c7-4094-b452-4517b84b2606";
const G: &str = "c9966a7e-7166-42c6-9cf6-81e501b54559";
const A: &str = "8acc20ac-82f7-42de-8532-14468beddf91";
const B: &str = "f91be2ed-da15-46f3-8bd0-989a0b09659a";
const NOVA: &str = "masakari.compute.nova";

fn log(b_evacuated: bool, end: &str) -> String {
    let mut log = start(N, G, "cmp2", 180);
    log += &engine(
        "10:05:48.522",
        G,
        "INFO",
        NOVA,
        &format!("Call get server command for instance {A}"),
    );
    log += &engine(
        "10:05:48.530",
        G,
        "INFO",
        NOVA,
        &format!("Call get server command for instance {B}"),
    );
    log += &engine(
        "10:05:48.900",
        G,
        "INFO",
        NOVA,
        &format!("Call lock server command for instance {B}"),
    );
    if b_evacuated {
        log += &engine(
            "10:05:49.100",
            G,
            "INFO",
            NOVA,
            &format!("Call evacuate command for instance {B} on host None"),
        );
    }
    log += &engine(
        "10:05:53.400",
        G,
        "INFO",
        NOVA,
        &format!("Call unlock server command for instance {B}"),
    );
    log += &engine(
        "10:05:53.866",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: {end}."),
    );
    log
}

#[test]
fn an_instance_fetched_then_dropped_under_a_finished_notification() {
    let log = log(true, "finished");
    let found = findings(
        "pending-after-finished",
        &[("ctl1/var/log/masakari/masakari-engine.log", &log)],
    );
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].instance_uuids, [A]);
    assert_eq!(found[0].failed_host.as_deref(), Some("cmp2"));
    assert!(found[0].evidence.iter().any(|e| {
        e.text
            .contains(&format!("Call get server command for instance {A}"))
    }));
    assert!(
        found[0]
            .evidence
            .iter()
            .any(|e| e.text.contains("exits with status: finished."))
    );
}

/// A thread-pool engine (Masakari off eventlet) logs the escaped exception; when its
/// text names the instance it is still the failure, not Masakari handling the move.
#[test]
fn an_exception_in_the_evacuation_thread_is_the_failure_of_the_dropped_instance() {
    let mut log = log(true, "finished");
    let end = log.rfind("2024-05-21 10:05:53.866").unwrap();
    let exc = format!(
        "novaclient.exceptions.NotFound: Instance {A} could not be found. (HTTP 404) (Request-ID: req-5e0c2a8f-3b1d-4c7e-9a6f-2d8b4e0c6a13)"
    );
    let thread = engine(
        "10:05:53.700",
        G,
        "ERROR",
        "masakari.engine.drivers.taskflow.host_failure",
        &format!("Exception in evacuation thread: Instance {A} could not be found. (HTTP 404) (Request-ID: req-5e0c2a8f-3b1d-4c7e-9a6f-2d8b4e0c6a13): {exc}"),
    ) + &[
        "Traceback (most recent call last):",
        "  File \"/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/host_failure.py\", line 413, in execute",
        "    future.result()  # This will raise any exceptions",
        &exc,
        "",
    ]
    .iter()
    .map(|l| format!("2024-05-21 10:05:53.700 41 ERROR masakari.engine.drivers.taskflow.host_failure {l}\n"))
    .collect::<String>();
    log.insert_str(end, &thread);
    let found = findings(
        "pending-after-finished",
        &[("ctl1/var/log/masakari/masakari-engine.log", &log)],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [A]);
    assert!(
        found[0]
            .evidence
            .iter()
            .any(|e| e.text.contains("Exception in evacuation thread: Instance"))
    );
    assert!(
        found[0]
            .explanation
            .contains("Exception in evacuation thread")
    );
}

#[test]
fn a_recovery_that_failed_properly_is_not_this() {
    let log = log(true, "error");
    assert!(
        findings(
            "pending-after-finished",
            &[("ctl1/var/log/masakari/masakari-engine.log", &log)]
        )
        .is_empty()
    );
}

#[test]
fn a_pending_vmove_in_a_capture_is_enough() {
    let capture = format!(
        "$ openstack notification vmove list {N}\n\
         +--------------------------------------+--------------------------------------+-------------+-------------+-----------+------------+----------+------------+---------+\n\
         | uuid                                 | server_id                            | server_name | source_host | dest_host | start_time | end_time | type       | status  |\n\
         +--------------------------------------+--------------------------------------+-------------+-------------+-----------+------------+----------+------------+---------+\n\
         | 0d9b6c3a-2f41-4e8b-9a7c-5e6f7a8b9c0d | {A} | db-01       | cmp2        | None      | None       | None     | evacuation | pending |\n\
         +--------------------------------------+--------------------------------------+-------------+-------------+-----------+------------+----------+------------+---------+\n"
    );
    let show = format!(
        "$ openstack notification show {N}\n\
         +---------------------------+--------------------------------------+\n\
         | Field                     | Value                                |\n\
         +---------------------------+--------------------------------------+\n\
         | notification_uuid         | {N} |\n\
         | type                      | COMPUTE_HOST                         |\n\
         | status                    | finished                             |\n\
         +---------------------------+--------------------------------------+\n"
    );
    let found = findings(
        "pending-after-finished",
        &[
            ("vmove-list.txt", &capture),
            ("notification-show.txt", &show),
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [A]);
    assert!(
        found[0]
            .evidence
            .iter()
            .any(|e| e.path == "vmove-list.txt" && e.text.contains("pending"))
    );
}
