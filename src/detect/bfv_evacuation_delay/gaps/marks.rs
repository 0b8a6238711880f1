//! Where each moment of a move is read besides the evacuate call: the notification's
//! progress details and VM moves, the engine's own lines, `server event list` and
//! `server migration list` captures.

use crate::model::EventsById;
use evacdoc_parsers::capture::Capture;

use super::{Mark, Source, capture_time, earliest};
use crate::correlate::joins::request_midpoint;
use crate::correlate::recovery::{CallAction, Recovery};
use crate::detect::DetectContext;
use crate::model::{EventId, Uuid};

/// Masakari's start of the instance's evacuation in the recovery's captures.
pub(super) fn captured_start(recovery: &Recovery, instance: Uuid) -> (Option<Mark>, Option<Mark>) {
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
pub(super) fn engine_start(
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
            .and_then(|&i| events.by_id(i))
            .map(|e| e.time);
        if let (Some(t), Some(begun)) = (after, begun)
            && begun <= t
        {
            continue;
        }
        let task = attempt.events.iter().copied().find(|&i| {
            events.by_id(i).is_some_and(|e| {
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
                events.by_id(i).is_some_and(|e| {
                    e.instances.contains(&instance) && CallAction::of(&e.message()).is_some()
                })
            });
        let mark = |id: Option<EventId>, what| {
            id.and_then(|i| {
                Some(Mark {
                    time: events.by_id(i)?.time,
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
pub(super) fn captured_acceptance(
    ctx: &DetectContext<'_>,
    instance: Uuid,
    after: i64,
) -> Option<Mark> {
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
                    let Some(ev) = analysis.events.by_id(i) else {
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
