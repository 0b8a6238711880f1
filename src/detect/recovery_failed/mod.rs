//! `recovery-failed`: a recovery that ended `error`, `failed` or `ignored` for a reason
//! outside the three failure classes, named for what it is: Keystone refusing
//! Masakari's credentials, no reserved host left, a notification ignored for its
//! `host_status`, Nova unreachable, an evacuation timing out.
//!
//! It exists so that failures nobody has a detector for are still reported, and never
//! misclassified as one of the three: the runner drops it for a notification another
//! failure class explains.
//!
//! Inputs: Masakari engine log, or a `notification show` capture.
//!
//! Logic: the recovery's final status; the reason from the error summaries and
//! tracebacks of the attempt's warnings and errors, matched against known causes.

mod causes;
mod measure;
mod tell;
#[cfg(test)]
mod tests;

use crate::detect::finding::Finding;
use crate::detect::{DetectContext, Detector};

/// The detector.
#[derive(Debug)]
pub struct RecoveryFailed;

impl Detector for RecoveryFailed {
    fn id(&self) -> &'static str {
        "recovery-failed"
    }

    fn doc(&self) -> &'static str {
        "A Masakari recovery ended error, failed or ignored for a reason outside the three failure \
         classes (Keystone 401, no reserved host, missing host_status, ...), named for what it is."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.recoveries
            .iter()
            .filter_map(|r| measure::failure(ctx, r))
            .map(|f| tell::finding(self.id(), ctx, f))
            .collect()
    }
}
