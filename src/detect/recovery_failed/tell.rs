//! The finding told from a [`Failure`]: the cause in words and what to do about it.

use super::measure::Failure;
use crate::correlate::recovery::{NotificationType, RecoveryStatus};
use crate::detect::DetectContext;
use crate::detect::evidence::{self, of_capture, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::model::EventsById;

/// The finding for `failure`.
pub(super) fn finding(id: &'static str, ctx: &DetectContext<'_>, failure: Failure<'_>) -> Finding {
    let analysis = ctx.analysis;
    let Failure {
        recovery,
        status,
        ids,
        failed_host,
        instances,
        ..
    } = &failure;
    let (reason, advice) = reason_and_advice(ctx, &failure);
    let mut all = of_events(analysis, ids.iter().copied());
    for (file, _) in &recovery.captured {
        all.extend(of_capture(
            analysis,
            file,
            &recovery.notification.to_string(),
        ));
    }
    let host = failed_host.clone().unwrap_or_else(|| "the host".into());
    let severity = if *status == RecoveryStatus::Ignored {
        Severity::Warning
    } else {
        Severity::Critical
    };
    Finding {
        id: format!("{id}:{}", recovery.notification).into(),
        detector: id,
        severity,
        title: match failed_host {
            Some(h) => format!("Recovery of {h} ended `{status}`: {reason}"),
            None => format!("Recovery ended `{status}`: {reason}"),
        },
        summary: format!(
            "Notification {} ({}) ended `{status}` after {} attempt(s): {reason}.",
            recovery.notification,
            recovery
                .kind
                .map_or("unknown type", NotificationType::as_str),
            recovery.attempts.len().max(1)
        ),
        failed_host: failed_host.clone(),
        instance_uuids: instances.iter().map(|i| i.to_string()).collect(),
        notification_id: Some(recovery.notification.to_string()),
        request_ids: evidence::request_ids(analysis, ids),
        window: evidence::window(analysis, ids),
        evidence: all,
        explanation: format!(
            "Masakari's recovery of {host} did not complete: the notification ended `{status}` because \
             {reason}. This is none of the evacuation failure classes evacdoc knows (no evacuate race, \
             no instance silently dropped, no slow volume-backed rebuild); the lines below show where it \
             stopped."
        ),
        remediation: Remediation::advice(advice),
        known_bugs: Vec::new(),
        highlights: Vec::new(),
    }
}

/// The known cause's reason and advice, or the last error quoted as an unclassified one.
fn reason_and_advice(ctx: &DetectContext<'_>, failure: &Failure<'_>) -> (String, String) {
    match failure.cause {
        Some((_, reason, advice)) => (reason.to_string(), advice.to_string()),
        None => {
            let summary = failure
                .last_error
                .and_then(|i| ctx.analysis.events.by_id(i))
                .map(|e| crate::detect::quote::clipped(&e.message(), 200))
                .unwrap_or_else(|| "no error line in the logs".into());
            (
                format!("unclassified failure: {summary}"),
                "Read the evidence lines; if this is a recurring failure, it deserves its own detector."
                    .to_string(),
            )
        }
    }
}
