//! The three moments of one instance's evacuation, from whatever the bundle holds:
//! Masakari starts it, Nova accepts it, the destination has rebuilt it. The two gaps
//! between them are what `bfv-evacuation-delay` measures.
//!
//! - Started: the `Evacuation of instance started: '<id>'` progress detail of the
//!   notification (taken just before Masakari's thread for the instance runs), the VM
//!   move's `start_time`, the engine's `Call evacuate command` line; the earliest wins.
//!   The task's `Start evacuation of instances …` detail only when none of these is there.
//! - Accepted: the evacuate call's request answered 2xx (access or request log), the
//!   `evacuate` instance action of `server event list` (Nova records it when the API
//!   accepts) and the request-log line of that action's request id; the earliest wins.
//! - Rebuilt: `Instance spawned successfully` on the destination, else the `disk on …`
//!   step that starts the rebuild.

use evacdoc_parsers::capture::Capture;

use crate::correlate::joins::request_midpoint;
use crate::correlate::recovery::{CallAction, Recovery};
use crate::detect::DetectContext;
use crate::detect::evidence::service_events_of_instance;
use crate::model::{EventId, Uuid};

/// How long after the start Nova's work on the instance is still looked for.
const SEARCH_NS: i64 = 2 * 60 * 60 * 1_000_000_000;

/// Where a moment was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A log line.
    Event(EventId),
    /// A CLI capture file (its lines naming the instance are the evidence).
    Capture(String),
}

/// One moment of an evacuation.
#[derive(Clone, Debug)]
pub struct Mark {
    /// UTC nanoseconds.
    pub time: i64,
    /// What says so, in words (`the progress detail "Evacuation of instance started"`).
    pub what: &'static str,
    /// Where.
    pub source: Source,
}

/// One instance's evacuation.
#[derive(Clone, Debug)]
pub struct Move {
    /// The instance.
    pub instance: Uuid,
    /// Masakari started it.
    pub started: Option<Mark>,
    /// Nova accepted it.
    pub accepted: Option<Mark>,
    /// The destination rebuilt it.
    pub rebuilt: Option<Mark>,
    /// The evacuate calls and the requests joined to them.
    pub calls: Vec<EventId>,
    /// Nova's lines about the instance from the start to the rebuild.
    pub nova_lines: Vec<EventId>,
    /// Nova says its disk is on a volume (`disk on volume, …`).
    pub disk_on_volume: bool,
}

fn earliest(marks: impl IntoIterator<Item = Option<Mark>>) -> Option<Mark> {
    marks.into_iter().flatten().min_by_key(|m| m.time)
}

/// A UTC time as a capture prints it (`2025-06-10T19:24:20.000000`, `… 19:24:20.094311`).
pub fn capture_time(text: &str) -> Option<i64> {
    let text = text.trim().trim_end_matches('Z').replacen('T', " ", 1);
    let (_, t) = evacdoc_parsers::time::oslo_timestamp(&text).ok()?;
    t.checked_unix_nanos(0)
}

/// Masakari's start of the instance's evacuation in the recovery's captures.
fn captured_start(recovery: &Recovery, instance: Uuid) -> (Option<Mark>, Option<Mark>) {
    let id = instance.to_string();
    let (mut own, mut task) = (None, None);
    for (file, n) in &recovery.captured {
        for detail in n.recovery_workflow_details.iter().flat_map(|t| &t.details) {
            if !detail.message.contains(&id) {
                continue;
            }
            let Some(time) = capture_time(&detail.timestamp) else {
                continue;
            };
            let mark = |what| Mark {
                time,
                what,
                source: Source::Capture(file.clone()),
            };
            if detail.message.starts_with("Evacuation of instance started") {
                own = earliest([
                    own,
                    Some(mark(
                        "the progress detail \"Evacuation of instance started\"",
                    )),
                ]);
            } else if detail.message.starts_with("Start evacuation of instances") {
                task = earliest([
                    task,
                    Some(mark(
                        "the progress detail \"Start evacuation of instances\"",
                    )),
                ]);
            }
        }
    }
    for (file, m) in &recovery.vmoves {
        if m.server_id == id
            && let Some(time) = m.start_time.as_deref().and_then(capture_time)
        {
            own = earliest([
                own,
                Some(Mark {
                    time,
                    what: "the VM move's start_time",
                    source: Source::Capture(file.clone()),
                }),
            ]);
        }
    }
    (own, task)
}

/// Masakari's start of the instance's evacuation in its own log: the run's first line
/// naming the instance after the evacuation task started (the thread's first call),
/// and the task's start (`Task 'EvacuateInstancesTask' … into state 'RUNNING'`).
fn engine_start(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    instance: Uuid,
    after: Option<i64>,
) -> (Option<Mark>, Option<Mark>) {
    let events = &ctx.analysis.events;
    let mut out = (None, None);
    for attempt in &recovery.attempts {
        // A run in which Nova refused the instance's evacuation (its unlock and other
        // calls come after the refusal) did not start the move that was made.
        let begun = attempt
            .events
            .first()
            .and_then(|&i| events.get(i as usize))
            .map(|e| e.time);
        if let (Some(t), Some(begun)) = (after, begun)
            && begun <= t
        {
            continue;
        }
        let task = attempt.events.iter().copied().find(|&i| {
            events.get(i as usize).is_some_and(|e| {
                let m = e.message();
                m.contains("'EvacuateInstancesTask'") && m.contains("into state 'RUNNING'")
            })
        });
        // Before the task, the instance is only being listed and prepared.
        let first = attempt
            .events
            .iter()
            .copied()
            .filter(|&i| task.is_none_or(|t| i > t))
            .find(|&i| {
                events.get(i as usize).is_some_and(|e| {
                    e.instances.contains(&instance) && CallAction::of(&e.message()).is_some()
                })
            });
        let mark = |id: Option<EventId>, what| {
            id.and_then(|i| {
                Some(Mark {
                    time: events.get(i as usize)?.time,
                    what,
                    source: Source::Event(i),
                })
            })
        };
        if first.is_some() || task.is_some() {
            out = (
                mark(first, "Masakari's first call for the instance"),
                mark(task, "the start of Masakari's EvacuateInstancesTask"),
            );
            break;
        }
    }
    out
}

/// Nova's acceptance in `server event list` captures: the `evacuate` action, and the
/// request-log line of its request id.
fn captured_acceptance(ctx: &DetectContext<'_>, instance: Uuid, after: i64) -> Option<Mark> {
    let analysis = ctx.analysis;
    let mut found = None;
    for capture in &analysis.captures {
        if let Capture::Migrations(records) = &capture.capture {
            found = earliest(
                std::iter::once(found).chain(migration_acceptance(records, instance, capture)),
            );
            continue;
        }
        let Capture::ServerEvents { server_id, events } = &capture.capture else {
            continue;
        };
        for e in events.iter().filter(|e| e.action == "evacuate") {
            let server = e.server_id.as_deref().or(server_id.as_deref());
            if server.and_then(Uuid::parse) != Some(instance) {
                continue;
            }
            let mut marks = vec![
                e.start_time
                    .as_deref()
                    .and_then(capture_time)
                    .map(|time| Mark {
                        time,
                        what: "the `evacuate` server event",
                        source: Source::Capture(capture.file.clone()),
                    }),
            ];
            if let Some(r) = Uuid::parse_request_id(&e.request_id) {
                for &i in analysis.index.request.get(&r).into_iter().flatten() {
                    let Some(ev) = analysis.events.get(i as usize) else {
                        continue;
                    };
                    if ev.http().is_some_and(|h| (200..300).contains(&h.status)) {
                        marks.push(Some(Mark {
                            time: request_midpoint(ev),
                            what: "Nova's answer to the evacuate request",
                            source: Source::Event(i),
                        }));
                    }
                }
            }
            found = earliest(std::iter::once(found).chain(marks));
        }
    }
    // An `evacuate` action from before this recovery is another evacuation.
    found.filter(|m| m.time >= after - 60 * 1_000_000_000)
}

/// The creation of the instance's evacuation migration records in a `server migration
/// list` capture: Nova writes the record (status `accepted`) when it accepts the call.
fn migration_acceptance<'c>(
    records: &'c [evacdoc_parsers::capture::Migration],
    instance: Uuid,
    capture: &'c crate::model::inventory::CaptureFile,
) -> impl Iterator<Item = Option<Mark>> + 'c {
    records
        .iter()
        .filter(move |m| m.is_evacuation() && Uuid::parse(&m.server_id) == Some(instance))
        .map(|m| {
            Some(Mark {
                time: capture_time(m.created_at.as_deref()?)?,
                what: "the evacuation's migration record",
                source: Source::Capture(capture.file.clone()),
            })
        })
}

/// The evacuations of `recovery`'s instances.
pub fn moves(ctx: &DetectContext<'_>, recovery: &Recovery) -> Vec<Move> {
    let mut instances: Vec<Uuid> = Vec::new();
    for a in &recovery.attempts {
        instances.extend(
            a.calls_of(CallAction::Evacuate, None)
                .filter_map(|c| c.instance),
        );
    }
    // Instances Masakari says it started evacuating, even when its log is gone.
    for (_, n) in &recovery.captured {
        for detail in n.recovery_workflow_details.iter().flat_map(|t| &t.details) {
            if let Some(rest) = detail
                .message
                .strip_prefix("Evacuation of instance started")
            {
                instances.extend(evacdoc_parsers::text::uuids_in(rest).filter_map(Uuid::parse));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    instances.retain(|i| seen.insert(*i));
    instances
        .into_iter()
        .filter_map(|instance| one_move(ctx, recovery, instance))
        .collect()
}

fn one_move(ctx: &DetectContext<'_>, recovery: &Recovery, instance: Uuid) -> Option<Move> {
    let analysis = ctx.analysis;
    let mut calls: Vec<EventId> = Vec::new();
    let mut call_start = None;
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
                    .get(r as usize)
                    .and_then(|e| e.http())
                    .is_some_and(|h| (400..500).contains(&h.status))
            })
        })
        .filter_map(|call| analysis.events.get(call.event as usize).map(|e| e.time))
        .max();
    let after_refusal = |m: Option<Mark>| m.filter(|m| refused_until.is_none_or(|t| m.time > t));
    for call in evacuate_calls() {
        let Some(event) = analysis.events.get(call.event as usize) else {
            continue;
        };
        calls.push(call.event);
        calls.extend(&call.requests);
        call_start = earliest([
            call_start,
            after_refusal(Some(Mark {
                time: event.time,
                what: "Masakari's `Call evacuate command` line",
                source: Source::Event(call.event),
            })),
        ]);
        for &r in &call.requests {
            let Some(request) = analysis.events.get(r as usize) else {
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
    let (own, task) = captured_start(recovery, instance);
    let (own, task) = (after_refusal(own), after_refusal(task));
    let (first_line, task_line) = engine_start(ctx, recovery, instance, refused_until);
    let started = earliest([own, call_start, first_line]).or(earliest([task, task_line]));
    let from = started.as_ref().or(accepted.as_ref())?.time;
    let accepted = earliest([
        accepted,
        after_refusal(captured_acceptance(ctx, instance, from)),
    ]);
    let mut lines: Vec<EventId> =
        service_events_of_instance(analysis, instance, from, from + SEARCH_NS);
    lines.extend(chained_lines(ctx, instance, &calls, from));
    lines.sort_by_key(|&i| analysis.events.get(i as usize).map(|e| e.time));
    lines.dedup();
    lines.retain(|&i| {
        analysis
            .events
            .get(i as usize)
            .is_some_and(|e| !ctx.foreign(recovery, e))
    });
    // Nova logs `disk on ...` as the rebuild starts and `spawned successfully` when the
    // instance runs again: the later is when the move was done.
    let first_with = |needles: &[&str]| {
        lines.iter().copied().find(|&i| {
            analysis
                .events
                .get(i as usize)
                .is_some_and(|e| needles.iter().any(|n| e.message().contains(n)))
        })
    };
    let rebuilt = first_with(&["spawned successfully"])
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
                time: analysis.events.get(i as usize)?.time,
                what,
                source: Source::Event(i),
            })
        });
    let disk_on_volume = lines.iter().any(|&i| {
        analysis
            .events
            .get(i as usize)
            .is_some_and(|e| e.message().contains("disk on volume"))
    });
    let end = rebuilt.as_ref().map_or(i64::MAX, |m| m.time);
    let nova_lines = lines
        .into_iter()
        .filter(|&i| {
            analysis
                .events
                .get(i as usize)
                .is_some_and(|e| e.time <= end)
        })
        .collect();
    Some(Move {
        instance,
        started,
        accepted,
        rebuilt,
        calls,
        nova_lines,
        disk_on_volume,
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
        .filter_map(|&i| events.get(i as usize))
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
            .get(i as usize)
            .and_then(|e| e.request_id)
            .is_some_and(|r| accepted.contains(&r))
    })
    .collect()
}

/// How far before Masakari's start a line tied to the accepted call by its request id
/// is still taken: clock offsets that are not pinned stay within minutes.
const CHAIN_SLACK_NS: i64 = 10 * 60 * 1_000_000_000;

/// Which gap of a move is too long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// From Masakari's start to Nova's acceptance.
    StartToAcceptance,
    /// From Nova's acceptance to the rebuild.
    AcceptanceToRebuild,
    /// From Masakari's start to the rebuild, when nothing says when Nova accepted.
    StartToRebuild,
}

impl Move {
    /// The gaps that are known, with their ends.
    pub fn gaps(&self) -> Vec<(Gap, &Mark, &Mark)> {
        let mut out = Vec::new();
        match (&self.started, &self.accepted, &self.rebuilt) {
            (s, Some(a), r) => {
                if let Some(s) = s {
                    out.push((Gap::StartToAcceptance, s, a));
                }
                if let Some(r) = r {
                    out.push((Gap::AcceptanceToRebuild, a, r));
                }
            }
            (Some(s), None, Some(r)) => out.push((Gap::StartToRebuild, s, r)),
            _ => {}
        }
        out
    }

    /// The gaps longer than `threshold` nanoseconds.
    pub fn slow_gaps(&self, threshold: i64) -> Vec<(Gap, &Mark, &Mark)> {
        self.gaps()
            .into_iter()
            .filter(|(_, from, to)| to.time - from.time > threshold)
            .collect()
    }

    /// From the first known moment to the rebuild, when the rebuild is known.
    pub fn to_rebuild(&self) -> Option<i64> {
        let first = self.started.as_ref().or(self.accepted.as_ref())?;
        Some(self.rebuilt.as_ref()?.time - first.time)
    }
}
