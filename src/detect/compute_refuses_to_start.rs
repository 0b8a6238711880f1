//! `compute-refuses-to-start`: nova-compute will not start on a host because its node
//! identity does not match what the database holds, so the host stays down after it
//! was repaired, rebuilt or renamed (often right after a Masakari recovery evacuated
//! it). Since nova 27.0.0 (2023.1) the compute service checks its identity at start:
//! `No local node identity found, but this is not our first startup on this host.
//! Refusing to start after potentially having lost that state!` (`/var/lib/nova/compute_id`
//! lost with a reinstalled disk), `… Possible rename detected, refusing to start!` (the
//! host or hypervisor name changed), `… Possible database configuration error, refusing
//! to start!`, all `nova.exception.InvalidConfiguration`.
//!
//! Inputs: nova-compute logs; Masakari engine logs (optional: the recovery before).
//!
//! Logic (measuring): per nova-compute log, the records whose text (traceback included)
//! is an `InvalidConfiguration` refusing to start; how many start attempts failed;
//! whether a later start went through (`Starting compute node` with no refusal after);
//! the Masakari recovery of that host before the first refusal. Telling: one finding per
//! host still refusing at its last start.

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::EventsById;
use crate::model::{Event, EventId, Uuid};

/// The detector.
#[derive(Debug)]
pub struct ComputeRefusesToStart;

/// Why nova-compute refused, as its message says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Identity {
    /// `No local node identity found, but this is not our first startup on this host.`
    Lost,
    /// `Possible rename detected`.
    Renamed,
    /// Any other `InvalidConfiguration … refusing to start` (database mismatch).
    Other,
}

/// One host's refused starts.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusals {
    /// The host.
    pub host: String,
    /// The refusals, in time order.
    pub lines: Vec<EventId>,
    /// Why (the last refusal's reason).
    pub identity: Identity,
    /// The Masakari recovery of the host before the first refusal (notification).
    pub recovered_by: Option<Uuid>,
}

/// The reason a record gives, if it is a refusal to start over the node's identity.
pub fn refusal(text: &str) -> Option<Identity> {
    let lower = text.to_ascii_lowercase();
    if !lower.contains("refusing to start") || !text.contains("InvalidConfiguration") {
        return None;
    }
    Some(if text.contains("No local node identity found") {
        Identity::Lost
    } else if text.contains("Possible rename detected") {
        Identity::Renamed
    } else {
        Identity::Other
    })
}

/// A record of nova-compute: from its own log, or from the host's journal or syslog when
/// the service logs there (systemd without `log_file`), where only nova's own exception
/// class tells it apart from the other services' lines.
fn is_nova_compute(ctx: &DetectContext<'_>, e: &Event) -> bool {
    ctx.analysis.file(e.file).is_some_and(|f| {
        let service = f.service.name();
        service.starts_with("nova-compute")
            || (service == "syslog" && e.text().contains("nova.exception.InvalidConfiguration"))
    })
}

/// Measures every nova-compute log whose last start was refused.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Refusals> {
    let analysis = ctx.analysis;
    let mut by_file: std::collections::BTreeMap<u32, Refusals> = Default::default();
    for (i, event) in analysis.events.iter().enumerate() {
        if !is_nova_compute(ctx, event) {
            continue;
        }
        let Some(identity) = refusal(&event.full_text()) else {
            continue;
        };
        let entry = by_file.entry(event.file).or_insert_with(|| Refusals {
            host: host_name(analysis, event),
            lines: Vec::new(),
            identity,
            recovered_by: None,
        });
        entry.lines.push(EventId::at(i));
        entry.identity = identity;
    }
    let mut out = Vec::new();
    for (file, mut r) in by_file {
        let (Some(&first), Some(&last)) = (r.lines.first(), r.lines.last()) else {
            continue;
        };
        if started_after(ctx, file, last) {
            continue;
        }
        let first_time = analysis.events.by_id(first).map_or(i64::MAX, |e| e.time);
        let short = r.host.split('.').next().unwrap_or(&r.host).to_string();
        r.recovered_by = ctx
            .host_failures()
            .filter(|rec| {
                rec.failed_host
                    .as_deref()
                    .is_some_and(|h| h.split('.').next() == Some(short.as_str()))
                    && rec
                        .window(analysis)
                        .is_some_and(|(from, _)| from < first_time)
            })
            .map(|rec| rec.notification)
            .last();
        out.push(r);
    }
    out
}

/// Whether the compute service of `file` started (and did not refuse) after `last`:
/// an event of the file after it that is not a refusal and not start-up chatter.
fn started_after(ctx: &DetectContext<'_>, file: u32, last: EventId) -> bool {
    ctx.analysis
        .events
        .iter()
        .skip(last.index() + 1)
        .filter(|e| e.file == file)
        .any(|e| {
            let m = e.message();
            m.contains("Final resource view") || m.contains("Compute_service record updated")
        })
}

impl Detector for ComputeRefusesToStart {
    fn id(&self) -> &'static str {
        "compute-refuses-to-start"
    }

    fn doc(&self) -> &'static str {
        "nova-compute refuses to start over its node identity (lost compute_id, rename): the host \
         stays down after repair or recovery (nova 27.0.0 and later)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|r| self.tell(ctx, r)).collect()
    }
}

impl ComputeRefusesToStart {
    fn tell(&self, ctx: &DetectContext<'_>, r: &Refusals) -> Finding {
        let analysis = ctx.analysis;
        let mut ids: Vec<EventId> = r.lines.iter().take(1).copied().collect();
        ids.extend(r.lines.last());
        let host = &r.host;
        let (why, fix) = match r.identity {
            Identity::Lost => (
                "its local node identity (`/var/lib/nova/compute_id`) is gone while the database knows a compute \
                 node of this host: the disk was reinstalled or the state directory was not kept",
                format!(
                    "Write the compute node's UUID back: `openstack hypervisor show {host} -f value -c id` into \
                     /var/lib/nova/compute_id (owned by nova), then start nova-compute."
                ),
            ),
            Identity::Renamed => (
                "the host or hypervisor name it reports differs from the one its compute node record has: the \
                 host was renamed (or its FQDN changed)",
                "Restore the old host name (or `[DEFAULT] host` in nova.conf), or move the compute node record \
                 deliberately (nova-manage) before starting nova-compute."
                    .to_string(),
            ),
            Identity::Other => (
                "its view of its node does not match the database's",
                "Read the refusal's message: it names the records that disagree; fix them before starting nova-compute."
                    .to_string(),
            ),
        };
        let after = match r.recovered_by {
            Some(n) => format!(
                " Masakari had recovered this host before (notification {n}): its instances were evacuated, and the \
                 host cannot take any back while its compute service is down."
            ),
            None => String::new(),
        };
        Finding {
            id: format!("{}:{host}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "nova-compute on {host} refuses to start: node identity ({} tries)",
                r.lines.len()
            ),
            summary: format!(
                "nova-compute on {host} stopped at start-up {} time(s) with InvalidConfiguration; it was still \
                 refusing at its last try.",
                r.lines.len()
            ),
            failed_host: Some(host.clone()),
            instance_uuids: Vec::new(),
            notification_id: r.recovered_by.map(|n| n.to_string()),
            request_ids: Vec::new(),
            window: evidence::window(analysis, &r.lines),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "Since nova 27.0.0 the compute service checks at start that it is the same node the database \
                 knows, and refuses to start when it cannot tell: on {host}, {why}. The service stays down, so \
                 Nova reports the host down, nothing can be scheduled or evacuated to it, and Masakari's host \
                 monitor may see it online in Pacemaker all the same.{after}"
            ),
            remediation: Remediation::advice(fix),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Identity, refusal};

    #[test]
    fn refusals_of_each_kind_are_read() {
        let lost = "Error starting thread.: nova.exception.InvalidConfiguration: No local node identity found, but this is not our first startup on this host. Refusing to start after potentially having lost that state!";
        assert_eq!(refusal(lost), Some(Identity::Lost));
        let renamed = "nova.exception.InvalidConfiguration: My compute node 6c53c76c-39d1-45dc-a5f5-293e91abd3e4 has hypervisor_hostname compute.home.local but virt driver reports it should be localhost.localdomain. Possible rename detected, refusing to start!";
        assert_eq!(refusal(renamed), Some(Identity::Renamed));
        assert_eq!(refusal("Starting compute node (version 29.2.1)"), None);
    }
}
