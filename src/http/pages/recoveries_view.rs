//! The analysis page's first table: every Masakari recovery with its outcome (final
//! status, instances moved, failed and pending) and the findings about it, so that a miss
//! shows on the first page. Many ignored notifications with nothing to say are counted,
//! not listed, to keep the page small.

use super::format::{encode_component, readable_time};
use crate::correlate::Analysis;
use crate::correlate::recovery::{Recovery, RecoveryStatus};
use crate::correlate::recovery_outcome::outcomes;
use crate::correlate::timeline::utc;
use crate::detect::Finding;

/// Above this many recoveries, ignored ones no finding names are left out.
const FOLD_IGNORED_ABOVE: usize = 50;
/// At most this many rows.
const MAX_ROWS: usize = 300;

/// The table.
pub(super) struct RecoveriesView {
    pub rows: Vec<RecoveryRow>,
    /// Rows left out, and why (empty when none).
    pub left_out: String,
}

/// One recovery.
pub(super) struct RecoveryRow {
    pub notification: String,
    pub timeline: String,
    pub kind: &'static str,
    pub host: String,
    pub start: String,
    pub end: String,
    pub status: &'static str,
    /// `good`, `bad`, `warn` or `neutral`: the status badge's colour.
    pub status_class: &'static str,
    pub moved: usize,
    pub failed: usize,
    pub pending: usize,
    pub ignored: usize,
    /// Something is left to recover, or the run failed: the row stands out.
    pub attention: bool,
    pub findings: Vec<FindingChip>,
}

/// A finding about a recovery.
pub(super) struct FindingChip {
    pub url: String,
    pub severity: &'static str,
    pub detector: String,
    pub title: String,
}

/// The recoveries of `analysis`, in time order.
pub(super) fn recoveries(id: &str, analysis: &Analysis, findings: &[Finding]) -> RecoveriesView {
    let mut all: Vec<(Option<(i64, i64)>, &Recovery)> = analysis
        .recoveries
        .iter()
        .map(|r| (r.window(analysis), r))
        .collect();
    all.sort_by_key(|(w, r)| (w.map(|w| w.0), r.notification));
    let fold = all.len() > FOLD_IGNORED_ABOVE;
    let mut folded = 0usize;
    let mut rows = Vec::new();
    for (window, recovery) in all {
        let chips = chips(id, recovery, findings);
        if fold && chips.is_empty() && recovery.final_status() == Some(RecoveryStatus::Ignored) {
            folded += 1;
            continue;
        }
        rows.push(row(id, analysis, recovery, window, chips));
    }
    let cut = rows.len().saturating_sub(MAX_ROWS);
    rows.truncate(MAX_ROWS);
    let mut notes = Vec::new();
    if folded > 0 {
        notes.push(format!(
            "{folded} ignored notification(s) no finding names are not listed"
        ));
    }
    if cut > 0 {
        notes.push(format!(
            "{cut} later recoveries are not listed (the timelines have them)"
        ));
    }
    RecoveriesView {
        rows,
        left_out: notes.join("; "),
    }
}

fn row(
    id: &str,
    analysis: &Analysis,
    recovery: &Recovery,
    window: Option<(i64, i64)>,
    findings: Vec<FindingChip>,
) -> RecoveryRow {
    let status = recovery.final_status();
    let done = outcomes(analysis, recovery);
    let host = recovery.failed_host.clone().unwrap_or_else(|| {
        recovery
            .engine_host
            .and_then(|h| analysis.host(h))
            .map(|h| format!("(engine {})", h.hostname))
            .unwrap_or_default()
    });
    let notification = recovery.notification.to_string();
    let failed_run =
        status.is_some_and(RecoveryStatus::is_failure) && status != Some(RecoveryStatus::Ignored);
    RecoveryRow {
        timeline: format!(
            "/analyses/{id}/timeline?notification={}",
            encode_component(&notification)
        ),
        notification,
        kind: recovery.kind.map_or("?", |k| k.as_str()),
        host,
        start: window.map(|w| readable_time(&utc(w.0))).unwrap_or_default(),
        end: window.map(|w| readable_time(&utc(w.1))).unwrap_or_default(),
        status: status.map_or("unknown", RecoveryStatus::as_str),
        status_class: match status {
            Some(RecoveryStatus::Finished) => "good",
            Some(RecoveryStatus::Ignored) => "neutral",
            Some(s) if s.is_failure() => "bad",
            _ => "warn",
        },
        moved: done.moved.len(),
        failed: done.failed.len(),
        pending: done.pending.len(),
        ignored: done.ignored.len(),
        attention: done.left() > 0 || failed_run || !findings.is_empty(),
        findings,
    }
}

/// The findings that name `recovery`'s notification, worst first.
fn chips(id: &str, recovery: &Recovery, findings: &[Finding]) -> Vec<FindingChip> {
    let notification = recovery.notification.to_string();
    let mut about: Vec<&Finding> = findings
        .iter()
        .filter(|f| f.notification_id.as_deref() == Some(notification.as_str()))
        .collect();
    about.sort_by_key(|f| std::cmp::Reverse(f.severity));
    about
        .into_iter()
        .map(|f| FindingChip {
            url: format!("/analyses/{id}/findings/{}", encode_component(&f.id)),
            severity: f.severity.as_str(),
            detector: f.detector.to_string(),
            title: f.title.clone(),
        })
        .collect()
}
