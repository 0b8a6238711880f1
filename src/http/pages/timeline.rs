//! `GET /analyses/{id}/timeline?instance=|request=|notification=|host=`: the story of
//! one subject across hosts and services, repeated polls folded, each row linking to its
//! raw line. Without a subject: a form, and the subjects the findings name.

use crate::model::EventsById;
use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::finding::line_linked;
use super::format::{
    DayBreaks, FileLinks, HostHues, encode_component, level_class, readable_time, short_path,
    shown_time, split_time,
};
use super::guard::Viewer;
use super::render::{Chrome, PageError, ok};
use crate::correlate::Analysis;
use crate::correlate::timeline::{entries, fold, render_svg, select};
use crate::http::api::analyses::row_of;
use crate::http::api::timeline::{TimelineQuery, loaded};
use crate::http::state::AppState;
use crate::jobs::Loaded;

#[derive(Template)]
#[template(path = "timeline.html")]
struct TimelinePage {
    chrome: Chrome,
    analysis_url: String,
    /// The subject's kind (`instance`, ...) and value, as asked.
    kind: String,
    value: String,
    /// Why the query is not a subject.
    error: Option<String>,
    rows: Vec<TimelineRow>,
    /// The swimlane picture of the rows (an SVG built by evacdoc, its text escaped).
    picture: Option<String>,
    /// Whether a subject was asked for (else the suggestions are shown).
    asked: bool,
    /// The time range asked for, as given (the form shows it again).
    from: String,
    to: String,
    /// Rows in the range, over every page; the page shown and how many there are.
    total: usize,
    page: usize,
    pages: usize,
    /// Links to the page before and after (the same subject and range).
    previous: Option<String>,
    next: Option<String>,
    /// The preview of a share link of this timeline (instances, notifications, hosts).
    share_url: Option<String>,
    suggestions: Vec<Suggestion>,
}

struct TimelineRow {
    day: Option<String>,
    time: String,
    /// `lvl-error`, `lvl-warning` or empty.
    level: &'static str,
    host: String,
    hue: String,
    service: String,
    text: String,
    more: String,
    repeated: Option<String>,
    url: Option<String>,
    location: String,
    path: String,
}

/// A subject worth a look.
struct Suggestion {
    kind: &'static str,
    value: String,
    url: String,
}

/// The page's query: the API's (`instance=`, ...), or the form's `kind=` and `value=`.
#[derive(Debug, Default, Deserialize)]
pub struct TimelineForm {
    instance: Option<String>,
    request: Option<String>,
    notification: Option<String>,
    host: Option<String>,
    kind: Option<String>,
    value: Option<String>,
    from: Option<String>,
    to: Option<String>,
    page: Option<usize>,
}

impl TimelineForm {
    /// The subject asked for, as the API takes it.
    fn query(self) -> TimelineQuery {
        let mut query = TimelineQuery {
            instance: self.instance,
            request: self.request,
            notification: self.notification,
            host: self.host,
            format: None,
            from: self.from,
            to: self.to,
            page: self.page,
        };
        if let Some(value) = self.value.filter(|v| !v.trim().is_empty()) {
            match self.kind.as_deref() {
                Some("notification") => query.notification = Some(value),
                Some("request") => query.request = Some(value),
                Some("host") => query.host = Some(value),
                _ => query.instance = Some(value),
            }
        }
        query
    }
}

/// `GET /analyses/{id}/timeline`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(form): Query<TimelineForm>,
) -> Result<Response, PageError> {
    let query = form.query();
    let (from, to) = (
        query.from.clone().unwrap_or_default(),
        query.to.clone().unwrap_or_default(),
    );
    let row = row_of(&state, &id).await?;
    let loaded = loaded(&state, &row.id).await?;
    let (kind, value) = asked(&query);
    let chrome = Chrome::new(
        if value.is_empty() {
            "Timeline".to_string()
        } else {
            format!("Timeline of {kind} {value}")
        },
        &viewer.csrf,
    )
    .within(&row.id, &row.name);
    let asked_for = !value.is_empty();
    let mut paging = (0, 1, 1);
    let (rows, picture, error) = if asked_for {
        match query.subject().and_then(|s| query.window().map(|w| (s, w))) {
            Ok((subject, window)) => {
                let (loaded, id) = (loaded.clone(), row.id.clone());
                let (rows, picture, paged) = tokio::task::spawn_blocking(move || {
                    let analysis = &loaded.analysis;
                    let paged = window.apply(analysis, fold(analysis, &select(analysis, &subject)));
                    let picture = (!paged.rows.is_empty())
                        .then(|| render_svg(analysis, &paged.rows, &[], &line_linked(&id)));
                    let rows = rows(&id, analysis, &paged.rows);
                    (rows, picture, (paged.total, paged.page, paged.pages))
                })
                .await?;
                paging = paged;
                (rows, picture, None)
            }
            Err(e) => (Vec::new(), None, Some(e.message)),
        }
    } else {
        (Vec::new(), None, None)
    };
    let (total, page, pages) = paging;
    let page_url = |n: usize| {
        format!(
            "/analyses/{}/timeline?{kind}={}&from={}&to={}&page={n}",
            row.id,
            encode_component(&value),
            encode_component(&from),
            encode_component(&to)
        )
    };
    let previous = (page > 1).then(|| page_url(page - 1));
    let next = (page < pages).then(|| page_url(page + 1));
    let share_url = (asked_for && kind != "request").then(|| {
        format!(
            "/analyses/{}/share?scope=timeline&{kind}={}",
            row.id,
            encode_component(&value)
        )
    });
    Ok(ok(&TimelinePage {
        chrome,
        analysis_url: format!("/analyses/{}", row.id),
        kind,
        value,
        error,
        rows,
        picture,
        asked: asked_for,
        from,
        to,
        total,
        page,
        pages,
        previous,
        next,
        share_url,
        suggestions: suggestions(&row.id, &loaded),
    }))
}

/// The kind and value of the subject asked for (the first one given).
fn asked(query: &TimelineQuery) -> (String, String) {
    let given = [
        ("instance", &query.instance),
        ("notification", &query.notification),
        ("request", &query.request),
        ("host", &query.host),
    ];
    given
        .iter()
        .find_map(|(kind, v)| {
            v.as_deref()
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(|v| (kind.to_string(), v.to_string()))
        })
        .unwrap_or_else(|| ("instance".to_string(), String::new()))
}

fn rows(
    id: &str,
    analysis: &Analysis,
    folded: &[crate::correlate::timeline::Row],
) -> Vec<TimelineRow> {
    let links = FileLinks::new(id, analysis);
    let mut hues = HostHues::default();
    let mut days = DayBreaks::default();
    // `entries` gives one entry per row whose event exists, in order.
    let levels = folded
        .iter()
        .filter_map(|r| analysis.events.by_id(r.event))
        .map(level_class);
    entries(analysis, folded)
        .into_iter()
        .zip(levels)
        .map(|(e, level)| {
            let (date, time) = split_time(&e.timestamp);
            let time = shown_time(time, e.second_precision);
            TimelineRow {
                day: days.at(&date),
                time,
                level,
                hue: hues.of(e.host),
                host: e.host.to_string(),
                service: e.service.to_string(),
                text: e.text.to_string(),
                more: e.more.join("\n"),
                repeated: e.repeated.as_ref().map(|r| {
                    format!(
                        "repeated {} times until {} (line {})",
                        r.count,
                        readable_time(&r.until),
                        r.last_line
                    )
                }),
                url: links.line(e.path, u64::from(e.line)),
                location: format!("{}:{}", short_path(e.path), e.line),
                path: e.path.to_string(),
            }
        })
        .collect()
}

/// The instances, notifications and failed hosts the findings name, then every host.
fn suggestions(id: &str, loaded: &Loaded) -> Vec<Suggestion> {
    let mut out: Vec<Suggestion> = Vec::new();
    let mut add = |kind: &'static str, value: &str| {
        if !out.iter().any(|s| s.kind == kind && s.value == value) {
            out.push(Suggestion {
                kind,
                value: value.to_string(),
                url: format!("/analyses/{id}/timeline?{kind}={}", encode_component(value)),
            });
        }
    };
    for f in &loaded.findings {
        if let Some(n) = &f.notification_id {
            add("notification", n);
        }
        for i in &f.instance_uuids {
            add("instance", i);
        }
    }
    for h in &loaded.analysis.hosts {
        add("host", &h.hostname);
    }
    out
}
