//! The picture's marks of a race.

use super::refusal::Refusal;
use crate::correlate::recovery::{Attempt, CallAction, Recovery};
use crate::detect::DetectContext;
use crate::detect::evidence::{self, duration};
use crate::detect::finding::Highlight;
use crate::model::{EventId, EventsById};

/// The picture's highlights: the refused calls, the sleep before the first, the wait
/// until each retry, and the later calls that went through.
pub(super) fn highlights(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    refusals: &[(&Attempt, Refusal)],
) -> Vec<Highlight> {
    let analysis = ctx.analysis;
    let line = |id: EventId, label: String| {
        evidence::of_event(analysis, id).map(|e| Highlight::Line {
            path: e.path,
            line: e.line,
            label,
        })
    };
    let time = |id: Option<EventId>| Some(analysis.events.by_id(id?)?.time);
    let mut out = Vec::new();
    if let Some((first_attempt, _)) = refusals.first()
        && let Some((sleep, secs)) = first_attempt.sleep
        && let Some(from) = time(Some(sleep))
    {
        out.push(Highlight::Span {
            from,
            to: from + secs as i64 * 1_000_000_000,
            label: format!("{secs} s sleep"),
        });
    }
    for (_, r) in refusals {
        out.extend(line(r.call, "evacuate → 400".into()));
    }
    for pair in recovery.attempts.windows(2) {
        let refused = refusals.iter().any(|(a, _)| std::ptr::eq(*a, &pair[0]));
        if let (true, Some(from), Some(to)) = (refused, time(pair[0].end), time(pair[1].start)) {
            out.push(Highlight::Span {
                from,
                to,
                label: format!("retried after {}", duration(to - from)),
            });
        }
    }
    for attempt in &recovery.attempts {
        for call in attempt.calls_of(CallAction::Evacuate, None) {
            let later = refusals
                .iter()
                .any(|(_, r)| r.instance == call.instance && call.event > r.call);
            if let (true, Some(status @ 200..=299)) = (later, call.status(analysis)) {
                out.extend(line(call.event, format!("evacuate → {status}")));
            }
        }
    }
    out
}
