//! `k8s-monitor-no-host-status`: masakari-monitors' kubernetes host monitor notifies a
//! failed node without `host_status`, and the engine ignores the notification, so nothing
//! is evacuated. The kubernetes driver (masakarimonitors/hostmonitor/kubernetes_check/
//! manager.py, first in masakari-monitors 20.0.0, commit 67846e9) logs `Host <h> needs
//! recovery, health status: False.` and sends a payload of `{'event': 'STOPPED'}` alone;
//! masakari-engine from 15.0.0 logs `Notification '<uuid>' ignored as host_status is not
//! provided.` (masakari/engine/manager.py:181) and ends it `ignored`. The monitor sends on
//! a change of state only, so it never notifies again while the node stays down. Fixed in
//! masakari-monitors 21.0.0 (commit 99b6ad8 adds `'host_status': 'NORMAL'`).
//!
//! Inputs: masakari-hostmonitor logs (the notifier's `Send a notification.` and
//! `Response:` lines), masakari-engine logs.
//!
//! Logic (measuring): per host-monitor log that shows the kubernetes driver, the
//! notifications it sent without `host_status` and the notification UUID its `Response:`
//! line names; each is joined to the engine's `ignored as host_status is not provided`
//! line of that UUID (without a `Response:` line, to the one ignored within
//! [`UNNAMED_WINDOW_SECS`] after the send). Telling: one critical finding per joined
//! notification. A notification ignored for another sender's payload is left to
//! `recovery-failed`, which names the cause.
//!
//! Without the monitor's log (a support bundle of the control plane's pods, where the
//! monitor's DaemonSet runs on the computes), the sender is inferred from the
//! configuration: a masakarimonitors.conf of the bundle sets `[host] monitoring_driver =
//! kubernetes` (masakarimonitors/conf/host.py; the `kubernetes` entry point of
//! `hostmonitor.driver` in setup.cfg, 20.0.0 and later), no host-monitor log is in the
//! bundle, no package list names masakari-monitors 21.0.0 or later, and the engine
//! ignored a notification for want of host_status whose captured payload (`openstack
//! notification show` / `list`; neither masakari-api nor the engine logs it), when
//! there is one, is the kubernetes driver's `{'event': 'STOPPED'}` alone. One critical
//! finding per such notification, its wording saying the sender is inferred.

use std::collections::{BTreeMap, HashSet};

use crate::detect::evidence::{self, host_name, of_capture, of_config, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::monitor_lines::{hostmonitor_events, sent};
use crate::detect::{DetectContext, Detector};
use crate::model::EventId;
use crate::model::inventory::ConfigValue;
use evacdoc_parsers::capture::Capture;

/// The detector.
#[derive(Debug)]
pub struct K8sMonitorNoHostStatus;

/// How long after a send with no `Response:` line the engine's ignore still counts as its.
pub const UNNAMED_WINDOW_SECS: i64 = 300;

/// Logger of the kubernetes driver.
const K8S_LOGGER: &str = "masakarimonitors.hostmonitor.kubernetes_check";

/// A notification of the kubernetes monitor that the engine ignored.
#[derive(Clone, Debug, PartialEq)]
pub struct Ignored {
    /// The notification.
    pub notification: String,
    /// The node the monitor notified.
    pub host: String,
    /// The host the monitor runs on (a pod's node or folder).
    pub monitor: String,
    /// `Host <h> needs recovery, health status: False.`, when logged.
    pub needs_recovery: Option<EventId>,
    /// `Send a notification. {… 'payload': {'event': 'STOPPED'}}`.
    pub sent: EventId,
    /// `Response: …Notification(… notification_uuid=<uuid> …)`, when logged.
    pub response: Option<EventId>,
    /// The engine's `Notification '<uuid>' ignored as host_status is not provided.`
    pub ignored: EventId,
    /// Some monitor notified the node again afterwards.
    pub notified_after: bool,
}

/// The UUID of `Notification '<uuid>' ignored as host_status is not provided.`
pub fn ignored_without_status(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Notification '")?;
    let (uuid, tail) = rest.split_once('\'')?;
    tail.trim_start()
        .starts_with("ignored as host_status is not provided")
        .then_some(uuid)
}

/// The node of the kubernetes driver's `Host <h> needs recovery, health status: <s>.`
pub fn needs_recovery(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Host ")?;
    let (host, _) = rest.split_once(" needs recovery, health status: ")?;
    (!host.is_empty() && !host.contains(' ')).then_some(host)
}

/// The notification UUID of the notifier's `Response: …(… notification_uuid=<uuid>, …)`.
pub fn response_uuid(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Response: ")?;
    let at = rest.find("notification_uuid=")?;
    let value = &rest[at + "notification_uuid=".len()..];
    let end = value
        .find(|c: char| !(c.is_ascii_hexdigit() || c == '-'))
        .unwrap_or(value.len());
    (end == 36).then(|| &value[..end])
}

/// True when a `Send a notification.` line's payload names no `host_status`.
fn payload_without_status(message: &str) -> bool {
    message
        .find("'payload'")
        .or_else(|| message.find("\"payload\""))
        .is_some_and(|at| !message[at..].contains("host_status"))
}

/// One send of a kubernetes monitor, as its log tells it.
struct Send {
    file: u32,
    time: i64,
    host: String,
    monitor: String,
    needs_recovery: Option<EventId>,
    sent: EventId,
    response: Option<(EventId, String)>,
    with_status: bool,
}

/// The engine's ignores for want of host_status: uuid (lower case) → (line, time).
fn engine_ignores(ctx: &DetectContext<'_>) -> BTreeMap<String, (EventId, i64)> {
    let mut ignores: BTreeMap<String, (EventId, i64)> = BTreeMap::new();
    for (i, e) in ctx.analysis.events.iter().enumerate() {
        if !e
            .message()
            .contains("ignored as host_status is not provided")
        {
            continue;
        }
        if let Some(uuid) = ignored_without_status(&e.message()) {
            ignores
                .entry(uuid.to_ascii_lowercase())
                .or_insert((EventId::at(i), e.time));
        }
    }
    ignores
}

/// Measures every ignored notification the kubernetes monitor sent.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Ignored> {
    let analysis = ctx.analysis;
    let ignores = engine_ignores(ctx);
    if ignores.is_empty() {
        return Vec::new();
    }
    let mut k8s_files: HashSet<u32> = HashSet::new();
    let mut last_needs: BTreeMap<u32, (EventId, String)> = BTreeMap::new();
    let mut sends: Vec<Send> = Vec::new();
    for (id, e) in hostmonitor_events(analysis) {
        let message = e.message();
        if e.logger().is_some_and(|l| l.starts_with(K8S_LOGGER))
            || message.starts_with("Exception when host-monitor by k8s:")
        {
            k8s_files.insert(e.file);
        }
        if let Some(host) = needs_recovery(&message) {
            last_needs.insert(e.file, (id, host.to_string()));
            continue;
        }
        if let Some(s) = sent(&message) {
            let needs = last_needs
                .remove(&e.file)
                .filter(|(_, h)| *h == s.host)
                .map(|(n, _)| n);
            sends.push(Send {
                file: e.file,
                time: e.time,
                host: s.host,
                monitor: host_name(analysis, e),
                needs_recovery: needs,
                sent: id,
                response: None,
                with_status: !payload_without_status(&message),
            });
            continue;
        }
        if let Some(uuid) = response_uuid(&message)
            && let Some(send) = sends
                .iter_mut()
                .rev()
                .find(|s| s.file == e.file && s.response.is_none())
        {
            send.response = Some((id, uuid.to_ascii_lowercase()));
        }
    }
    let mut claimed: HashSet<String> = sends
        .iter()
        .filter_map(|s| s.response.as_ref().map(|(_, u)| u.clone()))
        .collect();
    let mut out = Vec::new();
    for s in sends
        .iter()
        .filter(|s| k8s_files.contains(&s.file) && !s.with_status)
    {
        let uuid = match &s.response {
            Some((_, uuid)) => uuid.clone(),
            // No `Response:` line: the one ignore right after the send no other send names.
            None => {
                let near: Vec<&String> = ignores
                    .iter()
                    .filter(|(u, (_, t))| {
                        !claimed.contains(*u)
                            && *t >= s.time
                            && *t - s.time <= UNNAMED_WINDOW_SECS * 1_000_000_000
                    })
                    .map(|(u, _)| u)
                    .collect();
                let [only] = near[..] else {
                    continue;
                };
                only.clone()
            }
        };
        let Some(&(ignored, _)) = ignores.get(&uuid) else {
            continue;
        };
        claimed.insert(uuid.clone());
        let notified_after = sends
            .iter()
            .any(|o| o.host == s.host && o.time > s.time && o.sent != s.sent);
        out.push(Ignored {
            notification: uuid,
            host: s.host.clone(),
            monitor: s.monitor.clone(),
            needs_recovery: s.needs_recovery,
            sent: s.sent,
            response: s.response.as_ref().map(|(r, _)| *r),
            ignored,
            notified_after,
        });
    }
    out
}

/// A notification ignored for want of host_status whose sender only the configuration
/// names: the kubernetes host monitor, whose log is not in the bundle.
#[derive(Clone, Debug)]
pub struct Inferred {
    /// The notification.
    pub notification: String,
    /// `[host] monitoring_driver = kubernetes`, where it is set.
    pub driver: ConfigValue,
    /// The engine's `Processing notification <uuid> of type: COMPUTE_HOST`, when logged.
    pub processing: Option<EventId>,
    /// The engine's `Notification '<uuid>' ignored as host_status is not provided.`
    pub ignored: EventId,
    /// The capture that shows the notification's payload, when there is one.
    pub capture: Option<String>,
}

/// The `[host] monitoring_driver` a masakarimonitors.conf of the bundle sets last.
fn monitoring_driver<'a>(ctx: &DetectContext<'a>) -> Option<&'a ConfigValue> {
    ctx.analysis
        .config_value("masakarimonitors", "host", "monitoring_driver")
}

/// Whether a package list names masakari-monitors at 21.0.0 or later (its kubernetes
/// driver sends host_status).
fn fixed_monitor_installed(ctx: &DetectContext<'_>) -> bool {
    ctx.analysis.packages.iter().any(|p| {
        let name = p.name.to_ascii_lowercase();
        let version = p
            .version
            .split_once(':')
            .map_or(p.version.as_str(), |(_, v)| v);
        (name.contains("masakari-monitors")
            || name.contains("masakarimonitors")
            || name == "masakari-host-monitor")
            && version
                .split('.')
                .next()
                .and_then(|major| major.parse::<u32>().ok())
                .is_some_and(|major| major >= 21)
    })
}

/// What the bundle's captures say of notification `uuid`: its type and payload as
/// `notification show` or `notification list` printed them (the first capture that
/// names it), with the capture's file.
fn captured(
    ctx: &DetectContext<'_>,
    uuid: &str,
) -> Option<(String, Option<String>, Option<serde_json::Value>)> {
    ctx.analysis.captures.iter().find_map(|c| {
        let (kind, payload) = match &c.capture {
            Capture::Notification(n) if n.notification_uuid.eq_ignore_ascii_case(uuid) => {
                (n.notification_type.clone(), n.payload.clone())
            }
            Capture::NotificationList(rows) => {
                let row = rows
                    .iter()
                    .find(|r| r.notification_uuid.eq_ignore_ascii_case(uuid))?;
                (row.notification_type.clone(), row.payload.clone())
            }
            _ => return None,
        };
        Some((c.file.clone(), kind, payload))
    })
}

/// Whether a captured payload is the kubernetes driver's of 20.x: `{'event': 'STOPPED'}`
/// and nothing else.
fn kubernetes_payload(payload: &serde_json::Value) -> bool {
    payload.as_object().is_some_and(|o| {
        o.len() == 1
            && o.get("event")
                .and_then(|e| e.as_str())
                .is_some_and(|e| e.eq_ignore_ascii_case("STOPPED"))
    })
}

/// The engine's `Processing notification <uuid> of type: <type>` line of `uuid`.
fn processing_line(ctx: &DetectContext<'_>, uuid: &str) -> Option<(EventId, String)> {
    ctx.analysis.events.iter().enumerate().find_map(|(i, e)| {
        let message = e.message();
        let rest = message.strip_prefix("Processing notification ")?;
        let (id, kind) = rest.split_once(" of type: ")?;
        id.eq_ignore_ascii_case(uuid)
            .then(|| (EventId::at(i), kind.trim().to_string()))
    })
}

/// Infers the kubernetes monitor as the sender of the ignored notifications `measured`
/// did not find, from the configuration alone (see the module's doc).
pub fn infer(ctx: &DetectContext<'_>, measured: &[Ignored]) -> Vec<Inferred> {
    let Some(driver) = monitoring_driver(ctx) else {
        return Vec::new();
    };
    if !driver.value.trim().eq_ignore_ascii_case("kubernetes")
        || hostmonitor_events(ctx.analysis).next().is_some()
        || fixed_monitor_installed(ctx)
    {
        return Vec::new();
    }
    let mut out = Vec::new();
    for (uuid, (ignored, _)) in engine_ignores(ctx) {
        if measured.iter().any(|m| m.notification == uuid) {
            continue;
        }
        let processing = processing_line(ctx, &uuid);
        if processing
            .as_ref()
            .is_some_and(|(_, kind)| kind != "COMPUTE_HOST")
        {
            continue;
        }
        let capture = match captured(ctx, &uuid) {
            Some((file, kind, payload)) => {
                let host_type = kind.as_deref().is_none_or(|k| k == "COMPUTE_HOST");
                // Another sender's payload (a webhook's, the pacemaker monitor's
                // cluster_status) is not the kubernetes driver's.
                if !host_type || payload.as_ref().is_some_and(|p| !kubernetes_payload(p)) {
                    continue;
                }
                payload.is_some().then_some(file)
            }
            None => None,
        };
        out.push(Inferred {
            notification: uuid,
            driver: driver.clone(),
            processing: processing.map(|(id, _)| id),
            ignored,
            capture,
        });
    }
    out
}

impl Detector for K8sMonitorNoHostStatus {
    fn id(&self) -> &'static str {
        "k8s-monitor-no-host-status"
    }

    fn doc(&self) -> &'static str {
        "masakari-monitors' kubernetes host monitor (20.x) notifies a failed node without host_status \
         and masakari-engine ignores the notification, so nothing is evacuated (fixed in 21.0.0)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        let measured = measure(ctx);
        let inferred = infer(ctx, &measured);
        measured
            .iter()
            .map(|i| self.tell(ctx, i))
            .chain(inferred.iter().map(|i| self.tell_inferred(ctx, i)))
            .collect()
    }
}

impl K8sMonitorNoHostStatus {
    fn tell_inferred(&self, ctx: &DetectContext<'_>, i: &Inferred) -> Finding {
        let analysis = ctx.analysis;
        let ids: Vec<EventId> = [i.processing, Some(i.ignored)]
            .into_iter()
            .flatten()
            .collect();
        let n = &i.notification;
        let setting = format!("{}:{}", i.driver.file, i.driver.line);
        let mut evidence = vec![of_config(analysis, &i.driver)];
        evidence.extend(of_events(analysis, ids.iter().copied()));
        let payload = match &i.capture {
            Some(file) => {
                evidence.extend(of_capture(analysis, file, n));
                format!(" {file} shows its payload, {{'event': 'STOPPED'}} alone: the driver's.")
            }
            None => " The bundle does not show its payload (neither masakari-api nor the engine logs it; \
                `openstack notification show` would)."
                .to_string(),
        };
        Finding {
            id: format!("{}:{n}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "Masakari ignored notification {n} without host_status; the configured kubernetes host monitor \
                    is the likely sender (inferred from its configuration)"
            ),
            summary: format!(
                "masakari-engine logged `ignored as host_status is not provided` for notification {n} and recovered \
                    nothing. The bundle holds no masakari-hostmonitor log; its configuration ({setting}: \
                    `{}`) names the kubernetes driver, whose 20.x payload has no host_status. The sender is \
                    inferred from that setting, not read from the monitor's log.{payload}",
                i.driver.text.trim()
            ),
            failed_host: None,
            instance_uuids: Vec::new(),
            notification_id: Some(n.clone()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence,
            explanation: format!(
                "The kubernetes driver of masakari-hostmonitor (masakari-monitors 20.x) notifies a node that has \
                    not been Ready for monitoring_samples loops with the payload {{'event': 'STOPPED'}} alone. Since \
                    15.0.0 masakari-engine recovers a host only when host_status is NORMAL and ignores a notification \
                    without it, before it puts the host on maintenance or calls Nova: notification {n} ended \
                    `ignored` and the failed node's instances were not evacuated. The monitor's own log (its \
                    `Host <node> needs recovery` and `Send a notification.` lines) is not in the bundle, so which \
                    node it was and that this monitor sent it are inferred: {setting} sets the kubernetes driver, \
                    and no other sender is known. masakari-monitors 21.0.0 (commit 99b6ad8) sends host_status \
                    NORMAL."
            ),
            remediation: Remediation::advice(
                "Add the masakari-host-monitor pods' logs to the bundle to confirm the sender and name the node \
                    (`kubectl -n openstack logs -l application=masakari,component=masakari-host-monitor` or the computes' \
                    /var/log/pods); evacuate the failed node's instances now, once it is known to be powered off \
                    (fenced). Upgrade the masakari-monitors image of the host monitor to 21.0.0 or later (2026.1), \
                    then check that its `Send a notification.` payload carries 'host_status': 'NORMAL'."
                    .to_string(),
            ),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }

    fn tell(&self, ctx: &DetectContext<'_>, i: &Ignored) -> Finding {
        let analysis = ctx.analysis;
        let ids: Vec<EventId> = [i.needs_recovery, Some(i.sent), i.response, Some(i.ignored)]
            .into_iter()
            .flatten()
            .collect();
        let (host, monitor, n) = (&i.host, &i.monitor, &i.notification);
        let after = if i.notified_after {
            " A later notification of the node followed; read its recovery."
        } else {
            " No monitor notified the node again (the kubernetes driver sends on a change of state only), so \
             its instances stayed where they were."
        };
        Finding {
            id: format!("{}:{n}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "The kubernetes host monitor notified {host} without host_status and Masakari ignored it"
            ),
            summary: format!(
                "masakari-hostmonitor on {monitor} (kubernetes driver) sent notification {n} for {host} with the \
                 payload {{'event': 'STOPPED'}} alone; masakari-engine logged `ignored as host_status is not \
                 provided` and recovered nothing.{after}"
            ),
            failed_host: Some(host.clone()),
            instance_uuids: Vec::new(),
            notification_id: Some(n.clone()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "The kubernetes driver of masakari-hostmonitor watches the nodes' Ready condition and, when a \
                 node has not been Ready for monitoring_samples loops, notifies Masakari. In masakari-monitors \
                 20.x its payload has no host_status. Since 15.0.0 masakari-engine recovers a host only when \
                 host_status is NORMAL and ignores a notification without it, before it puts the host on \
                 maintenance or calls Nova: notification {n} ended `ignored` and {host}'s instances were not \
                 evacuated.{after} masakari-monitors 21.0.0 (commit 99b6ad8) sends host_status NORMAL."
            ),
            remediation: Remediation::advice(format!(
                "Evacuate {host}'s instances now, once the node is known to be powered off (fenced). Upgrade the \
                 masakari-monitors image of the masakari-host-monitor deployment to 21.0.0 or later (2026.1), \
                 then check that its `Send a notification.` payload carries 'host_status': 'NORMAL'."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;
