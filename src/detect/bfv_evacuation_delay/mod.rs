//! `bfv-evacuation-delay`: a boot-from-volume instance's evacuation started, but Nova
//! accepted it, or rebuilt it, many minutes later, while the other instances of the
//! recovery moved fast.
//!
//! A boot-from-volume instance keeps its disk in Cinder. With a volume type that is not
//! multiattach, the destination can attach the volume only once its attachment to the
//! dead host is gone, and a powered-off host cannot detach it. Nova's rebuild waits (or
//! fails and is retried) until the source comes back or someone clears the attachment.
//! Masakari reports the evacuation started, and may even report the recovery finished,
//! long before the instance runs again (Launchpad bug 2158101, previous description:
//! there Nova recorded the evacuation 13 minutes after Masakari started it).
//!
//! Inputs: Masakari engine log (the evacuate call) or `notification show` progress
//! details (`Evacuation of instance started`); Nova API access or request log, or
//! `server event list` (Nova's acceptance); Nova compute or conductor lines for the
//! instance (`disk on volume, evacuating using existing volume`, spawned); optional
//! Cinder logs (attachment errors) and `volume show` / `server show` captures.
//!
//! Logic: per instance, two gaps (see `bfv_gaps`): from Masakari's start to Nova's
//! acceptance, and from the acceptance to the rebuild done on the destination (from the
//! start to the rebuild when nothing says when Nova accepted). Either over the
//! threshold (5 minutes by default) for an instance booted from a volume is a finding
//! that names the gap; a boot-from-volume instance that moved promptly, or an instance
//! restarted in place, is not.

mod gaps;
mod measure;
mod tell;
#[cfg(test)]
mod tests;

use crate::detect::finding::Finding;
use crate::detect::{DetectContext, Detector};

/// The detector.
#[derive(Debug)]
pub struct BfvEvacuationDelay;

impl Detector for BfvEvacuationDelay {
    fn id(&self) -> &'static str {
        "bfv-evacuation-delay"
    }

    fn doc(&self) -> &'static str {
        "A boot-from-volume instance's evacuation started but Nova only accepted or rebuilt it \
         much later (its volume still attached to the dead host, multiattach off), while other \
         instances moved quickly."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.host_failures()
            .filter_map(|r| {
                let moves = gaps::moves(ctx, r);
                let delay = measure::delay(ctx, r, &moves)?;
                Some(tell::finding(self.id(), ctx, &delay))
            })
            .collect()
    }
}
