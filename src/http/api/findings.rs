//! `/api/v1/analyses/{id}/findings`: the findings of a finished analysis, as in the
//! `evacdoc.analysis/v1` document.

use axum::Json;
use axum::extract::{Path, State};

use super::analyses::{blocking, row_of};
use super::timeline::{loaded, svg_response};
use crate::correlate::timeline::SvgOptions;
use crate::detect::finding_picture;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::store::JobStatus;

/// The findings of an analysis (empty while it runs: they are stored when it ends).
#[utoipa::path(get, path = "/api/v1/analyses/{id}/findings", tag = "findings",
    params(("id" = String, Path, description = "analysis id")),
    responses((status = 200, body = Vec<Object>), (status = 404, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Vec<serde_json::Value>>, ApiError> {
    let row = row_of(&state, &id).await?;
    if row.status != JobStatus::Done {
        return Ok(Json(Vec::new()));
    }
    let findings = blocking(&state, move |store| store.findings(&row.id)).await?;
    findings
        .iter()
        .map(serde_json::to_value)
        .collect::<Result<_, _>>()
        .map(Json)
        .map_err(ApiError::internal)
}

/// One finding.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/findings/{finding}", tag = "findings",
    params(("id" = String, Path, description = "analysis id"),
           ("finding" = String, Path, description = "finding id")),
    responses((status = 200, body = Object), (status = 404, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    Path((id, finding)): Path<(String, String)>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let row = row_of(&state, &id).await?;
    let found = blocking(&state, move |store| store.finding(&row.id, &finding))
        .await?
        .ok_or_else(|| ApiError::not_found("finding"))?;
    serde_json::to_value(&found)
        .map(Json)
        .map_err(ApiError::internal)
}

/// A finding's timeline picture: an SVG swimlane of its instances' or notification's
/// lines, the failing calls and the measured gaps marked.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/findings/{finding}/picture", tag = "findings",
    params(("id" = String, Path, description = "analysis id"),
           ("finding" = String, Path, description = "finding id")),
    responses((status = 200, content_type = "image/svg+xml", body = String),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn picture(
    State(state): State<AppState>,
    Path((id, finding)): Path<(String, String)>,
) -> Result<axum::response::Response, ApiError> {
    let loaded = loaded(&state, &id).await?;
    let svg = tokio::task::spawn_blocking(move || {
        let found = loaded.findings.iter().find(|f| f.id == finding)?;
        let options = SvgOptions {
            title: Some(found.title.clone()),
            ..SvgOptions::default()
        };
        Some(finding_picture(&loaded.analysis, found, &options))
    })
    .await?
    .ok_or_else(|| ApiError::not_found("finding"))?;
    Ok(svg_response(svg))
}
