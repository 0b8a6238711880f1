//! The race told from real log lines: a short sleep, a quoted request on a skewed clock,
//! a blocked disable and its retries, and a 400 for another reason.

use crate::detect::context::testing::{engine, findings, start};

const N: &str = "3330353d-4f69-4f1d-b1f9-3977329fb2cd";
const G: &str = "5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a";
const I: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
const NOVA: &str = "masakari.compute.nova";

fn bundle(nova_says: &str) -> Vec<(&'static str, String)> {
    let mut log = start(N, G, "cmp02", 30);
    log += &engine(
        "10:03:17.500",
        G,
        "INFO",
        NOVA,
        &format!("Call evacuate command for instance {I} on host None"),
    );
    log += &engine(
        "10:03:18.900",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: error."),
    );
    let access = format!(
        "10.0.0.5 - - [21/May/2024:10:03:17 +0000] \"POST /v2.1/servers/{I}/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\"\n"
    );
    let api = format!(
        "2024-05-21 10:03:17.830 23 INFO nova.api.openstack.wsgi [req-{G} req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] HTTP exception thrown: {nova_says}\n\
         2024-05-21 10:03:17.840 23 INFO nova.api.openstack.requestlog [req-{G} req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] 10.0.0.5 \"POST /v2.1/servers/{I}/action\" status: 400 len: 96 microversion: 2.53 time: 0.31\n"
    );
    vec![
        ("ctl01/var/log/masakari/masakari-engine.log", log),
        (
            "ctl01/var/log/apache2/nova-api-os-compute_access.log",
            access,
        ),
        ("ctl01/var/log/nova/nova-api-wsgi.log", api),
    ]
}

fn run(files: &[(&'static str, String)]) -> Vec<crate::detect::Finding> {
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    findings("evacuate-400-race", &borrowed)
}

#[test]
fn a_400_still_in_use_after_a_short_sleep_is_the_race() {
    let found = run(&bundle("Compute service of cmp02 is still in use."));
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.severity, crate::detect::Severity::Critical);
    assert_eq!(f.instance_uuids, [I]);
    assert!(
        f.evidence
            .iter()
            .any(|e| e.text.contains("Sleeping 30 sec"))
    );
    assert!(f.evidence.iter().any(|e| e.text.contains("\" 400 540")));
    assert!(f.explanation.contains("slept 30 s"));
    assert_eq!(f.remediation.config_changes[0].recommended, "180");
    assert!(
        f.remediation
            .actions
            .iter()
            .any(|a| matches!(a, crate::detect::finding::Action::Evacuate { .. }))
    );
}

/// Pre-Zed lines: Masakari's warning quotes the Request-ID of Nova's 400, logged by a
/// nova-api whose clock is 95 s ahead, while another client's 202 for the same server
/// lands right after the call: the quoted request, not the join by time, answers it.
#[test]
fn the_quoted_request_id_answers_the_call_whatever_the_clocks() {
    const OLD_N: &str = "9ace2da7-97d1-48cb-a96a-08ad4624481b";
    const OLD_I: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
    let ctx = "[req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 masakari - - - -]";
    let nova_user = "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - 3d9c6f1a2b5e4c7d8e0f1a2b3c4d5e6f 3d9c6f1a2b5e4c7d8e0f1a2b3c4d5e6f";
    let engine = format!(
        "2020-12-08 19:48:43.781 1181 INFO masakari.engine.manager [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Processing notification {OLD_N} of type: COMPUTE_HOST\n\
         2020-12-08 19:48:43.947 1181 INFO masakari.compute.nova [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Disable nova-compute on node02.maas\n\
         2020-12-08 19:48:44.040 1181 INFO masakari.engine.drivers.taskflow.host_failure [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Sleeping 30 sec before starting recovery thread until nova recognizes the node down.\n\
         2020-12-08 19:49:14.100 1181 INFO masakari.compute.nova {ctx} Call lock server command for instance {OLD_I}\n\
         2020-12-08 19:49:14.300 1181 INFO masakari.compute.nova {ctx} Call evacuate command for instance {OLD_I} on host None\n\
         2020-12-08 19:49:14.700 1181 WARNING masakari.engine.drivers.taskflow.host_failure {ctx} Invalid input received: Compute service of node02.maas is still in use. (HTTP 400) (Request-ID: req-318cec6c-205b-4136-8bf2-69930e004b70)\n\
         2020-12-08 19:49:15.000 1181 INFO masakari.engine.manager [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Notification {OLD_N} exits with status: error.\n"
    );
    // nova-api on ctl02, 95 s ahead: the lock's 202 and the evacuate's 400.
    let skewed = format!(
        "2020-12-08 19:50:49.200 2280 INFO nova.api.openstack.requestlog [req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e {nova_user}] 10.0.0.5 \"POST /v2.1/servers/{OLD_I}/action\" status: 202 len: 0 microversion: 2.1 time: 0.12\n\
         2020-12-08 19:50:49.650 2280 INFO nova.api.openstack.wsgi [req-318cec6c-205b-4136-8bf2-69930e004b70 {nova_user}] HTTP exception thrown: Compute service of node02.maas is still in use.\n\
         2020-12-08 19:50:49.660 2280 INFO nova.api.openstack.requestlog [req-318cec6c-205b-4136-8bf2-69930e004b70 {nova_user}] 10.0.0.5 \"POST /v2.1/servers/{OLD_I}/action\" status: 400 len: 96 microversion: 2.1 time: 0.05\n"
    );
    // nova-api on ctl03, on time: another client's action on the server.
    let other = format!(
        "2020-12-08 19:49:14.380 3310 INFO nova.api.openstack.requestlog [req-7d1c2b3a-4e5f-4a6b-9c8d-0e1f2a3b4c5d {nova_user}] 10.0.0.9 \"POST /v2.1/servers/{OLD_I}/action\" status: 202 len: 0 microversion: 2.1 time: 0.08\n"
    );
    let found = run(&[
        ("ctl01/var/log/masakari/masakari-engine.log", engine),
        ("ctl02/var/log/nova/nova-api-wsgi.log", skewed),
        ("ctl03/var/log/nova/nova-api-wsgi.log", other),
    ]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.instance_uuids, [OLD_I]);
    assert!(f.evidence.iter().any(|e| e.text.contains("status: 400")));
    assert!(!f.evidence.iter().any(|e| e.text.contains("req-7d1c2b3a")));
}

const G2: &str = "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d";
const Q1: &str = "2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e";
const Q2: &str = "3c8d0e2f-4a5b-4c6d-9e7f-8a9b0c1d2e3f";

/// The engine's two runs for the blocked disable: each disables, sleeps, calls evacuate
/// and is refused; the periodic task then fails the notification.
fn blocked_disable_engine_log() -> String {
    let flow = "masakari.engine.drivers.taskflow.host_failure";
    let manager = "masakari.engine.manager";
    let warning = |q: &str| {
        format!(
            "Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q}): masakari.exception.InvalidInput: Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q})"
        )
    };
    let mut log = String::new();
    for (g, t) in [
        (
            G,
            [
                "10:02:47.100",
                "10:02:47.300",
                "10:03:47.400",
                "10:04:17.500",
                "10:04:17.900",
                "10:04:18.900",
            ],
        ),
        (
            G2,
            [
                "10:06:20.000",
                "10:06:20.200",
                "10:06:20.400",
                "10:06:50.500",
                "10:06:50.900",
                "10:06:51.000",
            ],
        ),
    ] {
        let q = if g == G { Q1 } else { Q2 };
        log += &engine(
            t[0],
            g,
            "INFO",
            manager,
            &format!("Processing notification {N} of type: COMPUTE_HOST"),
        );
        log += &engine(t[1], g, "INFO", NOVA, "Disable nova-compute on cmp02");
        log += &engine(
            t[2],
            g,
            "INFO",
            flow,
            "Sleeping 30 sec before starting recovery thread until nova recognizes the node down.",
        );
        log += &engine(
            t[3],
            g,
            "INFO",
            NOVA,
            &format!("Call evacuate command for instance {I} on host None"),
        );
        log += &engine(t[4], g, "WARNING", flow, &warning(q));
        log += &engine(
            t[5],
            g,
            "INFO",
            manager,
            &format!("Notification {N} exits with status: error."),
        );
    }
    log += &engine(
        "10:06:51.100",
        G2,
        "ERROR",
        manager,
        &format!(
            "Periodic task 'process_unfinished_notifications': Notification {N} exits with status: failed."
        ),
    );
    log
}

/// Nova's side: the trait update that timed out, the minute-long PUT, and the two 400s.
fn blocked_disable_api_log() -> String {
    let user =
        "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default";
    let nova = |time: &str, g: &str, l: &str, level: &str, logger: &str, m: &str| {
        format!("2024-05-21 {time} 23 {level} {logger} [req-{g} req-{l} {user}] {m}\n")
    };
    let put = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9";
    let put2 = "6f7a8b9c-0d1e-4f2a-b3c4-d5e6f7a8b9c0";
    let mut api = nova(
        "10:03:47.300",
        G,
        put,
        "ERROR",
        "nova.api.openstack.compute.services",
        "An error occurred while updating the COMPUTE_STATUS_DISABLED trait on compute node resource providers managed by host cmp02. The trait will be synchronized automatically by the compute service when the update_available_resource periodic task runs.: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID 5e1c9a0f3b7d4e28a6c2f9b0d1e3a475",
    );
    api += &nova(
        "10:03:47.350",
        G,
        put,
        "INFO",
        "nova.api.openstack.requestlog",
        "10.0.0.5 \"PUT /v2.1/os-services/dd34bbd8-701b-4030-a272-a0984b33f86c\" status: 200 len: 391 microversion: 2.53 time: 60.040000",
    );
    api += &nova(
        "10:06:20.190",
        G2,
        put2,
        "INFO",
        "nova.api.openstack.requestlog",
        "10.0.0.5 \"PUT /v2.1/os-services/dd34bbd8-701b-4030-a272-a0984b33f86c\" status: 200 len: 391 microversion: 2.53 time: 0.070000",
    );
    for (t, g, q) in [("10:04:17.850", G, Q1), ("10:06:50.850", G2, Q2)] {
        api += &nova(
            t,
            g,
            q,
            "INFO",
            "nova.api.openstack.wsgi",
            "HTTP exception thrown: Compute service of cmp02 is still in use.",
        );
        api += &nova(
            t,
            g,
            q,
            "INFO",
            "nova.api.openstack.requestlog",
            &format!(
                "10.0.0.5 \"POST /v2.1/servers/{I}/action\" status: 400 len: 96 microversion: 2.53 time: 0.31"
            ),
        );
    }
    api
}

/// The disable call blocked 60 s on an RPC to the dead compute, then Masakari's retry
/// was refused again and the notification failed: the explanation says all of it.
#[test]
fn a_blocked_disable_and_the_retries_are_explained() {
    let log = blocked_disable_engine_log();
    let api = blocked_disable_api_log();
    let found = run(&[
        ("ctl01/var/log/masakari/masakari-engine.log", log),
        ("ctl01/var/log/nova/nova-api-wsgi.log", api),
    ]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let text = &found[0].explanation;
    for words in [
        "blocked 60 s",
        "COMPUTE_STATUS_DISABLED",
        "MessagingTimeout",
        "retry 1",
        "refused with 400 again",
        "ended `failed`",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }
    assert!(
        found[0]
            .evidence
            .iter()
            .any(|e| e.text.contains("COMPUTE_STATUS_DISABLED trait"))
    );
}

/// Pre-Zed: no global id ties Nova's trait error to the run, and the minute-long PUT
/// is not joined to its call: the error naming the failed host while the call waited
/// still says why it blocked.
#[test]
fn a_blocked_disable_is_explained_before_zed() {
    let ctx = |r: &str| format!("[req-{r} nova - - - -]");
    let nova_ctx = |r: &str| {
        format!(
            "[req-{r} 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - default default]"
        )
    };
    let at = |t: &str, c: &str, level: &str, logger: &str, m: &str| {
        format!("2022-06-14 {t} 27 {level} {logger} {c} {m}\n")
    };
    let flow = "masakari.engine.drivers.taskflow.host_failure";
    let q = "2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e";
    let engine = [
        at("08:42:10.498", "[req-f6e0022f-137f-4f07-aecd-7d67ef8f3cf9 bf3686bb416757925c9f0959ca6d5555 46b51d97572c202cfc183d3027888f4b - default default]", "INFO", "masakari.engine.manager", &format!("Processing notification {N} of type: COMPUTE_HOST")),
        at("08:42:10.708", &ctx("e2470ddb-0148-48a8-b046-b433bacdbb0b"), "INFO", NOVA, "Disable nova-compute on cmp02"),
        at("08:43:10.958", &ctx("e2470ddb-0148-48a8-b046-b433bacdbb0b"), "INFO", flow, "Sleeping 10 sec before starting recovery thread until nova recognizes the node down."),
        at("08:43:21.344", &ctx("605a521d-6b51-44da-835c-d6e99aea0b63"), "INFO", NOVA, &format!("Call evacuate command for instance {I} on host None")),
        at("08:43:21.764", &ctx("28825d14-81a7-43b4-ba3a-16b082b0a451"), "WARNING", flow, &format!("Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q}): masakari.exception.InvalidInput: Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q})")),
        at("08:43:22.820", &ctx("fc71d7b6-265b-4e44-9682-88b9094ed4f8"), "INFO", "masakari.engine.manager", &format!("Notification {N} exits with status: error.")),
    ]
    .concat();
    let api = [
        at("08:43:10.801", &nova_ctx("3d76c0ab-9f45-4361-90b0-1ade49d1f7fb"), "ERROR", "nova.api.openstack.compute.services", "An error occurred while updating the COMPUTE_STATUS_DISABLED trait on compute node resource providers managed by host cmp02. The trait will be synchronized automatically by the compute service when the update_available_resource periodic task runs.: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID 5e1c9a0f3b7d4e28a6c2f9b0d1e3a475"),
        at("08:43:21.724", &nova_ctx(q), "INFO", "nova.api.openstack.wsgi", "HTTP exception thrown: Compute service of cmp02 is still in use."),
        at("08:43:21.724", &nova_ctx(q), "INFO", "nova.api.openstack.requestlog", &format!("10.30.0.11 \"POST /v2.1/servers/{I}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000")),
    ]
    .concat();
    let found = run(&[
        ("ctl01/var/log/kolla/masakari/masakari-engine.log", engine),
        ("ctl01/var/log/kolla/nova/nova-api.log", api),
    ]);
    assert_eq!(found.len(), 1, "{found:#?}");
    let text = &found[0].explanation;
    for words in [
        "blocked 60 s",
        "COMPUTE_STATUS_DISABLED",
        "MessagingTimeout",
    ] {
        assert!(text.contains(words), "{words}: {text}");
    }
}

#[test]
fn a_400_for_another_reason_is_not_the_race() {
    assert!(run(&bundle("The target host can't be the same one.")).is_empty());
}
