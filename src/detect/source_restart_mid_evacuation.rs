//! `source-restart-mid-evacuation`: nova-compute on an evacuated host started again while
//! one of its instances was still being rebuilt elsewhere. At start-up it destroys the
//! evacuated guests (`Destroying instance as it has been evacuated from this host but still
//! exists in the hypervisor`) and asks whether the instance's disk is on shared storage;
//! before nova 31.0.0 it sends that RPC to `instance.host`, which is still itself while the
//! evacuation runs, so the call times out (`Failed to check if instance shared` with
//! `MessagingTimeout`), Nova assumes shared storage and keeps the local disk. A later move
//! of the instance back to the host fails: `The supplied disk path (<p>) already exists, it
//! is expected not to exist.` (Launchpad bug 2085975, fixed in nova 31.0.0, backported to
//! 30.1.0, 29.2.1 and 28.3.1).
//!
//! Inputs: nova-compute logs of the source and the destination; nova-api or Masakari
//! engine logs (optional: the evacuate call).
//!
//! Logic (measuring): per source nova-compute log, each `Destroying instance as it has been
//! evacuated` followed on the same log by `Failed to check if instance shared` naming a
//! `MessagingTimeout` for the same instance; the evacuation of that instance started before
//! it (another host's `Evacuating instance`, or Masakari's evacuate call) and not finished
//! then (no `Instance spawned successfully.` on the destination in between); any later
//! `DestinationDiskExists` naming the instance. Telling: one finding per instance, critical
//! when the left disk already broke a later move, a warning otherwise.

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::{Event, EventId, EventKind, LogLevel, Uuid};

/// The detector.
#[derive(Debug)]
pub struct SourceRestartMidEvacuation;

/// How long after the destroy line the failed check is looked for: the RPC timeout
/// (`rpc_response_timeout`, 60 s by default) and some margin.
const CHECK_WINDOW_NS: i64 = 15 * 60 * 1_000_000_000;

/// One instance whose disk the restarted source kept.
#[derive(Clone, Debug, PartialEq)]
pub struct KeptDisk {
    /// The instance.
    pub instance: Uuid,
    /// The source host (restarted).
    pub source: String,
    /// The host the evacuation was rebuilding it on, when its log is in the bundle.
    pub destination: Option<String>,
    /// The evacuation's start (destination's `Evacuating instance` or Masakari's call).
    pub evacuate: EventId,
    /// `Destroying instance as it has been evacuated …` on the source.
    pub destroying: EventId,
    /// `Failed to check if instance shared` (MessagingTimeout) on the source.
    pub check_failed: EventId,
    /// The end of the evacuation on the destination, after the restart, if logged.
    pub finished: Option<EventId>,
    /// Later `DestinationDiskExists` lines naming the instance.
    pub disk_exists: Vec<EventId>,
}

/// Whether `message` is the source's destroy of an evacuated guest at start-up.
pub fn is_destroying(message: &str) -> bool {
    message.starts_with("Destroying instance as it has been evacuated from this host")
}

/// Whether a record (its text with traceback) is the shared-storage check that timed out.
pub fn is_check_timeout(text: &str) -> bool {
    text.contains("Failed to check if instance shared") && text.contains("MessagingTimeout")
}

/// Whether a record names a destination disk that should not have existed.
pub fn is_disk_exists(text: &str) -> bool {
    text.contains("already exists, it is expected not to exist")
}

fn is_nova_compute(ctx: &DetectContext<'_>, e: &Event) -> bool {
    ctx.analysis
        .file(e.file)
        .is_some_and(|f| f.service.name().starts_with("nova-compute"))
}

fn is_masakari_evacuate(message: &str) -> bool {
    message.starts_with("Call evacuate command for instance")
}

/// The events of `instance`, in time order.
fn of_instance<'a>(
    ctx: &'a DetectContext<'_>,
    instance: Uuid,
) -> impl Iterator<Item = (EventId, &'a Event)> + 'a {
    evidence::instance_events(ctx.analysis, instance)
}

/// Measures every instance whose disk a restarted source kept mid-evacuation.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<KeptDisk> {
    let analysis = ctx.analysis;
    let mut out: Vec<KeptDisk> = Vec::new();
    for (i, event) in analysis.events.iter().enumerate() {
        if !is_destroying(&event.message()) || !is_nova_compute(ctx, event) {
            continue;
        }
        for &instance in event.instances.iter() {
            if out.iter().any(|k| k.instance == instance) {
                continue;
            }
            if let Some(k) = kept(ctx, EventId::at(i), event, instance) {
                out.push(k);
            }
        }
    }
    out
}

/// The kept disk of `instance` the destroy line `destroying` starts, if the mechanism is
/// all there: a timed-out check after it, and an evacuation running across it.
fn kept(
    ctx: &DetectContext<'_>,
    destroying: EventId,
    event: &Event,
    instance: Uuid,
) -> Option<KeptDisk> {
    let analysis = ctx.analysis;
    let source = host_name(analysis, event);
    let check_failed = of_instance(ctx, instance)
        .find(|(_, e)| {
            e.file == event.file
                && e.time >= event.time
                && e.time - event.time <= CHECK_WINDOW_NS
                && is_check_timeout(&e.full_text())
        })?
        .0;
    // The evacuation's last start before the restart, on another host (or Masakari's call).
    let (evacuate, start) = of_instance(ctx, instance)
        .filter(|(_, e)| e.time <= event.time)
        .filter(|(_, e)| {
            let m = e.message();
            (m.starts_with("Evacuating instance")
                && is_nova_compute(ctx, e)
                && host_name(analysis, e) != source)
                || is_masakari_evacuate(&m)
        })
        .last()?;
    let destination = (start.file != event.file && is_nova_compute(ctx, start))
        .then(|| host_name(analysis, start));
    // Finished before the restart: the source's instance.host had moved on; not this bug.
    let done = |e: &Event| {
        e.message().starts_with("Instance spawned successfully")
            && is_nova_compute(ctx, e)
            && host_name(analysis, e) != source
    };
    if of_instance(ctx, instance)
        .any(|(_, e)| e.time >= start.time && e.time < event.time && done(e))
    {
        return None;
    }
    let finished = of_instance(ctx, instance)
        .find(|(_, e)| e.time >= event.time && done(e))
        .map(|(i, _)| i);
    let disk_exists = disk_exists_after(ctx, instance, event.time);
    Some(KeptDisk {
        instance,
        source,
        destination,
        evacuate,
        destroying,
        check_failed,
        finished,
        disk_exists,
    })
}

/// `DestinationDiskExists` lines after `time` naming `instance` (by tag, or in the path).
fn disk_exists_after(ctx: &DetectContext<'_>, instance: Uuid, time: i64) -> Vec<EventId> {
    let id = instance.to_string();
    ctx.analysis
        .events
        .iter()
        .enumerate()
        // The exception is logged as an error (or a bare traceback): cheap to test first.
        .filter(|(_, e)| {
            e.time > time
                && (matches!(e.level, Some(LogLevel::Error | LogLevel::Critical))
                    || e.kind == EventKind::Traceback)
        })
        .filter(|(_, e)| {
            let text = e.full_text();
            is_disk_exists(&text) && (e.instances.contains(&instance) || text.contains(&id))
        })
        .map(|(i, _)| EventId::at(i))
        .collect()
}

impl Detector for SourceRestartMidEvacuation {
    fn id(&self) -> &'static str {
        "source-restart-mid-evacuation"
    }

    fn doc(&self) -> &'static str {
        "nova-compute on the evacuated host restarted while the evacuation was still running: its \
         shared-storage check timed out and it kept the instance's local disk, so a later move back \
         fails with DestinationDiskExists (bug 2085975, fixed in nova 31.0.0)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|k| self.tell(ctx, k)).collect()
    }
}

impl SourceRestartMidEvacuation {
    fn tell(&self, ctx: &DetectContext<'_>, k: &KeptDisk) -> Finding {
        let analysis = ctx.analysis;
        let mut ids = vec![k.evacuate, k.destroying, k.check_failed];
        ids.extend(k.finished);
        ids.extend(k.disk_exists.iter().take(2));
        let (source, instance) = (&k.source, k.instance);
        let to = k
            .destination
            .as_deref()
            .map(|d| format!(" to {d}"))
            .unwrap_or_default();
        let broke = !k.disk_exists.is_empty();
        let (severity, title, consequence) = if broke {
            (
                Severity::Critical,
                format!(
                    "Instance {instance}'s disk was left on {source} by a restart mid-evacuation: a later move \
                     back failed (DestinationDiskExists)"
                ),
                format!(
                    " Later, moving the instance back to {source} failed because that directory was still there \
                     (`The supplied disk path (…) already exists, it is expected not to exist.`)."
                ),
            )
        } else {
            (
                Severity::Warning,
                format!(
                    "Instance {instance}'s disk was left on {source} by a restart mid-evacuation: a move back \
                     will fail"
                ),
                format!(
                    " Nothing has moved it back yet; a live migration or evacuation of it to {source} will fail \
                     with DestinationDiskExists while that directory remains."
                ),
            )
        };
        Finding {
            id: format!("{}:{instance}", self.id()).into(),
            detector: self.id(),
            severity,
            title,
            summary: format!(
                "nova-compute on {source} started while instance {instance} was being evacuated{to}; its \
                 shared-storage check timed out (MessagingTimeout) and it kept the instance's local disk."
            ),
            failed_host: Some(source.clone()),
            instance_uuids: vec![instance.to_string()],
            notification_id: None,
            request_ids: Vec::new(),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "When nova-compute starts it destroys the guests evacuated from its host and deletes their local \
                 disks unless they are on shared storage, which it asks over RPC. Before nova 31.0.0 that call \
                 goes to the instance's current host; while the evacuation{to} is still rebuilding the instance, \
                 that host is still {source} itself, whose RPC server is not listening yet during start-up: the \
                 call timed out, Nova took the disk for shared and left \
                 /var/lib/nova/instances/{instance} on {source} (Launchpad bug 2085975).{consequence}"
            ),
            remediation: Remediation::advice(format!(
                "Once the instance runs elsewhere, remove its stale directory on {source} \
                 (/var/lib/nova/instances/{instance}, after checking no guest of that name is defined there), then \
                 retry the move. Upgrade nova to 31.0.0 or later (or 30.1.0, 29.2.1, 28.3.1 on the stable \
                 series), and keep an evacuated host's nova-compute stopped until its evacuations have finished."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{is_check_timeout, is_destroying, is_disk_exists};

    #[test]
    fn the_three_lines_of_the_mechanism_are_read() {
        assert!(is_destroying(
            "Destroying instance as it has been evacuated from this host but still exists in the hypervisor"
        ));
        assert!(is_check_timeout(
            "Failed to check if instance shared: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID 5b0e0c6a"
        ));
        assert!(!is_check_timeout(
            "Failed to check if instance shared: NotImplementedError"
        ));
        assert!(is_disk_exists(
            "The supplied disk path (/var/lib/nova/instances/3a9e) already exists, it is expected not to exist."
        ));
    }
}
