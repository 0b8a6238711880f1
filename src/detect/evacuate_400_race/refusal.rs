//! What Nova said about one evacuate call: the status it answered, its own words, and
//! Masakari's warning quoting them.

use crate::correlate::recovery::{Attempt, Call, CallAction};
use crate::detect::DetectContext;
use crate::detect::evacuate_400_chain::{
    ChainedRefusal, OTHER_400_TEXTS, RACE_TEXTS, quoted_request_id,
};
use crate::model::EventsById;
use crate::model::{EventId, Uuid};

/// What Nova said about one evacuate call.
pub(super) struct Refusal {
    pub call: EventId,
    pub instance: Option<Uuid>,
    /// Events that show the 400 and its reason.
    pub evidence: Vec<EventId>,
    /// Nova or Masakari named the race in words (not only a bare 400).
    pub worded: bool,
}

/// The attempt's refused evacuate calls.
pub(super) fn attempt_refusals(ctx: &DetectContext<'_>, attempt: &Attempt) -> Vec<Refusal> {
    // The attempt's 400 warnings, found once: an attempt of a hundred instances
    // has thousands of lines and a hundred calls.
    let warnings_400: Vec<EventId> = attempt
        .events
        .iter()
        .copied()
        .filter(|&i| {
            ctx.analysis
                .events
                .by_id(i)
                .is_some_and(|e| e.message().contains("(HTTP 400)"))
        })
        .collect();
    attempt
        .calls_of(CallAction::Evacuate, None)
        .filter_map(|call| refusal(ctx, &warnings_400, call))
        .collect()
}

fn texts_in(ctx: &DetectContext<'_>, ids: &[EventId], needles: &[&str]) -> Vec<EventId> {
    ids.iter()
        .copied()
        .filter(|&i| {
            ctx.analysis.events.by_id(i).is_some_and(|e| {
                needles
                    .iter()
                    .any(|n| e.text().contains(n) || e.more().any(|l| l.contains(n)))
            })
        })
        .collect()
}

/// Nova's lines of the requests joined to a call (same Nova request id).
fn nova_request_lines(ctx: &DetectContext<'_>, call: &Call) -> Vec<EventId> {
    let index = &ctx.analysis.index;
    let mut out = call.requests.clone();
    for &r in &call.requests {
        let Some(request) = ctx.analysis.events.by_id(r) else {
            continue;
        };
        if let Some(id) = request.request_id {
            out.extend(index.request.get(&id).into_iter().flatten().copied());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Of the attempt's 400 warnings, those after the call (newer releases log the 400 text):
/// not one about another instance, nor one quoting another Nova request than the call's.
fn masakari_warnings(
    ctx: &DetectContext<'_>,
    warnings_400: &[EventId],
    call: &Call,
    nova: &[EventId],
) -> Vec<EventId> {
    let events = &ctx.analysis.events;
    let nova_ids: Vec<Uuid> = nova
        .iter()
        .filter_map(|&i| events.by_id(i)?.request_id)
        .collect();
    let call_context = events.by_id(call.event).and_then(|e| e.request_id);
    warnings_400
        .iter()
        .copied()
        .filter(|&i| i > call.event)
        .filter(|&i| {
            events.by_id(i).is_some_and(|e| {
                let other_instance = call
                    .instance
                    .is_some_and(|c| !e.instances.is_empty() && !e.instances.contains(&c));
                // Logged under the call's own context, the Request-ID it quotes is Nova's
                // answer to this call, whatever a join by time (off under clock skew) says.
                let same_context = call_context.is_some() && e.request_id == call_context;
                let other_request = !same_context
                    && quoted_request_id(&e.message())
                        .is_some_and(|q| !nova_ids.is_empty() && !nova_ids.contains(&q));
                e.message().contains("(HTTP 400)") && !other_instance && !other_request
            })
        })
        .collect()
}

/// Nova's lines of the requests Masakari's warnings quote (`Request-ID: req-…`).
fn quoted_request_lines(ctx: &DetectContext<'_>, warnings: &[EventId]) -> Vec<EventId> {
    let mut out = Vec::new();
    for &w in warnings {
        let quoted = ctx
            .analysis
            .events
            .by_id(w)
            .and_then(|e| quoted_request_id(&e.message()));
        if let Some(q) = quoted {
            out.extend(ctx.analysis.index.request.get(&q).into_iter().flatten());
        }
    }
    out
}

fn refusal(ctx: &DetectContext<'_>, warnings_400: &[EventId], call: &Call) -> Option<Refusal> {
    let joined = nova_request_lines(ctx, call);
    let warnings = masakari_warnings(ctx, warnings_400, call, &joined);
    // The request Masakari's warning quotes is Nova's answer: its lines replace what a
    // join by time found (another request, when a clock is off).
    let quoted = quoted_request_lines(ctx, &warnings);
    let nova = if quoted.is_empty() {
        joined
    } else {
        // Of the joined lines, those without a request id (Apache's) stay when they
        // agree with the answer (a 400); a line of another request goes.
        let events = &ctx.analysis.events;
        let mut nova: Vec<EventId> = joined
            .into_iter()
            .filter(|&j| {
                events.by_id(j).is_some_and(|e| {
                    e.request_id.is_none() && e.http().is_some_and(|h| h.status == 400)
                })
            })
            .collect();
        nova.extend(quoted);
        nova
    };
    let quoted_400 = nova.iter().any(|&i| {
        ctx.analysis
            .events
            .by_id(i)
            .and_then(|e| e.http())
            .is_some_and(|h| h.status == 400)
    });
    let mut evidence = nova;
    evidence.extend(&warnings);
    evidence.sort_unstable();
    evidence.dedup();
    let race_words = texts_in(ctx, &evidence, &RACE_TEXTS);
    let other_words = texts_in(ctx, &evidence, &OTHER_400_TEXTS);
    let status_400 = call.status(ctx.analysis) == Some(400) || quoted_400;
    if !other_words.is_empty() && race_words.is_empty() {
        return None;
    }
    if race_words.is_empty() && !status_400 {
        return None;
    }
    Some(Refusal {
        call: call.event,
        instance: call.instance,
        evidence,
        worded: !race_words.is_empty(),
    })
}

/// The refusal a chain proves, as the call-based search reports it.
pub(super) fn chained_refusal(chain: &ChainedRefusal) -> Refusal {
    let mut evidence = chain.nova_lines.clone();
    evidence.push(chain.warning);
    evidence.sort_unstable();
    evidence.dedup();
    Refusal {
        call: chain.call.unwrap_or(chain.warning),
        instance: Some(chain.instance),
        evidence,
        worded: chain.worded,
    }
}
