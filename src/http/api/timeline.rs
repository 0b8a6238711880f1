//! `/api/v1/analyses/{id}/timeline?instance=|request=|notification=|host=`: the
//! interleaved story of one subject, as `evacdoc timeline --format json` gives it, one
//! page of at most 500 rows at a time (`from`, `to`, `page`; `x-total-count` says how
//! many rows the range holds).

use std::sync::Arc;

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderName, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::analyses::row_of;
use super::timeline_window::Window;
use crate::correlate::timeline::{Subject, entries, fold, select};
use crate::correlate::timeline::{SvgOptions, render_svg};
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::jobs::Loaded;
use crate::model::Uuid;
use crate::store::JobStatus;

/// What the timeline is about: exactly one of these.
#[derive(Debug, Default, Clone, Deserialize, utoipa::IntoParams)]
pub struct TimelineQuery {
    /// An instance UUID.
    pub instance: Option<String>,
    /// A request id (`req-...`), local or global.
    pub request: Option<String>,
    /// A Masakari notification UUID.
    pub notification: Option<String>,
    /// A host name, short or qualified.
    pub host: Option<String>,
    /// `json` (default) or `svg` (the swimlane picture).
    pub format: Option<String>,
    /// Rows from this time on: RFC 3339, or `2024-10-08 06:25:03` (UTC).
    pub from: Option<String>,
    /// Rows up to this time, as `from`.
    pub to: Option<String>,
    /// Page of 500 rows, from 1 (past the last: the last).
    pub page: Option<usize>,
}

impl TimelineQuery {
    /// The time range and page asked for.
    pub fn window(&self) -> Result<Window, ApiError> {
        Window::parse(self.from.as_deref(), self.to.as_deref(), self.page)
    }

    /// The subject asked for, or why the query is not one.
    pub fn subject(&self) -> Result<Subject, ApiError> {
        let given = [
            &self.instance,
            &self.request,
            &self.notification,
            &self.host,
        ]
        .iter()
        .filter(|v| v.as_deref().is_some_and(|v| !v.trim().is_empty()))
        .count();
        if given != 1 {
            return Err(ApiError::bad_request(
                "give exactly one of instance, request, notification or host",
            ));
        }
        let uuid = |name: &str, v: &str| {
            Uuid::parse(v.trim()).ok_or_else(|| {
                ApiError::bad_request(format!(
                    "{name} {v:?} is not a UUID (8-4-4-4-12 hex digits)"
                ))
            })
        };
        fn some(v: &Option<String>) -> Option<&str> {
            v.as_deref().filter(|v| !v.trim().is_empty())
        }
        if let Some(v) = some(&self.instance) {
            Ok(Subject::Instance(uuid("instance", v)?))
        } else if let Some(v) = some(&self.notification) {
            Ok(Subject::Notification(uuid("notification", v)?))
        } else if let Some(v) = some(&self.request) {
            Uuid::parse_request_id(v.trim())
                .or_else(|| Uuid::parse(v.trim()))
                .map(Subject::Request)
                .ok_or_else(|| {
                    ApiError::bad_request(format!("request {v:?} is not a request id (req-<uuid>)"))
                })
        } else if let Some(v) = some(&self.host) {
            Ok(Subject::Host(v.trim().to_string()))
        } else {
            Err(ApiError::bad_request(
                "give exactly one of instance, request, notification or host",
            ))
        }
    }
}

/// The loaded analysis `id` (done), or 404 / 409.
pub async fn loaded(state: &AppState, id: &str) -> Result<Arc<Loaded>, ApiError> {
    let row = row_of(state, id).await?;
    if row.status != JobStatus::Done {
        return Err(ApiError::conflict(format!(
            "the analysis is {}: timelines come when it is done",
            row.status
        )));
    }
    let (store, cache) = (state.store.clone(), state.cache.clone());
    tokio::task::spawn_blocking(move || cache.get(store.as_ref(), &row.id))
        .await?
        .map_err(ApiError::internal)?
        .ok_or_else(|| ApiError::not_found("analysis document"))
}

/// The timeline of an instance, request, notification or host, in UTC order, repeated
/// polls folded.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/timeline", tag = "timeline",
    params(("id" = String, Path, description = "analysis id"), TimelineQuery),
    responses((status = 200, body = Vec<Object>, description = "the rows (JSON), or the picture (`format=svg`, image/svg+xml)"),
              (status = 400, body = ErrorBody), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(query): Query<TimelineQuery>,
) -> Result<Response, ApiError> {
    let subject = query.subject()?;
    let window = query.window()?;
    let svg = match query.format.as_deref() {
        None | Some("json") => false,
        Some("svg") => true,
        Some(other) => {
            return Err(ApiError::bad_request(format!(
                "format {other:?}: json or svg"
            )));
        }
    };
    let loaded = loaded(&state, &id).await?;
    if svg {
        let picture = tokio::task::spawn_blocking(move || {
            let analysis = &loaded.analysis;
            let paged = window.apply(analysis, fold(analysis, &select(analysis, &subject)));
            render_svg(analysis, &paged.rows, &[], &SvgOptions::default())
        })
        .await?;
        return Ok(svg_response(picture));
    }
    let (value, total) = tokio::task::spawn_blocking(move || {
        let analysis = &loaded.analysis;
        let paged = window.apply(analysis, fold(analysis, &select(analysis, &subject)));
        serde_json::to_value(entries(analysis, &paged.rows)).map(|v| (v, paged.total))
    })
    .await?
    .map_err(ApiError::internal)?;
    Ok((
        [(HeaderName::from_static("x-total-count"), total.to_string())],
        Json(value),
    )
        .into_response())
}

/// An SVG answer: its own strict policy (no scripts, inline styles only).
pub fn svg_response(svg: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, "image/svg+xml; charset=utf-8"),
            (
                header::CONTENT_SECURITY_POLICY,
                "default-src 'none'; style-src 'unsafe-inline'",
            ),
        ],
        svg,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_timeline_query_names_exactly_one_subject() {
        let q = |i: Option<&str>, h: Option<&str>| TimelineQuery {
            instance: i.map(str::to_string),
            host: h.map(str::to_string),
            ..TimelineQuery::default()
        };
        let uuid = "5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11";
        assert!(matches!(
            q(Some(uuid), None).subject(),
            Ok(Subject::Instance(_))
        ));
        assert!(matches!(q(None, Some("cmp1")).subject(), Ok(Subject::Host(h)) if h == "cmp1"));
        assert!(q(None, None).subject().is_err());
        assert!(q(Some(uuid), Some("cmp1")).subject().is_err());
        let bad = q(Some("nope"), None).subject().unwrap_err();
        assert!(bad.message.contains("not a UUID"), "{}", bad.message);
    }
}
