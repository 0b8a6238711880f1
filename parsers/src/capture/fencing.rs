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
}
