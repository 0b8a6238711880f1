//! What became of each instance a recovery handled: moved, failed, left pending, or
//! ignored on purpose. The analysis page's recoveries table counts these, and the
//! Remediate panel is offered only where something is left to recover.
//!
//! A captured VM move says it best (Masakari's own record); else the engine's calls and
//! Nova's answers to them; else how the run that named the instance ended.

use crate::model::EventsById;
use serde::Serialize;

use crate::correlate::Analysis;
use crate::correlate::recovery::{Attempt, CallAction, Recovery, RecoveryStatus};
use crate::model::Uuid;

/// The fate of one instance.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum InstanceOutcome {
    /// Evacuated (or, for a VM notification, recovered).
    Moved,
    /// Its move failed, or the run that held it failed.
    Failed,
    /// Nothing ended its move: still on the failed host.
    Pending,
    /// Left alone on purpose (a VM move `ignored`, an HA-disabled instance).
    Ignored,
}

/// The instances of one recovery by outcome.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Outcomes {
    pub moved: Vec<Uuid>,
    pub failed: Vec<Uuid>,
    pub pending: Vec<Uuid>,
    pub ignored: Vec<Uuid>,
}

impl Outcomes {
    /// Instances still to recover: failed or pending.
    pub fn left(&self) -> usize {
        self.failed.len() + self.pending.len()
    }

    /// Every instance counted.
    pub fn total(&self) -> usize {
        self.moved.len() + self.failed.len() + self.pending.len() + self.ignored.len()
    }
}

/// The outcome of every instance `recovery` handled.
pub fn outcomes(analysis: &Analysis, recovery: &Recovery) -> Outcomes {
    let mut out = Outcomes::default();
    for instance in recovery.instances() {
        let list = match outcome(analysis, recovery, instance) {
            InstanceOutcome::Moved => &mut out.moved,
            InstanceOutcome::Failed => &mut out.failed,
            InstanceOutcome::Pending => &mut out.pending,
            InstanceOutcome::Ignored => &mut out.ignored,
        };
        list.push(instance);
    }
    out
}

/// True when the recovery ended `finished` and no instance of it is left to recover.
pub fn fully_recovered(analysis: &Analysis, recovery: &Recovery) -> bool {
    recovery.final_status() == Some(RecoveryStatus::Finished)
        && outcomes(analysis, recovery).left() == 0
}

/// The outcome of `instance` in `recovery`.
pub fn outcome(analysis: &Analysis, recovery: &Recovery, instance: Uuid) -> InstanceOutcome {
    if let Some(captured) = captured_move(recovery, instance) {
        return captured;
    }
    let host_failure = recovery.is_host_failure();
    let mut last = None;
    for attempt in recovery.attempts.iter().filter(|a| names(a, instance)) {
        let verdict = logged(analysis, attempt, instance, host_failure);
        // A retry handles what is left: a move done once stays done.
        if verdict == InstanceOutcome::Moved {
            return verdict;
        }
        last = Some(verdict);
    }
    match last {
        Some(verdict) => verdict,
        // Named only by a capture's progress details: the notification's status says.
        None => by_status(recovery.final_status()),
    }
}

/// The last VM move captured for `instance`, as an outcome.
fn captured_move(recovery: &Recovery, instance: Uuid) -> Option<InstanceOutcome> {
    let status = recovery
        .vmoves
        .iter()
        .rev()
        .filter(|(_, m)| Uuid::parse(&m.server_id) == Some(instance))
        .find_map(|(_, m)| m.status.as_deref())?;
    Some(match status.trim().to_ascii_lowercase().as_str() {
        "succeeded" => InstanceOutcome::Moved,
        "failed" => InstanceOutcome::Failed,
        "ignored" => InstanceOutcome::Ignored,
        _ => InstanceOutcome::Pending,
    })
}

fn names(attempt: &Attempt, instance: Uuid) -> bool {
    attempt.calls.iter().any(|c| c.instance == Some(instance))
}

/// What one run's lines say of `instance`.
fn logged(
    analysis: &Analysis,
    attempt: &Attempt,
    instance: Uuid,
    host_failure: bool,
) -> InstanceOutcome {
    if !host_failure {
        return by_status(attempt.status);
    }
    let answers: Vec<Option<u16>> = attempt
        .calls_of(CallAction::Evacuate, Some(instance))
        .map(|c| c.status(analysis))
        .collect();
    if answers.iter().flatten().any(|s| (200..300).contains(s)) {
        return InstanceOutcome::Moved;
    }
    if answers.iter().flatten().any(|&s| s >= 400) {
        return InstanceOutcome::Failed;
    }
    if !answers.is_empty() {
        // Asked, answer not in the bundle: the run's end says how it went.
        return by_status(attempt.status);
    }
    if ignored_on_purpose(analysis, attempt, instance) {
        return InstanceOutcome::Ignored;
    }
    match attempt.status {
        Some(s) if s.is_failure() => InstanceOutcome::Failed,
        // Fetched or locked, never evacuated, and the run said nothing: left behind.
        _ => InstanceOutcome::Pending,
    }
}

/// `Ignoring recovery of HA_Enabled instance ...` (or a stopped instance Masakari skips).
fn ignored_on_purpose(analysis: &Analysis, attempt: &Attempt, instance: Uuid) -> bool {
    attempt.events.iter().any(|&e| {
        analysis.events.by_id(e).is_some_and(|ev| {
            ev.instances.contains(&instance) && ev.message().starts_with("Ignoring recovery of")
        })
    })
}

fn by_status(status: Option<RecoveryStatus>) -> InstanceOutcome {
    match status {
        Some(RecoveryStatus::Finished) => InstanceOutcome::Moved,
        Some(RecoveryStatus::Ignored) => InstanceOutcome::Ignored,
        Some(s) if s.is_failure() => InstanceOutcome::Failed,
        _ => InstanceOutcome::Pending,
    }
}
