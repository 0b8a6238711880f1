//! `notification-rejected`: masakari-api refused a host monitor's notification of a host
//! failure, so no recovery exists for it:
//!
//! - 400 `Host with name <h> could not be found.`: the monitor names the host as its
//!   cluster does (`cmp02.cloud.example.com`) and Masakari's segment as Nova does
//!   (`cmp02`). Monitors from 15.0.0 log the refusal once and stop; earlier ones retry
//!   `api_retry_max` times, then give up.
//! - 409 `Notification received from host <h> of type '<T>' is ignored as the host is
//!   already under maintenance.` for a `STOPPED` event: the host was left on maintenance
//!   after an earlier recovery, and its new failure is ignored. (A `STARTED` event of a
//!   host still on maintenance right after its recovery is refused the same way, and is
//!   normal: not a finding.)
//!
//! Inputs: masakari-api and masakari-hostmonitor logs (either names the host; the
//! monitor's `Send a notification.` line gives the event).
//!
//! Logic (measuring): every Masakari line with one of the two texts, grouped by host and
//! kind; the monitor's last `Send a notification.` for that host before it (its event);
//! whether a notification of that host went through around it or afterwards (a monitor's
//! `Response: …hostname=<h>`, a recovery of the host): then the refusal was a duplicate.
//! Telling: a refused host name is a finding (critical for a `STOPPED` event or an
//! unknown one); a maintenance refusal only for a `STOPPED` event.

use crate::model::EventsById;
use std::collections::BTreeMap;

use crate::correlate::Analysis;
use crate::detect::evidence::{self, of_events, project};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::monitor_lines::sent;
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, Project};

/// The detector.
#[derive(Debug)]
pub struct NotificationRejected;

/// Why masakari-api refused the notification.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Refusal {
    /// 400: no Masakari host by that name.
    HostNotFound,
    /// 409: the host is on maintenance.
    OnMaintenance,
}

/// The refusals of one host's notifications.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    /// The host as the notification named it.
    pub host: String,
    /// Why.
    pub refusal: Refusal,
    /// The lines saying so (API and monitor).
    pub lines: Vec<EventId>,
    /// The monitor's `Send a notification.` lines of the host before each refusal.
    pub sends: Vec<EventId>,
    /// The payload events of those notifications (`STOPPED`, `STARTED`).
    pub events: Vec<String>,
    /// A notification of the host went through near the first refusal or after it (the
    /// refusal was a duplicate, or a retry succeeded).
    pub accepted_after: bool,
}

/// The host and refusal a message states, if it is a refusal.
pub fn refusal(message: &str) -> Option<(String, Refusal)> {
    if let Some((_, rest)) = message.split_once("Host with name ")
        && let Some((host, _)) = rest.split_once(" could not be found")
    {
        return Some((host.trim().to_string(), Refusal::HostNotFound));
    }
    let (_, rest) = message.split_once("Notification received from host ")?;
    let (host, tail) = rest.split_once(" of type ")?;
    tail.contains("already under maintenance")
        .then(|| (host.trim().to_string(), Refusal::OnMaintenance))
}

/// The host a monitor's `Response: …Notification(…, hostname=<h>, …)` line accepted.
fn accepted_host(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Response: ")?;
    let (_, rest) = rest.split_once("hostname=")?;
    rest.split([',', ')', ' ']).next()
}

/// Measures every refused host.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Refused> {
    let analysis = ctx.analysis;
    let masakari = |e: &crate::model::Event| project(analysis, e) == Project::Masakari;
    let mut by_host: BTreeMap<(String, Refusal), Refused> = BTreeMap::new();
    // (time, host, id, event) of every notification sent, and (time, host) accepted.
    let mut sends: Vec<(i64, String, EventId, Option<String>)> = Vec::new();
    let mut accepted: Vec<(i64, String)> = Vec::new();
    for (i, event) in analysis.events.iter().enumerate() {
        if !masakari(event) {
            continue;
        }
        let id = EventId::at(i);
        let message = event.message();
        if let Some(s) = sent(&message) {
            sends.push((event.time, s.host, id, s.event));
            continue;
        }
        if let Some(host) = accepted_host(&message) {
            accepted.push((event.time, host.to_string()));
            continue;
        }
        let Some((host, kind)) = refusal(&message) else {
            continue;
        };
        let entry = by_host
            .entry((host.clone(), kind))
            .or_insert_with(|| Refused {
                host: host.clone(),
                refusal: kind,
                lines: Vec::new(),
                sends: Vec::new(),
                events: Vec::new(),
                accepted_after: false,
            });
        entry.lines.push(id);
        let before = sends
            .iter()
            .rev()
            .find(|(t, h, _, _)| *h == host && *t <= event.time);
        if let Some((_, _, send, ev)) = before
            && !entry.sends.contains(send)
        {
            entry.sends.push(*send);
            entry.events.extend(ev.clone());
        }
    }
    // Recoveries of a host, by their first line: a notification of the host that went
    // through (another monitor's, a moment earlier, or a later retry).
    accepted.extend(
        ctx.host_failures()
            .filter_map(|r| Some((r.window(analysis)?.0, r.failed_host.clone()?))),
    );
    let mut out: Vec<Refused> = by_host.into_values().collect();
    for r in &mut out {
        let since = first_time(analysis, &r.lines).saturating_sub(ACCEPTED_BEFORE_NS);
        r.accepted_after = accepted
            .iter()
            .any(|(t, h)| *t >= since && short(h) == short(&r.host));
    }
    out
}

/// A notification of the host accepted this long before a refusal makes the refusal a
/// duplicate (several monitors notify one failure; the first sets the host on
/// maintenance, the others get 409).
const ACCEPTED_BEFORE_NS: i64 = 600 * 1_000_000_000;

fn short(host: &str) -> &str {
    host.split('.').next().unwrap_or(host)
}

fn first_time(analysis: &Analysis, ids: &[EventId]) -> i64 {
    ids.iter()
        .filter_map(|&i| analysis.events.by_id(i))
        .map(|e| e.time)
        .min()
        .unwrap_or(i64::MAX)
}

/// The severity of a refusal, or `None` when it is not a failure.
pub fn severity(r: &Refused) -> Option<Severity> {
    let stopped = r.events.iter().any(|e| e == "STOPPED");
    match r.refusal {
        _ if r.accepted_after => None,
        Refusal::OnMaintenance if stopped => Some(Severity::Critical),
        Refusal::OnMaintenance => None,
        Refusal::HostNotFound if stopped || r.events.is_empty() => Some(Severity::Critical),
        Refusal::HostNotFound => Some(Severity::Warning),
    }
}

impl Detector for NotificationRejected {
    fn id(&self) -> &'static str {
        "notification-rejected"
    }

    fn doc(&self) -> &'static str {
        "masakari-api refused a monitor's host-failure notification (400 host not found: cluster and \
         Nova name the host differently; 409 host already on maintenance): no recovery was started."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx)
            .iter()
            .filter_map(|r| Some(self.tell(ctx, r, severity(r)?)))
            .collect()
    }
}

impl NotificationRejected {
    fn tell(&self, ctx: &DetectContext<'_>, r: &Refused, severity: Severity) -> Finding {
        let analysis = ctx.analysis;
        let mut ids: Vec<EventId> = r.sends.clone();
        ids.extend(r.lines.iter().take(6));
        let host = &r.host;
        let events = if r.events.is_empty() {
            "a host event".to_string()
        } else {
            let mut e = r.events.clone();
            e.dedup();
            format!("`{}`", e.join("`, `"))
        };
        let (title, explanation, fix) = match r.refusal {
            Refusal::HostNotFound => (
                format!("Masakari refused the notifications of {host}: no host by that name (400)"),
                format!(
                    "The host monitor notified {events} for `{host}` and masakari-api answered 400 `Host with \
                     name {host} could not be found.`: the failover segment's hosts are named as Nova names its \
                     compute services, and the monitor names the host as the Pacemaker cluster does (an FQDN \
                     against a short name, or another spelling). No notification was created, so no recovery \
                     ran. masakari-monitors from 15.0.0 log the refusal once and do not retry."
                ),
                format!(
                    "Make the names agree: add the host to the segment under the name the cluster uses, or \
                     rename the cluster node (or set the monitor's hostname) to Nova's service host. If {host} \
                     is down now, evacuate its instances by hand after fencing it."
                ),
            ),
            Refusal::OnMaintenance => (
                format!(
                    "Masakari ignored the failure of {host}: the host was already on maintenance (409)"
                ),
                format!(
                    "The host monitor notified {events} for `{host}` and masakari-api answered 409: the host is \
                     still `on_maintenance` in its failover segment, as an earlier recovery left it (Masakari \
                     sets it and never clears it). A host on maintenance is not recovered: this failure was \
                     ignored and its instances stayed on it."
                ),
                format!(
                    "Evacuate {host}'s instances by hand after fencing it. After every recovery, once the host \
                     is repaired and back, clear maintenance (`openstack segment host update <segment> <host> \
                     --on_maintenance False`)."
                ),
            ),
        };
        Finding {
            id: format!("{}:{host}:{:?}", self.id(), r.refusal).into(),
            detector: self.id(),
            severity,
            summary: format!(
                "{} refusal(s) of notifications for {host}; no recovery was started for them.",
                r.lines.len()
            ),
            title,
            failed_host: Some(host.clone()),
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: evidence::request_ids(analysis, &r.lines),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation,
            remediation: Remediation::advice(fix),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::Severity;
    use crate::detect::context::testing::findings;

    const MONITOR: &str = "cmp01/var/log/masakarimonitors/masakari-hostmonitor.log";
    const API: &str = "ctl01/var/log/masakari/masakari-api.log";

    fn monitor(event: &str, refusal: &str) -> String {
        format!(
            "2024-02-01 10:03:04.414 19 INFO masakarimonitors.ha.masakari [-] Send a notification. {{'notification': {{'type': 'COMPUTE_HOST', 'hostname': 'cmp02', 'generated_time': datetime.datetime(2024, 2, 1, 10, 3, 4, 106512), 'payload': {{'event': '{event}', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}}}}}}\n\
             2024-02-01 10:03:04.561 19 INFO masakarimonitors.ha.masakari [-] {refusal}\n"
        )
    }

    fn api(text: &str) -> String {
        format!(
            "2024-02-01 10:03:04.538 26 INFO masakari.api.openstack.wsgi [req-5d2c8e1a-7f3b-4a96-b0e4-2c9d6f1a8b37 e7a2c9d4b1f84e06a3d5c2b1f0e9d8c7 3c6f0a9d1b2e4f78a5c4d3e2f1a0b9c8 - default default] HTTP exception thrown: {text}\n"
        )
    }

    const MAINTENANCE: &str = "Notification received from host cmp02 of type 'COMPUTE_HOST' is ignored as the host is already under maintenance.";

    #[test]
    fn a_failure_of_a_host_left_on_maintenance_is_critical() {
        let m = monitor(
            "STOPPED",
            &format!(
                "ConflictException: 409: Client Error for url: http://10.10.0.10:15868/v1/notifications, {MAINTENANCE}"
            ),
        );
        let found = findings(
            "notification-rejected",
            &[(MONITOR, &m), (API, &api(MAINTENANCE))],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].severity, Severity::Critical);
        assert_eq!(found[0].failed_host.as_deref(), Some("cmp02"));
        assert_eq!(found[0].evidence.len(), 3);
    }

    #[test]
    fn a_host_back_while_on_maintenance_is_normal() {
        let m = monitor(
            "STARTED",
            "Stop retrying to send a notification because same notification have been already sent.",
        );
        assert!(
            findings(
                "notification-rejected",
                &[(MONITOR, &m), (API, &api(MAINTENANCE))]
            )
            .is_empty()
        );
    }

    #[test]
    fn an_unknown_host_name_is_found_from_the_api_alone() {
        let text = "Host with name cmp02.maas could not be found.";
        let found = findings("notification-rejected", &[(API, &api(text))]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].failed_host.as_deref(), Some("cmp02.maas"));
    }
}
