//! `GET /`: the drop zone (the upload itself is `app.js`: XMLHttpRequest with a progress
//! bar) and the recent analyses, refreshed while any is going.

use askama::Template;
use axum::extract::State;
use axum::response::Response;

use super::guard::Viewer;
use super::render::{Chrome, PageError, ok};
use super::rows::RowView;
use crate::http::api::analyses;
use crate::http::state::AppState;

#[derive(Template)]
#[template(path = "home.html")]
struct HomePage {
    chrome: Chrome,
    rows: Vec<RowView>,
    /// Whether any analysis is still going (the list is polled).
    live: bool,
    /// The largest upload accepted, for a person and in bytes.
    max_upload: String,
    max_upload_bytes: u64,
    /// The service runs a live watcher (`serve --watch`): link its page.
    watching: bool,
}

/// `GET /`.
pub async fn page(State(state): State<AppState>, viewer: Viewer) -> Result<Response, PageError> {
    let rows = analyses::list(State(state.clone())).await?.0;
    let rows: Vec<RowView> = rows.iter().map(RowView::of).collect();
    Ok(ok(&HomePage {
        chrome: Chrome::new("Analyses", &viewer.csrf),
        live: rows.iter().any(|r| r.live),
        rows,
        max_upload: super::format::human_bytes(state.max_upload),
        max_upload_bytes: state.max_upload,
        watching: state.live.is_some(),
    }))
}
