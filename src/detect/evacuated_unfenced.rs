//! `evacuated-unfenced`: Masakari evacuated a host's instances while nothing in the bundle
//! says the host was fenced first. Masakari never fences: it trusts the monitor, and an
//! evacuation of a host that is still running (cut off from the network, hung, or half
//! up) starts a second copy of each instance on the same disks or volumes: data
//! corruption. With Pacemaker the fencing is on record in its history
//! (`pcs stonith history show` in a sosreport's `sos_commands/pacemaker/`, crm_mon's
//! `Fencing History`: `reboot of <host> successful: … completed='…'`,
//! lib/fencing/st_output.c in Pacemaker 2.1.2 and 2.1.9).
//!
//! Inputs: Masakari engine logs (the evacuate calls); a complete fencing history capture
//! (`pcs stonith history show`; crm_mon's default sections list only failed and pending
//! actions); Pacemaker's own fencing results in `pacemaker.log` or the system log
//! (pacemaker-fenced's `Operation 'reboot' targeting <host> by <node> for …: OK`,
//! pacemaker-controld's `Peer <host> was terminated (reboot) by …`, Pacemaker 2.0 and
//! 2.1; their times without a year take the year nearest the bundle's events, see
//! `correlate::fence_log`). Without a complete history, a log counts for a recovery only
//! when it logged the fencing of that host around it (a log may not cover the time:
//! the absence of a line proves nothing).
//!
//! Logic (measuring): per host-failure recovery with evacuate calls, the first call; the
//! fencing records of its host (names compared without their domain; a logged result
//! the history also lists, within a second, is one record); a successful `reboot` or
//! `off` completed between an hour before the recovery's first line and the first call
//! fences it. Telling: a recovery with none is a warning, with the fencing that came too
//! late or failed when there is some.

use crate::correlate::recovery::{CallAction, Recovery};
use crate::correlate::timeline::utc;
use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Evidence, Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::EventsById;
use crate::model::{EventId, Uuid};
use evacdoc_parsers::capture::{Capture, FenceState};

/// The detector.
#[derive(Debug)]
pub struct EvacuatedUnfenced;

/// How long before a recovery's first line a fencing still counts for it: the cluster
/// fences the host when it loses it, Masakari hears of it at about the same time.
const FENCE_LOOKBACK_NANOS: i64 = 3_600 * 1_000_000_000;

/// One fencing record of a host, from a history capture.
#[derive(Clone, Debug, PartialEq)]
pub struct FenceRecord {
    /// The fenced node as written.
    pub target: String,
    /// Whether it succeeded (`reboot` or `off`, `successful` / `OK`).
    pub fenced: bool,
    /// A failed `reboot` or `off` that no later attempt made good: a history entry
    /// without crm_mon's ` (a later attempt from <node> succeeded)`.
    pub failed_for_good: bool,
    /// When it completed (UTC nanoseconds), when known.
    pub time: Option<i64>,
    /// Read from Pacemaker's log, not from a history capture.
    pub logged: bool,
    /// Where it is written.
    pub evidence: Evidence,
}

/// A recovery that evacuated a host nothing shows fenced before.
#[derive(Clone, Debug, PartialEq)]
pub struct Unfenced {
    /// The failed host.
    pub host: String,
    /// The notification.
    pub notification: Uuid,
    /// Masakari's first evacuate call.
    pub first_call: EventId,
    /// The instances it evacuated.
    pub instances: Vec<Uuid>,
    /// The host's other fencing records: too late, failed or pending.
    pub others: Vec<FenceRecord>,
    /// A complete fencing history was in the bundle (else Pacemaker's log told it).
    pub history: bool,
}

fn is_fencing(action: &str) -> bool {
    matches!(action, "reboot" | "off")
}

fn short(host: &str) -> String {
    host.split('.').next().unwrap_or(host).to_ascii_lowercase()
}

/// Whether two records are one fencing: the same in a history and in its crm_mon copy,
/// or within a second when one was logged (a log line's time is to the second).
fn same_fencing(a: &FenceRecord, b: &FenceRecord) -> bool {
    if (&a.target, a.fenced) != (&b.target, b.fenced) {
        return false;
    }
    match (a.time, b.time) {
        (Some(x), Some(y)) if a.logged || b.logged => x.abs_diff(y) <= 1_000_000_000,
        (x, y) => x == y,
    }
}

/// Every fencing record of the bundle's history captures and of Pacemaker's logs
/// (histories first), and whether one of the histories is complete (would list a
/// successful fencing).
pub fn fence_records(ctx: &DetectContext<'_>) -> (Vec<FenceRecord>, bool) {
    let analysis = ctx.analysis;
    let mut out = Vec::new();
    let mut history = false;
    let histories = analysis.captures.iter().filter_map(|c| match &c.capture {
        Capture::FenceHistory { complete, actions } => Some((c, *complete, actions, false)),
        _ => None,
    });
    let logs = analysis.captures.iter().filter_map(|c| match &c.capture {
        Capture::FenceLog { actions } => Some((c, false, actions, true)),
        _ => None,
    });
    for (c, complete, actions, logged) in histories.chain(logs) {
        history |= complete;
        let records = actions.iter().map(|a| FenceRecord {
            target: a.target.clone(),
            fenced: a.state == FenceState::Successful && is_fencing(&a.action),
            failed_for_good: a.state == FenceState::Failed
                && is_fencing(&a.action)
                && !a.text.contains("a later attempt from"),
            time: a.completed,
            logged,
            evidence: Evidence {
                path: c.file.clone(),
                line: a.line,
                host: String::new(),
                timestamp: a.completed.map(utc),
                text: a.text.clone(),
            },
        });
        // crm_mon repeats what the full history lists; the log, what both list (and
        // fenced's and controld's lines tell one result twice).
        for r in records {
            let seen = out.iter().any(|o: &FenceRecord| same_fencing(o, &r));
            if !seen {
                out.push(r);
            }
        }
    }
    (out, history)
}

/// The first evacuate call of `recovery` and the instances evacuated.
fn first_call(ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<(EventId, Vec<Uuid>)> {
    let calls: Vec<_> = recovery
        .attempts
        .iter()
        .flat_map(|a| a.calls_of(CallAction::Evacuate, None))
        .collect();
    let first = calls
        .iter()
        .map(|c| c.event)
        .min_by_key(|&e| ctx.analysis.events.by_id(e).map(|e| e.time))?;
    let mut instances: Vec<Uuid> = Vec::new();
    for i in calls.iter().filter_map(|c| c.instance) {
        if !instances.contains(&i) {
            instances.push(i);
        }
    }
    Some((first, instances))
}

/// Measures every recovery that evacuated a host with no fencing on record before.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Unfenced> {
    let (records, history) = fence_records(ctx);
    if !history && records.is_empty() {
        return Vec::new();
    }
    let analysis = ctx.analysis;
    let mut out = Vec::new();
    for r in ctx.host_failures() {
        let Some(host) = r.failed_host.clone() else {
            continue;
        };
        let Some((first, instances)) = first_call(ctx, r) else {
            continue;
        };
        let Some(call_time) = analysis.events.by_id(first).map(|e| e.time) else {
            continue;
        };
        let from = r.window(analysis).map_or(call_time, |(start, _)| start) - FENCE_LOOKBACK_NANOS;
        let of_host: Vec<&FenceRecord> = records
            .iter()
            .filter(|f| short(&f.target) == short(&host))
            .collect();
        let fenced_before = of_host
            .iter()
            .any(|f| f.fenced && f.time.is_some_and(|t| t >= from && t <= call_time));
        if fenced_before {
            continue;
        }
        // Without a whole history, the log must have followed this host's fencing then.
        let logged_then = of_host.iter().any(|f| {
            f.logged
                && f.time
                    .is_some_and(|t| t >= from && t <= call_time + FENCE_LOOKBACK_NANOS)
        });
        // crm_mon's default sections list only failed and pending actions: a failed
        // fencing of this host around the recovery that no later attempt made good
        // says it was not fenced, though the list is not the whole history.
        let failed_then = of_host.iter().any(|f| {
            f.failed_for_good
                && f.time
                    .is_some_and(|t| t >= from && t <= call_time + FENCE_LOOKBACK_NANOS)
        });
        if !history && !logged_then && !failed_then {
            continue;
        }
        out.push(Unfenced {
            host,
            notification: r.notification,
            first_call: first,
            instances,
            others: of_host.into_iter().cloned().collect(),
            history,
        });
    }
    out
}

impl Detector for EvacuatedUnfenced {
    fn id(&self) -> &'static str {
        "evacuated-unfenced"
    }

    fn doc(&self) -> &'static str {
        "Masakari evacuated a host's instances while the cluster's fencing history shows no \
         successful fencing of that host before the first evacuation: a data-corruption risk."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|u| self.tell(ctx, u)).collect()
    }
}

impl EvacuatedUnfenced {
    /// What the host's other records say, in a sentence (empty when there are none).
    fn others_said(ctx: &DetectContext<'_>, u: &Unfenced) -> String {
        let call_time = ctx
            .analysis
            .events
            .by_id(u.first_call)
            .map_or(0, |e| e.time);
        let late = u
            .others
            .iter()
            .filter(|f| f.fenced)
            .filter_map(|f| f.time)
            .filter(|&t| t > call_time)
            .min();
        let failed = u.others.iter().filter(|f| !f.fenced).count();
        let mut said = String::new();
        if let Some(t) = late {
            said += &format!(
                " The cluster fenced {} only {} after the first evacuation.",
                u.host,
                evidence::duration(t - call_time)
            );
        }
        if failed > 0 {
            said += &format!(
                " {failed} fencing record(s) of {} did not succeed (failed or pending).",
                u.host
            );
        }
        said
    }

    fn tell(&self, ctx: &DetectContext<'_>, u: &Unfenced) -> Finding {
        let analysis = ctx.analysis;
        let host = &u.host;
        let mut evidence = of_events(analysis, [u.first_call]);
        evidence.extend(u.others.iter().take(4).map(|f| f.evidence.clone()));
        let engine_host = analysis
            .events
            .by_id(u.first_call)
            .map(|e| host_name(analysis, e))
            .unwrap_or_default();
        let others = Self::others_said(ctx, u);
        let (records, shows) = if u.history {
            (
                "the cluster's fencing history has",
                "the bundle's fencing history shows",
            )
        } else {
            (
                "Pacemaker's log of the fencing has",
                "its log in the bundle follows the fencing of this host around the recovery and shows",
            )
        };
        Finding {
            id: format!("{}:{}", self.id(), u.notification).into(),
            detector: self.id(),
            severity: Severity::Warning,
            title: format!(
                "Instances of {host} were evacuated with no record of {host} being fenced first"
            ),
            summary: format!(
                "Masakari (on {engine_host}) evacuated {} instance(s) of {host} for notification {}, and \
                 {records} no successful reboot or off of {host} before the first evacuation.{others}",
                u.instances.len(),
                u.notification
            ),
            failed_host: Some(host.clone()),
            instance_uuids: u.instances.iter().map(|i| i.to_string()).collect(),
            notification_id: Some(u.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &[u.first_call]),
            window: evidence::window(analysis, &[u.first_call]),
            evidence,
            explanation: format!(
                "Masakari does not fence: it evacuates on the monitor's word that {host} is down. If {host} was \
                 still running (isolated from the network, hung, or coming back), each evacuated instance now \
                 runs twice on the same disks or volumes, which corrupts them. Pacemaker records every fencing \
                 it does; {shows} none of {host} that completed before Masakari's first evacuate call."
            ),
            remediation: Remediation::advice(format!(
                "Check now that {host} is powered off or isolated (its BMC, the switch port) and that none of the \
                 evacuated instances also runs there; then configure STONITH for the compute nodes (pacemaker-remote \
                 with a fence device) so that the cluster fences a failed host before Masakari is notified, and \
                 keep Masakari's wait_period_after_service_update longer than the fencing takes."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::findings;

    /// Masakari 7.0.0's recovery of compute-1: first evacuate call at 10:03:34.762 UTC.
    const ENGINE: &str = include_str!(
        "../../samples/scenarios/2019-sosreport-bionic-fenced-before-evacuation-pacemaker11/sosreport-ctl-1-2019-03-12-pqx4tz/var/log/masakari/masakari-engine.log"
    );

    /// RHEL 7's Pacemaker 1.1 detail log: corosync.conf's `logging.logfile`
    /// (`/var/log/cluster/corosync.log`, as pcs writes it), in 1.1's file format
    /// (lib/common/logging.c `set_format_string`: `%t [%lu] %s %10s: %g %-7p: %n:\t%b`),
    /// corosync's own lines between Pacemaker's; stonith-ng and crmd of 1.1.10-1.1.16 at
    /// `at` (fencing/remote.c, crmd/te_utils.c).
    fn corosync_log(at: &str) -> String {
        format!(
            "Mar 12 10:00:21 [1987] ctl-1 corosync notice  [TOTEM ] A processor failed, forming new configuration.\n\
             Mar 12 10:00:26 [2156] ctl-1       crmd:   notice: te_fence_node:\tRequesting fencing (reboot) of node compute-1 | action=12 timeout=60000\n\
             Mar 12 {at} [2152] ctl-1 stonith-ng:   notice: remote_op_done:\tOperation reboot of compute-1 by ctl-2 for crmd.2156@ctl-1.7d3b1e9a: OK\n\
             Mar 12 {at} [2156] ctl-1       crmd:   notice: tengine_stonith_notify:\tPeer compute-1 was terminated (reboot) by ctl-2 for ctl-1: OK (ref=7d3b1e9a-4c1e-4f0a-9b62-5d2e8b1a4f90) by client crmd.2156\n"
        )
    }

    fn unfenced(at: &str) -> Vec<(Option<String>, usize)> {
        let log = corosync_log(at);
        findings(
            "evacuated-unfenced",
            &[
                ("ctl-1/var/log/masakari/masakari-engine.log", ENGINE),
                ("ctl-1/var/log/cluster/corosync.log", &log),
            ],
        )
        .into_iter()
        .map(|f| (f.failed_host, f.evidence.len()))
        .collect()
    }

    #[test]
    fn pacemaker_1_1s_corosync_log_tells_the_fencing() {
        // Fenced two minutes before the first evacuation: nothing to say.
        assert_eq!(unfenced("10:01:26"), []);
        // Fenced two minutes after it: the first call and stonith-ng's line (crmd's says
        // the same and is not repeated).
        assert_eq!(unfenced("10:05:58"), [(Some("compute-1".to_string()), 2)]);
    }
}
