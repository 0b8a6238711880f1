//! Triage for bots: the known bugs a stored analysis matches, with confidence and
//! reasons (`evacdoc.triage/v1`), as Markdown, or as a complete bug report.
//! `POST /api/v1/triage` takes either a stored analysis' id (JSON) or a bundle (its body,
//! queued as an upload: the triage is at the returned analysis' `/triage` when it is done).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::analyses::{UploadQuery, upload};
use super::timeline::loaded;
use crate::http::auth::Principal;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::triage::launchpad::{bug_report, triage_markdown};
use crate::triage::{Catalog, Triage};

/// The largest JSON triage request (an id and a format).
const REQUEST_LIMIT: usize = 64 * 1024;

/// What a triage answer is.
#[derive(Clone, Copy, Debug)]
enum Format {
    Json,
    Markdown,
    BugTemplate,
}

impl Format {
    fn parse(format: Option<&str>) -> Result<Format, ApiError> {
        match format {
            None | Some("json") => Ok(Format::Json),
            Some("markdown") => Ok(Format::Markdown),
            Some("bug-template") => Ok(Format::BugTemplate),
            Some(other) => Err(ApiError::bad_request(format!(
                "unknown format '{other}' (json, markdown or bug-template)"
            ))),
        }
    }
}

/// The format of a triage answer.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct TriageQuery {
    /// `json` (default), `markdown` or `bug-template`.
    pub format: Option<String>,
    /// `true`: the bug template redacted as a public share shows the analysis (same
    /// engine and case map as share links).
    #[serde(default)]
    pub redact: bool,
}

/// A triage of a stored analysis.
#[derive(Debug, Deserialize, utoipa::ToSchema)]
pub struct TriageRequest {
    /// The analysis id.
    pub analysis: String,
    /// `json` (default), `markdown` or `bug-template`.
    pub format: Option<String>,
}

/// The triage of a finished analysis.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/triage", tag = "triage",
    params(("id" = String, Path, description = "analysis id"), TriageQuery),
    responses((status = 200, body = Object, description = "the evacdoc.triage/v1 document, or text/markdown"),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<TriageQuery>,
) -> Result<Response, ApiError> {
    let format = Format::parse(query.format.as_deref())?;
    if query.redact {
        if !matches!(format, Format::BugTemplate) {
            return Err(ApiError::bad_request(
                "redact=true is for format=bug-template",
            ));
        }
        return redacted_bug_template(&state, &id).await;
    }
    render(&state, &id, format).await
}

/// The bug template of analysis `id` as its share links show it: built from the share
/// view (default-deny, the case's map).
async fn redacted_bug_template(state: &AppState, id: &str) -> Result<Response, ApiError> {
    let row = crate::http::api::analyses::row_of(state, id).await?;
    let view = crate::http::share::api::redacted_view(state, &row.id).await?;
    tokio::task::spawn_blocking(move || {
        let catalog = Catalog::shipped().map_err(ApiError::internal)?;
        let findings: Vec<_> = view.findings.iter().map(|(_, f)| f.clone()).collect();
        let triage = Triage::new(&view.analysis, &findings, &catalog);
        Ok((
            [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
            bug_report(&view.analysis, &findings, &triage),
        )
            .into_response())
    })
    .await?
}

/// The triage of a stored analysis (`application/json` body `{"analysis": id}`), or a
/// bundle to analyse first (any other body: answered as an upload, 202).
#[utoipa::path(post, path = "/api/v1/triage", tag = "triage",
    params(UploadQuery),
    request_body(content = TriageRequest, description = "an analysis id (application/json), or a bundle (application/octet-stream or multipart)"),
    responses((status = 200, body = Object, description = "the evacdoc.triage/v1 document, or text/markdown"),
              (status = 202, body = super::analyses::Created, description = "a bundle queued: its triage comes at /api/v1/analyses/{id}/triage"),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn submit(
    State(state): State<AppState>,
    query: Query<UploadQuery>,
    principal: Option<axum::Extension<Principal>>,
    request: Request,
) -> Result<Response, ApiError> {
    let json = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("application/json"));
    if !json {
        return upload(State(state), query, principal, request).await;
    }
    let body: Bytes = axum::body::to_bytes(request.into_body(), REQUEST_LIMIT)
        .await
        .map_err(|e| ApiError::bad_request(format!("cannot read the request: {e}")))?;
    let asked: TriageRequest = serde_json::from_slice(&body)
        .map_err(|e| ApiError::bad_request(format!("invalid triage request: {e}")))?;
    let format = Format::parse(asked.format.as_deref())?;
    render(&state, &asked.analysis, format).await
}

async fn render(state: &AppState, id: &str, format: Format) -> Result<Response, ApiError> {
    let loaded = loaded(state, id).await?;
    tokio::task::spawn_blocking(move || {
        let catalog = Catalog::shipped().map_err(ApiError::internal)?;
        let triage = Triage::new(&loaded.analysis, &loaded.findings, &catalog);
        let markdown = |text: String| {
            (
                [(header::CONTENT_TYPE, "text/markdown; charset=utf-8")],
                text,
            )
                .into_response()
        };
        Ok(match format {
            Format::Json => Json(triage).into_response(),
            Format::Markdown => markdown(triage_markdown(&triage)),
            Format::BugTemplate => {
                markdown(bug_report(&loaded.analysis, &loaded.findings, &triage))
            }
        })
    })
    .await?
}
