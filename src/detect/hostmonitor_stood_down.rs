//! `hostmonitor-stood-down`: masakari-hostmonitor stopped watching hosts for several
//! cycles in a row (`hostmonitor skips monitoring hosts.`) because it judged its own
//! cluster unfit: `Pacemaker cluster doesn't have quorum.`, `Corosync communication is
//! failed.`, `Neither pacemaker nor pacemaker-remote is running.`, `'<host>' is unstable
//! state on cluster.`. The same event that breaks the cluster (a switch, a rack, a power
//! feed) often takes compute hosts down with it: their failures are noticed only when
//! the monitor resumes, or never.
//!
//! Inputs: masakari-hostmonitor logs.
//!
//! Logic (measuring): per monitor log, runs of consecutive skip lines with no host
//! reading between them, the reasons logged in the run, and the first notification sent
//! soon after the run ended (a failure noticed late). Telling: a run of at least
//! [`MIN_SKIPS`] cycles is a finding; critical when a host failure was notified right
//! after it, or when the monitor was still standing down at its last line.

use crate::model::EventsById;
use std::collections::BTreeMap;

use crate::detect::evidence::{self, duration, host_name, of_events};
use crate::detect::finding::{Finding, Highlight, Remediation, Severity};
use crate::detect::monitor_lines::{hostmonitor_events, reading, sent};
use crate::detect::{DetectContext, Detector};
use crate::model::EventId;

/// The detector.
#[derive(Debug)]
pub struct HostmonitorStoodDown;

/// Fewer skipped cycles in a row are a blip, not a stand-down.
pub const MIN_SKIPS: usize = 3;

/// A notification sent this soon after the monitor resumed was held back by the run.
const LATE_WINDOW_NS: i64 = 180 * 1_000_000_000;

/// Why the monitor stands down: the texts of handle_host.py that precede a skip.
const REASONS: [&str; 5] = [
    "doesn't have quorum",
    "Corosync communication is failed",
    "Neither pacemaker nor pacemaker-remote is running",
    "is unstable state on cluster",
    "command output stderr",
];

/// One run of skipped monitoring cycles.
#[derive(Clone, Debug, PartialEq)]
pub struct StandDown {
    /// The host the monitor runs on.
    pub monitor: String,
    /// The skip lines.
    pub skips: Vec<EventId>,
    /// The first line of each reason logged in the run.
    pub reasons: Vec<EventId>,
    /// From the first skip to the last (UTC nanoseconds).
    pub lasted: i64,
    /// The run lasts to the monitor's last line.
    pub to_the_end: bool,
    /// A notification sent just after the run (the line, the host).
    pub late: Option<(EventId, String)>,
    /// Compute hosts that went down while the monitor stood down, as Nova's service
    /// group saw them (`Seems service nova-compute on host <h> is down`, its last
    /// heartbeat inside the run): the first such line per host.
    pub unwatched: Vec<(EventId, String)>,
}

/// How long before the first skip a heartbeat may end and still fall to the run: one
/// monitoring interval (60 s by default) plus Nova's report interval.
const BEFORE_RUN_NS: i64 = 70 * 1_000_000_000;

/// The host and the seconds since its last heartbeat of Nova's
/// `Seems service nova-compute on host <h> is down. Last heartbeat was <t>. Elapsed time
/// is <s>` (nova.servicegroup.drivers.db, DEBUG).
pub fn compute_down(message: &str) -> Option<(&str, f64)> {
    let rest = message.strip_prefix("Seems service nova-compute on host ")?;
    let (host, rest) = rest.split_once(" is down.")?;
    let (_, elapsed) = rest.split_once("Elapsed time is ")?;
    let elapsed: f64 = elapsed.split_whitespace().next()?.parse().ok()?;
    (!host.is_empty() && elapsed.is_finite()).then_some((host, elapsed))
}

/// The compute hosts whose last heartbeat fell inside `[from - BEFORE_RUN_NS, to]`
/// (`to` = the end of the analysis when the run lasted to the monitor's last line).
fn unwatched(ctx: &DetectContext<'_>, from: i64, to: i64) -> Vec<(EventId, String)> {
    let mut out: Vec<(EventId, String)> = Vec::new();
    for (i, e) in ctx.analysis.events.iter().enumerate() {
        let message = e.message();
        let Some((host, elapsed)) = compute_down(&message) else {
            continue;
        };
        let heartbeat = e.time - (elapsed * 1e9) as i64;
        if heartbeat >= from - BEFORE_RUN_NS
            && heartbeat <= to
            && !out.iter().any(|(_, h)| h == host)
        {
            out.push((EventId::at(i), host.to_string()));
        }
    }
    out
}

#[derive(Default)]
struct Run {
    skips: Vec<EventId>,
    reasons: Vec<EventId>,
}

/// Measures every monitor's runs of skipped cycles of at least [`MIN_SKIPS`].
pub fn measure(ctx: &DetectContext<'_>) -> Vec<StandDown> {
    let analysis = ctx.analysis;
    let mut runs: BTreeMap<u32, Vec<Run>> = BTreeMap::new();
    let mut last_line: BTreeMap<u32, EventId> = BTreeMap::new();
    for (id, event) in hostmonitor_events(analysis) {
        let message = event.message();
        let file_runs = runs.entry(event.file).or_default();
        last_line.insert(event.file, id);
        if reading(&message).is_some() || sent(&message).is_some() {
            file_runs.push(Run::default());
            continue;
        }
        if file_runs.is_empty() {
            file_runs.push(Run::default());
        }
        let Some(run) = file_runs.last_mut() else {
            continue;
        };
        if message.starts_with("hostmonitor skips monitoring hosts") {
            run.skips.push(id);
        } else if REASONS.iter().any(|r| message.contains(r))
            && !run.reasons.iter().any(|&r| same_reason(ctx, r, &message))
        {
            run.reasons.push(id);
        }
    }
    let mut out = Vec::new();
    for (file, file_runs) in runs {
        for run in file_runs.into_iter().filter(|r| r.skips.len() >= MIN_SKIPS) {
            if let Some(s) = stand_down(ctx, run, last_line.get(&file).copied()) {
                out.push(s);
            }
        }
    }
    out
}

fn same_reason(ctx: &DetectContext<'_>, seen: EventId, message: &str) -> bool {
    ctx.analysis.events.by_id(seen).is_some_and(|e| {
        REASONS
            .iter()
            .any(|r| e.message().contains(r) && message.contains(r))
    })
}

fn stand_down(ctx: &DetectContext<'_>, run: Run, last: Option<EventId>) -> Option<StandDown> {
    let analysis = ctx.analysis;
    let first = analysis.events.by_id(*run.skips.first()?)?;
    let end_id = *run.skips.last()?;
    let end = analysis.events.by_id(end_id)?;
    let late = hostmonitor_events(analysis)
        .filter(|(_, e)| {
            e.file == end.file && e.time > end.time && e.time - end.time <= LATE_WINDOW_NS
        })
        .find_map(|(id, e)| Some((id, sent(&e.message())?.host)));
    let to_the_end = last == Some(end_id);
    let until = if to_the_end { i64::MAX } else { end.time };
    Some(StandDown {
        monitor: host_name(analysis, first),
        lasted: end.time - first.time,
        to_the_end,
        unwatched: unwatched(ctx, first.time, until),
        late,
        skips: run.skips,
        reasons: run.reasons,
    })
}

impl Detector for HostmonitorStoodDown {
    fn id(&self) -> &'static str {
        "hostmonitor-stood-down"
    }

    fn doc(&self) -> &'static str {
        "masakari-hostmonitor skipped monitoring for several cycles (no quorum, corosync failed, \
         pacemaker not running, unstable cluster): host failures in that time were notified late or never."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|s| self.tell(ctx, s)).collect()
    }
}

/// The reasons a stand-down logged, quoted, in words.
fn reasons_text(ctx: &DetectContext<'_>, s: &StandDown) -> String {
    let analysis = ctx.analysis;
    let reasons: Vec<String> = s
        .reasons
        .iter()
        .filter_map(|&r| analysis.events.by_id(r))
        .map(|e| format!("`{}`", e.message().trim_end_matches('.')))
        .collect();
    if reasons.is_empty() {
        "no reason logged".to_string()
    } else {
        reasons.join(", ")
    }
}

/// What the stand-down cost, from what followed it.
fn consequence(s: &StandDown) -> String {
    let down: Vec<&str> = s.unwatched.iter().map(|(_, h)| h.as_str()).collect();
    if s.late.is_none() && !down.is_empty() {
        return format!(
            "Meanwhile Nova saw the compute service of {} go down (its last heartbeat fell inside the \
             stand-down), and the monitor notified nothing: no recovery started and its instances stayed \
             on the failed host.",
            down.join(", ")
        );
    }
    match (&s.late, s.to_the_end) {
        (Some((_, host)), _) => format!(
            "As soon as it resumed it notified the failure of {host}: that failure waited for the \
                 cluster, not for the monitor's interval, and its instances stayed down meanwhile."
        ),
        (None, true) => {
            "It was still standing down at its last line: no host failure can be notified \
                             until the cluster is whole again."
                .to_string()
        }
        (None, false) => {
            "No failure was notified right after it resumed; a host that failed during it \
                              and came back would not have been recovered."
                .to_string()
        }
    }
}

impl HostmonitorStoodDown {
    fn tell(&self, ctx: &DetectContext<'_>, s: &StandDown) -> Finding {
        let analysis = ctx.analysis;
        let (first, last) = (s.skips[0], s.skips[s.skips.len() - 1]);
        let mut ids: Vec<EventId> = s.reasons.clone();
        ids.extend([first, last]);
        ids.extend(s.late.as_ref().map(|(id, _)| *id));
        ids.extend(s.unwatched.iter().map(|(id, _)| *id));
        let reasons = reasons_text(ctx, s);
        let severity = if s.late.is_some() || s.to_the_end || !s.unwatched.is_empty() {
            Severity::Critical
        } else {
            Severity::Warning
        };
        let lasted = duration(s.lasted);
        let consequence = consequence(s);
        let highlights = [(first, last)]
            .iter()
            .filter_map(|&(a, b)| {
                Some(Highlight::Span {
                    from: analysis.events.by_id(a)?.time,
                    to: analysis.events.by_id(b)?.time,
                    label: format!("not monitoring, {lasted}"),
                })
            })
            .collect();
        Finding {
            id: format!(
                "{}:{}:{}",
                self.id(),
                s.monitor,
                analysis.events.by_id(first).map_or(0, |e| e.line)
            )
            .into(),
            detector: self.id(),
            severity,
            title: format!(
                "Host monitor on {} stood down for {lasted} ({} skipped cycles)",
                s.monitor,
                s.skips.len()
            ),
            summary: format!(
                "masakari-hostmonitor on {} logged `hostmonitor skips monitoring hosts.` {} times in a row ({reasons}).",
                s.monitor,
                s.skips.len()
            ),
            failed_host: s
                .late
                .as_ref()
                .or(s.unwatched.first())
                .map(|(_, h)| h.clone()),
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: Vec::new(),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "The host monitor checks its own cluster before it looks at other hosts, and stands down when \
                 the cluster cannot be trusted ({reasons}): it does not watch hosts, so it cannot notify a \
                 failure. On {} it stood down for {lasted}. {consequence}",
                s.monitor
            ),
            remediation: Remediation::advice(
                "Restore the cluster's quorum and corosync rings (pcs status, corosync-cfgtool -s, \
                          crm_mon -1 on the monitor's host), then check every compute host: evacuate the \
                          instances of any that failed meanwhile, after fencing it. Spread quorum votes so that \
                          one switch or rack cannot take both the computes and the cluster's quorum.",
            ),
            known_bugs: Vec::new(),
            highlights,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::Severity;
    use crate::detect::context::testing::findings;

    const LOG: &str = "0/baremetal/var/log/masakarimonitors/masakari-hostmonitor.log";

    fn cycles(skips: usize, reason: &str) -> String {
        let mut log = String::new();
        for i in 0..skips {
            let t = format!("2023-05-09 21:{:02}:19.402", 48 + i);
            log += &format!(
                "{t} 2941 WARNING masakarimonitors.hostmonitor.host_handler.handle_host [-] {reason}\n"
            );
            log += &format!(
                "{t} 2941 WARNING masakarimonitors.hostmonitor.host_handler.handle_host [-] hostmonitor skips monitoring hosts.\n"
            );
        }
        log + "2023-05-09 21:59:19.402 2941 INFO masakarimonitors.hostmonitor.host_handler.handle_host [-] 'compute-2' is 'online' (current: 'online').\n"
    }

    #[test]
    fn a_blip_of_two_cycles_is_not_a_stand_down() {
        let log = cycles(2, "Pacemaker cluster doesn't have quorum.");
        assert!(findings("hostmonitor-stood-down", &[(LOG, &log)]).is_empty());
    }

    #[test]
    fn a_compute_that_died_while_the_monitor_stood_down_is_named() {
        let log = cycles(4, "Pacemaker cluster doesn't have quorum.");
        // nova-scheduler with debug on: compute-2's last heartbeat at 21:48:30, inside the run
        let scheduler = "2023-05-09 21:50:01.118 812 DEBUG nova.servicegroup.drivers.db [None req-0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e - - - - - -] Seems service nova-compute on host compute-2 is down. Last heartbeat was 2023-05-09 21:48:30. Elapsed time is 91.118000 is_up /usr/lib/python3/dist-packages/nova/servicegroup/drivers/db.py:80\n\
                         2023-05-09 21:50:01.120 812 DEBUG nova.servicegroup.drivers.db [None req-0b1c2d3e-4f5a-4b6c-8d7e-9f0a1b2c3d4e - - - - - -] Seems service nova-compute on host compute-5 is down. Last heartbeat was 2023-05-09 20:11:02. Elapsed time is 5939.120000 is_up /usr/lib/python3/dist-packages/nova/servicegroup/drivers/db.py:80\n";
        let found = findings(
            "hostmonitor-stood-down",
            &[
                (LOG, &log),
                ("1/lxd/3/var/log/nova/nova-scheduler.log", scheduler),
            ],
        );
        assert_eq!(found.len(), 1);
        // compute-5 was down long before the run: not the monitor's miss
        assert_eq!(found[0].failed_host.as_deref(), Some("compute-2"));
        assert_eq!(found[0].severity, Severity::Critical);
        assert!(
            found[0]
                .evidence
                .iter()
                .any(|e| e.text.contains("host compute-2 is down"))
        );
    }

    #[test]
    fn a_run_of_skips_is_a_warning_naming_its_reason() {
        let log = cycles(4, "Corosync communication is failed.");
        let found = findings("hostmonitor-stood-down", &[(LOG, &log)]);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].severity, Severity::Warning);
        assert!(
            found[0]
                .summary
                .contains("Corosync communication is failed")
        );
        assert_eq!(found[0].evidence.len(), 3);
    }
}
