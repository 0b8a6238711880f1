//! What the evidence says happened around an evacuate race, beyond the race itself: how
//! long Masakari's disable call blocked and why (Nova's own lines of that request), and
//! how each retry of the notification went.

use crate::correlate::ids::short_host;
use crate::correlate::recovery::{Attempt, CallAction, Recovery, RecoveryStatus};
use crate::detect::DetectContext;
use crate::detect::evidence::{duration, project};
use crate::model::EventsById;
use crate::model::{EventId, Project};

/// A disable call slower than this blocked (an answer normally takes well under 1 s).
const BLOCKED_NS: i64 = 5_000_000_000;

/// Nova logs a request's lines up to this long after Masakari logs the answer.
const GRACE_NS: i64 = 2_000_000_000;

/// Nova's words when the disable request blocked on the dead compute: the trait update
/// it makes by RPC to that compute, and the RPC timeout.
const BLOCK_CAUSES: [&str; 2] = ["COMPUTE_STATUS_DISABLED", "MessagingTimeout"];

/// How long the attempt's disable call took, from Masakari's request to its answer, and
/// Nova's lines that say why.
pub(crate) struct DisableBlock {
    /// From the `Disable nova-compute` line to the engine's next line of the attempt
    /// (Masakari logs `Sleeping` as soon as the call returns).
    pub nanos: i64,
    /// Nova's lines of the disable requests naming the trait update or the RPC timeout.
    pub cause_lines: Vec<EventId>,
}

/// The disable call of `attempt` when it blocked, or when Nova logged why it would.
pub(crate) fn disable_block(
    ctx: &DetectContext<'_>,
    attempt: &Attempt,
    failed_host: Option<&str>,
) -> Option<DisableBlock> {
    let events = &ctx.analysis.events;
    let call = attempt
        .calls
        .iter()
        .find(|c| c.action == CallAction::DisableService)?;
    let asked = events.by_id(call.event)?.time;
    let answered = attempt
        .events
        .iter()
        .find(|&&e| e > call.event)
        .and_then(|&e| events.by_id(e))?
        .time;
    let index = &ctx.analysis.index;
    // Nova's lines of the disable requests: under the joined requests' own ids, or (Zed+)
    // under the run's global id while the call was waiting.
    let mut candidates: Vec<EventId> = Vec::new();
    for &request in &call.requests {
        if let Some(id) = events.by_id(request).and_then(|e| e.request_id) {
            candidates.extend(index.request.get(&id).into_iter().flatten());
        }
    }
    for id in &attempt.request_ids {
        candidates.extend(
            index
                .global_request
                .get(id)
                .into_iter()
                .flatten()
                .copied()
                .filter(|&l| {
                    events
                        .by_id(l)
                        .is_some_and(|e| e.time >= asked && e.time <= answered)
                }),
        );
    }
    let mut cause_lines = Vec::new();
    for line in candidates {
        let names_cause = events.by_id(line).is_some_and(|e| {
            BLOCK_CAUSES
                .iter()
                .any(|c| e.message().contains(c) || e.more().any(|l| l.contains(c)))
        });
        if names_cause && !cause_lines.contains(&line) {
            cause_lines.push(line);
        }
    }
    // Before Zed Nova logs no global id, and a request that waited a minute may not be
    // joined to its call: Nova's trait error naming the failed host while the call waited.
    if cause_lines.is_empty()
        && let Some(host) = failed_host.map(short_host)
    {
        // Events are in `sort_key` order (a second-precision line sorts at its second's end).
        let from = events.partition_point(|e| e.sort_key() < asked);
        let to = events.partition_point(|e| e.sort_key() <= answered + GRACE_NS + 1_000_000_000);
        for (i, e) in events.iter().enumerate().take(to).skip(from) {
            if e.time <= answered + GRACE_NS && project(ctx.analysis, e) != Project::Masakari {
                let text = e.message();
                if text.contains("COMPUTE_STATUS_DISABLED")
                    && text.contains(&format!("host {host}"))
                {
                    cause_lines.push(EventId::at(i));
                }
            }
        }
    }
    cause_lines.sort_unstable();
    let nanos = answered - asked;
    (nanos >= BLOCKED_NS || !cause_lines.is_empty()).then_some(DisableBlock { nanos, cause_lines })
}

/// The sentence on a blocked disable call.
pub(crate) fn disable_sentence(ctx: &DetectContext<'_>, block: &DisableBlock) -> String {
    let texts: Vec<String> = block
        .cause_lines
        .iter()
        .filter_map(|&l| ctx.analysis.events.by_id(l))
        .map(|e| e.full_text())
        .collect();
    let has = |word: &str| texts.iter().any(|t| t.contains(word));
    let cause = match (has("COMPUTE_STATUS_DISABLED"), has("MessagingTimeout")) {
        (true, true) => {
            " Nova logged \"An error occurred while updating the COMPUTE_STATUS_DISABLED \
                         trait\" with a MessagingTimeout: disabling the service makes an RPC call to \
                         the failed host's nova-compute, which never answered, and the request \
                         waited for the RPC timeout."
        }
        (true, false) => {
            " Nova logged \"An error occurred while updating the COMPUTE_STATUS_DISABLED \
                          trait\": disabling the service makes an RPC call to the failed host's \
                          nova-compute."
        }
        (false, true) => {
            " Nova's lines of that request end in a MessagingTimeout: an RPC call to \
                          the failed host's nova-compute was not answered."
        }
        (false, false) => "",
    };
    format!(
        "The disable call itself blocked {} (from Masakari's request to its answer).{cause} ",
        duration(block.nanos)
    )
}

/// The sentence on the runs after `first` (index of the first refused attempt): each
/// retry, how many of its evacuations Nova refused, how it ended; then the final status.
pub(crate) fn retries_sentence(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    first: usize,
    refused_in: impl Fn(usize) -> usize,
) -> String {
    let analysis = ctx.analysis;
    let time = |id: Option<EventId>| id.and_then(|i| analysis.events.by_id(i));
    let retries: Vec<String> = recovery
        .attempts
        .iter()
        .enumerate()
        .skip(first + 1)
        .map(|(i, a)| {
            let at = time(a.start)
                .map(|e| format!(" at {}", crate::correlate::timeline::utc(e.time)))
                .unwrap_or_default();
            let evacuations = a.calls_of(CallAction::Evacuate, None).count();
            let refused = refused_in(i);
            let outcome = a.status.map_or("no end logged", RecoveryStatus::as_str);
            if refused > 0 {
                format!(
                    "retry {i}{at}: {refused} of {} evacuation(s) refused with 400 again, ended `{outcome}`",
                    evacuations.max(refused)
                )
            } else {
                format!("retry {i}{at}: {evacuations} evacuation(s), none refused, ended `{outcome}`")
            }
        })
        .collect();
    if retries.is_empty() {
        return String::new();
    }
    format!(
        "Masakari re-ran the notification {} time(s) (its periodic `process_unfinished_notifications`): {}. ",
        retries.len(),
        retries.join("; ")
    )
}
