//! `notification-stuck-running`: a notification whose run started (`Processing
//! notification <N>`) and never ended: no `exits with status` follows, because an
//! exception escaped the engine's handler (oslo.messaging's `Exception during message
//! handling` traceback), so the notification stays `running` until the periodic task
//! expires it a day later (`Notification <N> is expired.`, status `failed`). Nothing was
//! recovered and nothing retried it.
//!
//! Masakari before 15.0.0 let any exception other than its own out of the instance and
//! process failure flows (a timeout, a Nova 5xx the client does not translate), so the
//! manager never set the final status (Launchpad bug 1996835, fixed in 15.0.0 and backported to
//! 14.0.2, 13.0.3 and 12.0.3).
//!
//! Inputs: Masakari engine log.
//!
//! Logic (measuring): the last run of a notification has a start and no end, and either
//! the engine later logs the notification expired, or an exception-during-handling
//! record of that run (its lines or its request ids) follows the start. Telling: what the
//! notification was, how long it stayed `running`, what escaped.

use crate::correlate::recovery::{Attempt, NotificationType, Recovery};
use crate::detect::evidence::{self, duration, of_events};
use crate::detect::finding::{Finding, Highlight, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::EventsById;
use crate::model::{EventId, Uuid};

/// The detector.
#[derive(Debug)]
pub struct NotificationStuckRunning;

/// What the logs say of one stuck notification.
#[derive(Debug, Clone, PartialEq)]
pub struct StuckRun {
    /// The notification.
    pub notification: Uuid,
    /// Its type, when the start line says.
    pub kind: Option<NotificationType>,
    /// `Processing notification <N> of type: …`.
    pub start: EventId,
    /// The exception that escaped the handler, when logged.
    pub escaped: Option<EventId>,
    /// `Notification <N> is expired.`, when logged.
    pub expired: Option<EventId>,
    /// UTC nanoseconds from the start to the expiry (or to the escape).
    pub stuck_for: i64,
    /// The exception's last line (`novaclient.exceptions.ClientException: …`).
    pub exception: Option<String>,
}

/// Whether a message says an RPC handler let an exception out (oslo.messaging's
/// dispatcher; older releases log `Exception during message handling` too).
fn escaped_handler(message: &str) -> bool {
    message.starts_with("Exception during message handling")
}

/// Whether a message is the periodic task's expiry of a notification.
fn expiry(message: &str) -> bool {
    message.contains("is expired") && message.contains("otification")
}

/// The record of the run's escaped exception: among the run's lines, or any engine
/// line under one of its request ids, after its start.
fn escaped_in(ctx: &DetectContext<'_>, attempt: &Attempt, start: EventId) -> Option<EventId> {
    let analysis = ctx.analysis;
    let start_time = analysis.events.by_id(start)?.time;
    let of_run = |e: &crate::model::Event| {
        [e.global_request_id, e.request_id]
            .into_iter()
            .flatten()
            .any(|id| attempt.request_ids.contains(&id))
    };
    attempt
        .events
        .iter()
        .copied()
        .find(|&i| {
            analysis
                .events
                .by_id(i)
                .is_some_and(|e| escaped_handler(&e.message()))
        })
        .or_else(|| {
            analysis.events.iter().enumerate().find_map(|(i, e)| {
                (e.time >= start_time
                    && crate::correlate::recovery::is_engine(analysis, e)
                    && of_run(e)
                    && escaped_handler(&e.message()))
                .then_some(EventId::at(i))
            })
        })
}

/// The last line of a record's traceback that names an exception (Python names the one
/// raised there).
fn exception_line(ctx: &DetectContext<'_>, id: EventId) -> Option<String> {
    let event = ctx.analysis.events.by_id(id)?;
    event
        .more()
        .filter_map(|l| {
            // Prefixed tracebacks repeat `<time> <pid> ERROR <logger> `: keep what follows.
            let text = match l.split_once(" ERROR ") {
                Some((_, rest)) => rest.split_once(' ').map_or("", |(_, t)| t),
                None => l.as_str(),
            }
            .trim();
            (!text.is_empty() && !text.starts_with("File ") && !text.starts_with('^'))
                .then(|| text.to_string())
        })
        .rfind(|text| names_exception(text))
}

/// Whether a traceback line names its exception (`novaclient.exceptions.X: …`); a
/// message running over more lines continues after it.
fn names_exception(text: &str) -> bool {
    text.split_once(": ").is_some_and(|(name, _)| {
        name.contains('.')
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
    })
}

/// The host a monitor notified about (`…Notification(type=…, hostname=<host>, …`): a
/// VM or process notification never names it in the engine's lines.
fn notified_host(ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<String> {
    recovery.failed_host.clone().or_else(|| {
        recovery.mentions.iter().find_map(|&m| {
            let text = ctx.analysis.events.by_id(m)?.message();
            let (_, rest) = text.split_once("hostname=")?;
            let host = rest.split([',', ')', ' ']).next()?;
            (!host.is_empty()).then(|| host.to_string())
        })
    })
}

/// A long duration in words: `24 h 7 min` (a stuck notification lasts a day).
fn long_duration(nanos: i64) -> String {
    let minutes = nanos / 60_000_000_000;
    if minutes < 120 {
        duration(nanos)
    } else {
        format!("{} h {} min", minutes / 60, minutes % 60)
    }
}

/// Measures a recovery: its last run started and never ended, and then expired or let
/// an exception out.
pub fn measure(ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<StuckRun> {
    let analysis = ctx.analysis;
    let attempt = recovery.attempts.last()?;
    let start = attempt.start?;
    if attempt.end.is_some() {
        return None;
    }
    let start_time = analysis.events.by_id(start)?.time;
    let expired = recovery.mentions.iter().copied().find(|&m| {
        analysis
            .events
            .by_id(m)
            .is_some_and(|e| e.time >= start_time && expiry(&e.message()))
    });
    let escaped = escaped_in(ctx, attempt, start);
    let last = expired.or(escaped)?;
    let stuck_for = analysis.events.by_id(last)?.time - start_time;
    Some(StuckRun {
        notification: recovery.notification,
        kind: recovery.kind,
        start,
        escaped,
        expired,
        stuck_for,
        exception: escaped.and_then(|e| exception_line(ctx, e)),
    })
}

/// The explanation of a stuck run.
fn explanation(run: &StuckRun, host: &str) -> String {
    let what = run
        .exception
        .as_deref()
        .map(|e| format!(" (`{e}`)"))
        .unwrap_or_default();
    let end = if run.expired.is_some() {
        format!(
            "{} later the periodic task `check_expired_notifications` marked it expired and `failed`",
            long_duration(run.stuck_for)
        )
    } else {
        "it stays `running` until the periodic task expires it (notifications_expired_interval, a day by default)"
            .to_string()
    };
    format!(
        "Masakari's engine started notification {} for {host} and never finished it: no `exits with status` \
         line follows its `Processing notification` line. {} An exception{what} left the engine's handler \
         instead of ending the run as `error`, so the status was never written, the periodic retry \
         (process_unfinished_notifications) skips `running` notifications, and {end}. Nothing was recovered. \
         Masakari before 15.0.0 (14.0.2, 13.0.3 and 12.0.3 on their series) lets exceptions other than its \
         own out of the instance and process failure flows this way (Launchpad bug 1996835).",
        run.notification,
        if run.escaped.is_some() {
            "oslo.messaging logged `Exception during message handling` for the run."
        } else {
            "The traceback is not in the bundle."
        },
    )
}

impl Detector for NotificationStuckRunning {
    fn id(&self) -> &'static str {
        "notification-stuck-running"
    }

    fn doc(&self) -> &'static str {
        "A Masakari notification started and never ended: an exception escaped the engine's handler, \
         the notification stayed `running` and expired a day later without recovery (bug 1996835)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.recoveries
            .iter()
            .filter_map(|r| Some(self.tell(ctx, r, &measure(ctx, r)?)))
            .collect()
    }
}

impl NotificationStuckRunning {
    fn tell(&self, ctx: &DetectContext<'_>, recovery: &Recovery, run: &StuckRun) -> Finding {
        let analysis = ctx.analysis;
        let ids: Vec<EventId> = [Some(run.start), run.escaped, run.expired]
            .into_iter()
            .flatten()
            .collect();
        let host = notified_host(ctx, recovery);
        let named = host.clone().unwrap_or_else(|| "its host".into());
        let kind = run.kind.map_or("unknown type", NotificationType::as_str);
        let mut highlights: Vec<Highlight> = Vec::new();
        if let (Some(a), Some(b)) = (
            analysis.events.by_id(run.start),
            ids.last().and_then(|&l| analysis.events.by_id(l)),
        ) {
            highlights.push(Highlight::Span {
                from: a.time,
                to: b.time,
                label: format!("running, {}", long_duration(run.stuck_for)),
            });
        }
        Finding {
            id: format!("{}:{}", self.id(), run.notification).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "Notification {} ({kind}) stuck `running`: never finished",
                run.notification
            ),
            summary: format!(
                "The engine started notification {} ({kind}) and never ended it; {}. Nothing was recovered.",
                run.notification,
                if run.expired.is_some() {
                    format!("it expired {} later", long_duration(run.stuck_for))
                } else {
                    "an exception escaped the engine's handler".to_string()
                }
            ),
            failed_host: host,
            instance_uuids: recovery.instances().iter().map(|i| i.to_string()).collect(),
            notification_id: Some(run.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: explanation(run, &named),
            remediation: Remediation::advice(
                "Recover the instance (or process) by hand now: the notification will not be retried. \
                          Upgrade Masakari to 15.0.0 or later (14.0.2, 13.0.3 or 12.0.3 on those series), where such \
                          exceptions end the run as `error` and \
                          the periodic task retries it; meanwhile watch for notifications left `running`.",
            ),
            known_bugs: Vec::new(),
            highlights,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::findings;

    const ENGINE: &str = "ctl/var/log/masakari/masakari-engine.log";

    fn line(time: &str, level: &str, logger: &str, message: &str) -> String {
        format!(
            "2022-03-14 {time} 2211 {level} {logger} [req-5b1e6f0a-2c3d-4e8f-9a1b-7c6d5e4f3a2b req-0d9c8b7a-6f5e-4d3c-2b1a-0f9e8d7c6b5a nova - - - - -] {message}\n"
        )
    }

    fn engine_log(expired: bool, finished: bool) -> String {
        let n = "7f3c2a1b-9d8e-4f6a-b5c4-3e2d1a0f9b8c";
        let mut log = format!(
            "2022-03-14 08:15:02.311 2211 INFO masakari.engine.manager [req-5b1e6f0a-2c3d-4e8f-9a1b-7c6d5e4f3a2b req-5b1e6f0a-2c3d-4e8f-9a1b-7c6d5e4f3a2b 2f4e6a8c0b1d3f5a7c9e1b3d5f7a9c1e 9e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b - - -] Processing notification {n} of type: VM\n"
        );
        log += &line(
            "08:15:02.402",
            "INFO",
            "masakari.compute.nova",
            "Call stop server command for instance 3a2b1c0d-9e8f-4a7b-8c6d-5e4f3a2b1c0d",
        );
        if finished {
            log += &line(
                "08:15:09.120",
                "INFO",
                "masakari.engine.manager",
                &format!("Notification {n} exits with status: finished."),
            );
        } else {
            log += &line(
                "08:16:02.650",
                "ERROR",
                "oslo_messaging.rpc.server",
                "Exception during message handling",
            );
            log += "2022-03-14 08:16:02.650 2211 ERROR oslo_messaging.rpc.server Traceback (most recent call last):\n";
            log += "2022-03-14 08:16:02.650 2211 ERROR oslo_messaging.rpc.server   File \"/usr/lib/python3/dist-packages/masakari/engine/manager.py\", line 300, in process_notification\n";
            log += "2022-03-14 08:16:02.650 2211 ERROR oslo_messaging.rpc.server novaclient.exceptions.ClientException: Unknown Error (HTTP 504)\n";
        }
        if expired {
            log += &format!(
                "2022-03-15 08:17:40.118 2211 ERROR masakari.engine.manager [req-9a8b7c6d-5e4f-4a3b-8c2d-1e0f9a8b7c6d - - - - -] Periodic task 'check_expired_notifications': Notification {n} is expired.\n"
            );
        }
        log
    }

    #[test]
    fn a_run_that_never_ends_and_expires_is_found() {
        let log = engine_log(true, false);
        let found = findings("notification-stuck-running", &[(ENGINE, &log)]);
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(
            f.notification_id.as_deref(),
            Some("7f3c2a1b-9d8e-4f6a-b5c4-3e2d1a0f9b8c")
        );
        let texts: Vec<&str> = f.evidence.iter().map(|e| e.text.as_str()).collect();
        assert!(texts[0].contains("Processing notification"), "{texts:?}");
        assert!(
            texts
                .iter()
                .any(|t| t.contains("Exception during message handling"))
        );
        assert!(texts.last().unwrap().contains("is expired."));
        assert!(
            f.explanation
                .contains("ClientException: Unknown Error (HTTP 504)")
        );
    }

    #[test]
    fn an_escaped_exception_without_expiry_is_found() {
        let log = engine_log(false, false);
        assert_eq!(
            findings("notification-stuck-running", &[(ENGINE, &log)]).len(),
            1
        );
    }

    #[test]
    fn a_run_that_ends_is_not_stuck() {
        let log = engine_log(false, true);
        assert!(findings("notification-stuck-running", &[(ENGINE, &log)]).is_empty());
    }
}
