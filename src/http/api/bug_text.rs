//! `GET /api/v1/analyses/{id}/bug-text?finding=&format=text|markdown`: what the "Post to
//! the bug tracker" panel copies. Always redacted: built from the share view (the
//! default-deny public step and the case's map, as share links show it), never from the
//! raw analysis. `text` is the bug report (Launchpad takes plain text), `markdown` the
//! comment for trackers that render Markdown. With `finding`, that finding alone.

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::analyses::row_of;
use crate::detect::Finding;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::share::api::redacted_view;
use crate::http::state::AppState;
use crate::triage::launchpad::bug_report;
use crate::triage::report::markdown;
use crate::triage::{Catalog, Triage};

/// What to copy.
#[derive(Debug, Default, Deserialize, utoipa::IntoParams)]
pub struct BugTextQuery {
    /// One finding (its id), or every finding of the analysis.
    pub finding: Option<String>,
    /// `text` (default: the bug report) or `markdown`.
    pub format: Option<String>,
}

/// The redacted bug text of an analysis or one of its findings.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/bug-text", tag = "triage",
    params(("id" = String, Path, description = "analysis id"), BugTextQuery),
    responses((status = 200, body = String, description = "text/plain or text/markdown, redacted"),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<BugTextQuery>,
) -> Result<Response, ApiError> {
    let as_markdown = match query.format.as_deref() {
        None | Some("text") => false,
        Some("markdown") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "format {other:?}: text or markdown"
            )));
        }
    };
    let row = row_of(&state, &id).await?;
    let view = redacted_view(&state, &row.id).await?;
    tokio::task::spawn_blocking(move || {
        let findings: Vec<Finding> = match query.finding.as_deref() {
            Some(wanted) => vec![
                view.finding(wanted)
                    .map(|(_, f)| f.clone())
                    .ok_or_else(|| ApiError::not_found("finding"))?,
            ],
            None => view.findings.iter().map(|(_, f)| f.clone()).collect(),
        };
        let (kind, text) = if as_markdown {
            (
                "text/markdown; charset=utf-8",
                markdown(&view.analysis, &findings),
            )
        } else {
            let catalog = Catalog::shipped().map_err(ApiError::internal)?;
            let triage = Triage::new(&view.analysis, &findings, &catalog);
            (
                "text/plain; charset=utf-8",
                bug_report(&view.analysis, &findings, &triage),
            )
        };
        Ok(([(header::CONTENT_TYPE, kind)], text).into_response())
    })
    .await?
}
