//! `recovery-failed`: a recovery that ended `error`, `failed` or `ignored` for a reason
//! outside the three failure classes, named for what it is: Keystone refusing
//! Masakari's credentials, no reserved host left, a notification ignored for its
//! `host_status`, Nova unreachable, an evacuation timing out.
//!
//! It exists so that failures nobody has a detector for are still reported, and never
//! misclassified as one of the three: the runner drops it for a notification another
//! failure class explains.
//!
//! Inputs: Masakari engine log, or a `notification show` capture.
//!
//! Logic: the recovery's final status; the reason from the error summaries and
//! tracebacks of the attempt's warnings and errors, matched against known causes.

use crate::correlate::recovery::{CallAction, NotificationType, Recovery, RecoveryStatus};
use crate::detect::evidence::{self, of_capture, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, LogLevel, Uuid};

/// The detector.
#[derive(Debug)]
pub struct RecoveryFailed;

/// Known causes: (text in the failure lines, reason, what to do).
const CAUSES: [(&str, &str, &str); 9] = [
    (
        "Unauthorized",
        "Keystone rejected Masakari's service credentials (HTTP 401)",
        "Check os_privileged_user_name/password in masakari.conf against Keystone (a rotated password is the usual cause), restart masakari-engine, then re-run the recovery.",
    ),
    (
        "No reserved_hosts available",
        "no reserved host was available for the segment's reserved_host recovery",
        "Add reserved hosts to the failover segment (or switch it to auto / auto_priority), then evacuate the instances left on the failed host.",
    ),
    (
        "ignored as host_status is not provided",
        "the notification was ignored: its payload had no host_status",
        "Make the monitor that sent it include host_status (NORMAL) in the payload; evacuate the failed host's instances by hand meanwhile.",
    ),
    (
        "ignored as host_status",
        "the notification was ignored: its host_status was not NORMAL",
        "Masakari recovers only notifications with host_status NORMAL; check the host monitor's view of the host, and evacuate by hand if the host is really down.",
    ),
    (
        "An unknown exception occurred",
        "Nova or Keystone could not be reached (connection error or timeout)",
        "Check Masakari's connectivity to the Nova and Keystone endpoints, then re-run the recovery.",
    ),
    (
        "Timeout for instance",
        "an evacuation did not complete within wait_period_after_evacuation",
        "Check the destination host's nova-compute for the rebuild, and raise wait_period_after_evacuation if rebuilds are slow.",
    ),
    (
        "No valid host was found",
        "Nova's scheduler found no destination host (NoValidHost)",
        "Free capacity or relax scheduling constraints for the HA instances, then evacuate them.",
    ),
    (
        "is already under maintenance",
        "the host was already under maintenance",
        "Take the host out of maintenance in Masakari once it is recovered.",
    ),
    (
        "Failover segment is disabled",
        "the failover segment is disabled",
        "Enable the segment if recovery is wanted.",
    ),
];

fn failure_lines(ctx: &DetectContext<'_>, recovery: &Recovery) -> Vec<EventId> {
    let analysis = ctx.analysis;
    recovery
        .attempts
        .iter()
        .flat_map(|a| a.events.iter().copied())
        .filter(|&i| {
            analysis.events.get(i as usize).is_some_and(|e| {
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
                    .get(l as usize)
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
        let text = ctx.analysis.events.get(m as usize)?.message();
        let (_, rest) = text.split_once("hostname=")?;
        let host = rest.split([',', ')', ' ']).next()?;
        (!host.is_empty()).then(|| host.to_string())
    })
}

impl Detector for RecoveryFailed {
    fn id(&self) -> &'static str {
        "recovery-failed"
    }

    fn doc(&self) -> &'static str {
        "A Masakari recovery ended error, failed or ignored for a reason outside the three failure \
         classes (Keystone 401, no reserved host, missing host_status, ...), named for what it is."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.recoveries
            .iter()
            .filter_map(|r| self.finding(ctx, r))
            .collect()
    }
}

impl RecoveryFailed {
    fn finding(&self, ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<Finding> {
        let analysis = ctx.analysis;
        let status = recovery.final_status()?;
        if !status.is_failure() {
            return None;
        }
        let lines = failure_lines(ctx, recovery);
        let text_of = |i: &EventId| {
            analysis
                .events
                .get(*i as usize)
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
        let (reason, advice) = match cause {
            Some((_, reason, advice)) => (reason.to_string(), advice.to_string()),
            None => {
                let summary = lines
                    .iter()
                    .rev()
                    .filter_map(|i| analysis.events.get(*i as usize))
                    .find(|e| e.level >= Some(LogLevel::Error))
                    .map(|e| crate::detect::quote::clipped(&e.message(), 200))
                    .unwrap_or_else(|| "no error line in the logs".into());
                (
                    format!("unclassified failure: {summary}"),
                    "Read the evidence lines; if this is a recurring failure, it deserves its own detector."
                        .to_string(),
                )
            }
        };
        let mut ids: Vec<EventId> = recovery.attempts.iter().filter_map(|a| a.start).collect();
        ids.extend(&lines);
        ids.extend(recovery.attempts.iter().filter_map(|a| a.end));
        let mut all = of_events(analysis, ids.iter().copied());
        for (file, _) in &recovery.captured {
            all.extend(of_capture(
                analysis,
                file,
                &recovery.notification.to_string(),
            ));
        }
        let failed_host = recovery
            .failed_host
            .clone()
            .or_else(|| notified_host(ctx, recovery));
        let host = failed_host.clone().unwrap_or_else(|| "the host".into());
        let severity = if status == RecoveryStatus::Ignored {
            Severity::Warning
        } else {
            Severity::Critical
        };
        Some(Finding {
            id: format!("{}:{}", self.id(), recovery.notification).into(),
            detector: self.id(),
            severity,
            title: match &failed_host {
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
            failed_host,
            instance_uuids: failed_instances(ctx, recovery, &lines)
                .iter()
                .map(|i| i.to_string())
                .collect(),
            notification_id: Some(recovery.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
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
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::{engine, findings, start};

    const N: &str = "7b3e9f1a-2c4d-4e5f-8a6b-9c0d1e2f3a4b";
    const G: &str = "1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";

    #[test]
    fn a_keystone_401_is_named() {
        let mut log = start(N, G, "compute-4", 180);
        log += &engine(
            "10:02:47.600",
            G,
            "WARNING",
            "masakari.engine.drivers.taskflow.driver",
            "Task 'DisableComputeServiceTask' (0b6f7a3e-0000-4000-8000-000000000002) transitioned into state 'FAILURE' from state 'RUNNING'",
        );
        log += "2024-05-21 10:02:47.600 41 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):\n\
                2024-05-21 10:02:47.600 41 ERROR masakari.engine.drivers.taskflow.driver keystoneauth1.exceptions.http.Unauthorized: The request you have made requires authentication. (HTTP 401) (Request-ID: req-0d1c2b3a-4958-4a6b-8c7d-6e5f4a3b2c1d)\n";
        log += &engine(
            "10:02:48.000",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: error."),
        );
        let found = findings(
            "recovery-failed",
            &[("ctl/var/log/masakari/masakari-engine.log", &log)],
        );
        assert_eq!(found.len(), 1);
        assert!(
            found[0]
                .title
                .contains("Keystone rejected Masakari's service credentials"),
            "{}",
            found[0].title
        );
        assert_eq!(found[0].severity, crate::detect::Severity::Critical);
    }

    /// Nova accepted one evacuation (200, rebuilt, polled, unlocked) and refused the other
    /// (409): only the refused instance is named.
    #[test]
    fn only_the_instances_the_evidence_says_failed_are_named() {
        const OK: &str = "b7e3c2a1-4d5f-4a8b-9c6e-1f2d3e4a5b6c";
        const BAD: &str = "3f8a6d2c-9e1b-4c7a-8d5f-6a2b1c9e0d47";
        let nova = "masakari.compute.nova";
        let mut log = start(N, G, "compute-4", 180);
        for (t, i) in [("10:05:47.600", OK), ("10:05:47.700", BAD)] {
            log += &engine(
                t,
                G,
                "INFO",
                nova,
                &format!("Call evacuate command for instance {i} on host None"),
            );
        }
        log += &engine(
            "10:05:48.100",
            G,
            "WARNING",
            "masakari.engine.drivers.taskflow.host_failure",
            "Conflict: masakari.exception.Conflict: Conflict",
        );
        log += &engine(
            "10:05:49.000",
            G,
            "INFO",
            nova,
            &format!("Call get server command for instance {OK}"),
        );
        log += &engine(
            "10:05:52.000",
            G,
            "INFO",
            nova,
            &format!("Call unlock server command for instance {OK}"),
        );
        log += &engine(
            "10:05:53.000",
            G,
            "ERROR",
            "masakari.engine.manager",
            &format!(
                "Failed to process notification '{N}'. Reason: Failed to evacuate instances '{BAD}' from host 'compute-4': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{BAD}' from host 'compute-4'"
            ),
        );
        log += &engine(
            "10:05:53.100",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: error."),
        );
        let ctx = "[req-5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default]";
        let api = format!(
            "2024-05-21 10:05:47.900 23 INFO nova.api.openstack.requestlog {ctx} 10.0.0.5 \"POST /v2.1/servers/{OK}/action\" status: 200 len: 34 microversion: 2.53 time: 0.25\n\
             2024-05-21 10:05:47.950 23 INFO nova.api.openstack.requestlog {} 10.0.0.5 \"POST /v2.1/servers/{BAD}/action\" status: 409 len: 120 microversion: 2.53 time: 0.2\n\
             2024-05-21 10:05:49.200 23 INFO nova.api.openstack.requestlog {ctx} 10.0.0.5 \"GET /v2.1/servers/{OK}\" status: 200 len: 2310 microversion: 2.53 time: 0.1\n",
            ctx.replace("req-2b7c9d1e", "req-3c8d0e2f")
        );
        let found = findings(
            "recovery-failed",
            &[
                ("ctl/var/log/masakari/masakari-engine.log", &log),
                ("ctl/var/log/nova/nova-api-wsgi.log", &api),
            ],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [BAD]);
    }

    #[test]
    fn a_finished_recovery_is_not_a_failure() {
        let mut log = start(N, G, "compute-4", 180);
        log += &engine(
            "10:06:00.000",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: finished."),
        );
        assert!(
            findings(
                "recovery-failed",
                &[("ctl/var/log/masakari/masakari-engine.log", &log)]
            )
            .is_empty()
        );
    }
}
