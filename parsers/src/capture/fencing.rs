//! Pacemaker's fencing history as `stonith_admin --history '*' --verbose` prints it (what
//! `pcs stonith history show` runs; sosreport's pacemaker plugin saves it as
//! `sos_commands/pacemaker/pcs_stonith_history_show`), and the `Fencing History` entries
//! of `crm_mon`. One entry a line, from Pacemaker 2.x `stonith__history_description`
//! (lib/fencing/st_output.c):
//!
//! ```text
//! reboot of compute-1 successful: delegate=ctl-2, client=pacemaker-controld.2156, origin=ctl-1, completed='2024-05-21 10:02:40.123456Z'
//!   * reboot of compute-1 failed: delegate=ctl-2, client=stonith_admin.4411, origin=ctl-1, last-failed='2024-05-21 10:02:40.123456 +02:00'
//! off of compute-2 by ctl-2 for pacemaker-controld.2156@ctl-1 successful at 2024-05-21 10:02:40.123456Z
//! ```
//!
//! The time is written with microseconds and `Z` or ` ±hh:mm` (`pcmk__timespec2str` with
//! `crm_time_log_with_timezone`).

use crate::time::{oslo_timestamp, utc_offset};

/// How a fencing action ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FenceState {
    /// `successful`.
    Successful,
    /// `failed`.
    Failed,
    /// `pending`.
    Pending,
}

/// One entry of a fencing history.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FenceAction {
    /// `reboot`, `off`, `on`.
    pub action: String,
    /// The fenced node.
    pub target: String,
    /// How it ended.
    pub state: FenceState,
    /// The node that carried it out, when written.
    pub delegate: Option<String>,
    /// When it completed, UTC nanoseconds since the epoch (pending actions have none).
    pub completed: Option<i64>,
    /// 1-based line in the capture.
    pub line: usize,
    /// The line as written.
    pub text: String,
}

/// The fencing history entries of `text` (lines of anything else are skipped).
pub fn parse_fence_history(text: &str) -> Vec<FenceAction> {
    text.lines()
        .enumerate()
        .filter_map(|(i, line)| fence_action(line, i + 1))
        .collect()
}

/// Whether the history in `text` lists successful actions too: crm_mon's default
/// sections list only the failed and the pending ones.
pub fn is_complete_history(text: &str) -> bool {
    !text.contains("Failed Fencing Actions:") && !text.contains("Pending Fencing Actions:")
}

const STATES: [(&str, FenceState); 3] = [
    ("successful", FenceState::Successful),
    ("failed", FenceState::Failed),
    ("pending", FenceState::Pending),
];

/// One entry: `<action> of <target> … <state>…`.
fn fence_action(line: &str, number: usize) -> Option<FenceAction> {
    let body = line.trim_start();
    let body = body.strip_prefix("* ").unwrap_or(body).trim_end();
    let mut words = body.split(' ');
    let action = words.next()?;
    if !matches!(action, "reboot" | "off" | "on") || words.next()? != "of" {
        return None;
    }
    let target = words.next()?;
    // The state is the first word that is one (the `: details` form glues a colon to it).
    let state = words.find_map(|w| {
        let w = w.trim_end_matches(':');
        STATES.iter().find(|(name, _)| *name == w).map(|(_, s)| *s)
    })?;
    Some(FenceAction {
        action: action.to_string(),
        target: target.to_string(),
        state,
        delegate: delegate(body),
        completed: completed(body),
        line: number,
        text: line.trim_end_matches('\r').to_string(),
    })
}

/// `delegate=<node>,` or ` by <node> for `.
fn delegate(body: &str) -> Option<String> {
    let node = match body.split_once("delegate=") {
        Some((_, rest)) => rest.split([',', ' ']).next()?,
        None => body.split_once(" by ")?.1.split(' ').next()?,
    };
    (!node.is_empty()).then(|| node.to_string())
}

/// The completion time: `completed='…'`, `last-successful='…'`, `last-failed='…'`, or
/// ` at …` at the end.
fn completed(body: &str) -> Option<i64> {
    let quoted = ["completed='", "last-successful='", "last-failed='"]
        .iter()
        .find_map(|key| body.split_once(key).map(|(_, rest)| rest))
        .and_then(|rest| rest.split_once('\'').map(|(time, _)| time));
    let time = quoted.or_else(|| body.rsplit_once(" at ").map(|(_, time)| time))?;
    utc_nanos(time)
}

/// `2024-05-21 10:02:40.123456Z` or `2024-05-21 10:02:40.123456 +02:00`.
fn utc_nanos(time: &str) -> Option<i64> {
    let (rest, local) = oslo_timestamp(time).ok()?;
    let rest = rest.strip_prefix(' ').unwrap_or(rest);
    let (_, offset) = utc_offset(rest).ok()?;
    local.checked_unix_nanos(offset)
}

/// A fencing result as Pacemaker's daemons log it, in `pacemaker.log` or the system log.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FenceLogResult {
    /// `reboot`, `off`, `on`.
    pub action: String,
    /// The fenced node.
    pub target: String,
    /// The node that carried it out, when written.
    pub delegate: Option<String>,
    /// `Successful` or `Failed` (a log line is written when the operation ended).
    pub state: FenceState,
}

/// The daemons whose lines tell a fencing result: Pacemaker 2's, and Pacemaker 1.1's
/// `stonith-ng` and `crmd` (RHEL 7, Ubuntu 16.04 and 18.04).
const FENCE_DAEMONS: [&str; 4] = [
    "pacemaker-fenced",
    "pacemaker-controld",
    "stonith-ng",
    "crmd",
];

/// Where the daemon's name `daemon` stands as a word in `head` (after the time and the
/// node: a space or nothing before it; its pid, its colon or padding after it), and the
/// end of the name there.
fn daemon_end(head: &str, daemon: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(at) = head.get(from..).and_then(|h| h.find(daemon)) {
        let at = from + at;
        let end = at + daemon.len();
        let before = head[..at].chars().next_back();
        let after = head[end..].chars().next();
        if matches!(before, None | Some(' ')) && matches!(after, None | Some('[' | ':' | ' ')) {
            return Some(end);
        }
        from = end;
    }
    None
}

/// A fencing result line of `pacemaker.log` or the system log: its time as written (no
/// year in the classic forms) and the result. Pacemaker 2.0 and 2.1 write, in
/// pacemaker.log (lib/common/logging.c `set_format_string`),
/// `<time> <node> <daemon padded to 20>[<pid>] (<function>) \t<level>: <message>`, and
/// in the system log `<time> <node> <daemon>[<pid>]: <level>: <message>`. Pacemaker 1.1
/// writes, in its log file (`/var/log/pacemaker.log`, or corosync.conf's
/// `logging.logfile`, on RHEL 7 `/var/log/cluster/corosync.log`),
/// `<time> [<pid>] <node> <daemon padded to 10>: <level>: <function>:\t<message>`, and
/// in the system log `<time> <node> <daemon>[<pid>]: <level>: <message>`, the daemons
/// being `stonith-ng` and `crmd`. The message is one of [`fence_log_result`]'s forms.
///
/// ```
/// use evacdoc_parsers::capture::{fence_log_line, FenceState};
/// use evacdoc_parsers::syslog::SyslogTime;
/// let line = "May 21 10:05:58 ctl-1 pacemaker-fenced    [2152] (remote_op_done) \tnotice: \
///     Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK | id=b94a2d6c";
/// let (time, r) = fence_log_line(line).unwrap();
/// assert!(matches!(time, SyslogTime::Yearless(t) if (t.month, t.day, t.hour) == (5, 21, 10)));
/// assert_eq!((r.action.as_str(), r.target.as_str()), ("reboot", "compute-1"));
/// assert_eq!(r.state, FenceState::Successful);
/// ```
pub fn fence_log_line(line: &str) -> Option<(crate::syslog::SyslogTime, FenceLogResult)> {
    let line = line.trim_end_matches(['\r', '\n']);
    // Cheap tests first: most lines of a system log are something else.
    if !(line.contains("Operation ") || line.contains(" terminated (")) {
        return None;
    }
    let (rest, time) = crate::syslog::prefix_time(line).ok()?;
    // The daemon's name comes right after the time and the node (a shorter line, or a
    // cut inside a character, is looked at whole).
    let head = rest.get(..96).unwrap_or(rest);
    let daemon_at = FENCE_DAEMONS
        .iter()
        .filter_map(|d| daemon_end(head, d))
        .min()?;
    let after = rest.get(daemon_at..)?;
    // The message starts after the level (`notice: `, `error: `), where it starts.
    let start = ["Operation ", "Peer "]
        .iter()
        .filter_map(|m| after.find(m))
        .min()?;
    Some((time, fence_log_result(after.get(start..)?)?))
}

/// The fencing result a message of pacemaker-fenced or pacemaker-controld states:
///
/// | form | source |
/// |---|---|
/// | `Operation reboot of <t> by <d> for <client>@<origin>.<id>: OK` | fenced 2.0.0-2.0.2 (fenced_remote.c) |
/// | `Operation 'reboot' targeting <t> on <d> for <client>@<origin>.<id>: OK` | fenced 2.0.3-2.0.5 |
/// | `Operation 'reboot' targeting <t> by <d> for <client>@<origin>: OK \| id=<id>` | fenced 2.1.0-2.1.4 |
/// | `… for <client>@<origin>: OK (complete) \| id=<id>` | fenced 2.1.5 and later |
/// | `Operation 'reboot' [<pid>] targeting <t> using <device> returned 0 (OK) \| call …` | fenced 2.1, the node that ran the device (fenced_commands.c) |
/// | `Operation 'reboot' [<pid>] (call <n> from <client>) for host '<t>' with device '<device>' returned: 0 (OK)` | fenced 2.0, likewise |
/// | `Peer <t> was terminated (reboot) by <d> on behalf of <client>: OK \| …` | controld 2.0 and 2.1, crmd 1.1.17-1.1.24 (`was not terminated` when it failed) |
/// | `Peer <t> was terminated (reboot) by <d> for <origin>: OK (ref=<id>) by client <client>` | crmd 1.1.10-1.1.16 (crmd/te_utils.c) |
///
/// Pacemaker 1.1's stonith-ng writes the fenced forms of 2.0: `Operation reboot of …`
/// in 1.1.10-1.1.21 and `Operation 'reboot' targeting … on …` in 1.1.22-1.1.24
/// (fencing/remote.c), `Operation 'reboot' [<pid>] (call <n> from <client>) for host
/// '<t>' …` on the node that ran the device (fencing/commands.c).
///
/// Anything after ` | ` is what a syslog copy leaves out; either way is read.
pub fn fence_log_result(message: &str) -> Option<FenceLogResult> {
    let message = message.trim();
    let message = message.split(" | ").next().unwrap_or(message).trim_end();
    if let Some(rest) = message.strip_prefix("Peer ") {
        return peer_terminated(rest);
    }
    let rest = message.strip_prefix("Operation ")?;
    let (action, rest) = match rest.strip_prefix('\'') {
        Some(quoted) => quoted.split_once('\'')?,
        None => rest.split_once(' ')?,
    };
    if !matches!(action, "reboot" | "off" | "on") {
        return None;
    }
    let mut rest = rest.trim_start();
    // The node that ran the device: `[<pid>] … returned …`.
    if let Some(local) = rest.strip_prefix('[') {
        rest = local.split_once(']')?.1.trim_start();
        if rest.contains(" returned") {
            return local_result(action, rest);
        }
    }
    let rest = rest
        .strip_prefix("targeting ")
        .or_else(|| rest.strip_prefix("of "))?;
    let (target, rest) = rest.split_once(' ')?;
    let delegate = rest
        .strip_prefix("by ")
        .or_else(|| rest.strip_prefix("on "))
        .and_then(|r| r.split(' ').next())
        .filter(|d| !d.is_empty() && *d != "<no-one>" && *d != "unknown")
        .map(str::to_string);
    let (_, result) = rest.split_once(" for ")?.1.split_once(": ")?;
    Some(FenceLogResult {
        action: action.to_string(),
        target: node(target)?,
        delegate,
        state: state_of(result.starts_with("OK")),
    })
}

/// `targeting <t> using <device> returned <rc> …` (2.1) or `(call <n> from <client>)
/// for host '<t>' with device '<device>' returned: <rc> (…)` (2.0).
fn local_result(action: &str, rest: &str) -> Option<FenceLogResult> {
    let target = match rest.strip_prefix("targeting ") {
        Some(r) => r.split(' ').next()?,
        None => rest.split_once("for host '")?.1.split('\'').next()?,
    };
    let (_, rc) = rest.rsplit_once(" returned")?;
    let rc = rc.trim_start_matches(':').trim_start();
    Some(FenceLogResult {
        action: action.to_string(),
        target: node(target)?,
        delegate: None,
        state: state_of(rc.split([' ', ',']).next() == Some("0")),
    })
}

/// `<t> was[ not] terminated (<action>) by <d> on behalf of <client>: <result>`, or
/// (crmd 1.1.10-1.1.16) `… by <d> for <origin>: <result> (ref=<id>) by client <client>`.
fn peer_terminated(rest: &str) -> Option<FenceLogResult> {
    let (target, rest) = rest.split_once(' ')?;
    let (succeeded, rest) = match rest.strip_prefix("was not terminated (") {
        Some(r) => (false, r),
        None => (true, rest.strip_prefix("was terminated (")?),
    };
    let (action, rest) = rest.split_once(')')?;
    if !matches!(action, "reboot" | "off" | "on") {
        return None;
    }
    let delegate = rest
        .trim_start()
        .strip_prefix("by ")
        .and_then(|r| r.split(' ').next())
        .filter(|d| !d.is_empty() && *d != "<anyone>" && *d != "a")
        .map(str::to_string);
    let (_, on_behalf) = rest
        .split_once(" on behalf of ")
        .or_else(|| rest.split_once(" for "))?;
    let (_, result) = on_behalf.split_once(": ")?;
    Some(FenceLogResult {
        action: action.to_string(),
        target: node(target)?,
        delegate,
        state: state_of(succeeded && result.starts_with("OK")),
    })
}

fn node(name: &str) -> Option<String> {
    let name = name.trim_matches(['\'', '"']);
    (!name.is_empty() && !name.contains(['(', ')', ':'])).then(|| name.to_string())
}

fn state_of(succeeded: bool) -> FenceState {
    if succeeded {
        FenceState::Successful
    } else {
        FenceState::Failed
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_verbose_history_is_read_with_its_utc_times() {
        let text = "reboot of compute-1 successful: delegate=ctl-2, client=pacemaker-controld.2156, origin=ctl-1, completed='2024-05-21 10:02:40.123456Z'\n\
                    off of compute-2 failed: delegate=ctl-3, client=stonith_admin.4411, origin=ctl-1, completed='2024-05-21 12:02:40.000000 +02:00'\n\
                    2 events found\n";
        let h = parse_fence_history(text);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].action, "reboot");
        assert_eq!(h[0].target, "compute-1");
        assert_eq!(h[0].state, FenceState::Successful);
        assert_eq!(h[0].delegate.as_deref(), Some("ctl-2"));
        assert_eq!(h[0].completed, Some(1_716_285_760_123_456_000));
        assert_eq!(h[0].line, 1);
        assert_eq!(h[1].state, FenceState::Failed);
        // 12:02:40 at +02:00 is 10:02:40 UTC.
        assert_eq!(h[1].completed, Some(1_716_285_760_000_000_000));
    }

    #[test]
    fn crm_mon_items_and_the_friendly_form_are_read() {
        let text = "Fencing History:\n  * reboot of compute-1 pending: client=pacemaker-controld.2156, origin=ctl-1\n\
                    off of compute-2 by ctl-2 for pacemaker-controld.2156@ctl-1 successful at 2024-05-21 10:02:40.123456Z\n";
        let h = parse_fence_history(text);
        assert_eq!(h.len(), 2);
        assert_eq!(h[0].state, FenceState::Pending);
        assert_eq!(h[0].completed, None);
        assert_eq!(h[0].line, 2);
        assert_eq!(h[1].delegate.as_deref(), Some("ctl-2"));
        assert_eq!(h[1].completed, Some(1_716_285_760_123_456_000));
    }

    #[test]
    fn other_lines_are_not_fencing() {
        let text =
            "Cluster Summary:\n  * Stack: corosync\nreboot of the web tier succeeded\noff of\n";
        assert!(parse_fence_history(text).is_empty());
    }

    #[test]
    fn crm_mon_default_sections_are_not_the_whole_history() {
        let failed = "Failed Fencing Actions:\n  * reboot of compute-1 failed: delegate=ctl-2, client=pacemaker-controld.2156, origin=ctl-1, last-failed='2024-05-21 10:02:31Z'\n";
        assert!(!is_complete_history(failed));
        // Pacemaker 2.1.2's crm_mon item has a space before the colon.
        let h = parse_fence_history(&failed.replace("failed:", "failed :"));
        assert_eq!(h[0].state, FenceState::Failed);
        assert_eq!(h[0].completed, Some(1_716_285_751_000_000_000));
        assert!(is_complete_history(
            "Fencing History:\n  * reboot of compute-1 successful: delegate=ctl-2, client=pacemaker-controld.2156, origin=ctl-1, completed='2024-05-21 10:02:31Z'\n"
        ));
    }

    fn result(message: &str) -> Option<(String, String, Option<String>, FenceState)> {
        fence_log_result(message).map(|r| (r.action, r.target, r.delegate, r.state))
    }

    #[test]
    fn every_version_of_the_fencing_result_is_read() {
        let ok = |d: &str| {
            Some((
                "reboot".to_string(),
                "compute-1".to_string(),
                Some(d.to_string()),
                FenceState::Successful,
            ))
        };
        // fenced_remote.c: 2.0.0, 2.0.3, 2.1.2 (pacemaker.log and syslog), 2.1.5.
        assert_eq!(
            result(
                "Operation reboot of compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1.b94a2d6c: OK"
            ),
            ok("ctl-2")
        );
        assert_eq!(
            result(
                "Operation 'reboot' targeting compute-1 on ctl-2 for pacemaker-controld.2156@ctl-1.b94a2d6c: OK"
            ),
            ok("ctl-2")
        );
        assert_eq!(
            result(
                "Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK | id=b94a2d6c"
            ),
            ok("ctl-2")
        );
        assert_eq!(
            result(
                "Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK "
            ),
            ok("ctl-2")
        );
        assert_eq!(
            result(
                "Operation 'reboot' targeting compute-1 by ctl-2 for stonith_admin.4411@ctl-1 (merged): OK (complete) | id=b94a2d6c"
            ),
            ok("ctl-2")
        );
        let failed = result("Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: Error occurred (Timed Out: Fence agent did not complete in time) | id=7d3b1e9a").unwrap();
        assert_eq!(failed.3, FenceState::Failed);
        assert_eq!(
            result("Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: Timer expired | id=7d3b1e9a").unwrap().3,
            FenceState::Failed
        );
        // No delegate known.
        assert_eq!(
            result("Operation 'off' targeting compute-1 by unknown node for pacemaker-controld.2156@ctl-1: No such device | id=1").unwrap().2,
            None
        );
        // controld_fencing.c, 2.0 to 2.1.
        assert_eq!(
            result(
                "Peer compute-1 was terminated (reboot) by ctl-2 on behalf of pacemaker-controld.2156: OK | initiator=ctl-1 ref=b94a2d6c-4c1e"
            ),
            ok("ctl-2")
        );
        assert_eq!(
            result("Peer compute-1 was not terminated (reboot) by ctl-2 on behalf of pacemaker-controld.2156@ctl-1: Timer expired | event=7d3b1e9a").unwrap().3,
            FenceState::Failed
        );
        // fenced_commands.c on the node that ran the device: 2.1.2, 2.1.5, 2.0.5.
        let local = |m: &str| result(m).map(|r| (r.1, r.3));
        let done = Some(("compute-1".to_string(), FenceState::Successful));
        assert_eq!(
            local(
                "Operation 'reboot' [5678] targeting compute-1 using fence_compute1 returned 0 (OK) | call 12 from pacemaker-controld.2156"
            ),
            done
        );
        assert_eq!(
            local(
                "Operation 'reboot' [5678] targeting compute-1 using fence_compute1 returned 0 | call 12 from pacemaker-controld.2156"
            ),
            done
        );
        assert_eq!(
            local(
                "Operation 'reboot' [5678] (call 12 from pacemaker-controld.2156) for host 'compute-1' with device 'fence_compute1' returned: 0 (OK)"
            ),
            done
        );
        assert_eq!(
            local("Operation 'reboot' [5678] targeting compute-1 using fence_compute1 returned 1 (Operation not permitted), retrying with fence_pdu | call 12 from pacemaker-controld.2156").unwrap().1,
            FenceState::Failed
        );
        assert_eq!(
            local(
                "Operation 'reboot' [5678] targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK"
            ),
            done
        );
    }

    /// Pacemaker 1.1's stonith-ng and crmd lines (fencing/remote.c, fencing/commands.c,
    /// crmd/te_utils.c; the prefixes of lib/common/logging.c `set_format_string`), in the
    /// log file (RHEL 7's /var/log/cluster/corosync.log) and in the system log.
    #[test]
    fn pacemaker_1_1_lines_are_read() {
        let read = |line: &str| {
            fence_log_line(line).map(|(t, r)| {
                let crate::syslog::SyslogTime::Yearless(t) = t else {
                    panic!("{line}: not a yearless time");
                };
                (
                    (t.hour, t.minute, t.second),
                    r.action,
                    r.target,
                    r.delegate,
                    r.state,
                )
            })
        };
        let ok = |time: (u8, u8, u8)| {
            Some((
                time,
                "reboot".to_string(),
                "overcloud-novacompute-1".to_string(),
                Some("overcloud-controller-2".to_string()),
                FenceState::Successful,
            ))
        };
        // stonith-ng 1.1.10-1.1.21, the log file and the system log.
        assert_eq!(
            read(
                "Mar 12 04:17:09 [3129] overcloud-controller-0 stonith-ng:   notice: remote_op_done:\tOperation reboot of overcloud-novacompute-1 by overcloud-controller-2 for crmd.3133@overcloud-controller-0.1f0c8e3a: OK"
            ),
            ok((4, 17, 9))
        );
        assert_eq!(
            read(
                "Mar 12 04:17:09 overcloud-controller-0 stonith-ng[3129]:  notice: Operation reboot of overcloud-novacompute-1 by overcloud-controller-2 for crmd.3133@overcloud-controller-0.1f0c8e3a: OK"
            ),
            ok((4, 17, 9))
        );
        // 1.1.12's system log names the function too.
        assert_eq!(
            read(
                "Mar 12 04:17:09 overcloud-controller-0 stonith-ng[3129]:   notice: remote_op_done: Operation reboot of overcloud-novacompute-1 by overcloud-controller-2 for crmd.3133@overcloud-controller-0.1f0c8e3a: OK"
            ),
            ok((4, 17, 9))
        );
        // stonith-ng 1.1.22-1.1.24.
        assert_eq!(
            read(
                "Mar 12 04:17:09 [3129] overcloud-controller-0 stonith-ng:   notice: remote_op_done:\tOperation 'reboot' targeting overcloud-novacompute-1 on overcloud-controller-2 for crmd.3133@overcloud-controller-0.1f0c8e3a: OK"
            ),
            ok((4, 17, 9))
        );
        // crmd 1.1.10-1.1.16 and 1.1.17-1.1.24.
        assert_eq!(
            read(
                "Mar 12 04:17:10 [3133] overcloud-controller-0       crmd:   notice: tengine_stonith_notify:\tPeer overcloud-novacompute-1 was terminated (reboot) by overcloud-controller-2 for overcloud-controller-0: OK (ref=1f0c8e3a-5b2d-4c7e-9a61-3d8f0b2e4c17) by client crmd.3133"
            ),
            ok((4, 17, 10))
        );
        assert_eq!(
            read(
                "Mar 12 04:17:10 overcloud-controller-0 crmd[3133]:  notice: Peer overcloud-novacompute-1 was terminated (reboot) by overcloud-controller-2 on behalf of crmd.3133: OK"
            ),
            ok((4, 17, 10))
        );
        assert_eq!(
            read(
                "Mar 12 04:17:10 [3133] overcloud-controller-0       crmd:   notice: tengine_stonith_notify:\tPeer overcloud-novacompute-1 was terminated (reboot) by overcloud-controller-2 on behalf of crmd.3133: OK | initiator=overcloud-controller-0 ref=1f0c8e3a-5b2d-4c7e-9a61-3d8f0b2e4c17"
            ),
            ok((4, 17, 10))
        );
        let failed = read("Mar 12 04:16:09 overcloud-controller-0 crmd[3133]:  notice: Peer overcloud-novacompute-1 was not terminated (reboot) by overcloud-controller-2 for overcloud-controller-0: Timer expired (ref=0c2d4e6f-8a1b-4c3d-9e5f-7a9b1c3d5e7f) by client crmd.3133").unwrap();
        assert_eq!(failed.4, FenceState::Failed);
        // stonith-ng on the node that ran the device (fencing/commands.c).
        let local = read("Mar 12 04:17:08 overcloud-controller-2 stonith-ng[3201]:  notice: Operation 'reboot' [48211] (call 4 from crmd.3133) for host 'overcloud-novacompute-1' with device 'stonith-fence_ipmilan-525400aa0b1c' returned: 0 (OK)").unwrap();
        assert_eq!(
            (local.2.as_str(), local.4),
            ("overcloud-novacompute-1", FenceState::Successful)
        );
        // 1.1's other lines, and a daemon's name inside another word, are not results.
        for other in [
            "Mar 12 04:17:09 [3133] overcloud-controller-0       crmd:   notice: te_fence_node:\tRequesting fencing (reboot) of node overcloud-novacompute-1 | action=12 timeout=60000",
            "Mar 12 04:17:09 [3133] overcloud-controller-0       crmd:   notice: process_lrm_event:\tOperation nova-compute_stop_0: ok (node=overcloud-controller-0, call=88, rc=0, cib-update=71, confirmed=true)",
            "Mar 12 04:17:09 overcloud-controller-0 mycrmd[1]: Operation reboot of overcloud-novacompute-1 by overcloud-controller-2 for a@b.c: OK",
            "Mar 12 04:17:09 overcloud-controller-0 stonith-ngx[1]: Operation reboot of overcloud-novacompute-1 by overcloud-controller-2 for a@b.c: OK",
        ] {
            assert_eq!(fence_log_line(other), None, "{other}");
        }
    }

    #[test]
    fn every_cut_of_a_fencing_line_is_read_without_panic() {
        let lines = [
            "May 21 10:05:58.406 ctl-1 pacemaker-fenced    [2152] (remote_op_done) \tnotice: Operation 'reboot' targeting nœud-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK (complete) | id=b94a2d6c",
            "May 21 10:01:26 ctl-1 pacemaker-controld[2156]:  notice: Peer compute-1 was not terminated (reboot) by ctl-2 on behalf of pacemaker-controld.2156: Timer expired | initiator=ctl-1 ref=7d3b1e9a",
            "2024-05-21T10:05:58+00:00 ctl-1 pacemaker-fenced[2152]: notice: Operation 'reboot' [5678] (call 12 from pacemaker-controld.2156) for host 'compute-1' with device 'fence_c1' returned: 0 (OK)",
            "Mar 12 04:17:10 [3133] nœud-0       crmd:   notice: tengine_stonith_notify:\tPeer nœud-1 was terminated (reboot) by nœud-2 for nœud-0: OK (ref=1f0c8e3a) by client crmd.3133",
            "Mar 12 04:17:09 nœud-0 stonith-ng[3129]:  notice: Operation reboot of nœud-1 by nœud-2 for crmd.3133@nœud-0.1f0c8e3a: OK",
        ];
        for line in lines {
            for (end, _) in line.char_indices() {
                let cut = &line[..end];
                let _ = fence_log_line(cut);
                let _ = fence_log_result(cut);
                let _ = fence_log_result(&line[end..]);
            }
            assert!(fence_log_line(line).is_some(), "{line}");
        }
    }

    #[test]
    fn fencing_lines_of_both_logs_are_read_and_others_are_not() {
        let syslog = "May 21 10:01:26 ctl-1 pacemaker-fenced[2152]:  error: Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: Timer expired | id=7d3b1e9a";
        let (time, r) = fence_log_line(syslog).unwrap();
        assert!(
            matches!(time, crate::syslog::SyslogTime::Yearless(t) if (t.hour, t.minute, t.second) == (10, 1, 26))
        );
        assert_eq!(r.state, FenceState::Failed);
        let precise = "Sep 18 07:53:42.123 node1 pacemaker-controld  [1234] (tengine_stonith_notify) \tnotice: Peer compute-1 was terminated (reboot) by node2 on behalf of pacemaker-controld.1234: OK | initiator=node1 ref=1";
        let (time, r) = fence_log_line(precise).unwrap();
        assert!(matches!(time, crate::syslog::SyslogTime::Yearless(t) if t.nanos == 123_000_000));
        assert_eq!(r.delegate.as_deref(), Some("node2"));
        let iso = "2024-05-21T10:05:58.123456+00:00 ctl-1 pacemaker-fenced[2152]: notice: Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK";
        assert!(matches!(
            fence_log_line(iso).unwrap().0,
            crate::syslog::SyslogTime::Full(_)
        ));
        // A long host name of multi-byte characters: no cut inside one.
        let wide = format!(
            "May 21 10:01:26 {} pacemaker-fenced[2152]: notice: Operation 'reboot' targeting nœud-1 by ctl-2 for a@b: OK",
            "é".repeat(60)
        );
        assert_eq!(fence_log_line(&wide).unwrap().1.target, "nœud-1");
        for other in [
            "May 21 10:01:26 ctl-1 pacemaker-fenced[2152]:  notice: Operation 'monitor' targeting fence_c1 on ctl-2 for x@y: OK",
            "May 21 10:01:26 ctl-1 pacemaker-schedulerd[2155]:  notice:  * Fence (reboot) compute-1 'peer is no longer part of the cluster'",
            "May 21 10:01:26 ctl-1 nova-compute[1]: Operation 'reboot' targeting compute-1 by ctl-2 for a@b: OK",
            "May 21 10:01:26 ctl-1 pacemaker-fenced[2152]:  notice: Operation 'reboot'",
            "Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK",
            "",
        ] {
            assert_eq!(fence_log_line(other), None, "{other}");
        }
    }
}
