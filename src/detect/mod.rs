//! Detectors: pure functions over an [`Analysis`](crate::correlate::Analysis) that name what went wrong in a Masakari
//! recovery, with the evidence. One file per detector; [`DETECTORS`](crate::detect::DETECTORS) lists them all.

mod bfv_evacuation_delay;
mod cinder_attachment_500;
mod compute_refuses_to_start;
mod consul_monitor_failing;
pub(crate) mod context;
mod duplicate_host_flows;
mod engine_not_consuming;
mod evacuate_400_chain;
pub(crate) mod evacuate_400_race;
mod evacuated_unfenced;
mod evacuation_race_risk;
mod evidence;
mod explained;
pub mod finding;
mod force_up_refused;
mod hostmonitor_join_epoch;
mod hostmonitor_stood_down;
#[cfg(test)]
mod interleaved_tests;
mod k8s_monitor_no_host_status;
mod monitor_lines;
mod notification_rejected;
mod notification_stuck;
mod pending_after_finished;
mod picture;
mod quote;
mod race_story;
mod rebuild_rpc_mismatch;
mod recovery_failed;
mod repeated;
mod source_restart_mid_evacuation;

pub use context::{DetectContext, DetectOptions, Ownership, run_all};
pub use finding::{Finding, Severity};
pub use picture::{finding_picture, finding_picture_events};

use crate::correlate::Analysis;

/// A detector.
pub trait Detector: Sync {
    /// The stable id (`evacuate-400-race`); never renamed.
    fn id(&self) -> &'static str;
    /// What the failure is, for a reader who has never seen it (the file's doc comment
    /// says more).
    fn doc(&self) -> &'static str;
    /// The findings in `ctx`.
    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding>;
}

/// Every detector, in the order findings are reported.
pub static DETECTORS: &[&dyn Detector] = &[
    &evacuate_400_race::Evacuate400Race,
    &pending_after_finished::PendingAfterFinished,
    &bfv_evacuation_delay::BfvEvacuationDelay,
    &evacuation_race_risk::EvacuationRaceRisk,
    &notification_stuck::NotificationStuckRunning,
    &hostmonitor_join_epoch::HostmonitorJoinEpoch,
    &hostmonitor_stood_down::HostmonitorStoodDown,
    &notification_rejected::NotificationRejected,
    &duplicate_host_flows::DuplicateHostFlows,
    &compute_refuses_to_start::ComputeRefusesToStart,
    &force_up_refused::ForceUpRefused,
    &source_restart_mid_evacuation::SourceRestartMidEvacuation,
    &rebuild_rpc_mismatch::RebuildRpcMismatch,
    &cinder_attachment_500::CinderAttachment500,
    &evacuated_unfenced::EvacuatedUnfenced,
    &engine_not_consuming::EngineNotConsuming,
    &consul_monitor_failing::ConsulMonitorFailing,
    &k8s_monitor_no_host_status::K8sMonitorNoHostStatus,
    &recovery_failed::RecoveryFailed,
];

/// Runs every detector over `analysis`.
pub fn detect(analysis: &Analysis, options: &DetectOptions) -> Vec<Finding> {
    run_all(analysis, options)
}
