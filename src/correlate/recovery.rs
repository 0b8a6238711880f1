//! Masakari recoveries reconstructed from the engine's lines: each notification, its
//! attempts (the first run and the periodic re-runs), the Nova calls each attempt made
//! and the requests Nova logged for them, plus what CLI captures say of it.
//!
//! Detectors reason over these, not over raw lines.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use evacdoc_parsers::capture::{Capture, Notification, Vmove};

use crate::correlate::Analysis;
use crate::model::{Event, EventId, HostId, Project, Uuid};

/// What a Masakari call to Nova does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum CallAction {
    /// `Call get server command` (`GET /servers/<id>`).
    GetServer,
    /// `Call lock server command`.
    Lock,
    /// `Call unlock server command`.
    Unlock,
    /// `Call evacuate command`.
    Evacuate,
    /// `Call stop server command`.
    Stop,
    /// `Call start server command`.
    Start,
    /// `Call reset state command`.
    ResetState,
    /// `Fetch Server list on <host>`.
    ListServers,
    /// `Disable nova-compute on <host>`.
    DisableService,
    /// `Enable nova-compute on <host>`.
    EnableService,
}

impl CallAction {
    fn of(message: &str) -> Option<CallAction> {
        Some(if message.starts_with("Call get server command") {
            CallAction::GetServer
        } else if message.starts_with("Call lock server command") {
            CallAction::Lock
        } else if message.starts_with("Call unlock server command") {
            CallAction::Unlock
        } else if message.starts_with("Call evacuate command") {
            CallAction::Evacuate
        } else if message.starts_with("Call stop server command") {
            CallAction::Stop
        } else if message.starts_with("Call start server command") {
            CallAction::Start
        } else if message.starts_with("Call reset state command") {
            CallAction::ResetState
        } else if message.starts_with("Fetch Server list on ") {
            CallAction::ListServers
        } else if message.starts_with("Disable nova-compute on ") {
            CallAction::DisableService
        } else if message.starts_with("Enable nova-compute on ") {
            CallAction::EnableService
        } else {
            return None;
        })
    }
}

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
            .filter_map(|&r| analysis.events.get(r as usize)?.http())
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
    pub status: Option<String>,
    /// Every Masakari event of the attempt, in time order.
    #[serde(with = "crate::correlate::document::stable")]
    pub events: Vec<EventId>,
    /// The Nova calls.
    pub calls: Vec<Call>,
    /// `Sleeping <n> sec before starting recovery thread`: the event and `n`.
    #[serde(with = "crate::correlate::document::stable")]
    pub sleep: Option<(EventId, u64)>,
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
    pub kind: Option<String>,
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
    pub fn final_status(&self) -> Option<&str> {
        let logged = self.attempts.iter().rev().find_map(|a| a.status.as_deref());
        let captured = self
            .captured
            .iter()
            .rev()
            .find_map(|(_, n)| n.status.as_deref());
        // A capture is taken after the logs' events: it wins when it says more.
        captured.or(logged)
    }

    /// True for a host-failure notification.
    pub fn is_host_failure(&self) -> bool {
        match &self.kind {
            Some(kind) => kind == "COMPUTE_HOST",
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

fn status_of(message: &str) -> Option<&str> {
    let (_, status) = message.split_once("exits with status: ")?;
    Some(status.trim_end_matches('.').trim())
}

fn is_engine(analysis: &Analysis, event: &Event) -> bool {
    analysis.file(event.file).is_some_and(|f| {
        f.service.project() == Project::Masakari && f.service.name().contains("engine")
    })
}

/// The host name in `Disable nova-compute on <host>` / `Fetch Server list on <host>`.
fn host_after(message: &str, prefix: &str) -> Option<String> {
    let rest = message.strip_prefix(prefix)?;
    let host = rest.split_whitespace().next()?.trim_end_matches('.');
    (!host.is_empty()).then(|| host.to_string())
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
    // Open attempts per engine host: (notification, key that ties lines to it).
    let mut open: BTreeMap<HostId, Vec<(Uuid, Option<Uuid>)>> = BTreeMap::new();
    for (position, event) in analysis.events.iter().enumerate() {
        let id = position as EventId;
        for n in &event.notifications {
            by_id.entry(*n).or_insert_with(|| new(*n)).mentions.push(id);
        }
        if !is_engine(analysis, event) {
            continue;
        }
        let message = event.message();
        let engine = open.entry(event.host).or_default();
        if let Some(rest) = message.strip_prefix("Processing notification ") {
            let Some(&n) = event.notifications.first() else {
                continue;
            };
            let recovery = by_id.entry(n).or_insert_with(|| new(n));
            recovery.engine_host = Some(event.host);
            if let Some((_, kind)) = rest.split_once("of type: ") {
                recovery.kind = Some(kind.trim().to_string());
            }
            recovery.attempts.push(Attempt {
                start: Some(id),
                events: vec![id],
                ..Attempt::default()
            });
            engine.retain(|(open_n, _)| *open_n != n);
            // Zed+: later lines of this run carry this line's request id as their
            // global request id.
            engine.push((n, event.request_id));
            continue;
        }
        // Which attempt does this line belong to? The notification it names (the end
        // lines name it, even after the attempt closed), else the run whose request id
        // it carries as global id (Zed+), else the run open on this engine.
        let named = event
            .notifications
            .iter()
            .find(|n| by_id.get(*n).is_some_and(|r| !r.attempts.is_empty()))
            .copied();
        let owner = named.or_else(|| match event.global_request_id {
            Some(g) => engine
                .iter()
                .find(|(_, key)| *key == Some(g))
                .map(|(n, _)| *n),
            None => engine.last().map(|(n, _)| *n),
        });
        let Some(n) = owner else {
            continue;
        };
        let Some(recovery) = by_id.get_mut(&n) else {
            continue;
        };
        let Some(attempt) = recovery.attempts.last_mut() else {
            continue;
        };
        attempt.events.push(id);
        if let Some(action) = CallAction::of(message) {
            if matches!(action, CallAction::DisableService | CallAction::ListServers) {
                let prefix = if action == CallAction::DisableService {
                    "Disable nova-compute on "
                } else {
                    "Fetch Server list on "
                };
                if recovery.failed_host.is_none() {
                    recovery.failed_host = host_after(message, prefix);
                }
            }
            attempt.calls.push(Call {
                event: id,
                action,
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
        if let Some(status) = status_of(message).or(ignored.then_some("ignored")) {
            if attempt.status.as_deref() != Some("failed") {
                attempt.status = Some(status.to_string());
            }
            attempt.end = Some(id);
            engine.retain(|(open_n, _)| *open_n != n);
        }
    }
    for capture in &analysis.captures {
        match &capture.capture {
            Capture::Notification(notification) => {
                if let Some(id) = Uuid::parse(&notification.notification_uuid) {
                    let recovery = by_id.entry(id).or_insert_with(|| new(id));
                    if recovery.kind.is_none() {
                        recovery.kind = notification.notification_type.clone();
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
