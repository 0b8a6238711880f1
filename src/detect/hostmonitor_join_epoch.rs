//! `hostmonitor-join-epoch`: masakari-hostmonitor on Pacemaker 2.1.7 or later never
//! notifies a host failure. From 2.1.7 the CIB's `node_state` `crmd` attribute holds the
//! epoch at which the node joined (`0` once it left), not `online`/`offline`; the monitor
//! compares it as a status (`'<host>' is '1750161483' (current: '1750161483').`) and,
//! when a host fails, logs `Since host status is '0', hostmonitor doesn't send a
//! notification.` No notification, no recovery: the instances stay on the dead host.
//! Fixed in masakari-monitors 21.0.0 (Launchpad bug 2127845), which reads a number as
//! online (above 0) or offline.
//!
//! Inputs: masakari-hostmonitor logs.
//!
//! Logic (measuring): per monitor log, its readings whose status is a number, the
//! notifications it withheld for such a status and the host the reading before named,
//! and whether any monitor sent a notification for that host afterwards. Telling: a host
//! that left the cluster (`0`) with no notification after is critical; readings of
//! epochs alone are a warning that the next failure will not be notified.

use std::collections::BTreeMap;

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::monitor_lines::{hostmonitor_events, is_epoch, reading, sent, withheld};
use crate::detect::{DetectContext, Detector};
use crate::model::EventId;

/// The detector.
#[derive(Debug)]
pub struct HostmonitorJoinEpoch;

/// A notification a monitor withheld for a number read as a status.
#[derive(Clone, Debug, PartialEq)]
pub struct Withheld {
    /// The host the reading named.
    pub host: String,
    /// The number.
    pub status: String,
    /// The reading.
    pub reading: EventId,
    /// `Since host status is '<n>', hostmonitor doesn't send a notification.`
    pub line: EventId,
    /// Some monitor sent a notification for the host afterwards.
    pub notified_after: bool,
}

/// What one monitor's log shows.
#[derive(Clone, Debug, PartialEq)]
pub struct EpochMonitor {
    /// The host the monitor runs on.
    pub monitor: String,
    /// Its first reading of a number.
    pub first: EventId,
    /// How many readings were numbers.
    pub readings: usize,
    /// The notifications it withheld for numbers.
    pub withheld: Vec<Withheld>,
}

/// Measures every host monitor that read join epochs.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<EpochMonitor> {
    let analysis = ctx.analysis;
    // Sends in time order: (time, host).
    let sends: Vec<(i64, String)> = hostmonitor_events(analysis)
        .filter_map(|(_, e)| Some((e.time, sent(&e.message())?.host)))
        .collect();
    let mut by_file: BTreeMap<u32, EpochMonitor> = BTreeMap::new();
    let mut last_reading: BTreeMap<u32, (EventId, String)> = BTreeMap::new();
    for (id, event) in hostmonitor_events(analysis) {
        let message = event.message();
        if let Some(r) = reading(&message) {
            last_reading.insert(event.file, (id, r.host.clone()));
            if is_epoch(&r.status) {
                let m = by_file.entry(event.file).or_insert_with(|| EpochMonitor {
                    monitor: host_name(analysis, event),
                    first: id,
                    readings: 0,
                    withheld: Vec::new(),
                });
                m.readings += 1;
            }
            continue;
        }
        let Some(status) = withheld(&message).filter(|s| is_epoch(s)) else {
            continue;
        };
        let (Some(m), Some((reading, host))) =
            (by_file.get_mut(&event.file), last_reading.get(&event.file))
        else {
            continue;
        };
        let notified_after = sends.iter().any(|(t, h)| *t >= event.time && h == host);
        m.withheld.push(Withheld {
            host: host.clone(),
            status: status.to_string(),
            reading: *reading,
            line: id,
            notified_after,
        });
    }
    by_file.into_values().collect()
}

impl Detector for HostmonitorJoinEpoch {
    fn id(&self) -> &'static str {
        "hostmonitor-join-epoch"
    }

    fn doc(&self) -> &'static str {
        "masakari-hostmonitor reads Pacemaker 2.1.7+'s join epochs as host statuses and never \
         notifies a host failure (bug 2127845, fixed in masakari-monitors 21.0.0)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        let monitors = measure(ctx);
        if monitors.is_empty() {
            return Vec::new();
        }
        // Hosts that left the cluster (`0`) and were never notified.
        let mut lost: BTreeMap<String, Vec<&Withheld>> = BTreeMap::new();
        for w in monitors.iter().flat_map(|m| &m.withheld) {
            if w.status.trim_start_matches('0').is_empty() && !w.notified_after {
                lost.entry(w.host.clone()).or_default().push(w);
            }
        }
        if lost.is_empty() {
            return vec![self.latent(ctx, &monitors)];
        }
        lost.iter()
            .map(|(host, withheld)| self.lost(ctx, &monitors, host, withheld))
            .collect()
    }
}

/// The monitors' hosts, each once: a monitor whose log was rotated is measured per file.
fn monitor_names(monitors: &[EpochMonitor]) -> Vec<&str> {
    let mut names: Vec<&str> = Vec::new();
    for m in monitors {
        if !names.contains(&m.monitor.as_str()) {
            names.push(&m.monitor);
        }
    }
    names
}

const FIX: &str = "Upgrade masakari-monitors to 21.0.0 or later (it reads a join epoch as online, \
                   0 as offline), or keep Pacemaker below 2.1.7 on the monitors' hosts.";

impl HostmonitorJoinEpoch {
    /// A host left the cluster and no monitor notified it.
    fn lost(
        &self,
        ctx: &DetectContext<'_>,
        monitors: &[EpochMonitor],
        host: &str,
        withheld: &[&Withheld],
    ) -> Finding {
        let analysis = ctx.analysis;
        let mut ids: Vec<EventId> = monitors.iter().map(|m| m.first).collect();
        ids.extend(withheld.iter().flat_map(|w| [w.reading, w.line]));
        let names = monitor_names(monitors);
        Finding {
            id: format!("{}:{host}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "Host monitor never notified the failure of {host}: it read Pacemaker join epochs as statuses"
            ),
            summary: format!(
                "{host} left the Pacemaker cluster (its join epoch became 0) and the host monitor on {} \
                 withheld the notification; no recovery started and its instances stayed on {host}.",
                names.join(", ")
            ),
            failed_host: Some(host.to_string()),
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: Vec::new(),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "masakari-hostmonitor decides a host's state from the `crmd` attribute of its CIB \
                 `node_state`. Pacemaker 2.1.7 and later write there the epoch at which the node joined \
                 (0 once it left) instead of `online`/`offline`. The monitor on {} read numbers ({} readings) \
                 and, when {host} left the cluster, its status changed to `0`, which is neither `online` nor \
                 `offline`: it logged `Since host status is '0', hostmonitor doesn't send a notification.` \
                 and sent nothing. Masakari never heard of the failure, so nothing was evacuated \
                 (Launchpad bug 2127845).",
                names.join(", "),
                monitors.iter().map(|m| m.readings).sum::<usize>()
            ),
            remediation: Remediation::advice(format!(
                "Evacuate {host}'s instances now (after making sure it is fenced). {FIX}"
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }

    /// Monitors read epochs, and no host has failed yet.
    fn latent(&self, ctx: &DetectContext<'_>, monitors: &[EpochMonitor]) -> Finding {
        let analysis = ctx.analysis;
        let mut ids: Vec<EventId> = monitors.iter().map(|m| m.first).collect();
        ids.extend(monitors.iter().flat_map(|m| &m.withheld).map(|w| w.line));
        let names = monitor_names(monitors);
        Finding {
            id: format!("{}:latent", self.id()).into(),
            detector: self.id(),
            severity: Severity::Warning,
            title: "Host monitors read Pacemaker join epochs as host statuses: a host failure will not be notified".into(),
            summary: format!(
                "The host monitor on {} reads numbers where it expects online/offline; when a host fails it \
                 will withhold the notification.",
                names.join(", ")
            ),
            failed_host: None,
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: Vec::new(),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: "Pacemaker 2.1.7 and later write a node's join epoch in the CIB where masakari-hostmonitor \
                          expects `online` or `offline`. Before masakari-monitors 21.0.0 the monitor takes the number \
                          as the status: a failed host's status becomes `0`, not `offline`, and the monitor does not \
                          send a notification (Launchpad bug 2127845)."
                .into(),
            remediation: Remediation::advice(FIX),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::Severity;
    use crate::detect::context::testing::findings;

    const LOG: &str = "cmp01/var/log/kolla/masakari/masakari-hostmonitor.log";

    fn line(time: &str, message: &str) -> String {
        format!(
            "2025-06-17 {time} 19 INFO masakarimonitors.hostmonitor.host_handler.handle_host [-] {message}\n"
        )
    }

    #[test]
    fn epochs_alone_are_a_latent_warning() {
        let log = line(
            "13:58:03.911",
            "'cmp02' is '1750146131' (current: '1750146131').",
        ) + &line(
            "13:59:03.961",
            "'cmp02' is '1750146131' (current: '1750146131').",
        );
        let found = findings("hostmonitor-join-epoch", &[(LOG, &log)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert_eq!(found[0].failed_host, None);
    }

    #[test]
    fn a_rotated_monitor_log_names_its_host_once() {
        let old = line(
            "13:58:03.911",
            "'cmp02' is '1750146131' (current: '1750146131').",
        );
        let new = line("14:03:04.104", "'cmp02' is '0' (current: '0').")
            + &line(
                "14:03:04.105",
                "Since host status is '0', hostmonitor doesn't send a notification.",
            );
        let rotated = format!("{LOG}.1");
        let found = findings("hostmonitor-join-epoch", &[(&rotated, &old), (LOG, &new)]);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0]
                .summary
                .contains("the host monitor on cmp01 withheld"),
            "{}",
            found[0].summary
        );
    }

    #[test]
    fn a_host_gone_to_zero_and_withheld_is_critical() {
        let log = line(
            "13:58:03.911",
            "'cmp02' is '1750146131' (current: '1750146131').",
        ) + &line("14:03:04.104", "'cmp02' is '0' (current: '0').")
            + &line(
                "14:03:04.105",
                "Since host status is '0', hostmonitor doesn't send a notification.",
            );
        let found = findings("hostmonitor-join-epoch", &[(LOG, &log)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Critical);
        assert_eq!(found[0].failed_host.as_deref(), Some("cmp02"));
        assert_eq!(found[0].evidence.len(), 3);
    }

    #[test]
    fn online_offline_readings_and_uncertain_statuses_are_not_epochs() {
        let log = line("13:58:03.911", "'cmp02' is 'online' (current: 'online').")
            + &line(
                "14:03:04.104",
                "'cmp02' is '_uncertain' (current: 'offline').",
            )
            + &line(
                "14:03:04.105",
                "Since host status is '_uncertain', hostmonitor doesn't send a notification.",
            )
            + &line("14:04:04.104", "'cmp02' is 'offline'.");
        assert!(findings("hostmonitor-join-epoch", &[(LOG, &log)]).is_empty());
    }
}
