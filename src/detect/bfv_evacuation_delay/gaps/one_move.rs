//! One instance's move: its evacuate calls and Nova's answers, Masakari's start, and
//! Nova's lines up to the rebuild on the destination.

use super::marks::{captured_acceptance, captured_start, engine_start};
use super::{Mark, Move, SEARCH_NS, Source, earliest};
use crate::correlate::Analysis;
use crate::correlate::joins::request_midpoint;
use crate::correlate::recovery::{CallAction, Recovery};
use crate::detect::DetectContext;
use crate::detect::evidence::service_events_of_instance;
use crate::model::EventsById;
use crate::model::{EventId, Uuid};

/// The evacuation of `instance` in `recovery`, when anything says when it started or
/// was accepted.
pub(super) fn one_move(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    instance: Uuid,
) -> Option<Move> {
    let analysis = ctx.analysis;
    let calls = call_marks(analysis, recovery, instance);
    let refused_until = calls.refused_until;
    let after_refusal = |m: Option<Mark>| m.filter(|m| refused_until.is_none_or(|t| m.time > t));
    let (own, task) = captured_start(recovery, instance);
    let (own, task) = (after_refusal(own), after_refusal(task));
    let (first_line, task_line) = engine_start(ctx, recovery, instance, refused_until);
    let started = earliest([own, calls.start, first_line]).or(earliest([task, task_line]));
    let from = started.as_ref().or(calls.accepted.as_ref())?.time;
    let accepted = earliest([
        calls.accepted,
        after_refusal(captured_acceptance(ctx, instance, from)),
    ]);
    let lines = service_lines(ctx, recovery, instance, &calls.ids, from);
    let rebuilt = rebuilt(analysis, &lines);
    let disk_on_volume = lines.iter().any(|&i| {
        analysis
            .events
            .by_id(i)
            .is_some_and(|e| e.message().contains("disk on volume"))
    });
    let end = rebuilt.as_ref().map_or(i64::MAX, |m| m.time);
    let nova_lines = lines
        .into_iter()
        .filter(|&i| analysis.events.by_id(i).is_some_and(|e| e.time <= end))
        .collect();
    Some(Move {
        instance,
        started,
        accepted,
        rebuilt,
        calls: calls.ids,
        nova_lines,
        disk_on_volume,
    })
}

/// What the evacuate calls for an instance say.
struct CallMarks {
    /// The calls and the requests joined to them.
    ids: Vec<EventId>,
    /// The first call after the last refusal.
    start: Option<Mark>,
    /// The first 2xx answer to a call after the last refusal.
    accepted: Option<Mark>,
    /// When the last call Nova refused (4xx) was made.
    refused_until: Option<i64>,
}

fn call_marks(analysis: &Analysis, recovery: &Recovery, instance: Uuid) -> CallMarks {
    let mut ids: Vec<EventId> = Vec::new();
    let mut start = None;
    let mut accepted = None;
    let evacuate_calls = || {
        recovery
            .attempts
            .iter()
            .flat_map(|a| a.calls_of(CallAction::Evacuate, Some(instance)))
    };
    // A call Nova refused (4xx, the race's 400) moved nothing: the move Nova rebuilt
    // starts after the last refusal (a retry by the periodic task, minutes later).
    let refused_until = evacuate_calls()
        .filter(|call| {
            call.requests.iter().any(|&r| {
                analysis
                    .events
                    .by_id(r)
                    .and_then(|e| e.http())
                    .is_some_and(|h| (400..500).contains(&h.status))
            })
        })
        .filter_map(|call| analysis.events.by_id(call.event).map(|e| e.time))
        .max();
    let after_refusal = |m: Option<Mark>| m.filter(|m| refused_until.is_none_or(|t| m.time > t));
    for call in evacuate_calls() {
        let Some(event) = analysis.events.by_id(call.event) else {
            continue;
        };
        ids.push(call.event);
        ids.extend(&call.requests);
        start = earliest([
            start,
            after_refusal(Some(Mark {
                time: event.time,
                what: "Masakari's `Call evacuate command` line",
                source: Source::Event(call.event),
            })),
        ]);
        for &r in &call.requests {
            let Some(request) = analysis.events.by_id(r) else {
                continue;
            };
            if request
                .http()
                .is_some_and(|h| (200..300).contains(&h.status))
            {
                // Nothing before the refusal was the acceptance of this move (an access
                // log without request ids pairs the lock's 202 of that second too).
                accepted = earliest([
                    accepted,
                    after_refusal(Some(Mark {
                        time: request_midpoint(request),
                        what: "Nova's answer to the evacuate request",
                        source: Source::Event(r),
                    })),
                ]);
            }
        }
    }
    CallMarks {
        ids,
        start,
        accepted,
        refused_until,
    }
}

/// Nova's and Cinder's lines about the instance from `from` on (and those chained to
/// the accepted calls), in time order, none of another recovery.
fn service_lines(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    instance: Uuid,
    calls: &[EventId],
    from: i64,
) -> Vec<EventId> {
    let analysis = ctx.analysis;
    let mut lines: Vec<EventId> =
        service_events_of_instance(analysis, instance, from, from + SEARCH_NS);
    lines.extend(chained_lines(ctx, instance, calls, from));
    lines.sort_by_key(|&i| analysis.events.by_id(i).map(|e| e.time));
    lines.dedup();
    lines.retain(|&i| {
        analysis
            .events
            .by_id(i)
            .is_some_and(|e| !ctx.foreign(recovery, e))
    });
    lines
}

/// Nova logs `disk on ...` as the rebuild starts and `spawned successfully` when the
/// instance runs again: the later is when the move was done.
fn rebuilt(analysis: &Analysis, lines: &[EventId]) -> Option<Mark> {
    let first_with = |needles: &[&str]| {
        lines.iter().copied().find(|&i| {
            analysis
                .events
                .by_id(i)
                .is_some_and(|e| needles.iter().any(|n| e.message().contains(n)))
        })
    };
    first_with(&["spawned successfully"])
        .map(|i| (i, "`Instance spawned successfully` on the destination"))
        .or_else(|| {
            first_with(&[
                "disk on volume",
                "disk on shared storage",
                "disk not on shared storage",
            ])
            .map(|i| (i, "the rebuild's `disk on …` step"))
        })
        .and_then(|(i, what)| {
            Some(Mark {
                time: analysis.events.by_id(i)?.time,
                what,
                source: Source::Event(i),
            })
        })
}

/// Nova's lines about `instance` under the request id of an accepted evacuate call:
/// they belong to the move whatever the clocks say (a destination a few seconds
/// behind, its offset not pinned, logs `disk on volume` before Masakari's call).
/// Only from a little before `from`: a request id is unique, the bound only keeps
/// a wrong join from reaching far.
fn chained_lines(
    ctx: &DetectContext<'_>,
    instance: Uuid,
    calls: &[EventId],
    from: i64,
) -> Vec<EventId> {
    let events = &ctx.analysis.events;
    let accepted: Vec<Uuid> = calls
        .iter()
        .filter_map(|&i| events.by_id(i))
        .filter(|e| e.http().is_some_and(|h| (200..300).contains(&h.status)))
        .filter_map(|e| e.request_id)
        .collect();
    if accepted.is_empty() {
        return Vec::new();
    }
    service_events_of_instance(
        ctx.analysis,
        instance,
        from - CHAIN_SLACK_NS,
        from + SEARCH_NS,
    )
    .into_iter()
    .filter(|&i| {
        events
            .by_id(i)
            .and_then(|e| e.request_id)
            .is_some_and(|r| accepted.contains(&r))
    })
    .collect()
}

/// How far before Masakari's start a line tied to the accepted call by its request id
/// is still taken: clock offsets that are not pinned stay within minutes.
const CHAIN_SLACK_NS: i64 = 10 * 60 * 1_000_000_000;
