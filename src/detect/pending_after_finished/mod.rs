//! `pending-after-finished`: a host-failure notification ended `finished` while an
//! instance's move never happened; the instance was left on the dead host.
//!
//! In `EvacuateInstancesTask` each instance is handled in a green thread that first
//! fetches and locks the server, outside the `try` that marks the VM move failed. When
//! Nova or Keystone fails there (Nova 503, Keystone unreachable or 401), the exception
//! leaves the thread, eventlet prints it to stderr only, the VM move stays `pending`,
//! and the task, counting only `succeeded`/`failed` moves, reports success
//! (Launchpad bug 2158101; upstream fix 4e6dd2e6).
//!
//! Inputs: Masakari engine log, or `notification vmove list` / `notification show`
//! captures (either suffices); Nova and Keystone logs and stderr captures (optional: they
//! show the API failure).
//!
//! Logic: in a recovery that ended `finished`, an instance with `Call get server
//! command` (or lock) but no evacuate call and no warning about it; or a VM move still
//! `pending`/`ongoing` under a `finished` notification. A recovery that failed properly
//! (`error`/`failed`) is not this.

mod measure;
mod tell;
#[cfg(test)]
mod tests;

use crate::correlate::recovery::RecoveryStatus;
use crate::detect::finding::Finding;
use crate::detect::{DetectContext, Detector};

/// The detector.
#[derive(Debug)]
pub struct PendingAfterFinished;

impl Detector for PendingAfterFinished {
    fn id(&self) -> &'static str {
        "pending-after-finished"
    }

    fn doc(&self) -> &'static str {
        "A host-failure notification ended `finished` while an instance's move never completed \
         (its VM move stayed `pending`): the instance was left on the dead host."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.host_failures()
            .filter(|r| r.final_status() == Some(RecoveryStatus::Finished))
            .filter_map(|r| measure::dropped(ctx, r))
            .map(|d| tell::finding(self.id(), ctx, d))
            .collect()
    }
}
