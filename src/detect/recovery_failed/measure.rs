//! The facts of a failed recovery: its final status, its warning and error lines, the
//! known cause they name, and the instances they say failed.

use super::causes::CAUSES;
use crate::correlate::recovery::{CallAction, Recovery, RecoveryStatus};
use crate::detect::DetectContext;
use crate::model::EventsById;
use crate::model::{EventId, LogLevel, Uuid};

/// What a failed recovery says of its failure.
pub(super) struct Failure<'r> {
    pub recovery: &'r Recovery,
    pub status: RecoveryStatus,
    /// The known cause they (or a capture's message) name: (needle, reason, advice).
    pub cause: Option<&'static (&'static str, &'static str, &'static str)>,
    /// The last error line (what an unknown cause is told by).
    pub last_error: Option<EventId>,
    /// The attempts' starts, their warnings and errors (and `ignored as host_status`
    /// lines), their ends.
    pub ids: Vec<EventId>,
    /// The failed host, or the host a monitor notified about.
    pub failed_host: Option<String>,
    /// The instances the evidence says failed.
    pub instances: Vec<Uuid>,
}

/// The failure of `recovery`, when it ended `error`, `failed` or (for a known cause)
/// `ignored`.
pub(super) fn failure<'r>(ctx: &DetectContext<'_>, recovery: &'r Recovery) -> Option<Failure<'r>> {
    let analysis = ctx.analysis;
    let status = recovery.final_status()?;
    if !status.is_failure() {
        return None;
    }
    let lines = failure_lines(ctx, recovery);
    let text_of = |i: &EventId| {
        analysis
            .events
            .by_id(*i)
            .map(|e| e.full_text())
            .unwrap_or_default()
    };
    let texts: Vec<String> = lines.iter().map(text_of).collect();
    let captured: Vec<String> = recovery
        .captured
        .iter()
        .filter_map(|(_, n)| n.message.clone())
        .collect();
    let cause = CAUSES
        .iter()
        .find(|(needle, _, _)| texts.iter().chain(&captured).any(|t| t.contains(needle)));
    // A VM event Masakari deliberately ignores (not one of its recoverable events)
    // is not a failure.
    if status == RecoveryStatus::Ignored && cause.is_none() {
        return None;
    }
    let last_error = lines.iter().rev().copied().find(|&i| {
        analysis
            .events
            .by_id(i)
            .is_some_and(|e| e.level >= Some(LogLevel::Error))
    });
    let mut ids: Vec<EventId> = recovery.attempts.iter().filter_map(|a| a.start).collect();
    ids.extend(&lines);
    ids.extend(recovery.attempts.iter().filter_map(|a| a.end));
    let failed_host = recovery
        .failed_host
        .clone()
        .or_else(|| notified_host(ctx, recovery));
    let instances = failed_instances(ctx, recovery, &lines);
    Some(Failure {
        recovery,
        status,
        cause,
        last_error,
        ids,
        failed_host,
        instances,
    })
}

fn failure_lines(ctx: &DetectContext<'_>, recovery: &Recovery) -> Vec<EventId> {
    let analysis = ctx.analysis;
    recovery
        .attempts
        .iter()
        .flat_map(|a| a.events.iter().copied())
        .filter(|&i| {
            analysis.events.by_id(i).is_some_and(|e| {
                (e.level >= Some(LogLevel::Warning)
                    || e.message().contains(" ignored as host_status"))
                    && !ctx.foreign(recovery, e)
            })
        })
        .collect()
}

/// The instances the evidence says failed: Nova refused the last evacuation of it, or a
/// failure line of the recovery names it after its last accepted evacuation (Masakari's
/// `Failed to evacuate instances '…'` lists only the failed ones). An instance whose
/// evacuation Nova accepted and nothing later says failed is not listed, however close
/// to the one that failed.
fn failed_instances(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    failure_lines: &[EventId],
) -> Vec<Uuid> {
    let analysis = ctx.analysis;
    let mut out = Vec::new();
    for instance in recovery.attempts.iter().flat_map(|a| a.instances()) {
        if out.contains(&instance) {
            continue;
        }
        let evacuations: Vec<(EventId, Option<u16>)> = recovery
            .attempts
            .iter()
            .flat_map(|a| a.calls_of(CallAction::Evacuate, Some(instance)))
            .map(|c| (c.event, c.status(analysis)))
            .collect();
        let last_accepted = evacuations
            .iter()
            .filter(|(_, s)| matches!(s, Some(200..=299)))
            .map(|(e, _)| *e)
            .max();
        let refused_after = evacuations
            .iter()
            .any(|(e, s)| s.is_some_and(|s| s >= 400) && Some(*e) > last_accepted);
        let id = instance.to_string();
        let named_after = failure_lines.iter().any(|&l| {
            Some(l) > last_accepted
                && analysis
                    .events
                    .by_id(l)
                    .is_some_and(|e| e.message().contains(&id))
        });
        if refused_after || named_after {
            out.push(instance);
        }
    }
    out
}

/// The host a monitor notified about, from its line naming the notification
/// (`Response: …Notification(type=…, hostname=<host>, …, notification_uuid=<id>…`): an
/// ignored notification never reaches a Nova call that would name it.
fn notified_host(ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<String> {
    recovery.mentions.iter().find_map(|&m| {
        let text = ctx.analysis.events.by_id(m)?.message();
        let (_, rest) = text.split_once("hostname=")?;
        let host = rest.split([',', ')', ' ']).next()?;
        (!host.is_empty()).then(|| host.to_string())
    })
}
