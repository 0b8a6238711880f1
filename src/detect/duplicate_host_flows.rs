//! `duplicate-host-flows`: two host-failure flows ran at once for one host. Two
//! notifications of the same host were both accepted (several masakari-api workers or
//! units create them side by side when no coordination backend serialises them, or the
//! payloads differ so the duplicate check lets the second through) and two engines
//! processed them together: each evacuates the same instances, and Nova refuses the
//! second evacuation of each with 409 `Cannot 'evacuate' instance <id> while it is in
//! task_state rebuilding`, so the second notification fails and the instances' state
//! depends on which flow's calls won. Masakari 14.0.0 added the distributed lock (Launchpad
//! bug 1961110), which only works with `[coordination] backend_url` set.
//!
//! Inputs: Masakari engine logs (every engine host); Nova API logs (optional: the 409s).
//!
//! Logic (measuring): pairs of host-failure recoveries of one host (short names) whose
//! runs overlap in time, and Nova's `task_state rebuilding` refusals of their instances
//! while both ran; the coordination backend in the configuration. Telling: one finding
//! per pair, critical when Nova refused an evacuation.

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

/// Nova's refusals, between `from` and `to`, of evacuating one of `instances` because
/// it was being rebuilt (`Cannot 'evacuate' instance <id> while it is in task_state
/// rebuilding`).
fn rebuilding_refusals(
    ctx: &DetectContext<'_>,
    instances: &[Uuid],
    from: i64,
    to: i64,
) -> Vec<EventId> {
    let mut out: Vec<EventId> = instances
        .iter()
        .flat_map(|i| evidence::service_events_of_instance(ctx.analysis, *i, from, to))
        .filter(|&id| {
            ctx.analysis.events.by_id(id).is_some_and(|e| {
                let m = e.message();
                m.contains("Cannot 'evacuate' instance") && m.contains("task_state rebuilding")
            })
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
            let refusals =
                rebuilding_refusals(ctx, &instances, (*from_a).min(*from_b), (*to_a).max(*to_b));
            out.push(Overlap {
                host: host_a.clone(),
                first: (first.0.notification, first.1),
                second: (second.0.notification, second.1),
                refusals,
            });
        }
    }
    out
}

/// The instances Nova's refusals name, in order.
fn refused_instances(ctx: &DetectContext<'_>, refusals: &[EventId]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for i in refusals
        .iter()
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
        let coordination = analysis.config_value("masakari", "coordination", "backend_url");
        let mut evidence = of_events(analysis, ids.iter().copied());
        evidence.extend(coordination.map(|c| of_config(analysis, c)));
        let severity = if o.refusals.is_empty() {
            Severity::Warning
        } else {
            Severity::Critical
        };
        let refused = refused_words(o);
        let config_changes = coordination_change(coordination);
        Finding {
            id: format!("{}:{}:{}", self.id(), o.first.0, o.second.0).into(),
            detector: self.id(),
            severity,
            title: format!("Two recovery flows ran at once for {}", o.host),
            summary: format!(
                "Notifications {} and {} of {} were processed at the same time; {} refused evacuation(s).",
                o.first.0,
                o.second.0,
                o.host,
                o.refusals.len()
            ),
            failed_host: Some(o.host.clone()),
            instance_uuids: refused_instances(ctx, &o.refusals),
            notification_id: Some(o.second.0.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence,
            explanation: format!(
                "Masakari accepted two notifications for {} and its engines ran their host-failure flows side by \
                 side: notification {} started while {} was still running. Masakari's per-host lock is held per \
                 process unless `[coordination] backend_url` is set ({}), and the API's duplicate check only \
                 catches an identical payload within duplicate_notification_detection_interval. {refused} The \
                 second notification ends in error and the instances' final state depends on which flow's calls \
                 won (Launchpad bug 1961110, coordination from masakari 14.0.0).",
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
    if o.refusals.is_empty() {
        "Nova's logs in the bundle show no refused evacuation; the two flows still called Nova for the \
         same instances."
            .to_string()
    } else {
        format!(
            "Nova refused {} evacuation(s) with 409 `Cannot 'evacuate' instance … while it is in task_state \
             rebuilding`: the other flow's evacuation of that instance was running.",
            o.refusals.len()
        )
    }
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
