//! Masakari recoveries reconstructed from the engine's lines: each notification, its
//! attempts (the first run and the periodic re-runs), the Nova calls each attempt made
//! and the requests Nova logged for them, plus what CLI captures say of it.
//!
//! Detectors reason over these, not over raw lines.

use std::collections::BTreeMap;

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
#[derive(Clone, Debug)]
pub struct Call {
    /// The `masakari.compute.nova` event.
    pub event: EventId,
    /// What it does.
    pub action: CallAction,
    /// The instance it names.
    pub instance: Option<Uuid>,
    /// The Nova request events joined to it (access and request-log lines).
    pub requests: Vec<EventId>,
}

impl Call {
    /// The HTTP status Nova answered, when a joined request says.
    pub fn status(&self, analysis: &Analysis) -> Option<u16> {
        self.requests
            .iter()
            .filter_map(|&r| analysis.events.get(r as usize)?.http.as_ref())
            .map(|h| h.status)
            .next()
    }
}

/// One run of a notification's recovery flow.
#[derive(Clone, Debug, Default)]
pub struct Attempt {
    /// `Processing notification <id> of type: <type>`.
    pub start: Option<EventId>,
    /// The line that ended it (`exits with status`), if logged.
    pub end: Option<EventId>,
    /// The status it ended with: `finished`, `error`, `failed`, `ignored`.
    pub status: Option<RecoveryStatus>,
    /// Every Masakari event of the attempt, in time order.
    pub events: Vec<EventId>,
    /// The Nova calls.
    pub calls: Vec<Call>,
    /// `Sleeping <n> sec before starting recovery thread`: the event and `n`.
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
#[derive(Clone, Debug)]
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
            .filter_map(|&e| analysis.events.get(e as usize))
            .map(|e| e.time);
        let (mut lo, mut hi) = (i64::MAX, i64::MIN);
        for t in times {
            lo = lo.min(t);
            hi = hi.max(t);
        }
        (lo <= hi).then_some((lo, hi))
    }
}

fn status_of(message: &str) -> Option<RecoveryStatus> {
    let (_, status) = message.split_once("exits with status: ")?;
    RecoveryStatus::parse(status.trim().trim_end_matches('.'))
}

fn is_engine(analysis: &Analysis, event: &Event) -> bool {
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
        let Some(event) = analysis.events.get(e as usize) else {
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
    let joins: BTreeMap<EventId, Vec<EventId>> =
        analysis.joins.iter().fold(BTreeMap::new(), |mut m, j| {
            m.entry(j.call).or_default().push(j.request);
            m
        });
    let mut owners = Owners::new(
        captured_instances(analysis),
        captured_failed_hosts(analysis),
    );
    let instance_hosts = |instance: Uuid| nova_hosts_of(analysis, instance);
    for (position, event) in analysis.events.iter().enumerate() {
        let id = position as EventId;
        for n in &event.notifications {
            by_id.entry(*n).or_insert_with(|| new(*n)).mentions.push(id);
        }
        if !is_engine(analysis, event) {
            continue;
        }
        let message = event.message();
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
            }
            attempt.calls.push(Call {
                event: id,
                action: kind.action,
                instance: event.instances.first().copied(),
                requests: joins.get(&id).cloned().unwrap_or_default(),
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
