//! `GET /analyses/{id}/search?q=&from=&to=&page=`: full-text search over every line,
//! results in time order with the matched words marked, paged, each linking to its raw
//! line. A query the index cannot read shows why.

use askama::Template;
use axum::extract::{Path, Query, State};
use axum::response::Response;
use serde::Deserialize;

use super::format::{
    DayBreaks, FileLinks, HostHues, count, encode_component, marked_html, short_path, split_time,
};
use super::guard::Viewer;
use super::render::{Chrome, PageError, ok, page as page_with};
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
    page: Option<usize>,
}

#[derive(Template)]
#[template(path = "search.html")]
struct SearchView {
    chrome: Chrome,
    q: String,
    from: String,
    to: String,
    error: Option<String>,
    /// `1 234 lines match`, when searched.
    summary: Option<String>,
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
    /// The text, HTML-escaped, with `<mark>` around the matches.
    html: String,
}

/// `GET /analyses/{id}/search`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(form): Query<SearchForm>,
) -> Result<Response, PageError> {
    let row = row_of(&state, &id).await?;
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
        error: None,
        summary: None,
        hits: Vec::new(),
        prev: None,
        next: None,
        page_label: String::new(),
    };
    if form.q.trim().is_empty() {
        return Ok(ok(&view));
    }
    let params = SearchParams {
        q: form.q.clone(),
        from: Some(form.from.clone()),
        to: Some(form.to.clone()),
        page: form.page,
        per_page: Some(PER_PAGE),
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
            fill(&mut view, &row.id, &form, &found, links.as_ref());
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
    form: &SearchForm,
    found: &SearchPage,
    links: Option<&FileLinks<'_>>,
) {
    // Pages past the hits a search pages through are not offered.
    let pages = found
        .total
        .min(MAX_HITS_SHOWN)
        .div_ceil(found.per_page.max(1))
        .max(1);
    view.summary = Some(match found.total {
        0 => "No line matches.".to_string(),
        1 => "1 line matches.".to_string(),
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
    let url = |page: usize| {
        format!(
            "/analyses/{id}/search?q={}&from={}&to={}&page={page}",
            encode_component(&form.q),
            encode_component(&form.from),
            encode_component(&form.to)
        )
    };
    view.prev = (found.page > 1).then(|| url(found.page - 1));
    view.next = (found.page < pages).then(|| url(found.page + 1));
    let mut hues = HostHues::default();
    let mut days = DayBreaks::default();
    view.hits = found
        .hits
        .iter()
        .map(|h| {
            let (date, time) = h.timestamp.as_deref().map(split_time).unwrap_or_default();
            HitRow {
                day: days.at(&date),
                time,
                hue: hues.of(&h.host),
                host: h.host.clone(),
                service: h.service.clone(),
                level: h.level.clone().unwrap_or_default(),
                location: format!("{}:{}", short_path(&h.path), h.line),
                path: h.path.clone(),
                url: links.and_then(|l| l.line(&h.path, h.line)),
                html: marked_html(&h.text, &h.marks),
            }
        })
        .collect();
}
