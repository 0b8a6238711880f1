//! What a share link shows, built from the redacted view only (never the analysis
//! itself): the finding with its picture, evidence, explanation and fix; the timeline of
//! a subject with its picture and interleaved lines; or an analysis's findings. The same
//! content serves the public page, its JSON and the signed-in preview.

use crate::correlate::timeline::{Subject, SvgOptions, entries, fold, render_svg};
use crate::detect::{Finding, finding_picture};
use crate::share::{RedactedView, Scope, TimelineScope};

use super::format::{DayBreaks, HostHues, prose_html, readable_time, short_path, split_time};
use super::line_markdown::{line_markdown, when_shown};

/// The page's content. `base` is where the link's own routes are (`/s/<token>`), or
/// `None` in a preview (nothing to link to yet).
pub(crate) struct ShareContent {
    /// `finding`, `timeline` or `analysis` (the page's class).
    pub kind: &'static str,
    pub title: String,
    pub finding: Option<FindingBlock>,
    pub timeline: Option<TimelineBlock>,
    pub findings: Vec<FindingItem>,
    pub bundle_url: Option<String>,
    pub is_analysis: bool,
}

pub(crate) struct FindingBlock {
    pub severity: &'static str,
    pub title: String,
    /// HTML: escaped, `quoted` words as code.
    pub summary: String,
    pub detector: String,
    pub failed_host: Option<String>,
    pub window: String,
    pub instances: Vec<String>,
    pub notification: Option<String>,
    /// Paragraphs, HTML as `summary`.
    pub explanation: Vec<String>,
    /// A self-contained SVG (its text escaped where it is built).
    pub picture: Option<String>,
    pub evidence: Vec<LineRow>,
    /// HTML as `summary`.
    pub remedy: String,
    pub changes: Vec<ChangeRow>,
    pub bugs: Vec<BugRow>,
}

pub(crate) struct TimelineBlock {
    pub subject: String,
    pub value: String,
    pub range: String,
    pub picture: Option<String>,
    pub rows: Vec<LineRow>,
}

pub(crate) struct LineRow {
    pub day: Option<String>,
    pub time: String,
    pub host: String,
    pub hue: String,
    pub location: String,
    pub path: String,
    pub text: String,
    pub more: String,
    /// The line as Markdown (redacted as shown), for its Copy control.
    pub markdown: String,
}

pub(crate) struct ChangeRow {
    pub name: String,
    pub file: String,
    pub current: String,
    pub recommended: String,
    /// HTML as `summary`.
    pub note: String,
}

pub(crate) struct BugRow {
    pub label: String,
    pub title: String,
    pub url: Option<String>,
    pub fix_status: String,
}

pub(crate) struct FindingItem {
    pub severity: &'static str,
    pub title: String,
    /// HTML as `summary`.
    pub summary: String,
    pub url: Option<String>,
}

/// The content of `scope`; `None` when the scope names nothing in the view (a finding
/// gone, a timeline scope that is not one).
pub(crate) fn content(
    view: &RedactedView,
    scope: &Scope,
    base: Option<&str>,
) -> Option<ShareContent> {
    let empty = |kind, title| ShareContent {
        kind,
        title,
        finding: None,
        timeline: None,
        findings: Vec::new(),
        bundle_url: None,
        is_analysis: false,
    };
    match scope {
        Scope::Finding { finding } => {
            let (_, f) = view.finding(finding)?;
            let mut c = empty("finding", f.title.clone());
            c.finding = Some(finding_block(view, f));
            Some(c)
        }
        Scope::Timeline(t) => {
            let block = timeline_block(view, t)?;
            let mut c = empty(
                "timeline",
                format!("Timeline of {} {}", block.subject, block.value),
            );
            c.timeline = Some(block);
            Some(c)
        }
        Scope::Analysis => {
            let mut c = empty("analysis", "Findings of a shared analysis".to_string());
            c.is_analysis = true;
            c.findings = view
                .findings
                .iter()
                .enumerate()
                .map(|(n, (_, f))| FindingItem {
                    severity: f.severity.as_str(),
                    title: f.title.clone(),
                    summary: prose_html(&f.summary),
                    url: base.map(|b| format!("{b}/findings/{n}")),
                })
                .collect();
            c.bundle_url = base.map(|b| format!("{b}/bundle.tar.gz"));
            Some(c)
        }
    }
}

/// Finding `n` of an analysis share, as its own page.
pub(crate) fn nth_finding(view: &RedactedView, n: usize) -> Option<ShareContent> {
    let (_, f) = view.findings.get(n)?;
    Some(ShareContent {
        kind: "finding",
        title: f.title.clone(),
        finding: Some(finding_block(view, f)),
        timeline: None,
        findings: Vec::new(),
        bundle_url: None,
        is_analysis: false,
    })
}

/// The JSON of `scope`: the redacted findings (as the analysis/v1 document writes
/// them) or the timeline's rows.
pub(crate) fn json(
    view: &RedactedView,
    scope: &Scope,
    base: Option<&str>,
) -> Option<serde_json::Value> {
    match scope {
        Scope::Finding { finding } => {
            let (_, f) = view.finding(finding)?;
            Some(serde_json::json!({ "scope": "finding", "finding": f }))
        }
        Scope::Timeline(t) => {
            let subject = redacted_subject(view, t)?;
            let analysis = &view.analysis;
            let rows = fold(analysis, &t.events(analysis, &subject));
            Some(serde_json::json!({
                "scope": "timeline",
                "subject": subject_json(&subject),
                "from": t.from,
                "to": t.to,
                "rows": entries(analysis, &rows),
            }))
        }
        Scope::Analysis => {
            let findings: Vec<&Finding> = view.findings.iter().map(|(_, f)| f).collect();
            Some(serde_json::json!({
                "scope": "analysis",
                "findings": findings,
                "bundle": base.map(|b| format!("{b}/bundle.tar.gz")),
            }))
        }
    }
}

/// The picture of `scope` (a finding's or a timeline's), when it has one.
pub(crate) fn picture(view: &RedactedView, scope: &Scope) -> Option<String> {
    match scope {
        Scope::Finding { finding } => {
            let (_, f) = view.finding(finding)?;
            Some(finding_svg(view, f))
        }
        Scope::Timeline(t) => {
            let subject = redacted_subject(view, t)?;
            let analysis = &view.analysis;
            let rows = fold(analysis, &t.events(analysis, &subject));
            Some(render_svg(analysis, &rows, &[], &SvgOptions::default()))
        }
        Scope::Analysis => None,
    }
}

/// The picture of finding `n` (analysis shares).
pub(crate) fn nth_picture(view: &RedactedView, n: usize) -> Option<String> {
    view.findings.get(n).map(|(_, f)| finding_svg(view, f))
}

fn finding_svg(view: &RedactedView, f: &Finding) -> String {
    let options = SvgOptions {
        title: Some(f.title.clone()),
        ..SvgOptions::default()
    };
    finding_picture(&view.analysis, f, &options)
}

/// The scope's subject with its host (a real name) redacted to the view's pseudonym.
fn redacted_subject(view: &RedactedView, t: &TimelineScope) -> Option<Subject> {
    match t.subject().ok()? {
        Subject::Host(h) => Some(Subject::Host(view.redact(&h))),
        other => Some(other),
    }
}

fn subject_json(subject: &Subject) -> serde_json::Value {
    let (kind, value) = subject_words(subject);
    serde_json::json!({ "kind": kind, "value": value })
}

fn subject_words(subject: &Subject) -> (&'static str, String) {
    match subject {
        Subject::Instance(u) => ("instance", u.to_string()),
        Subject::Notification(u) => ("notification", u.to_string()),
        Subject::Request(u) => ("request", u.request_id()),
        Subject::Host(h) => ("host", h.clone()),
    }
}

fn timeline_block(view: &RedactedView, t: &TimelineScope) -> Option<TimelineBlock> {
    let subject = redacted_subject(view, t)?;
    let analysis = &view.analysis;
    let folded = fold(analysis, &t.events(analysis, &subject));
    let picture =
        (!folded.is_empty()).then(|| render_svg(analysis, &folded, &[], &SvgOptions::default()));
    let mut hues = HostHues::default();
    let mut days = DayBreaks::default();
    let rows = entries(analysis, &folded)
        .into_iter()
        .map(|e| {
            let (date, time) = split_time(&e.timestamp);
            let markdown = line_markdown(
                &format!("{} {}", e.host, e.service),
                &when_shown(&date, &time),
                &format!("{}:{}", short_path(e.path), e.line),
                &e.text,
            );
            LineRow {
                day: days.at(&date),
                time,
                hue: hues.of(e.host),
                host: format!("{} {}", e.host, e.service),
                location: format!("{}:{}", short_path(e.path), e.line),
                path: e.path.to_string(),
                text: e.text.to_string(),
                more: e.more.join("\n"),
                markdown,
            }
        })
        .collect();
    let range = match (&t.from, &t.to) {
        (None, None) => String::new(),
        (from, to) => format!(
            "{} – {}",
            from.as_deref()
                .map(readable_time)
                .unwrap_or_else(|| "start".into()),
            to.as_deref()
                .map(readable_time)
                .unwrap_or_else(|| "end".into())
        ),
    };
    let (kind, value) = subject_words(&subject);
    Some(TimelineBlock {
        subject: kind.to_string(),
        value,
        range,
        picture,
        rows,
    })
}

fn finding_block(view: &RedactedView, f: &Finding) -> FindingBlock {
    let mut hues = HostHues::default();
    let mut days = DayBreaks::default();
    FindingBlock {
        severity: f.severity.as_str(),
        title: f.title.clone(),
        summary: prose_html(&f.summary),
        detector: f.detector.to_string(),
        failed_host: f.failed_host.clone(),
        window: f
            .window
            .as_ref()
            .map(|w| {
                format!(
                    "{} – {} UTC",
                    readable_time(&w.start),
                    readable_time(&w.end)
                )
            })
            .unwrap_or_default(),
        instances: f.instance_uuids.clone(),
        notification: f.notification_id.clone(),
        explanation: f
            .explanation
            .split("\n\n")
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(prose_html)
            .collect(),
        picture: Some(finding_svg(view, f)).filter(|svg| !svg.trim().is_empty()),
        evidence: f
            .evidence
            .iter()
            .map(|e| {
                let (date, time) = e.timestamp.as_deref().map(split_time).unwrap_or_default();
                let markdown = line_markdown(
                    &e.host,
                    &when_shown(&date, &time),
                    &format!("{}:{}", short_path(&e.path), e.line),
                    &e.text,
                );
                LineRow {
                    day: days.at(&date),
                    time,
                    hue: hues.of(&e.host),
                    host: e.host.clone(),
                    location: format!("{}:{}", short_path(&e.path), e.line),
                    path: e.path.clone(),
                    text: e.text.clone(),
                    more: String::new(),
                    markdown,
                }
            })
            .collect(),
        remedy: prose_html(&f.remediation.summary),
        changes: f
            .remediation
            .config_changes
            .iter()
            .map(|c| ChangeRow {
                name: format!("[{}] {}", c.section, c.option),
                file: short_path(&c.file),
                current: c
                    .current
                    .clone()
                    .unwrap_or_else(|| "unset (default)".to_string()),
                recommended: c.recommended.clone(),
                note: prose_html(&c.note),
            })
            .collect(),
        bugs: f
            .known_bugs
            .iter()
            .map(|b| BugRow {
                label: if b.id.trim().is_empty() {
                    b.tracker.clone()
                } else {
                    format!("{} #{}", b.tracker, b.id)
                },
                title: b.title.clone(),
                url: super::format::bug_url(b),
                fix_status: b.fix_status.clone(),
            })
            .collect(),
    }
}

/// The public page of a link.
#[derive(askama::Template)]
#[template(path = "share.html")]
struct SharePage {
    title: String,
    kind: &'static str,
    assets: &'static str,
    content: ShareContent,
}

/// The public page of `content`, with the page headers (the public ones are set over
/// them by the share routes' layer).
pub(crate) fn render_public(content: ShareContent) -> axum::response::Response {
    super::render::ok(&SharePage {
        title: content.title.clone(),
        kind: content.kind,
        assets: super::assets::version(),
        content,
    })
}
