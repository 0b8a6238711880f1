//! `duplicate-host-flows`: two host-failure flows ran at once for one host. Two
//! notifications of the same host were both accepted (several masakari-api workers or
//! units create them side by side when no coordination backend serialises them, or the
//! payloads differ so the duplicate check lets the second through) and two engines
//! processed them together: each evacuates the same instances, and Nova refuses the
//! second evacuation of each with 409 `Cannot 'evacuate' instance <id> while it is in
//! task_state rebuilding`, so the second notification fails and the instances' state
//! depends on which flow's calls won. When both calls of an instance pass nova-api
//! together (the flows run in step), the two rebuilds collide on the destination
//! compute instead: `Setting instance vm_state to ERROR:
//! nova.exception.UnexpectedTaskStateError: Conflict updating instance <id>. Expected:
//! {'task_state': ['rebuilding']}. Actual: {'task_state': 'rebuild_spawning'}` (seen on
//! the real-stack `duplicate` scenario, Nova 34 and Masakari 22), and both notifications
//! fail. Masakari 14.0.0 added the distributed lock (Launchpad
//! bug 1961110), which only works with `[coordination] backend_url` set.
//!
//! Inputs: Masakari engine logs (every engine host); Nova API logs (optional: the 409s).
//!
//! Logic (measuring): pairs of host-failure recoveries of one host (short names) whose
//! runs overlap in time, and Nova's `task_state rebuilding` refusals of their instances
//! (or the compute's rebuild conflicts) while both ran; the coordination backend in the
//! configuration. Telling: one finding per pair, critical when Nova refused an evacuation
//! or a rebuild collided; the instances so named tie the finding to both notifications.

use crate::correlate::recovery::Recovery;
use crate::detect::evidence::{self, of_config, of_events};
use crate::detect::finding::{ConfigChange, Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::EventsById;
use crate::model::inventory::ConfigValue;
use crate::model::{EventId, Uuid};

/// The detector.
#[derive(Debug)]
pub struct DuplicateHostFlows;

/// Two runs for one host that overlapped.
#[derive(Clone, Debug, PartialEq)]
pub struct Overlap {
    /// The host.
    pub host: String,
    /// The notification whose run started first, and its start line.
    pub first: (Uuid, EventId),
    /// The one that started while the first ran, and its start line.
    pub second: (Uuid, EventId),
    /// Nova's refusals of an evacuation because the instance was being rebuilt.
    pub refusals: Vec<EventId>,
    /// The compute's rebuilds that collided with another rebuild of the instance.
    pub conflicts: Vec<EventId>,
}

/// A run's span: its start line's time to its last line's.
fn span(ctx: &DetectContext<'_>, r: &Recovery) -> Option<(EventId, i64, i64)> {
    let analysis = ctx.analysis;
    let attempt = r.attempts.first()?;
    let start = attempt.start?;
    let from = analysis.events.by_id(start)?.time;
    let to = attempt
        .events
        .iter()
        .filter_map(|&e| analysis.events.by_id(e))
        .map(|e| e.time)
        .max()?;
    Some((start, from, to))
}

fn short(host: &str) -> &str {
    host.split('.').next().unwrap_or(host)
}

/// nova-api's refusal to evacuate an instance being rebuilt (`Cannot 'evacuate' instance
/// <id> while it is in task_state rebuilding`).
fn refusal(message: &str) -> bool {
    message.contains("Cannot 'evacuate' instance") && message.contains("task_state rebuilding")
}

/// The compute's error of a rebuild that another flow's calls overtook (`Setting instance
/// vm_state to ERROR: …`): its task state changed under it by the other evacuation
/// (`UnexpectedTaskStateError: Conflict updating instance <id>. Expected: {'task_state':
/// ['rebuilding']}. Actual: {'task_state': 'rebuild_spawning'}`) or cleared by the other
/// flow's reset of the instance's state (`… Expected: {'task_state': ['rebuild_spawning']}.
/// Actual: {'task_state': None}`), or the guest the other evacuation already created
/// (`nova.exception.InstanceExists: Instance instance-00000001 already exists.`).
fn rebuild_conflict(message: &str) -> bool {
    if !message.contains("Setting instance vm_state to ERROR") {
        return false;
    }
    let overtaken = message.contains("UnexpectedTaskStateError")
        && message.contains("Expected: {'task_state': ['rebuild")
        && (message.contains("Actual: {'task_state': 'rebuild")
            || message.contains("Actual: {'task_state': None}"));
    overtaken || (message.contains("InstanceExists") && message.contains("already exists"))
}

/// Nova's lines, between `from` and `to`, of one of `instances` that `is_kind` accepts.
fn nova_lines(
    ctx: &DetectContext<'_>,
    instances: &[Uuid],
    from: i64,
    to: i64,
    is_kind: fn(&str) -> bool,
) -> Vec<EventId> {
    let mut out: Vec<EventId> = instances
        .iter()
        .flat_map(|i| evidence::service_events_of_instance(ctx.analysis, *i, from, to))
        .filter(|&id| {
            ctx.analysis
                .events
                .by_id(id)
                .is_some_and(|e| is_kind(&e.message()))
        })
        .collect();
    out.sort_unstable();
    out.dedup();
    out
}

/// Measures every pair of overlapping runs for one host.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Overlap> {
    let runs: Vec<(&Recovery, String, (EventId, i64, i64))> = ctx
        .host_failures()
        .filter_map(|r| {
            Some((
                r,
                short(r.failed_host.as_deref()?).to_string(),
                span(ctx, r)?,
            ))
        })
        .collect();
    let mut out = Vec::new();
    for (i, (a, host_a, (start_a, from_a, to_a))) in runs.iter().enumerate() {
        for (b, host_b, (start_b, from_b, to_b)) in &runs[i + 1..] {
            let (first, second) = if from_a <= from_b {
                ((a, *start_a, *to_a), (b, *start_b, *from_b))
            } else {
                ((b, *start_b, *to_b), (a, *start_a, *from_a))
            };
            // The second run started before the first one's last line.
            if host_a != host_b || a.notification == b.notification || second.2 >= first.2 {
                continue;
            }
            let mut instances = a.instances();
            instances.extend(b.instances());
            let (from, to) = ((*from_a).min(*from_b), (*to_a).max(*to_b));
            out.push(Overlap {
                host: host_a.clone(),
                first: (first.0.notification, first.1),
                second: (second.0.notification, second.1),
                refusals: nova_lines(ctx, &instances, from, to, refusal),
                conflicts: nova_lines(ctx, &instances, from, to, rebuild_conflict),
            });
        }
    }
    out
}

/// The instances Nova's refusals and conflicts name, in order.
fn refused_instances(ctx: &DetectContext<'_>, o: &Overlap) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in o
        .refusals
        .iter()
        .chain(&o.conflicts)
        .filter_map(|&r| ctx.analysis.events.by_id(r))
        .flat_map(|e| e.instances.as_slice().iter().map(|u| u.to_string()))
    {
        if !out.contains(&i) {
            out.push(i);
        }
    }
    out
}

impl Detector for DuplicateHostFlows {
    fn id(&self) -> &'static str {
        "duplicate-host-flows"
    }

    fn doc(&self) -> &'static str {
        "Two host-failure flows ran at once for one host (two notifications accepted, two engines): \
         both evacuate the same instances and Nova refuses the second with 409 task_state rebuilding."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|o| self.tell(ctx, o)).collect()
    }
}

impl DuplicateHostFlows {
    fn tell(&self, ctx: &DetectContext<'_>, o: &Overlap) -> Finding {
        let analysis = ctx.analysis;
        let mut ids: Vec<EventId> = vec![o.first.1, o.second.1];
        ids.extend(o.refusals.iter().take(6));
        ids.extend(o.conflicts.iter().take(6));
        let coordination = analysis.config_value("masakari", "coordination", "backend_url");
        let mut evidence = of_events(analysis, ids.iter().copied());
        evidence.extend(coordination.map(|c| of_config(analysis, c)));
        let severity = if o.refusals.is_empty() && o.conflicts.is_empty() {
            Severity::Warning
        } else {
            Severity::Critical
        };
        let refused = refused_words(o);
        let ends = if o.conflicts.is_empty() {
            "The second notification ends in error"
        } else {
            "Both notifications end in error"
        };
        let config_changes = coordination_change(coordination);
        Finding {
            id: format!("{}:{}:{}", self.id(), o.first.0, o.second.0).into(),
            detector: self.id(),
            severity,
            title: format!("Two recovery flows ran at once for {}", o.host),
            summary: format!(
                "Notifications {} and {} of {} were processed at the same time; {} refused evacuation(s){}.",
                o.first.0,
                o.second.0,
                o.host,
                o.refusals.len(),
                if o.conflicts.is_empty() {
                    String::new()
                } else {
                    format!(", {} colliding rebuild(s)", o.conflicts.len())
                }
            ),
            failed_host: Some(o.host.clone()),
            instance_uuids: refused_instances(ctx, o),
            notification_id: Some(o.second.0.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence,
            explanation: format!(
                "Masakari accepted two notifications for {} and its engines ran their host-failure flows side by \
                 side: notification {} started while {} was still running. Masakari's per-host lock is held per \
                 process unless `[coordination] backend_url` is set ({}), and the API's duplicate check only \
                 catches an identical payload within duplicate_notification_detection_interval. {refused} {ends} and the \
                 instances' final state depends on which flow's calls won (Launchpad bug 1961110, coordination from masakari 14.0.0).",
                o.host,
                o.second.0,
                o.first.0,
                if coordination.is_some() {
                    "it is set here, check that every API and engine unit uses it"
                } else {
                    "it is not set here"
                }
            ),
            remediation: Remediation {
                summary: format!(
                    "Check every instance of {} in Nova (host, vm_state, task_state) and finish or reset the \
                     evacuations left half-done; mark the second notification handled. Configure a coordination \
                     backend for masakari-api and masakari-engine.",
                    o.host
                ),
                config_changes,
                actions: Vec::new(),
            },
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

/// What Nova said of the two flows' evacuations.
fn refused_words(o: &Overlap) -> String {
    let mut words = Vec::new();
    if !o.refusals.is_empty() {
        words.push(format!(
            "Nova refused {} evacuation(s) with 409 `Cannot 'evacuate' instance … while it is in task_state \
             rebuilding`: the other flow's evacuation of that instance was running.",
            o.refusals.len()
        ));
    }
    if !o.conflicts.is_empty() {
        words.push(format!(
            "Nova accepted both flows' evacuations of an instance and {} rebuild(s) collided on the compute \
             (`UnexpectedTaskStateError: Conflict updating instance …` when the other rebuild or the other \
             flow's state reset changed the task state, `InstanceExists` when the other rebuild had created the \
             guest), leaving the instance in ERROR.",
            o.conflicts.len()
        ));
    }
    if words.is_empty() {
        words.push(
            "Nova's logs in the bundle show no refused evacuation; the two flows still called Nova for the \
             same instances."
                .to_string(),
        );
    }
    words.join(" ")
}

/// `[coordination] backend_url` to set, when the bundle's masakari.conf has none.
fn coordination_change(coordination: Option<&ConfigValue>) -> Vec<ConfigChange> {
    match coordination {
        Some(_) => Vec::new(),
        None => vec![ConfigChange {
            file: "masakari.conf".into(),
            section: "coordination".into(),
            option: "backend_url".into(),
            current: None,
            recommended: "a tooz backend shared by every masakari-api and engine (etcd3+http://…, redis://…, memcached://…)".into(),
            note: "Masakari 14.0.0 and later serialise notifications of one host through it; unset, the lock is per process.".into(),
        }],
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::{analysis_of, findings};
    use crate::detect::finding::Severity;
    use crate::detect::{DetectOptions, run_all};

    // The real-stack `duplicate` scenario (Masakari 22.0.0 on two controllers, Nova 34.0.0):
    // both notifications of cmp1 accepted, each engine ran its flow, both evacuated both
    // servers in step, Nova accepted all four calls and the rebuilds collided on cmp2.
    const N1: &str = "9ed5ed5d-2315-4c97-870b-fca7a2003f4a";
    const N2: &str = "1b096aa8-926d-46ac-8980-5537005d60a7";
    const I1: &str = "fb898657-9c4f-4452-b987-cdcdb77f459f";
    const I2: &str = "4aaf978e-6f52-4463-afe9-36579da63835";

    const CTL1_ENGINE: &str = "\
2026-12-06 23:50:49.931 8697 INFO masakari.engine.manager [None req-f2417467-21b3-4228-9a82-52deb2c8cfda 91c438ac8cc340adbdd874c3089f534a 0c91f74d61fb43a2936fadde13ab3903 - - default default] Processing notification 9ed5ed5d-2315-4c97-870b-fca7a2003f4a of type: COMPUTE_HOST
2026-12-06 23:50:54.628 8697 INFO masakari.compute.nova [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-0bdeee80-6588-4323-b33f-183dcdc9829e nova - - - - -] Disable nova-compute on cmp1
2026-12-06 23:52:43.436 8697 INFO masakari.compute.nova [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-e3afab40-8d88-498f-b44d-3f1e766dbe9d nova - - - - -] Call evacuate command for instance fb898657-9c4f-4452-b987-cdcdb77f459f on host None
2026-12-06 23:52:43.781 8697 INFO masakari.compute.nova [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-5e2af4c9-7b88-42c0-aba0-a1ce8bcfccf6 nova - - - - -] Call evacuate command for instance 4aaf978e-6f52-4463-afe9-36579da63835 on host None
2026-12-06 23:52:56.883 8697 WARNING masakari.engine.drivers.taskflow.host_failure [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-8aafedd4-2829-464b-a035-4c65a327a11e nova - - - - -] Failed to evacuate instance fb898657-9c4f-4452-b987-cdcdb77f459f: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance fb898657-9c4f-4452-b987-cdcdb77f459f
2026-12-06 23:52:57.019 8697 WARNING masakari.engine.drivers.taskflow.host_failure [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-e2ba90a8-11ce-43c9-a219-1c71b59b8884 nova - - - - -] Failed to evacuate instance 4aaf978e-6f52-4463-afe9-36579da63835: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance 4aaf978e-6f52-4463-afe9-36579da63835
2026-12-06 23:53:03.951 8697 ERROR masakari.engine.manager [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-0563bea7-998b-4bc0-b4e4-f4aaeb6b5eb8 nova - - - - -] Failed to process notification '9ed5ed5d-2315-4c97-870b-fca7a2003f4a'. Reason: Failed to evacuate instances 'fb898657-9c4f-4452-b987-cdcdb77f459f,4aaf978e-6f52-4463-afe9-36579da63835' from host 'cmp1': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances 'fb898657-9c4f-4452-b987-cdcdb77f459f,4aaf978e-6f52-4463-afe9-36579da63835' from host 'cmp1'
2026-12-06 23:53:03.951 8697 INFO masakari.engine.manager [None req-f2417467-21b3-4228-9a82-52deb2c8cfda 91c438ac8cc340adbdd874c3089f534a 0c91f74d61fb43a2936fadde13ab3903 - - default default] Notification 9ed5ed5d-2315-4c97-870b-fca7a2003f4a exits with status: error.
";

    const CTL2_ENGINE: &str = "\
2026-12-06 23:50:49.982 9234 INFO masakari.engine.manager [None req-7d33e6e6-181f-42e2-b835-63df4a2fd525 91c438ac8cc340adbdd874c3089f534a 0c91f74d61fb43a2936fadde13ab3903 - - default default] Processing notification 1b096aa8-926d-46ac-8980-5537005d60a7 of type: COMPUTE_HOST
2026-12-06 23:50:54.877 9234 INFO masakari.compute.nova [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-6b6b05a7-7275-43ea-a7ee-52c799ddddd3 nova - - - - -] Disable nova-compute on cmp1
2026-12-06 23:52:43.866 9234 INFO masakari.compute.nova [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-d8ff1b12-ad13-43d7-bb7d-3fe6039a510e nova - - - - -] Call evacuate command for instance 4aaf978e-6f52-4463-afe9-36579da63835 on host None
2026-12-06 23:52:43.953 9234 INFO masakari.compute.nova [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-c9dc9e97-00ff-4f7e-b4d3-4a8be750133d nova - - - - -] Call evacuate command for instance fb898657-9c4f-4452-b987-cdcdb77f459f on host None
2026-12-06 23:52:57.379 9234 WARNING masakari.engine.drivers.taskflow.host_failure [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-4b182638-1501-4623-bcb8-7eed47b2ea6c nova - - - - -] Failed to evacuate instance fb898657-9c4f-4452-b987-cdcdb77f459f: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance fb898657-9c4f-4452-b987-cdcdb77f459f
2026-12-06 23:52:57.493 9234 WARNING masakari.engine.drivers.taskflow.host_failure [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-18e9e83e-82f5-44e0-8e1b-648a2c56317c nova - - - - -] Failed to evacuate instance 4aaf978e-6f52-4463-afe9-36579da63835: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance 4aaf978e-6f52-4463-afe9-36579da63835
2026-12-06 23:53:04.519 9234 ERROR masakari.engine.manager [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-3da0f957-5516-43c3-a119-275ef64c8a05 nova - - - - -] Failed to process notification '1b096aa8-926d-46ac-8980-5537005d60a7'. Reason: Failed to evacuate instances 'fb898657-9c4f-4452-b987-cdcdb77f459f,4aaf978e-6f52-4463-afe9-36579da63835' from host 'cmp1': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances 'fb898657-9c4f-4452-b987-cdcdb77f459f,4aaf978e-6f52-4463-afe9-36579da63835' from host 'cmp1'
2026-12-06 23:53:04.522 9234 INFO masakari.engine.manager [None req-7d33e6e6-181f-42e2-b835-63df4a2fd525 91c438ac8cc340adbdd874c3089f534a 0c91f74d61fb43a2936fadde13ab3903 - - default default] Notification 1b096aa8-926d-46ac-8980-5537005d60a7 exits with status: error.
";

    /// cmp2's nova-compute: the two rebuilds of each server collide.
    const CMP2_COMPUTE: &str = "\
2026-12-06 23:52:49.278 8285 INFO nova.compute.manager [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-af985f1b-31d8-4fbf-bc17-a786f076974a 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: fb898657-9c4f-4452-b987-cdcdb77f459f] Evacuating instance
2026-12-06 23:52:49.512 8285 INFO nova.compute.manager [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-3a2cf055-934d-4233-a862-1c25a5a5891d 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: 4aaf978e-6f52-4463-afe9-36579da63835] Evacuating instance
2026-12-06 23:52:50.679 8285 INFO nova.compute.manager [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-0651cc8c-b1bb-4f92-925a-409f690c1460 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: fb898657-9c4f-4452-b987-cdcdb77f459f] Evacuating instance
2026-12-06 23:52:50.912 8285 INFO nova.compute.manager [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-0817c8a9-ec34-4f1f-be57-a08eaa50e4cb 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: 4aaf978e-6f52-4463-afe9-36579da63835] Evacuating instance
2026-12-06 23:52:51.668 8285 ERROR nova.compute.manager [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-0651cc8c-b1bb-4f92-925a-409f690c1460 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: fb898657-9c4f-4452-b987-cdcdb77f459f] Setting instance vm_state to ERROR: nova.exception.UnexpectedTaskStateError: Conflict updating instance fb898657-9c4f-4452-b987-cdcdb77f459f. Expected: {'task_state': ['rebuilding']}. Actual: {'task_state': 'rebuild_spawning'}
2026-12-06 23:52:51.718 8285 ERROR nova.compute.manager [req-7d33e6e6-181f-42e2-b835-63df4a2fd525 req-0817c8a9-ec34-4f1f-be57-a08eaa50e4cb 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: 4aaf978e-6f52-4463-afe9-36579da63835] Setting instance vm_state to ERROR: nova.exception.UnexpectedTaskStateError: Conflict updating instance 4aaf978e-6f52-4463-afe9-36579da63835. Expected: {'task_state': ['rebuilding']}. Actual: {'task_state': 'rebuild_spawning'}
2026-12-06 23:53:10.723 8285 ERROR nova.compute.manager [req-f2417467-21b3-4228-9a82-52deb2c8cfda req-af985f1b-31d8-4fbf-bc17-a786f076974a 28fa3aca155f4cf788f892b68a83a06d 0c91f74d61fb43a2936fadde13ab3903 - - default default] [instance: fb898657-9c4f-4452-b987-cdcdb77f459f] Setting instance vm_state to ERROR: nova.exception.UnexpectedTaskStateError: Conflict updating instance fb898657-9c4f-4452-b987-cdcdb77f459f. Expected: {'task_state': ['rebuild_spawning']}. Actual: {'task_state': 'rebuilding'}
";

    fn files(compute: &str) -> Vec<(&'static str, &str)> {
        vec![
            ("ctl1/var/log/masakari/masakari-engine.log", CTL1_ENGINE),
            ("ctl2/var/log/masakari/masakari-engine.log", CTL2_ENGINE),
            ("cmp2/var/log/nova/nova-compute.log", compute),
        ]
    }

    #[test]
    fn colliding_rebuilds_of_two_flows_make_the_pair_critical_and_name_the_instances() {
        let found = findings("duplicate-host-flows", &files(CMP2_COMPUTE));
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(f.severity, Severity::Critical);
        assert_eq!(f.failed_host.as_deref(), Some("cmp1"));
        assert!(f.id.contains(N1) && f.id.contains(N2), "{}", f.id);
        let mut instances = f.instance_uuids.clone();
        instances.sort();
        assert_eq!(instances, [I2, I1]);
        assert!(
            f.summary.contains("2 colliding rebuild(s)"),
            "{}",
            f.summary
        );
        assert!(
            f.evidence
                .iter()
                .any(|e| e.text.contains("Conflict updating instance fb898657"))
        );
        assert!(f.explanation.contains("collided on the compute"));
    }

    #[test]
    fn the_pair_explains_both_failed_notifications() {
        let analysis = analysis_of(&files(CMP2_COMPUTE));
        let found: Vec<_> = run_all(&analysis, &DetectOptions::default())
            .iter()
            .map(|f| (f.detector, f.notification_id.clone()))
            .collect();
        assert!(
            found.iter().all(|(d, _)| *d != "recovery-failed"),
            "{found:?}"
        );
        assert!(found.iter().any(|(d, _)| *d == "duplicate-host-flows"));
    }

    #[test]
    fn without_nova_lines_the_pair_is_a_warning_and_names_no_instance() {
        let found = findings("duplicate-host-flows", &files(""));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(found[0].instance_uuids.is_empty());
    }

    #[test]
    fn a_rebuild_conflict_is_two_rebuild_states_only() {
        assert!(super::rebuild_conflict(
            "Setting instance vm_state to ERROR: nova.exception.UnexpectedTaskStateError: Conflict updating instance x. Expected: {'task_state': ['rebuilding']}. Actual: {'task_state': 'rebuild_spawning'}"
        ));
        // The other flow reset the state (Masakari resets an instance with a task state
        // before evacuating it), and the second evacuation finds the first one's guest.
        assert!(super::rebuild_conflict(
            "Setting instance vm_state to ERROR: nova.exception.UnexpectedTaskStateError: Conflict updating instance aa33a61f-d947-4bc5-ab6d-116fa63bfa2b. Expected: {'task_state': ['rebuild_spawning']}. Actual: {'task_state': None}"
        ));
        assert!(super::rebuild_conflict(
            "Setting instance vm_state to ERROR: nova.exception.InstanceExists: Instance instance-00000001 already exists."
        ));
        // A delete racing a rebuild is not a second evacuation.
        assert!(!super::rebuild_conflict(
            "Setting instance vm_state to ERROR: nova.exception.UnexpectedTaskStateError: Conflict updating instance x. Expected: {'task_state': ['rebuilding']}. Actual: {'task_state': 'deleting'}"
        ));
    }
}
