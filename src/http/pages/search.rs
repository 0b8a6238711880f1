//! `GET /analyses/{id}/search?q=&from=&to=&host=&service=&level=&page=`: search over
//! every line, results in time order with the matched words marked, paged, each linking
//! to its raw line and to every line of every host within 30 s of it; the hits counted
//! per host, service and level (links that filter) and over time (bars that zoom). A
//! query the index cannot read shows why.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::format::{
    DayBreaks, FileLinks, HostHues, count, marked_html, readable_time, short_path, split_time,
};
use super::guard::Viewer;
use super::line_markdown::{line_markdown, when_shown};
use super::render::{Chrome, PageError, ok, page as page_with};
use super::search_parts::{
    FacetGroup, SearchState, around, facet_groups, histogram_svg, width_label,
};
use crate::http::api::analyses::row_of;
use crate::http::api::search::{SearchParams, run};
use crate::http::api::timeline::loaded;
use crate::http::state::AppState;
use crate::index::{MAX_HITS_SHOWN, SearchPage};
use crate::store::JobStatus;

/// Hits per page.
const PER_PAGE: usize = 50;

/// The page's query (all optional: an empty one shows the form).
#[derive(Debug, Default, Deserialize)]
pub struct SearchForm {
    #[serde(default)]
    q: String,
    #[serde(default)]
    from: String,
    #[serde(default)]
    to: String,
    #[serde(default)]
    host: String,
    #[serde(default)]
    service: String,
    #[serde(default)]
    level: String,
    page: Option<usize>,
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchView {
    chrome: Chrome,
    q: String,
    from: String,
    to: String,
    host: String,
    service: String,
    level: String,
    error: Option<String>,
    /// `1 234 lines match`, when searched.
    summary: Option<String>,
    /// The histogram's SVG (empty when nothing has a time) and what it spans.
    histogram: String,
    histogram_label: String,
    facets: Vec<FacetGroup>,
    hits: Vec<HitRow>,
    prev: Option<String>,
    next: Option<String>,
    page_label: String,
}

struct HitRow {
    day: Option<String>,
    time: String,
    host: String,
    hue: String,
    service: String,
    level: String,
    location: String,
    path: String,
    url: Option<String>,
    /// Every line of every host within 30 s of this one.
    around: Option<String>,
    /// The text, HTML-escaped, with `<mark>` around the matches.
    html: String,
    /// The line as Markdown with its host, time and place, for its Copy control.
    markdown: String,
}

/// `GET /analyses/{id}/search`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(form): Query<SearchForm>,
) -> Result<Response, PageError> {
    let row = row_of(&state, &id).await?;
    let asked = SearchState {
        q: form.q.clone(),
        from: form.from.clone(),
        to: form.to.clone(),
        host: form.host.clone(),
        service: form.service.clone(),
        level: form.level.clone(),
    };
    let title = if form.q.trim().is_empty() {
        "Search".to_string()
    } else {
        format!("Search: {}", form.q.trim())
    };
    let chrome = Chrome::new(title, &viewer.csrf).within(&row.id, &row.name);
    let mut view = SearchView {
        chrome,
        q: form.q.clone(),
        from: form.from.clone(),
        to: form.to.clone(),
        host: form.host.clone(),
        service: form.service.clone(),
        level: form.level.clone(),
        error: None,
        summary: None,
        histogram: String::new(),
        histogram_label: String::new(),
        facets: Vec::new(),
        hits: Vec::new(),
        prev: None,
        next: None,
        page_label: String::new(),
    };
    // Nothing asked: the form. A time range or a filter alone is a search.
    if asked.is_empty() {
        return Ok(ok(&view));
    }
    let some = |v: &str| Some(v.to_string()).filter(|v| !v.trim().is_empty());
    let params = SearchParams {
        q: form.q.clone(),
        from: some(&form.from),
        to: some(&form.to),
        host: some(&form.host),
        service: some(&form.service),
        level: some(&form.level),
        page: form.page,
        per_page: Some(PER_PAGE),
        ..SearchParams::default()
    };
    match run(&state, &row.id, &params).await {
        Ok(found) => {
            // The file ids of the hits' paths (the analysis is done when its index is).
            let links = if row.status == JobStatus::Done {
                Some(loaded(&state, &row.id).await?)
            } else {
                None
            };
            let links = links.as_ref().map(|l| FileLinks::new(&row.id, &l.analysis));
            fill(&mut view, &row.id, &asked, &found, links.as_ref());
        }
        // A query or page the search refuses is the client's: said on the page, with
        // the status the API gives.
        Err(e) if e.status.is_client_error() => {
            let status = e.status;
            view.error = Some(e.message);
            return Ok(page_with(status, &view));
        }
        Err(e) => return Err(e.into()),
    }
    Ok(ok(&view))
}

fn fill(
    view: &mut SearchView,
    id: &str,
    asked: &SearchState,
    found: &SearchPage,
    links: Option<&FileLinks<'_>>,
) {
    // Pages past the hits a search pages through are not offered.
    let pages = found
        .total
        .min(MAX_HITS_SHOWN)
        .div_ceil(found.per_page.max(1))
        .max(1);
    let what = if found.literal {
        format!(
            " hold {:?} (every line, as grep -F finds it)",
            asked.q.trim()
        )
    } else {
        String::new()
    };
    view.summary = Some(match found.total {
        0 if found.literal => format!("No line holds {:?}.", asked.q.trim()),
        0 => "No line matches.".to_string(),
        1 if found.literal => format!("1 line{what}."),
        1 => "1 line matches.".to_string(),
        n if found.literal => format!("{} lines{what}.", count(n as u64)),
        n => format!("{} lines match.", count(n as u64)),
    });
    view.page_label = if found.total > MAX_HITS_SHOWN {
        format!(
            "page {} of {} (the first {} lines)",
            found.page,
            pages,
            count(MAX_HITS_SHOWN as u64)
        )
    } else {
        format!("page {} of {}", found.page, pages)
    };
    view.prev = (found.page > 1).then(|| asked.url(id, Some(found.page - 1)));
    view.next = (found.page < pages).then(|| asked.url(id, Some(found.page + 1)));
    view.histogram = histogram_svg(id, asked, &found.histogram);
    if let (Some(first), Some(last)) = (
        found.histogram.buckets.first(),
        found.histogram.buckets.last(),
    ) {
        view.histogram_label = format!(
            "{} – {} UTC, bars of {}; click a bar or drag across bars to zoom",
            readable_time(&first.start),
            readable_time(&last.end),
            width_label(found.histogram.bucket_seconds)
        );
    }
    view.facets = facet_groups(id, asked, &found.facets);
    let mut hues = HostHues::default();
    let mut days = DayBreaks::default();
    view.hits = found
        .hits
        .iter()
        .map(|h| {
            let (date, time) = h.timestamp.as_deref().map(split_time).unwrap_or_default();
            let location = format!("{}:{}", short_path(&h.path), h.line);
            let when = when_shown(&date, &time);
            HitRow {
                markdown: line_markdown(&h.host, &when, &location, &h.text),
                day: days.at(&date),
                time,
                hue: hues.of(&h.host),
                host: h.host.clone(),
                service: h.service.clone(),
                level: h.level.clone().unwrap_or_default(),
                location,
                path: h.path.clone(),
                url: links.and_then(|l| l.line(&h.path, h.line)),
                around: h.timestamp.as_deref().and_then(|t| around(id, t)),
                html: marked_html(&h.text, &h.marks),
            }
        })
        .collect();
}
