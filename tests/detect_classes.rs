//! The instance-HA failure classes beyond the first three (issue 29): each scenario gives
//! its finding with the host and the evidence lines its mechanism names, and its healthy
//! look-alike (the same logs without the failure) gives none.

use evacdoc::detect::{DetectOptions, Finding, detect};
use evacdoc::run::{Options, analyze};

use crate::util::samples;

fn findings(name: &str) -> Vec<Finding> {
    let analysis = analyze(
        &[samples().join("scenarios").join(name)],
        &Options::default(),
    )
    .unwrap();
    detect(&analysis, &DetectOptions::default())
}

/// The one finding of `detector` in `name`, and no other finding of the new classes.
fn only(name: &str, detector: &str) -> Finding {
    let all = findings(name);
    let mut of: Vec<Finding> = all
        .iter()
        .filter(|f| f.detector == detector)
        .cloned()
        .collect();
    assert_eq!(of.len(), 1, "{name}: {all:#?}");
    of.remove(0)
}

/// Whether some evidence line of `f` contains `text`.
fn cites(f: &Finding, text: &str) -> bool {
    f.evidence.iter().any(|e| e.text.contains(text))
}

#[test]
fn stuck_running_names_the_notification_host_and_its_three_lines() {
    let f = only(
        "2022-sosreport-notification-stuck-running",
        "notification-stuck-running",
    );
    assert_eq!(f.failed_host.as_deref(), Some("compute-2"));
    assert_eq!(
        f.notification_id.as_deref(),
        Some("c4e81f2a-7b3d-4a95-8e6c-1d2f3a4b5c6d")
    );
    assert_eq!(f.evidence.len(), 3, "{:#?}", f.evidence);
    assert!(cites(&f, "Processing notification c4e81f2a"));
    assert!(cites(&f, "Exception during message handling"));
    assert!(cites(&f, "is expired."));
    assert!(
        f.explanation
            .contains("novaclient.exceptions.ClientException")
    );
}

#[test]
fn a_recovered_vm_notification_is_not_stuck() {
    assert!(findings("2022-sosreport-instance-recovery-healthy").is_empty());
}

#[test]
fn join_epochs_name_the_dead_host_and_the_withheld_notification() {
    let f = only(
        "2025-kolla-hostmonitor-join-epoch",
        "hostmonitor-join-epoch",
    );
    assert_eq!(f.failed_host.as_deref(), Some("cmp02"));
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert!(cites(
        &f,
        "'cmp02' is '1750146131' (current: '1750146131')."
    ));
    assert!(cites(&f, "'cmp02' is '0' (current: '0')."));
    assert!(cites(
        &f,
        "Since host status is '0', hostmonitor doesn't send a notification."
    ));
    assert!(
        f.evidence
            .iter()
            .all(|e| e.path == "cmp01/var/log/kolla/masakari/masakari-hostmonitor.log")
    );
}

#[test]
fn a_monitor_reading_online_and_offline_is_not_an_epoch_reader() {
    assert!(findings("2025-kolla-healthy-recovery").is_empty());
}

#[test]
fn a_monitor_without_quorum_stood_down_and_notified_late() {
    let f = only("2023-juju-hostmonitor-no-quorum", "hostmonitor-stood-down");
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert_eq!(f.failed_host.as_deref(), Some("compute-2"));
    assert!(f.title.contains("compute-0") && f.title.contains("22 skipped cycles"));
    assert!(cites(&f, "Pacemaker cluster doesn't have quorum."));
    assert!(cites(&f, "hostmonitor skips monitoring hosts."));
    assert!(cites(&f, "Send a notification."));
}

#[test]
fn a_quorate_monitor_that_notifies_at_once_is_not_found() {
    assert!(findings("2023-juju-hostmonitor-quorate").is_empty());
}

#[test]
fn a_refused_host_name_names_the_host_and_both_sides_of_the_refusal() {
    let f = only(
        "2025-kolla-notification-host-not-found",
        "notification-rejected",
    );
    assert_eq!(f.failed_host.as_deref(), Some("cmp02.cloud.example.com"));
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert!(cites(&f, "'hostname': 'cmp02.cloud.example.com'"));
    assert!(cites(
        &f,
        "HTTP exception thrown: Host with name cmp02.cloud.example.com could not be found."
    ));
    assert!(cites(&f, "BadRequestException: 400"));
}

#[test]
fn a_duplicate_refused_while_the_first_notification_recovers_is_not_a_rejection() {
    // node02's monitor notified node03's failure after node01's had gone through and
    // set node03 on maintenance: 409, expected.
    assert!(
        findings("2024-no-reserved-host")
            .iter()
            .all(|f| f.detector != "notification-rejected")
    );
}

#[test]
fn two_flows_for_one_host_name_both_notifications_and_novas_refusals() {
    let f = only("2022-juju-two-flows-one-host", "duplicate-host-flows");
    assert_eq!(f.failed_host.as_deref(), Some("compute-2"));
    assert_eq!(
        f.notification_id.as_deref(),
        Some("a8e52c1f-6d9b-4a37-b0e4-3f1c7a9d5e26")
    );
    assert!(cites(
        &f,
        "Processing notification 71d3a9e2-4c8b-4f15-9e60-2b7a5d1c3f84"
    ));
    assert!(cites(
        &f,
        "Processing notification a8e52c1f-6d9b-4a37-b0e4-3f1c7a9d5e26"
    ));
    let refusals = f
        .evidence
        .iter()
        .filter(|e| e.text.contains("while it is in task_state rebuilding"))
        .count();
    assert_eq!(refusals, 2);
    assert_eq!(f.instance_uuids.len(), 2);
    // The second notification's own failure is explained here, not again as generic.
    assert!(findings("2022-juju-two-flows-one-host").len() == 1);
}

#[test]
fn one_flow_for_a_failed_host_is_not_a_duplicate() {
    assert!(findings("2022-juju-one-flow-one-host").is_empty());
}

#[test]
fn a_compute_refusing_to_start_after_its_recovery_is_named_with_its_refusals() {
    let f = only(
        "2025-kolla-compute-refuses-to-start",
        "compute-refuses-to-start",
    );
    assert_eq!(f.failed_host.as_deref(), Some("cmp02"));
    assert_eq!(
        f.notification_id.as_deref(),
        Some("9c1f4e2a-6b7d-4e3f-a8c5-2d1b0e9f7a63")
    );
    assert_eq!(f.evidence.len(), 2);
    assert!(
        f.evidence
            .iter()
            .all(|e| e.path == "cmp02/var/log/kolla/nova/nova-compute.log"
                && e.text.contains("No local node identity found"))
    );
    assert!(f.title.contains("3 tries"));
}

#[test]
fn a_refused_force_up_names_the_host_the_refusal_and_its_request() {
    let f = only("2024-sosreport-force-up-refused", "force-up-refused");
    assert_eq!(f.failed_host.as_deref(), Some("compute-3"));
    assert!(cites(
        &f,
        "Unable to force up host compute-3 as `done` evacuation migration records remain"
    ));
    assert!(cites(
        &f,
        "PUT /v2.1/os-services/2c7e9a41-5b3d-4f86-a0e2-9d1c4b7f3e58\" status: 400"
    ));
    assert_eq!(f.evidence.len(), 2);
}

#[test]
fn a_force_up_after_the_compute_restarted_is_not_found() {
    assert!(findings("2024-sosreport-force-up-after-restart").is_empty());
}

#[test]
fn a_source_restarted_mid_evacuation_names_the_instance_its_kept_disk_and_the_failed_move_back() {
    let f = only(
        "2024-sosreport-source-restart-mid-evacuation",
        "source-restart-mid-evacuation",
    );
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert_eq!(f.failed_host.as_deref(), Some("compute-1"));
    assert_eq!(f.instance_uuids, ["5d2c8e1a-7f3b-4a96-b0e4-9c1d3f5a7b28"]);
    assert!(cites(&f, "Evacuating instance"));
    assert!(cites(
        &f,
        "Destroying instance as it has been evacuated from this host but still exists in the hypervisor"
    ));
    assert!(cites(
        &f,
        "Failed to check if instance shared: oslo_messaging.exceptions.MessagingTimeout"
    ));
    assert!(cites(&f, "already exists, it is expected not to exist."));
    // The other instance had finished its evacuation before the restart: not found.
    assert!(!f.title.contains("c8a1f3e5"));
}

#[test]
fn a_source_restarted_after_its_evacuations_finished_is_not_found() {
    assert!(findings("2024-sosreport-source-restart-after-evacuation").is_empty());
}

#[test]
fn a_rebuild_pinned_for_older_computes_names_the_destination_the_instance_and_the_type_error() {
    let f = only(
        "2023-sosreport-rebuild-rpc-mismatch",
        "rebuild-rpc-mismatch",
    );
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert_eq!(f.failed_host.as_deref(), Some("compute-2"));
    assert_eq!(f.instance_uuids, ["9e4b2d7f-3c1a-4f85-a6e0-2d8c4b1f7a93"]);
    assert!(cites(
        &f,
        "TypeError: rebuild_instance() missing 1 required positional argument: 'target_state'"
    ));
    assert!(cites(
        &f,
        "POST /v2.1/servers/9e4b2d7f-3c1a-4f85-a6e0-2d8c4b1f7a93/action\" status: 200"
    ));
    assert!(f.explanation.contains("compute-1 3:26.2.0"));
}

#[test]
fn a_pinned_rebuild_on_a_fixed_compute_is_not_found() {
    assert!(findings("2023-sosreport-rebuild-rpc-pinned-fixed").is_empty());
}

#[test]
fn a_cinder_500_on_the_attachment_update_names_the_instance_the_attachment_and_both_sides() {
    let f = only(
        "2023-sosreport-cinder-attachment-500",
        "cinder-attachment-500",
    );
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert_eq!(f.failed_host.as_deref(), Some("compute-2"));
    assert_eq!(f.instance_uuids, ["2f7c9a1e-4b6d-4e83-9a5c-7d1f3b8e6a04"]);
    assert!(cites(&f, "Evacuating instance"));
    assert!(cites(
        &f,
        "Update attachment failed for attachment 4b1d8f2e-6a3c-4e9b-8d7f-0c2a5e9b1f36."
    ));
    assert!(cites(
        &f,
        "attachments/4b1d8f2e-6a3c-4e9b-8d7f-0c2a5e9b1f36 returned with HTTP 500"
    ));
    assert!(cites(&f, "Unable to update the attachment."));
    assert!(cites(&f, "Setting instance vm_state to ERROR"));
    assert!(
        f.evidence
            .iter()
            .any(|e| e.path.ends_with("var/log/cinder/cinder-api.log"))
    );
}

#[test]
fn a_cinder_500_retried_into_a_rebuilt_instance_is_not_found() {
    assert!(findings("2024-sosreport-cinder-attachment-500-retried").is_empty());
}

#[test]
fn an_exception_in_a_thread_pool_evacuation_worker_is_the_dropped_instances_failure() {
    let f = only(
        "2025-kolla-pending-after-finished-threadpool",
        "pending-after-finished",
    );
    assert_eq!(f.failed_host.as_deref(), Some("cmp02"));
    assert_eq!(f.instance_uuids, ["3f8a6d2c-9e1b-4c7a-8d5f-6a2b1c9e0d47"]);
    assert!(cites(
        &f,
        "Exception in evacuation thread: Unknown Error (HTTP 503)"
    ));
    assert!(f.explanation.contains("Exception in evacuation thread"));
    assert!(cites(&f, "exits with status: finished."));
}

#[test]
fn an_evacuation_before_the_host_was_fenced_names_the_host_the_first_call_and_the_late_fencing() {
    let all = findings("2024-sosreport-evacuated-unfenced");
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only("2024-sosreport-evacuated-unfenced", "evacuated-unfenced");
    assert_eq!(f.severity, evacdoc::detect::Severity::Warning);
    assert_eq!(f.failed_host.as_deref(), Some("compute-1"));
    assert_eq!(
        f.notification_id.as_deref(),
        Some("3f9d2b6e-8a1c-4e57-b0d3-6c2a9e4f1b87")
    );
    assert_eq!(f.instance_uuids.len(), 2);
    assert!(cites(
        &f,
        "Call evacuate command for instance 5c8e1a3f-2b7d-4e96-8a40-1f3d9c6b2e75"
    ));
    // The fencing that succeeded only after the evacuation, and the two failures before.
    assert!(cites(&f, "completed='2024-05-21 10:05:58Z'"));
    assert!(cites(&f, "reboot of compute-1 failed"));
    assert!(
        f.summary
            .contains("only 2 min 23 s after the first evacuation"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("2 fencing record(s)"), "{}", f.summary);
}

#[test]
fn an_evacuation_after_the_host_was_fenced_is_not_found() {
    assert!(findings("2024-sosreport-evacuated-after-fencing").is_empty());
}

#[test]
fn accepted_notifications_left_in_a_queue_without_consumer_name_the_queue_and_the_202() {
    let all = findings("2023-sosreport-engine-not-consuming");
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only(
        "2023-sosreport-engine-not-consuming",
        "engine-not-consuming",
    );
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert!(
        f.title.contains("queue ha_engine has 1 message(s)"),
        "{}",
        f.title
    );
    assert!(cites(&f, "\"POST /v1/notifications HTTP/1.1\" 202"));
    assert!(cites(&f, "ha_engine\tfalse\tfalse\t[]"));
}

#[test]
fn a_notification_the_engine_processed_is_not_left_unconsumed() {
    assert!(findings("2023-sosreport-engine-consuming").is_empty());
}

#[test]
fn a_consul_monitor_failing_in_every_loop_names_its_host_the_count_and_the_unset_agent() {
    let all = findings("2024-sunbeam-consul-monitor-failing");
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only(
        "2024-sunbeam-consul-monitor-failing",
        "consul-monitor-failing",
    );
    assert_eq!(f.severity, evacdoc::detect::Severity::Warning);
    assert!(f.title.contains("sunbeam-2"), "{}", f.title);
    assert!(f.summary.contains("61 times"), "{}", f.summary);
    assert!(
        f.summary.contains("before masakari-monitors 19.0.0"),
        "{}",
        f.summary
    );
    assert_eq!(f.evidence.len(), 2, "{:#?}", f.evidence);
    assert!(cites(
        &f,
        "Exception when host-monitor by consul: 'NoneType' object has no attribute 'get_health'"
    ));
}

#[test]
fn a_consul_monitor_that_notified_after_its_failures_is_not_failing() {
    assert!(findings("2024-sunbeam-consul-monitor-recovered").is_empty());
}

#[test]
fn a_k8s_notification_without_host_status_names_the_node_the_notification_and_both_sides() {
    let all = findings("2025-helm-k8s-monitor-no-host-status");
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only(
        "2025-helm-k8s-monitor-no-host-status",
        "k8s-monitor-no-host-status",
    );
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert_eq!(f.failed_host.as_deref(), Some("compute-2"));
    assert_eq!(
        f.notification_id.as_deref(),
        Some("e7c3a91f-4d2b-4f8e-b6a5-0c9d1e2f3a84")
    );
    assert_eq!(f.evidence.len(), 4, "{:#?}", f.evidence);
    assert!(cites(
        &f,
        "Host compute-2 needs recovery, health status: False."
    ));
    assert!(cites(&f, "'payload': {'event': 'STOPPED'}}}"));
    assert!(cites(
        &f,
        "notification_uuid=e7c3a91f-4d2b-4f8e-b6a5-0c9d1e2f3a84"
    ));
    assert!(cites(&f, "ignored as host_status is not provided."));
}

#[test]
fn a_k8s_notification_with_host_status_is_recovered_and_not_found() {
    assert!(findings("2026-helm-k8s-monitor-host-status").is_empty());
}

#[test]
fn a_notification_without_host_status_from_another_sender_stays_recovery_failed() {
    let all = findings("2024-ignored-no-host-status");
    assert!(
        !all.iter()
            .any(|f| f.detector == "k8s-monitor-no-host-status"),
        "{all:#?}"
    );
    assert!(all.iter().any(|f| f.detector == "recovery-failed"
        && f.notification_id.as_deref() == Some("3d8a1f5c-9b2e-4c7a-8f0d-6e4b2a9c1d75")));
}

#[test]
fn pacemakers_own_log_tells_an_evacuation_before_the_fencing_without_a_history() {
    let all = findings("2024-sosreport-evacuated-unfenced-pacemaker-log");
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only(
        "2024-sosreport-evacuated-unfenced-pacemaker-log",
        "evacuated-unfenced",
    );
    assert_eq!(f.failed_host.as_deref(), Some("compute-1"));
    assert!(
        f.summary
            .contains("Pacemaker's log of the fencing has no successful"),
        "{}",
        f.summary
    );
    assert!(f.summary.contains("only 2 min 23 s after"), "{}", f.summary);
    assert!(f.summary.contains("2 fencing record(s)"), "{}", f.summary);
    // fenced's three results, each once (the controller's lines say the same).
    assert_eq!(f.evidence.len(), 4, "{:#?}", f.evidence);
    assert!(
        f.evidence
            .iter()
            .skip(1)
            .all(|e| e.path.ends_with("var/log/pacemaker/pacemaker.log")
                && e.text.contains("pacemaker-fenced"))
    );
    assert!(cites(
        &f,
        "Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK | id=b94a2d6c"
    ));
    // The year came from the bundle: the success is placed on 2024-05-21.
    let ok = f.evidence.last().unwrap();
    assert_eq!(
        ok.timestamp.as_deref(),
        Some("2024-05-21T10:05:58.406Z"),
        "{ok:#?}"
    );
}

#[test]
fn a_fencing_syslog_shows_before_the_evacuation_is_not_found() {
    assert!(findings("2024-sosreport-fenced-before-evacuation-syslog").is_empty());
}

#[test]
fn without_the_monitors_log_the_configured_kubernetes_driver_is_named_as_inferred() {
    let name = "2025-helm-k8s-config-no-monitor-log";
    let all = findings(name);
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only(name, "k8s-monitor-no-host-status");
    assert_eq!(f.severity, evacdoc::detect::Severity::Critical);
    assert_eq!(
        f.notification_id.as_deref(),
        Some("5a1d7e3c-9b4f-4c2a-8e6d-1f0b3a9c7e52")
    );
    // No monitor log: the node is not known, and the wording says the sender is inferred.
    assert_eq!(f.failed_host, None);
    assert!(
        f.title.contains("inferred from its configuration"),
        "{}",
        f.title
    );
    assert!(
        f.summary.contains("inferred from that setting"),
        "{}",
        f.summary
    );
    // The setting, the engine's two lines, the capture's command line and its uuid row.
    assert_eq!(f.evidence.len(), 5, "{:#?}", f.evidence);
    assert!(f.evidence[0].path.ends_with("masakarimonitors.conf"));
    assert!(cites(&f, "monitoring_driver = kubernetes"));
    assert!(cites(&f, "of type: COMPUTE_HOST"));
    assert!(cites(&f, "ignored as host_status is not provided."));
    assert!(cites(&f, "5a1d7e3c-9b4f-4c2a-8e6d-1f0b3a9c7e52 |"));
}

#[test]
fn the_configured_kubernetes_driver_that_sends_host_status_is_recovered_and_not_found() {
    assert!(findings("2026-helm-k8s-config-host-status").is_empty());
}

#[test]
fn pacemaker_1_1_stonith_ng_and_crmd_tell_an_evacuation_before_the_fencing() {
    let name = "2019-sosreport-bionic-evacuated-unfenced-pacemaker11";
    let all = findings(name);
    assert_eq!(all.len(), 1, "{all:#?}");
    let f = only(name, "evacuated-unfenced");
    assert_eq!(f.failed_host.as_deref(), Some("compute-1"));
    assert!(f.summary.contains("only 2 min 23 s after"), "{}", f.summary);
    assert!(f.summary.contains("2 fencing record(s)"), "{}", f.summary);
    // stonith-ng's three results, each once (crmd's lines say the same).
    assert_eq!(f.evidence.len(), 4, "{:#?}", f.evidence);
    assert!(
        f.evidence
            .iter()
            .skip(1)
            .all(|e| e.path.ends_with("var/log/syslog") && e.text.contains(" stonith-ng[2152]: ")),
        "{:#?}",
        f.evidence
    );
    assert!(cites(
        &f,
        "Operation reboot of compute-1 by ctl-2 for crmd.2156@ctl-1.b94a2d6c: OK"
    ));
    let ok = f.evidence.last().unwrap();
    assert_eq!(
        ok.timestamp.as_deref(),
        Some("2019-03-12T10:05:58.000Z"),
        "{ok:#?}"
    );
}

#[test]
fn pacemaker_1_1_fencing_before_the_evacuation_is_not_found() {
    assert!(findings("2019-sosreport-bionic-fenced-before-evacuation-pacemaker11").is_empty());
}
