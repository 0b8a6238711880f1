//! `GET /api/v1/watch/events`: the service's live watcher (`serve --watch`) as
//! server-sent events: `finding` (each finding once, when complete) and `decision` (what
//! the policy did with it), the kept ones first.

use std::time::Duration;

use axum::extract::State;
use axum::response::IntoResponse;
use axum::response::sse::{KeepAlive, Sse};

use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;

/// The live watcher's findings and decisions.
#[utoipa::path(get, path = "/api/v1/watch/events", tag = "watch",
    responses((status = 200, content_type = "text/event-stream", body = String),
              (status = 404, body = ErrorBody)))]
pub async fn events(State(state): State<AppState>) -> Result<impl IntoResponse, ApiError> {
    let live = state.live.clone().ok_or_else(|| {
        ApiError::new(
            axum::http::StatusCode::NOT_FOUND,
            "no_watcher",
            "this service watches no logs (start it with --watch PATH)",
        )
    })?;
    Ok(Sse::new(live.stream()).keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}
