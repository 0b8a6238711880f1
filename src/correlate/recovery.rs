//! Masakari recoveries reconstructed from the engine's lines: each notification, its
//! attempts (the first run and the periodic re-runs), the Nova calls each attempt made
//! and the requests Nova logged for them, plus what CLI captures say of it.
//!
//! Detectors reason over these, not over raw lines.

use crate::model::EventsById;
use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use evacdoc_parsers::capture::{Capture, Notification, Vmove};

use crate::correlate::Analysis;
use crate::correlate::ids::{UuidKind, classified_uuids, short_host};
use crate::correlate::recovery_owner::Owners;
use crate::model::{Event, EventId, HostId, Project, Uuid};
use std::collections::HashMap;

pub use crate::correlate::calls::CallAction;
use crate::correlate::calls::CallKind;
pub use crate::correlate::notification_kinds::{NotificationType, RecoveryStatus};

/// One Masakari call to Nova and the requests Nova logged for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// The `masakari.compute.nova` event.
    #[serde(with = "crate::correlate::document::stable")]
    pub event: EventId,
    /// What it does.
    pub action: CallAction,
    /// The instance it names.
    pub instance: Option<Uuid>,
    /// The Nova request events joined to it (access and request-log lines).
    #[serde(with = "crate::correlate::document::stable")]
    pub requests: Vec<EventId>,
}

impl Call {
    /// The HTTP status Nova answered, when a joined request says.
    pub fn status(&self, analysis: &Analysis) -> Option<u16> {
        self.requests
            .iter()
            .filter_map(|&r| analysis.events.by_id(r)?.http())
            .map(|h| h.status)
            .next()
    }
}

/// One run of a notification's recovery flow.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Attempt {
    /// `Processing notification <id> of type: <type>`.
    #[serde(with = "crate::correlate::document::stable")]
    pub start: Option<EventId>,
    /// The line that ended it (`exits with status`), if logged.
    #[serde(with = "crate::correlate::document::stable")]
    pub end: Option<EventId>,
    /// The status it ended with: `finished`, `error`, `failed`, `ignored`.
    pub status: Option<RecoveryStatus>,
    /// Every Masakari event of the attempt, in time order.
    #[serde(with = "crate::correlate::document::stable")]
    pub events: Vec<EventId>,
    /// The Nova calls.
    pub calls: Vec<Call>,
    /// `Sleeping <n> sec before starting recovery thread`: the event and `n`.
    #[serde(with = "crate::correlate::document::stable")]
    pub sleep: Option<(EventId, u64)>,
    /// The request ids (global and local) its lines were logged under: Nova's and
    /// Cinder's lines under one of them belong to this run.
    pub request_ids: Vec<Uuid>,
}

impl Attempt {
    /// Calls of one kind, optionally for one instance.
    pub fn calls_of(
        &self,
        action: CallAction,
        instance: Option<Uuid>,
    ) -> impl Iterator<Item = &Call> {
        self.calls
            .iter()
            .filter(move |c| c.action == action && (instance.is_none() || c.instance == instance))
    }

    /// Instances the attempt's calls name, in first-call order.
    pub fn instances(&self) -> Vec<Uuid> {
        let mut out = Vec::new();
        for call in &self.calls {
            if let Some(i) = call.instance
                && !out.contains(&i)
            {
                out.push(i);
            }
        }
        out
    }
}

/// A Masakari notification and everything known of its recovery.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Recovery {
    /// The notification UUID.
    pub notification: Uuid,
    /// `COMPUTE_HOST`, `VM` or `PROCESS`, when known.
    pub kind: Option<NotificationType>,
    /// The host whose engine processed it.
    pub engine_host: Option<HostId>,
    /// The failed host's name as Masakari wrote it (`node02ob100.maas`).
    pub failed_host: Option<String>,
    /// The runs, in order.
    pub attempts: Vec<Attempt>,
    /// Every event naming the notification.
    #[serde(with = "crate::correlate::document::stable")]
    pub mentions: Vec<EventId>,
    /// `openstack notification show` captures of it: (file, capture).
    pub captured: Vec<(String, Notification)>,
    /// `openstack notification vmove list` rows of it: (file, move).
    pub vmoves: Vec<(String, Vmove)>,
}

impl Recovery {
    /// The status the notification ended with: the last attempt's, or a capture's.
    pub fn final_status(&self) -> Option<RecoveryStatus> {
        let logged = self.attempts.iter().rev().find_map(|a| a.status);
        let captured = self
            .captured
            .iter()
            .rev()
            .find_map(|(_, n)| n.status.as_deref().and_then(RecoveryStatus::parse));
        // A capture is taken after the logs' events: it wins when it says more.
        captured.or(logged)
    }

    /// Every instance it handled: those its calls name, its VM moves, and those its
    /// captured progress details name.
    pub fn instances(&self) -> Vec<Uuid> {
        let mut out: Vec<Uuid> = self.attempts.iter().flat_map(|a| a.instances()).collect();
        out.extend(
            self.vmoves
                .iter()
                .filter_map(|(_, m)| Uuid::parse(&m.server_id)),
        );
        for (_, n) in &self.captured {
            for detail in n.recovery_workflow_details.iter().flat_map(|t| &t.details) {
                out.extend(
                    classified_uuids(&detail.message)
                        .into_iter()
                        .filter(|(k, _)| *k == UuidKind::Instance)
                        .map(|(_, u)| u),
                );
            }
        }
        let mut seen = std::collections::HashSet::new();
        out.retain(|i| seen.insert(*i));
        out
    }

    /// True for a host-failure notification.
    pub fn is_host_failure(&self) -> bool {
        match &self.kind {
            Some(kind) => *kind == NotificationType::ComputeHost,
            None => self.failed_host.is_some() || !self.vmoves.is_empty(),
        }
    }

    /// The time span of its logged events (UTC nanoseconds).
    pub fn window(&self, analysis: &Analysis) -> Option<(i64, i64)> {
        let times = self
            .attempts
            .iter()
            .flat_map(|a| a.events.iter())
            .chain(&self.mentions)
            .filter_map(|&e| analysis.events.by_id(e))
            .map(|e| e.time);
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for t in times {
            lo = lo.min(t);
            hi = hi.max(t);
        }
        (lo <= hi).then_some((lo, hi))
    }
}

/// The requests joined to `call`, in order; `joins` sorted by call.
fn requests_of(joins: &[(EventId, EventId)], call: EventId) -> Vec<EventId> {
    let start = joins.partition_point(|&(c, _)| c < call);
    joins[start..]
        .iter()
        .take_while(|&&(c, _)| c == call)
        .map(|&(_, request)| request)
        .collect()
}

fn status_of(message: &str) -> Option<RecoveryStatus> {
    let (_, status) = message.split_once("exits with status: ")?;
    RecoveryStatus::parse(status.trim().trim_end_matches('.'))
}

pub(crate) fn is_engine(analysis: &Analysis, event: &Event) -> bool {
    analysis.file(event.file).is_some_and(|f| {
        f.service.project() == Project::Masakari && f.service.name().contains("engine")
    })
}

/// Instances the captures tie to a notification: VM moves, and the instances its
/// progress details name.
fn captured_instances(analysis: &Analysis) -> HashMap<Uuid, Uuid> {
    let mut out = HashMap::new();
    for capture in &analysis.captures {
        match &capture.capture {
            Capture::Notification(n) => {
                let Some(id) = Uuid::parse(&n.notification_uuid) else {
                    continue;
                };
                for detail in n.recovery_workflow_details.iter().flat_map(|t| &t.details) {
                    for (kind, uuid) in classified_uuids(&detail.message) {
                        if kind == UuidKind::Instance {
                            out.insert(uuid, id);
                        }
                    }
                }
            }
            Capture::VmoveList {
                notification_id,
                moves,
            } => {
                let Some(id) = notification_id.as_deref().and_then(Uuid::parse) else {
                    continue;
                };
                for m in moves {
                    if let Some(server) = Uuid::parse(&m.server_id) {
                        out.insert(server, id);
                    }
                }
            }
            _ => {}
        }
    }
    out
}

/// The failed host of notifications whose VM moves were captured.
fn captured_failed_hosts(analysis: &Analysis) -> HashMap<Uuid, String> {
    let mut out = HashMap::new();
    for capture in &analysis.captures {
        if let Capture::VmoveList {
            notification_id: Some(n),
            moves,
        } = &capture.capture
            && let (Some(id), Some(host)) = (
                Uuid::parse(n),
                moves.iter().find_map(|m| m.source_host.clone()),
            )
        {
            out.insert(id, host);
        }
    }
    out
}

/// The (short) names of hosts whose Nova logs name `instance`: where it ran.
fn nova_hosts_of(analysis: &Analysis, instance: Uuid) -> Vec<String> {
    let mut hosts: Vec<String> = Vec::new();
    for &e in analysis.index.instance.get(&instance).into_iter().flatten() {
        let Some(event) = analysis.events.by_id(e) else {
            continue;
        };
        let nova_compute = analysis
            .file(event.file)
            .is_some_and(|f| f.service.name().starts_with("nova-compute"));
        if let (true, Some(host)) = (nova_compute, analysis.host(event.host)) {
            let name = short_host(&host.hostname);
            if !hosts.contains(&name) {
                hosts.push(name);
            }
        }
    }
    hosts
}

/// Rebuilds every recovery of the analysis.
pub fn recoveries(analysis: &Analysis) -> Vec<Recovery> {
    let mut by_id: BTreeMap<Uuid, Recovery> = BTreeMap::new();
    let new = |id: Uuid| Recovery {
        notification: id,
        kind: None,
        engine_host: None,
        failed_host: None,
        attempts: Vec::new(),
        mentions: Vec::new(),
        captured: Vec::new(),
        vmoves: Vec::new(),
    };
    // (call, request) in order, looked up by call: a sorted list rather than a map of
    // vectors (282 k joins at 10 GiB, about 20 MB as a map).
    let mut joins: Vec<(EventId, EventId)> =
        analysis.joins.iter().map(|j| (j.call, j.request)).collect();
    joins.sort_unstable();
    let mut owners = Owners::new(
        captured_instances(analysis),
        captured_failed_hosts(analysis),
    );
    let instance_hosts = |instance: Uuid| nova_hosts_of(analysis, instance);
    for (position, event) in analysis.events.iter().enumerate() {
        let id = EventId::at(position);
        for n in &event.notifications {
            by_id.entry(*n).or_insert_with(|| new(*n)).mentions.push(id);
        }
        if !is_engine(analysis, event) {
            continue;
        }
        let message = event.message();
        let message: &str = &message;
        let processing = message.strip_prefix("Processing notification ");
        let owner = match processing {
            Some(_) => event.notifications.first().copied(),
            None => owners.owner(event, instance_hosts),
        };
        let Some(n) = owner else {
            continue;
        };
        let recovery = by_id.entry(n).or_insert_with(|| new(n));
        // A run starts at its `Processing notification` line, or at the first line that
        // names a notification no run was seen for (its start rotated away).
        if processing.is_some() || recovery.attempts.is_empty() {
            recovery.engine_host = Some(event.host);
            if let Some((_, kind)) = processing.and_then(|rest| rest.split_once("of type: ")) {
                recovery.kind = NotificationType::parse(kind);
            }
            recovery.attempts.push(Attempt {
                start: processing.is_some().then_some(id),
                ..Attempt::default()
            });
            owners.start(n, event);
            // A retry is of the host the first run named.
            if let Some(host) = &recovery.failed_host {
                owners.set_failed_host(n, host);
            }
        } else {
            owners.learn(n, event);
        }
        let Some(attempt) = recovery.attempts.last_mut() else {
            continue;
        };
        attempt.events.push(id);
        for key in [event.global_request_id, event.request_id]
            .into_iter()
            .flatten()
        {
            if !attempt.request_ids.contains(&key) {
                attempt.request_ids.push(key);
            }
        }
        if processing.is_some() {
            continue;
        }
        if let Some(kind) = CallKind::of(message) {
            // The failed host: the one Masakari disables, or lists the servers of.
            if matches!(
                kind.action,
                CallAction::DisableService | CallAction::ListServers
            ) {
                if recovery.failed_host.is_none() {
                    recovery.failed_host = kind.host(message).map(str::to_string);
                }
                if let Some(host) = &recovery.failed_host {
                    owners.set_failed_host(n, host);
                }
                if kind.action == CallAction::ListServers {
                    owners.listed_servers(n);
                }
            }
            attempt.calls.push(Call {
                event: id,
                action: kind.action,
                instance: event.instances.first().copied(),
                requests: requests_of(&joins, id),
            });
        }
        if let Some(rest) = message.strip_prefix("Sleeping ")
            && let Some(n) = rest.split_whitespace().next().and_then(|s| s.parse().ok())
        {
            attempt.sleep = Some((id, n));
        }
        let ignored = message.contains(" ignored as host_status");
        if let Some(status) = status_of(message).or(ignored.then_some(RecoveryStatus::Ignored)) {
            if attempt.status != Some(RecoveryStatus::Failed) {
                attempt.status = Some(status);
            }
            attempt.end = Some(id);
            owners.end(n);
        }
    }
    for capture in &analysis.captures {
        match &capture.capture {
            Capture::Notification(notification) => {
                if let Some(id) = Uuid::parse(&notification.notification_uuid) {
                    let recovery = by_id.entry(id).or_insert_with(|| new(id));
                    if recovery.kind.is_none() {
                        recovery.kind = notification
                            .notification_type
                            .as_deref()
                            .and_then(NotificationType::parse);
                    }
                    recovery
                        .captured
                        .push((capture.file.clone(), notification.clone()));
                }
            }
            Capture::VmoveList {
                notification_id,
                moves,
            } => {
                if let Some(id) = notification_id.as_deref().and_then(Uuid::parse) {
                    let recovery = by_id.entry(id).or_insert_with(|| new(id));
                    for m in moves {
                        recovery.vmoves.push((capture.file.clone(), m.clone()));
                    }
                    if recovery.failed_host.is_none() {
                        recovery.failed_host = moves.iter().find_map(|m| m.source_host.clone());
                    }
                }
            }
            _ => {}
        }
    }
    by_id
        .into_values()
        .filter(|r| !r.attempts.is_empty() || !r.captured.is_empty() || !r.vmoves.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::context::testing::analysis_of;

    const N1: &str = "3330353d-4f69-4f1d-b1f9-3977329fb2cd";
    const N2: &str = "9ace2da7-97d1-48cb-a96a-08ad4624481b";
    const G1: &str = "req-5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a";
    const G2: &str = "req-1f2e3d4c-5b6a-4978-8695-a4b3c2d1e0f9";
    /// The global id of a run whose start is not in the bundle.
    const G3: &str = "req-6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d";
    const I1: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
    const I2: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

    fn line(time: &str, g: &str, level: &str, logger: &str, message: &str) -> String {
        format!(
            "2024-05-21 {time} 41 {level} {logger} [{g} req-7a1c0e52-9b3d-4f6e-8a21-0c4d5e6f7a8b nova - - - - -] {message}\n"
        )
    }

    fn processing(time: &str, g: &str, n: &str) -> String {
        format!(
            "2024-05-21 {time} 41 INFO masakari.engine.manager [None {g} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {n} of type: COMPUTE_HOST\n"
        )
    }

    /// Zed+: two runs interleave on one engine; each line goes to the run of its global
    /// id, and a line under a global id no run started is nobody's.
    #[test]
    fn zed_lines_follow_their_global_id() {
        let nova = "masakari.compute.nova";
        let flow = "masakari.engine.drivers.taskflow.host_failure";
        let mut log = processing("10:00:00.100", G1, N1);
        log += &line(
            "10:00:00.200",
            G1,
            "INFO",
            nova,
            "Disable nova-compute on cmp02",
        );
        log += &processing("10:00:00.300", G2, N2);
        log += &line(
            "10:00:00.400",
            G2,
            "INFO",
            nova,
            "Disable nova-compute on cmp05",
        );
        log += &line(
            "10:03:00.500",
            G2,
            "INFO",
            nova,
            &format!("Call evacuate command for instance {I2} on host None"),
        );
        log += &line(
            "10:03:00.600",
            G1,
            "INFO",
            nova,
            &format!("Call evacuate command for instance {I1} on host None"),
        );
        log += &line(
            "10:03:00.700",
            G3,
            "WARNING",
            flow,
            "Invalid input received: Compute service of cmp07 is still in use. (HTTP 400) (Request-ID: req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e)",
        );
        log += &line(
            "10:03:01.000",
            G1,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N1} exits with status: finished."),
        );
        log += &line(
            "10:03:01.100",
            G2,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N2} exits with status: error."),
        );
        let analysis = analysis_of(&[("ctl/var/log/masakari/masakari-engine.log", &log)]);
        let all = recoveries(&analysis);
        let of = |n: &str| {
            let id = Uuid::parse(n).unwrap();
            all.iter().find(|r| r.notification == id).unwrap()
        };
        let texts = |r: &Recovery| -> Vec<String> {
            r.attempts
                .iter()
                .flat_map(|a| &a.events)
                .map(|&e| analysis.events[e.index()].message().to_string())
                .collect()
        };
        let (r1, r2) = (of(N1), of(N2));
        assert_eq!(r1.failed_host.as_deref(), Some("cmp02"));
        assert_eq!(r2.failed_host.as_deref(), Some("cmp05"));
        assert_eq!(r1.attempts[0].instances(), [Uuid::parse(I1).unwrap()]);
        assert_eq!(r2.attempts[0].instances(), [Uuid::parse(I2).unwrap()]);
        assert_eq!(r1.final_status(), Some(RecoveryStatus::Finished));
        assert_eq!(r2.final_status(), Some(RecoveryStatus::Error));
        for r in [r1, r2] {
            assert!(
                texts(r).iter().all(|t| !t.contains("cmp07")),
                "{:?}",
                texts(r)
            );
        }
    }
}
