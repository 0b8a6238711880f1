use super::*;
use crate::detect::context::testing::analysis_of;
use crate::detect::{DetectOptions, run_all};

const N: &str = "e7c3a91f-4d2b-4f8e-b6a5-0c9d1e2f3a84";
const CTX: &str = "[None req-1d7f3b9e-6a2c-4e8d-b5f1-3c9a7e2d4b60 5f2a9c7e1b3d4e6f8a0c2e4b6d8f1a3c 9b1d3f5a7c2e4a6c8e0b2d4f6a8c1e3b - - default default]";

/// The kubernetes monitor's loop that notifies compute-2 (20.0.0 payload unless
/// `payload` says otherwise), with or without the notifier's `Response:` line.
fn monitor_log(payload: &str, response: bool) -> String {
    let mon = "masakarimonitors.hostmonitor.kubernetes_check.manager";
    let mut lines = vec![
        format!(
            "2025-11-04 03:16:17.322 1 INFO {mon} [-] Monitoring data: {{'compute-1': deque(['True', 'True', 'True'], maxlen=3), 'compute-2': deque(['Unknown', 'Unknown', 'Unknown'], maxlen=3)}}"
        ),
        format!(
            "2025-11-04 03:16:17.324 1 INFO {mon} [-] Host compute-2 needs recovery, health status: False."
        ),
        format!(
            "2025-11-04 03:16:17.325 1 INFO masakarimonitors.ha.masakari [-] Send a notification. {{'notification': {{'type': 'COMPUTE_HOST', 'hostname': 'compute-2', 'generated_time': datetime.datetime(2025, 11, 4, 3, 16, 17, 325314), 'payload': {payload}}}}}"
        ),
    ];
    if response {
        lines.push(format!("2025-11-04 03:16:17.711 1 INFO masakarimonitors.ha.masakari [-] Response: openstack.instance_ha.v1.notification.Notification(type=COMPUTE_HOST, hostname=compute-2, generated_time=2025-11-04T03:16:17.325314, payload={payload}, id=143, notification_uuid={N}, source_host_uuid=a4c2e8f6-3b1d-4f9e-8c7a-5d2b1e0f9c38, status=new, created_at=2025-11-04T03:16:17.000000, updated_at=None, location=Munch({{'cloud': 'envvars', 'region_name': 'RegionOne', 'zone': None, 'project': Munch({{'id': '9b1d3f5a7c2e4a6c8e0b2d4f6a8c1e3b', 'name': 'service', 'domain_id': None, 'domain_name': 'service'}})}}))"));
    }
    lines.join("\n") + "\n"
}

fn engine_log() -> String {
    [
            format!("2025-11-04 03:16:17.475 1 INFO masakari.engine.manager {CTX} Processing notification {N} of type: COMPUTE_HOST"),
            format!("2025-11-04 03:16:17.504 1 WARNING masakari.engine.manager {CTX} Notification '{N}' ignored as host_status is not provided."),
            format!("2025-11-04 03:16:17.508 1 INFO masakari.engine.manager {CTX} Notification {N} exits with status: ignored."),
        ]
        .join("\n")
            + "\n"
}

fn detectors(monitor: &str) -> Vec<(&'static str, Option<String>)> {
    let engine = engine_log();
    let analysis = analysis_of(&[
        ("ctl-2/var/log/masakari/masakari-hostmonitor.log", monitor),
        ("ctl-1/var/log/masakari/masakari-engine.log", &engine),
    ]);
    run_all(&analysis, &DetectOptions::default())
        .into_iter()
        .map(|f| (f.detector, f.notification_id))
        .collect()
}

#[test]
fn the_lines_are_read() {
    assert_eq!(
        ignored_without_status(&format!(
            "Notification '{N}' ignored as host_status is not provided."
        )),
        Some(N)
    );
    assert_eq!(
        ignored_without_status(&format!(
            "Notification '{N}' ignored as host_status is 'UNKNOWN'"
        )),
        None
    );
    assert_eq!(
        needs_recovery("Host compute-2 needs recovery, health status: False."),
        Some("compute-2")
    );
    assert_eq!(
        response_uuid(&format!(
            "Response: openstack.instance_ha.v1.notification.Notification(type=COMPUTE_HOST, id=143, notification_uuid={N}, status=new)"
        )),
        Some(N)
    );
    assert!(payload_without_status(
        "Send a notification. {'notification': {'hostname': 'compute-2', 'payload': {'event': 'STOPPED'}}}"
    ));
    assert!(!payload_without_status(
        "Send a notification. {'notification': {'hostname': 'compute-2', 'payload': {'event': 'STOPPED', 'host_status': 'NORMAL'}}}"
    ));
}

#[test]
fn every_cut_of_the_lines_is_read_without_panic() {
    let log = monitor_log("{'event': 'STOPPED', 'nœud': 'é'}", true) + &engine_log();
    for line in log.lines() {
        let message = line.split("[-] ").nth(1).unwrap_or(line);
        for (end, _) in message.char_indices() {
            for cut in [&message[..end], &message[end..]] {
                let _ = ignored_without_status(cut);
                let _ = needs_recovery(cut);
                let _ = response_uuid(cut);
                let _ = payload_without_status(cut);
            }
        }
    }
}

#[test]
fn an_ignored_k8s_notification_is_found_and_not_reported_twice() {
    for response in [true, false] {
        let found = detectors(&monitor_log("{'event': 'STOPPED'}", response));
        assert_eq!(
            found,
            [("k8s-monitor-no-host-status", Some(N.to_string()))],
            "response line: {response}"
        );
    }
}

#[test]
fn another_senders_payload_is_left_to_recovery_failed() {
    // The same ignore, but the monitor that sent a notification is Pacemaker's and its
    // payload carried host_status: the ignored one came from elsewhere.
    let handle = "masakarimonitors.hostmonitor.host_handler.handle_host";
    let monitor = format!(
        "2025-11-04 03:16:16.101 19 INFO {handle} [-] 'compute-2' is 'offline'.\n\
             2025-11-04 03:16:17.325 19 INFO masakarimonitors.ha.masakari [-] Send a notification. {{'notification': {{'type': 'COMPUTE_HOST', 'hostname': 'compute-2', 'generated_time': datetime.datetime(2025, 11, 4, 3, 16, 16, 103187), 'payload': {{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}}}}}}\n"
    );
    assert_eq!(
        detectors(&monitor),
        [("recovery-failed", Some(N.to_string()))]
    );
    // The fixed kubernetes monitor's payload is not this class either.
    let fixed = monitor_log("{'event': 'STOPPED', 'host_status': 'NORMAL'}", true);
    assert!(
        !detectors(&fixed)
            .iter()
            .any(|(d, _)| *d == "k8s-monitor-no-host-status")
    );
}

/// openstack-helm's masakarimonitors.conf (the chart's `conf.masakarimonitors`, the
/// host section set to the kubernetes driver), as `kubectl get secret masakari-etc`
/// decodes it.
fn monitors_conf(driver: &str) -> String {
    format!(
        "[DEFAULT]\ndebug = False\n\n[api]\napi_interface = internal\napi_version = v1\n\n\
             [host]\ncorosync_multicast_ports = 5405\ndisable_ipmi_checks = true\n\
             monitoring_driver = {driver}\nmonitoring_interval = 60\nmonitoring_samples = 3\n"
    )
}

/// `openstack notification show <N>` with `payload`, as python-masakariclient prints it.
fn notification_show(payload: &str) -> String {
    format!(
        "$ openstack notification show {N}\n\
             +------------------------+--------------------------------------+\n\
             | Field                  | Value                                |\n\
             +------------------------+--------------------------------------+\n\
             | created_at             | 2025-11-04T03:16:17.000000           |\n\
             | updated_at             | 2025-11-04T03:16:17.000000           |\n\
             | notification_uuid      | {N} |\n\
             | type                   | COMPUTE_HOST                         |\n\
             | status                 | ignored                              |\n\
             | source_host_uuid       | a4c2e8f6-3b1d-4f9e-8c7a-5d2b1e0f9c38 |\n\
             | generated_time         | 2025-11-04T03:16:17.000000           |\n\
             | payload                | {payload} |\n\
             +------------------------+--------------------------------------+\n"
    )
}

/// The detectors and the k8s finding of a bundle of the engine's log and `extra`.
fn inferred(extra: &[(&str, &str)]) -> (Vec<(&'static str, Option<String>)>, Option<Finding>) {
    let engine = engine_log();
    let mut files = vec![(
        "ctl-1/var/log/masakari/masakari-engine.log",
        engine.as_str(),
    )];
    files.extend_from_slice(extra);
    let analysis = analysis_of(&files);
    let found = run_all(&analysis, &DetectOptions::default());
    let k8s = found
        .iter()
        .find(|f| f.detector == "k8s-monitor-no-host-status")
        .cloned();
    (
        found
            .into_iter()
            .map(|f| (f.detector, f.notification_id))
            .collect(),
        k8s,
    )
}

const CONF: &str = "k8s/openstack/secret/masakari-etc/masakarimonitors.conf";
const SHOW: &str = "commands/openstack_notification_show.txt";

#[test]
fn the_configured_kubernetes_monitor_is_inferred_without_its_log() {
    let conf = monitors_conf("kubernetes");
    let show = notification_show("{'event': 'STOPPED'}");
    for extra in [
        vec![(CONF, conf.as_str())],
        vec![(CONF, conf.as_str()), (SHOW, show.as_str())],
    ] {
        let (found, k8s) = inferred(&extra);
        assert_eq!(found, [("k8s-monitor-no-host-status", Some(N.to_string()))]);
        let f = k8s.unwrap();
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.failed_host, None);
        assert!(
            f.summary.contains("inferred from that setting"),
            "{}",
            f.summary
        );
        assert!(
            f.evidence.iter().any(|e| e.path == CONF
                && e.line == 11
                && e.text == "monitoring_driver = kubernetes"),
            "{:#?}",
            f.evidence
        );
        assert!(
            f.evidence
                .iter()
                .any(|e| e.text.contains("ignored as host_status is not provided"))
        );
        assert_eq!(
            f.evidence.iter().any(|e| e.path == SHOW),
            extra.len() == 2,
            "{:#?}",
            f.evidence
        );
    }
}

#[test]
fn no_inference_without_the_setting_or_against_the_evidence() {
    // The default (pacemaker) driver, no configuration, a webhook's payload, the fixed
    // monitor's package: recovery-failed tells the ignored notification, as before.
    let default = monitors_conf("default");
    let kubernetes = monitors_conf("kubernetes");
    let webhook = notification_show("{'event': 'STOPPED', 'cluster_status': 'OFFLINE'}");
    let dpkg = "Desired=Unknown/Install/Remove/Purge/Hold\n\
                    | Status=Not/Inst/Conf-files/Unpacked/halF-conf/Half-inst/trig-aWait/Trig-pend\n\
                    |/ Err?=(none)/Reinst-required (Status,Err: uppercase=bad)\n\
                    ||/ Name                                 Version                                 Architecture Description\n\
                    +++-====================================-=======================================-============-================================================================================\n\
                    ii  masakari-monitors-common             21.0.0-0ubuntu1                         all          OpenStack Masakari Monitors - common files\n";
    let cases: [Vec<(&str, &str)>; 4] = [
        vec![(CONF, default.as_str())],
        vec![],
        vec![(CONF, kubernetes.as_str()), (SHOW, webhook.as_str())],
        vec![
            (CONF, kubernetes.as_str()),
            ("sos_commands/dpkg/dpkg_-l", dpkg),
        ],
    ];
    for extra in cases {
        let (found, _) = inferred(&extra);
        assert_eq!(
            found,
            [("recovery-failed", Some(N.to_string()))],
            "{extra:?}"
        );
    }
    // A host monitor's log is in the bundle: it tells its own sends (here the
    // pacemaker driver's, with host_status), nothing is inferred over it.
    let handle = "masakarimonitors.hostmonitor.host_handler.handle_host";
    let monitor =
        format!("2025-11-04 03:16:16.101 19 INFO {handle} [-] 'compute-2' is 'offline'.\n");
    let engine = engine_log();
    let analysis = analysis_of(&[
        ("ctl-2/var/log/masakari/masakari-hostmonitor.log", &monitor),
        ("ctl-1/var/log/masakari/masakari-engine.log", &engine),
        (CONF, &kubernetes),
    ]);
    let ctx = crate::detect::DetectContext::new(&analysis, DetectOptions::default());
    assert!(infer(&ctx, &measure(&ctx)).is_empty());
}
