//! `evacuate-400-race`: Masakari asked Nova to evacuate while Nova still saw the failed
//! host's compute service as up, and Nova refused with HTTP 400.
//!
//! Masakari disables the failed host's nova-compute, sleeps
//! `wait_period_after_service_update` seconds (charm option `evacuation-delay`), then
//! calls evacuate. Nova accepts an evacuation only once its servicegroup check says the
//! source service is down: `service_down_time` seconds after the last heartbeat, which
//! the service sends every `report_interval` seconds. Masakari never forces the service
//! down, so when the sleep is shorter than Nova's detection (or the host kept
//! heartbeating for a while after Masakari was told it failed), evacuate returns
//! `400 Compute service of <host> is still in use.`.
//!
//! Inputs: Masakari engine log (required); Nova API access log and/or nova-api log
//! (either shows the 400; old Masakari releases log nothing about it, so the join with
//! Nova's lines is the only way); masakari.conf and nova.conf (optional, for the
//! explanation and the fix).
//!
//! Logic: for each evacuate call of a host-failure recovery, the status Nova answered
//! (joined access or request-log line), Nova's own message for that request (`Compute
//! service of X is still in use.`, `expected to be down, but it was up`), and
//! Masakari's warning with the 400 text. A 400 for another reason (same host,
//! accelerators, ...) is not this finding.

mod highlights;
mod measure;
mod owner;
mod refusal;
mod tell;
mod unowned;

#[cfg(test)]
mod bare_400_tests;
#[cfg(test)]
mod chain_tests;
#[cfg(test)]
mod race_tests;

pub(crate) use measure::recommended_wait;
pub(crate) use tell::charm_words;

use crate::detect::evacuate_400_chain::{ChainedRefusal, chained_refusals};
use crate::detect::finding::Finding;
use crate::detect::{DetectContext, Detector};

/// The detector.
#[derive(Debug)]
pub struct Evacuate400Race;

impl Detector for Evacuate400Race {
    fn id(&self) -> &'static str {
        "evacuate-400-race"
    }

    fn doc(&self) -> &'static str {
        "Masakari called evacuate while Nova still saw the failed host's compute service up, \
         and Nova answered HTTP 400 \"Compute service of <host> is still in use\"."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        // The chains make the findings; attribution only says which recovery each
        // belongs to.
        let mut owned: Vec<Vec<(usize, ChainedRefusal)>> = vec![Vec::new(); ctx.recoveries.len()];
        let mut unowned = Vec::new();
        for chain in chained_refusals(ctx.analysis) {
            match owner::chain_owner(ctx, &chain) {
                Some((r, a)) => owned[r].push((a, chain)),
                None => unowned.push(chain),
            }
        }
        let mut out: Vec<Finding> = ctx
            .recoveries
            .iter()
            .zip(owned)
            .filter(|(r, chains)| r.is_host_failure() || !chains.is_empty())
            .filter_map(|(r, chains)| measure::race(ctx, r, chains))
            .map(|race| tell::finding(self.id(), ctx, race))
            .collect();
        out.extend(unowned::findings(self.id(), ctx, unowned));
        out
    }
}
