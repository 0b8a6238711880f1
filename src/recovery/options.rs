//! What a host recovery moves and how long it waits: Masakari's `[host_failure]` choices,
//! Nova's liveness timing, and the executor's own bounds.

use std::collections::BTreeSet;
use std::time::Duration;

use super::retry::RetryPolicy;

/// Masakari's `[host_failure] service_disable_reason`, prefixed so an operator sees who did it.
pub const DISABLE_REASON: &str = "evacdoc: host failed, instances evacuated";

/// The lock reason Nova shows (2.73+): who holds the lock, and how a later run knows a
/// lock left by a killed evacdoc run is its own to release.
pub const LOCK_REASON: &str = "evacdoc: evacuating from a failed host";

/// Which instances of the failed host to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Selection {
    /// Masakari's `evacuate_all_instances` (default true): also the instances without the
    /// HA metadata, after the HA-enabled ones.
    pub all_instances: bool,
    /// Masakari's `ha_enabled_instance_metadata_key`.
    pub ha_metadata_key: String,
    /// Masakari's `ignore_instances_in_error_state` (default false).
    pub ignore_error_instances: bool,
    /// Only these instances (a remediation of the ones a finding names); the host's
    /// others are left alone, not even journaled.
    pub only_instances: Option<BTreeSet<String>>,
}

impl Default for Selection {
    fn default() -> Self {
        Selection {
            all_instances: true,
            ha_metadata_key: "HA_Enabled".to_owned(),
            ignore_error_instances: false,
            only_instances: None,
        }
    }
}

/// How a recovery runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RecoveryOptions {
    pub selection: Selection,
    /// The operator states the host is powered off or isolated: its service may be forced down.
    pub host_fenced: bool,
    /// Moves run at once at most (Masakari's `host_failure_recovery_threads` is 3).
    pub parallelism: usize,
    /// Nova's `service_down_time` as the executor assumes it (Nova does not publish it).
    pub service_down_time: Duration,
    /// Added to `service_down_time` before giving up on Nova seeing the host down
    /// (a heartbeat can land just before the host died).
    pub down_margin: Duration,
    /// How long one instance may take from evacuate to its state on another host.
    pub rebuild_timeout: Duration,
    /// Between two reads of a server or service while waiting.
    pub poll_interval: Duration,
    pub retry: RetryPolicy,
    /// The `disabled_reason` given to Nova.
    pub disable_reason: String,
    /// No evacuation when more than this share (%) of the computes is down (InstanceHA's
    /// `THRESHOLD`, 50 by default).
    pub max_down_percent: u8,
}

impl Default for RecoveryOptions {
    fn default() -> Self {
        RecoveryOptions {
            selection: Selection::default(),
            host_fenced: false,
            parallelism: 8,
            service_down_time: Duration::from_secs(60),
            down_margin: Duration::from_secs(20),
            rebuild_timeout: Duration::from_secs(600),
            poll_interval: Duration::from_secs(2),
            retry: RetryPolicy::default(),
            disable_reason: DISABLE_REASON.to_owned(),
            max_down_percent: 50,
        }
    }
}

impl RecoveryOptions {
    /// How long to wait for Nova to see an unfenced host down before refusing.
    pub fn wait_for_down(&self) -> Duration {
        self.service_down_time + self.down_margin
    }
}
