//! `/api/v1/recoveries/{recovery}`: a recovery as the journal has it, and its progress as
//! server-sent events (every call started and finished, the host's steps, each move, and
//! the end with the recovery's status).

use std::time::Duration;

use axum::Json;
use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::response::sse::{KeepAlive, Sse};

use super::analyses::blocking;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::store::RecoveryRow;

/// A recovery: host, status, moves.
#[utoipa::path(get, path = "/api/v1/recoveries/{recovery}", tag = "recoveries",
    params(("recovery" = i64, Path, description = "recovery id")),
    responses((status = 200, body = Object), (status = 404, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    Path(recovery): Path<i64>,
) -> Result<Json<RecoveryRow>, ApiError> {
    let remediations = state.remediations.clone();
    blocking(&state, move |_| remediations.recovery(recovery))
        .await?
        .map(Json)
        .ok_or_else(|| ApiError::not_found("recovery"))
}

/// The progress of a recovery, from its start, as server-sent events: `step-started`,
/// `step-finished`, `host`, `move`, and last `end` (its status).
#[utoipa::path(get, path = "/api/v1/recoveries/{recovery}/events", tag = "recoveries",
    params(("recovery" = i64, Path, description = "recovery id")),
    responses((status = 200, content_type = "text/event-stream", body = String),
              (status = 404, body = ErrorBody)))]
pub async fn events(
    State(state): State<AppState>,
    Path(recovery): Path<i64>,
) -> Result<impl IntoResponse, ApiError> {
    let remediations = state.remediations.clone();
    let feed = blocking(&state, move |_| remediations.feed(recovery))
        .await?
        .ok_or_else(|| ApiError::not_found("recovery"))?;
    Ok(Sse::new(feed.stream()).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
