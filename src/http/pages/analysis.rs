//! `GET /analyses/{id}`: while it runs, its status and progress (the page refreshes
//! itself); when it failed, why; when done, the recoveries and their outcome first, the
//! environment, the findings by severity (or, honestly, that nothing was readable), the
//! hosts with their zones and clock skew, the configuration values that matter, and the
//! files read, skipped and missing.

use std::cmp::Reverse;

use askama::Template;
use axum::extract::{Path, State};
use axum::response::Response;

use super::bug_panel::BugPanel;
use super::config_view::{ConfigRow, config_rows};
use super::environment_view::{EnvironmentView, environment};
use super::format::{
    FileLinks, count, encode_component, human_bytes, prose_html, readable_time, short_path,
};
use super::guard::Viewer;
use super::read_summary::ReadSummary;
use super::recoveries_view::{RecoveriesView, recoveries};
use super::render::{Chrome, PageError, ok};
use super::rows::RowView;
use crate::correlate::Analysis;
use crate::correlate::skew::SkewEstimate;
use crate::detect::Finding;
use crate::http::api::analyses::row_of;
use crate::http::api::timeline::loaded;
use crate::http::state::AppState;
use crate::model::inventory::ZoneSource;
use crate::store::JobStatus;

#[derive(Template)]
#[template(path = "analysis.html")]
struct AnalysisPage {
    chrome: Chrome,
    row: RowView,
    done: Option<Done>,
    bug: BugPanel,
}

/// What a finished analysis shows.
struct Done {
    read: ReadSummary,
    recoveries: RecoveriesView,
    environment: EnvironmentView,
    groups: Vec<SeverityGroup>,
    hosts: Vec<HostView>,
    skew: Vec<SkewView>,
    config: Vec<ConfigRow>,
    files: Vec<FileView>,
    skipped: Vec<(String, String)>,
    missing: Vec<(String, String)>,
}

/// The findings of one severity.
struct SeverityGroup {
    severity: &'static str,
    findings: Vec<FindingLink>,
}

/// A finding in a list.
pub(super) struct FindingLink {
    pub url: String,
    pub title: String,
    /// HTML: escaped, `quoted` words as code.
    pub summary: String,
    pub failed_host: String,
    pub window: String,
}

struct HostView {
    name: String,
    aliases: String,
    layout: String,
    services: String,
    zone: String,
    zone_source: String,
    timeline: String,
}

struct SkewView {
    host: String,
    against: String,
    offset: String,
    bounds: String,
    pairs: String,
    applied: bool,
    note: String,
}

struct FileView {
    path: String,
    url: String,
    host: String,
    service: String,
    format: String,
    records: String,
    unparsed: String,
    size: String,
    note: String,
}

/// `GET /analyses/{id}`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
) -> Result<Response, PageError> {
    let row = row_of(&state, &id).await?;
    let chrome = Chrome::new(row.name.clone(), &viewer.csrf).within(&row.id, &row.name);
    let done = if row.status == JobStatus::Done {
        let loaded = loaded(&state, &row.id).await?;
        Some(done(&row.id, &loaded.analysis, &loaded.findings))
    } else {
        None
    };
    Ok(ok(&AnalysisPage {
        chrome,
        bug: BugPanel::analysis(&row.id),
        row: RowView::of(&row),
        done,
    }))
}

fn done(id: &str, analysis: &Analysis, findings: &[Finding]) -> Done {
    let links = FileLinks::new(id, analysis);
    let host_name = |h: u32| {
        analysis
            .host(h)
            .map(|h| h.hostname.clone())
            .unwrap_or_else(|| "?".to_string())
    };
    Done {
        read: ReadSummary::of_analysis(analysis),
        recoveries: recoveries(id, analysis, findings),
        environment: environment(analysis),
        groups: groups(id, findings),
        hosts: analysis
            .hosts
            .iter()
            .map(|h| HostView {
                name: h.hostname.clone(),
                aliases: h.aliases.join(", "),
                layout: h.layout.as_str().to_string(),
                services: h.services.join(", "),
                zone: h.zone.clone(),
                zone_source: zone_source(&h.zone_source),
                timeline: format!(
                    "/analyses/{id}/timeline?host={}",
                    encode_component(&h.hostname)
                ),
            })
            .collect(),
        skew: analysis
            .skew
            .iter()
            .map(|s| skew_view(s, &host_name))
            .collect(),
        config: config_rows(analysis, findings, &links),
        files: analysis
            .files
            .iter()
            .enumerate()
            .map(|(n, f)| FileView {
                path: f.path.clone(),
                url: format!("/analyses/{id}/files/{n}"),
                host: host_name(f.host),
                service: f.service.name().to_string(),
                format: f.format.clone(),
                records: count(f.records),
                unparsed: count(f.unparsed),
                size: human_bytes(f.bytes),
                note: f.incomplete.clone().unwrap_or_default(),
            })
            .collect(),
        skipped: analysis
            .skipped
            .iter()
            .map(|s| (s.path.clone(), s.reason.clone()))
            .collect(),
        missing: analysis
            .missing
            .iter()
            .map(|m| (m.path.clone(), m.reason.clone()))
            .collect(),
    }
}

/// The findings grouped by severity, worst first.
fn groups(id: &str, findings: &[Finding]) -> Vec<SeverityGroup> {
    let mut sorted: Vec<&Finding> = findings.iter().collect();
    sorted.sort_by_key(|f| Reverse(f.severity));
    let mut groups: Vec<SeverityGroup> = Vec::new();
    for f in sorted {
        let link = finding_link(id, f);
        match groups.last_mut() {
            Some(g) if g.severity == f.severity.as_str() => g.findings.push(link),
            _ => groups.push(SeverityGroup {
                severity: f.severity.as_str(),
                findings: vec![link],
            }),
        }
    }
    groups
}

/// A finding as a line of a list.
pub(super) fn finding_link(id: &str, f: &Finding) -> FindingLink {
    FindingLink {
        url: format!("/analyses/{id}/findings/{}", encode_component(&f.id)),
        title: f.title.clone(),
        summary: prose_html(&f.summary),
        failed_host: f.failed_host.clone().unwrap_or_default(),
        window: f
            .window
            .as_ref()
            .map(|w| format!("{} – {}", readable_time(&w.start), readable_time(&w.end)))
            .unwrap_or_default(),
    }
}

/// How a zone was decided, in words.
fn zone_source(source: &ZoneSource) -> String {
    match source {
        ZoneSource::Override => "given with --tz".to_string(),
        ZoneSource::Bundle(path) => format!("the bundle: {}", short_path(path)),
        ZoneSource::Inferred(how) => format!("inferred from its lines: {how}"),
        ZoneSource::Default => "nothing said: UTC assumed".to_string(),
    }
}

/// A signed number of milliseconds in seconds: `+1.250 s`.
fn seconds(ms: i64) -> String {
    let sign = if ms < 0 { '−' } else { '+' };
    let abs = ms.unsigned_abs();
    format!("{sign}{}.{:03} s", abs / 1000, abs % 1000)
}

fn skew_view(s: &SkewEstimate, host_name: &impl Fn(u32) -> String) -> SkewView {
    let bound = |v: Option<i64>| v.map_or("unbounded".to_string(), seconds);
    let against = match s.via {
        Some(via) => format!("{} (via {})", host_name(s.reference), host_name(via)),
        None => host_name(s.reference),
    };
    let kinds: Vec<String> = s
        .kinds
        .iter()
        .map(|k| format!("{} {}", k.pairs, k.kind.as_str()))
        .collect();
    SkewView {
        host: host_name(s.host),
        against,
        offset: s.offset_ms.map_or("not pinned".to_string(), seconds),
        bounds: format!("{} … {}", bound(s.low_ms), bound(s.high_ms)),
        pairs: if kinds.is_empty() {
            format!("{} of {}", s.pairs, s.total_pairs)
        } else {
            format!("{} of {} ({})", s.pairs, s.total_pairs, kinds.join(", "))
        },
        applied: s.applied,
        note: s.note.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_read_as_signed_seconds() {
        assert_eq!(seconds(1250), "+1.250 s");
        assert_eq!(seconds(-42), "−0.042 s");
        assert_eq!(seconds(0), "+0.000 s");
    }
}
