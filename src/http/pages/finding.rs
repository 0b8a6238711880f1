//! `GET /analyses/{id}/findings/{finding}`: one finding as an operator reads it: what
//! happened, the evidence lines interleaved across hosts (each linking to its place in
//! the raw file), the configuration to change, the actions to take, the known bugs.

use askama::Template;
use axum::extract::{Path, State};
use axum::response::Response;

use super::bug_panel::BugPanel;
use super::format::{
    DayBreaks, FileLinks, HostHues, bug_url, encode_component, prose_html, readable_time,
    short_path, shown_time, split_time, text_level_class,
};
use super::guard::Viewer;
use super::line_markdown::{line_markdown, when_shown};
use super::render::{Chrome, PageError, ok};
use crate::correlate::Analysis;
use crate::correlate::recovery_outcome::fully_recovered;
use crate::correlate::timeline::SvgOptions;
use crate::detect::finding::{Action, KnownBugRef};
use crate::detect::{Finding, finding_picture, finding_picture_events};
use crate::http::api::analyses::row_of;
use crate::http::api::timeline::loaded;
use crate::http::error::ApiError;
use crate::http::state::AppState;
use crate::model::Uuid;
use crate::recovery::remediation::remediation_for;

#[derive(Template)]
#[template(path = "finding.html")]
struct FindingPage {
    chrome: Chrome,
    analysis_url: String,
    /// The preview of a share link of this finding.
    share_url: String,
    severity: &'static str,
    title: String,
    /// HTML: escaped, `quoted` words as code.
    summary: String,
    detector: String,
    failed_host: Option<Link>,
    window: String,
    instances: Vec<Link>,
    notification: Option<Link>,
    requests: Vec<Link>,
    /// Paragraphs, HTML as `summary`.
    explanation: Vec<String>,
    /// The timeline picture (a self-contained SVG built by `detect::finding_picture`,
    /// its text escaped there), when it has anything to show.
    picture: Option<String>,
    evidence: Vec<EvidenceRow>,
    changes: Vec<ChangeRow>,
    /// HTML as `summary`.
    remedy: String,
    actions: Vec<ActionRow>,
    bugs: Vec<BugRow>,
    /// The recovery evacdoc can run for it, when there is one.
    remediation: Option<RemedyView>,
    /// The "Post to the bug tracker" panel.
    bug: BugPanel,
    /// Why no Remediate is offered although the finding has a recovery: its notification
    /// ended `finished` with every move done.
    settled: String,
}

/// The remediation panel: what it would do, where to ask for it, on which clouds.
struct RemedyView {
    /// The API route that plans and applies it.
    url: String,
    finding: String,
    summary: String,
    /// The clouds the service may act on (none: the panel says how to configure one).
    clouds: Vec<String>,
}

/// A text and where it leads.
struct Link {
    text: String,
    url: String,
}

struct EvidenceRow {
    /// The date, where it changes from the row before.
    day: Option<String>,
    time: String,
    /// What a line without a time is: `config` or `cli` (a command's captured output).
    untimed: &'static str,
    /// `lvl-error`, `lvl-warning` or empty.
    level: &'static str,
    host: String,
    hue: String,
    location: String,
    path: String,
    url: Option<String>,
    text: String,
    /// The line as Markdown with its host, time and place, for its Copy control.
    markdown: String,
}

struct ChangeRow {
    file: String,
    short_file: String,
    name: String,
    current: String,
    recommended: String,
    /// HTML as `summary`.
    note: String,
}

struct ActionRow {
    action: &'static str,
    detail: String,
}

struct BugRow {
    /// `launchpad #1234`, or the tracker alone when the bug has no id.
    label: String,
    title: String,
    url: Option<String>,
    fixed_in: String,
    fix_status: String,
    /// `good`, `bad` or `unknown`, for its colour.
    status_class: &'static str,
}

/// `GET /analyses/{id}/findings/{finding}`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((id, finding)): Path<(String, String)>,
) -> Result<Response, PageError> {
    let row = row_of(&state, &id).await?;
    let loaded = loaded(&state, &row.id).await?;
    let found = loaded
        .findings
        .iter()
        .find(|f| f.id == finding)
        .ok_or_else(|| ApiError::not_found("finding"))?;
    let chrome = Chrome::new(found.title.clone(), &viewer.csrf).within(&row.id, &row.name);
    let mut page = view(chrome, &row.id, &loaded.analysis, found);
    let remedy = remediation_for(found).ok();
    if remedy.is_some()
        && let Some(n) = settled_notification(&loaded.analysis, found)
    {
        page.settled = format!(
            "Nothing is left to recover: notification {n} ended finished with every move done."
        );
    }
    page.remediation = remedy
        .filter(|_| page.settled.is_empty())
        .map(|r| RemedyView {
            url: format!(
                "/api/v1/analyses/{}/findings/{}/remediation",
                row.id,
                encode_component(&found.id)
            ),
            finding: found.id.to_string(),
            summary: r.summary,
            clouds: state.remediations.config.clouds.clone(),
        });
    Ok(ok(&page))
}

fn view(chrome: Chrome, id: &str, analysis: &Analysis, f: &Finding) -> FindingPage {
    let timeline = |key: &str, value: &str| Link {
        text: value.to_string(),
        url: format!("/analyses/{id}/timeline?{key}={}", encode_component(value)),
    };
    FindingPage {
        chrome,
        analysis_url: format!("/analyses/{id}"),
        share_url: format!(
            "/analyses/{id}/share?scope=finding&finding={}",
            encode_component(&f.id)
        ),
        severity: f.severity.as_str(),
        title: f.title.clone(),
        summary: prose_html(&f.summary),
        detector: f.detector.to_string(),
        failed_host: f.failed_host.as_deref().map(|h| timeline("host", h)),
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
        instances: f
            .instance_uuids
            .iter()
            .map(|i| timeline("instance", i))
            .collect(),
        notification: f
            .notification_id
            .as_deref()
            .map(|n| timeline("notification", n)),
        requests: f
            .request_ids
            .iter()
            .map(|r| timeline("request", r))
            .collect(),
        explanation: paragraphs(&f.explanation),
        // A finding of configuration alone has no line to draw: no empty picture.
        picture: (!finding_picture_events(analysis, f).is_empty())
            .then(|| finding_picture(analysis, f, &line_linked(id))),
        evidence: evidence(id, analysis, f),
        changes: f
            .remediation
            .config_changes
            .iter()
            .map(|c| ChangeRow {
                file: c.file.clone(),
                short_file: short_path(&c.file),
                name: format!("[{}] {}", c.section, c.option),
                current: c
                    .current
                    .clone()
                    .unwrap_or_else(|| "unset (default)".to_string()),
                recommended: c.recommended.clone(),
                note: prose_html(&c.note),
            })
            .collect(),
        remedy: prose_html(&f.remediation.summary),
        actions: f.remediation.actions.iter().map(action_row).collect(),
        bugs: f.known_bugs.iter().map(bug_row).collect(),
        remediation: None,
        settled: String::new(),
        bug: BugPanel::finding(id, &f.id),
    }
}

/// The finding's notification, when it ended `finished` with no instance left to move.
fn settled_notification(analysis: &Analysis, f: &Finding) -> Option<String> {
    let id = f.notification_id.as_deref().and_then(Uuid::parse)?;
    let recovery = analysis.recoveries.iter().find(|r| r.notification == id)?;
    fully_recovered(analysis, recovery).then(|| id.to_string())
}

/// Picture options whose dots link to their raw lines in analysis `id`.
pub(super) fn line_linked(id: &str) -> SvgOptions {
    SvgOptions {
        line_links: Some(format!("/analyses/{id}/files/")),
        ..SvgOptions::default()
    }
}

/// Text split at blank lines.
fn paragraphs(text: &str) -> Vec<String> {
    text.split("\n\n")
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(prose_html)
        .collect()
}

fn evidence(id: &str, analysis: &Analysis, f: &Finding) -> Vec<EvidenceRow> {
    let links = FileLinks::new(id, analysis);
    let mut hues = HostHues::default();
    let mut days = DayBreaks::default();
    // Access logs stamp their lines to the second.
    let to_the_second: std::collections::HashSet<&str> = analysis
        .files
        .iter()
        .filter(|file| file.format == "access")
        .map(|file| file.path.as_str())
        .collect();
    f.evidence
        .iter()
        .map(|e| {
            let (date, time) = e.timestamp.as_deref().map(split_time).unwrap_or_default();
            let time = shown_time(time, to_the_second.contains(e.path.as_str()));
            let location = format!("{}:{}", short_path(&e.path), e.line);
            let when = when_shown(&date, &time);
            EvidenceRow {
                markdown: line_markdown(&e.host, &when, &location, &e.text),
                day: days.at(&date),
                time,
                untimed: if analysis.captures.iter().any(|c| c.file == e.path) {
                    "cli"
                } else {
                    "config"
                },
                level: text_level_class(&e.text),
                hue: hues.of(&e.host),
                host: e.host.clone(),
                location,
                path: e.path.clone(),
                url: links.line(&e.path, e.line as u64),
                text: e.text.clone(),
            }
        })
        .collect()
}

fn action_row(action: &Action) -> ActionRow {
    match action {
        Action::Evacuate {
            instance,
            from_host,
        } => ActionRow {
            action: "evacuate",
            detail: format!("instance {instance} from {from_host}"),
        },
        Action::Unlock { instance } => ActionRow {
            action: "unlock",
            detail: format!("instance {instance}"),
        },
        Action::ForceDetachVolume {
            volume,
            attachment,
            host,
        } => ActionRow {
            action: "force-detach-volume",
            detail: match attachment {
                Some(a) => format!("volume {volume} (attachment {a}) from {host}"),
                None => format!("volume {volume} from {host}"),
            },
        },
        Action::ForceDownService { host } => ActionRow {
            action: "force-down-service",
            detail: format!("nova-compute on {host} (only once the host is fenced)"),
        },
    }
}

fn bug_row(bug: &KnownBugRef) -> BugRow {
    let status = bug.fix_status.to_ascii_lowercase();
    let status_class = if status.starts_with("installed") {
        "good"
    } else if status.starts_with("not installed") {
        "bad"
    } else {
        "unknown"
    };
    BugRow {
        label: if bug.id.trim().is_empty() {
            bug.tracker.clone()
        } else {
            format!("{} #{}", bug.tracker, bug.id)
        },
        title: bug.title.clone(),
        url: bug_url(bug),
        fixed_in: bug.fixed_in.join(", "),
        fix_status: bug.fix_status.clone(),
        status_class,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn explanations_split_into_paragraphs() {
        assert_eq!(
            paragraphs("One.\n\nTwo\nlines.\n\n\n"),
            vec!["One.".to_string(), "Two\nlines.".to_string()]
        );
        assert_eq!(
            paragraphs("Set `a` to <b>."),
            vec!["Set <code>a</code> to &lt;b&gt;.".to_string()]
        );
    }

    #[test]
    fn bug_links_are_web_links_only() {
        let bug = |url: &str, status: &str| KnownBugRef {
            tracker: "launchpad".into(),
            id: "1".into(),
            title: "t".into(),
            url: url.into(),
            fixed_in: vec!["a".into(), "b".into()],
            fix_status: status.into(),
        };
        let good = bug_row(&bug("https://bugs.launchpad.net/bugs/1", "installed (x)"));
        assert_eq!(
            good.url.as_deref(),
            Some("https://bugs.launchpad.net/bugs/1")
        );
        assert_eq!(
            (good.status_class, good.fixed_in.as_str()),
            ("good", "a, b")
        );
        let bad = bug_row(&bug("javascript:alert(1)", "not installed"));
        assert_eq!((bad.url, bad.status_class), (None, "bad"));
        // A tracker's project page is no bug: named, not linked.
        let unnumbered = bug_row(&KnownBugRef {
            id: String::new(),
            ..bug("https://launchpad.net/masakari", "unknown")
        });
        assert_eq!(
            (unnumbered.url, unnumbered.label.as_str()),
            (None, "launchpad")
        );
    }
}
