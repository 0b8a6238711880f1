//! Which recovery, and which of its attempts, a chained refusal belongs to.

use crate::correlate::recovery::Recovery;
use crate::detect::DetectContext;
use crate::detect::evacuate_400_chain::ChainedRefusal;
use crate::model::EventId;
use crate::model::EventsById;

/// The attempt whose run spans `time` (started before it, not ended before it).
fn attempt_at(ctx: &DetectContext<'_>, recovery: &Recovery, time: i64) -> Option<usize> {
    let at = |id: Option<EventId>| {
        id.and_then(|i| ctx.analysis.events.by_id(i))
            .map(|e| e.time)
    };
    recovery.attempts.iter().rposition(|a| {
        let first = at(a.start).or_else(|| at(a.events.first().copied()));
        first.is_some_and(|s| s <= time) && at(a.end).is_none_or(|e| e >= time)
    })
}

/// The recovery and attempt a chained refusal belongs to: the run of the host Nova named
/// as still up, open at that time (Masakari serializes the runs of one host); else the
/// run its call or its warning was attributed to; else the run that handled its instance.
pub(super) fn chain_owner(
    ctx: &DetectContext<'_>,
    chain: &ChainedRefusal,
) -> Option<(usize, usize)> {
    let time = ctx.analysis.events.by_id(chain.warning)?.time;
    let recoveries = ctx.recoveries;
    if let Some(host) = &chain.host {
        let by_host = recoveries.iter().enumerate().find_map(|(i, r)| {
            let same = r
                .failed_host
                .as_deref()
                .is_some_and(|h| crate::correlate::ids::short_host(h) == *host);
            same.then(|| attempt_at(ctx, r, time).map(|a| (i, a)))
                .flatten()
        });
        if by_host.is_some() {
            return by_host;
        }
    }
    for (i, r) in recoveries.iter().enumerate() {
        for (a, attempt) in r.attempts.iter().enumerate() {
            let call = chain
                .call
                .is_some_and(|c| attempt.calls.iter().any(|k| k.event == c));
            if call || attempt.events.binary_search(&chain.warning).is_ok() {
                return Some((i, a));
            }
        }
    }
    recoveries
        .iter()
        .enumerate()
        .filter(|(_, r)| r.instances().contains(&chain.instance))
        .find_map(|(i, r)| attempt_at(ctx, r, time).map(|a| (i, a)))
}
