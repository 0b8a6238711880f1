//! The facts of a finished recovery that left instances behind: which instances it
//! dropped, the calls made for them, and the API failures around those calls.

use crate::correlate::recovery::{Attempt, CallAction, Recovery, RecoveryStatus};
use crate::detect::DetectContext;
use crate::detect::evidence::{self, of_capture};
use crate::detect::finding::Evidence;
use crate::model::EventsById;
use crate::model::{EventId, EventKind, LogLevel, Project, Uuid};

/// What a finished recovery left undone.
pub(super) struct Dropped<'r> {
    pub recovery: &'r Recovery,
    /// The attempt that ended `finished`.
    pub finished: Option<&'r Attempt>,
    /// The instances never moved: dropped by the attempt, or pending in a capture.
    pub instances: Vec<Uuid>,
    /// The capture lines that show the pending moves and the notification.
    pub captured: Vec<Evidence>,
    /// The attempt's start and end and the calls made for the instances.
    pub ids: Vec<EventId>,
    /// The API failures around those calls, sorted.
    pub failures: Vec<EventId>,
    /// Instances Masakari locked and never unlocked.
    pub locked: Vec<Uuid>,
}

/// How far around the last call the API failure that interrupted it is looked for.
const FAILURE_WINDOW_NS: i64 = 30 * 1_000_000_000;

/// Instances the attempt fetched or locked and then dropped without a word.
fn dropped_instances(ctx: &DetectContext<'_>, attempt: &Attempt) -> Vec<Uuid> {
    let analysis = ctx.analysis;
    attempt
        .instances()
        .into_iter()
        .filter(|&i| {
            let touched = attempt
                .calls_of(CallAction::GetServer, Some(i))
                .next()
                .is_some()
                || attempt.calls_of(CallAction::Lock, Some(i)).next().is_some();
            let evacuated = attempt
                .calls_of(CallAction::Evacuate, Some(i))
                .next()
                .is_some()
                || attempt.calls_of(CallAction::Stop, Some(i)).next().is_some();
            let spoken_of = attempt.events.iter().any(|&e| {
                analysis.events.by_id(e).is_some_and(|ev| {
                    ev.instances.contains(&i)
                        && !is_thread_exception(&ev.message())
                        && (ev.level >= Some(LogLevel::Warning)
                            || ev
                                .message()
                                .starts_with("Ignoring recovery of HA_Enabled instance"))
                })
            });
            touched && !evacuated && !spoken_of
        })
        .collect()
}

/// The line a thread-pool engine (Masakari off eventlet) logs when an exception leaves an
/// evacuation worker: `Exception in evacuation thread: <exc>`. It is the escaped failure
/// itself (what eventlet printed to stderr), not Masakari handling the instance.
fn is_thread_exception(message: &str) -> bool {
    message.starts_with("Exception in evacuation thread: ")
}

/// API failures around `time`: raw tracebacks on the engine host, the engine's
/// `Exception in evacuation thread` records, 5xx answers and errors in Nova and Keystone;
/// none that belongs to another recovery.
fn api_failures(ctx: &DetectContext<'_>, recovery: &Recovery, time: i64) -> Vec<EventId> {
    let analysis = ctx.analysis;
    let engine_host = recovery.engine_host;
    let first = analysis
        .events
        .partition_point(|e| e.time < time - FAILURE_WINDOW_NS);
    analysis.events[first..]
        .iter()
        .enumerate()
        .take_while(|(_, e)| e.time <= time + FAILURE_WINDOW_NS)
        .filter(|(_, e)| {
            let project = evidence::project(analysis, e);
            let traceback = (e.kind == EventKind::Traceback
                || (project == Project::Masakari && is_thread_exception(&e.message())))
                && Some(e.host) == engine_host;
            let server_error = e.http().is_some_and(|h| h.status >= 500)
                && matches!(project, Project::Nova | Project::Keystone);
            let service_error = e.level >= Some(LogLevel::Error)
                && matches!(project, Project::Nova | Project::Keystone)
                && e.kind == EventKind::Log;
            (traceback || server_error || service_error) && !ctx.foreign(recovery, e)
        })
        .map(|(offset, _)| EventId::at(first + offset))
        .collect()
}
/// The instances `recovery` left behind although it ended `finished`, if any.
pub(super) fn dropped<'r>(ctx: &DetectContext<'_>, recovery: &'r Recovery) -> Option<Dropped<'r>> {
    let analysis = ctx.analysis;
    let finished = recovery
        .attempts
        .iter()
        .rev()
        .find(|a| a.status == Some(RecoveryStatus::Finished));
    let mut instances: Vec<Uuid> = finished
        .map(|a| dropped_instances(ctx, a))
        .unwrap_or_default();
    let mut captured = Vec::new();
    // What the captures say: moves still pending under a finished notification.
    for (file, m) in &recovery.vmoves {
        let pending = matches!(m.status.as_deref(), Some("pending" | "ongoing"));
        if let (true, Some(id)) = (pending, Uuid::parse(&m.server_id)) {
            if !instances.contains(&id) {
                instances.push(id);
            }
            captured.extend(of_capture(analysis, file, &m.server_id));
        }
    }
    if instances.is_empty() {
        return None;
    }
    for (file, _) in &recovery.captured {
        captured.extend(of_capture(
            analysis,
            file,
            &recovery.notification.to_string(),
        ));
    }
    let (ids, failures) = finished
        .map(|a| calls_and_failures(ctx, recovery, a, &instances))
        .unwrap_or_default();
    let locked = finished
        .map(|a| still_locked(a, &instances))
        .unwrap_or_default();
    Some(Dropped {
        recovery,
        finished,
        instances,
        captured,
        ids,
        failures,
        locked,
    })
}

/// The attempt's start, its calls for `instances` and its end; and the API failures
/// around those calls (sorted, once each).
fn calls_and_failures(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    attempt: &Attempt,
    instances: &[Uuid],
) -> (Vec<EventId>, Vec<EventId>) {
    let mut ids: Vec<EventId> = Vec::new();
    let mut failures: Vec<EventId> = Vec::new();
    if let Some(start) = attempt.start {
        ids.push(start);
    }
    for &i in instances {
        for call in attempt.calls.iter().filter(|c| c.instance == Some(i)) {
            ids.push(call.event);
            ids.extend(&call.requests);
            if let Some(e) = ctx.analysis.events.by_id(call.event) {
                failures.extend(api_failures(ctx, recovery, e.time));
            }
        }
    }
    ids.extend(attempt.end);
    failures.sort_unstable();
    failures.dedup();
    (ids, failures)
}

/// Of `instances`, those the attempt locked and did not unlock.
fn still_locked(attempt: &Attempt, instances: &[Uuid]) -> Vec<Uuid> {
    instances
        .iter()
        .copied()
        .filter(|&i| {
            attempt.calls_of(CallAction::Lock, Some(i)).next().is_some()
                && attempt
                    .calls_of(CallAction::Unlock, Some(i))
                    .next()
                    .is_none()
        })
        .collect()
}
