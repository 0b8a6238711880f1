//! `POST /servers/{id}/action`: lock, unlock and evacuate (others answer 400 as an
//! unknown action does in Nova).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Extension, Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::{RequestCtx, SimState, accepted, fault, refused};
use crate::sim::microversion::Microversion;

/// Runs the one action the body names.
pub async fn action(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body) else {
        return fault(400, "Malformed request body");
    };
    let Some((name, args)) = body.iter().next() else {
        return fault(400, "Malformed request body");
    };
    let mut cloud = sim.cloud();
    let result = match name.as_str() {
        "lock" => {
            let reason = args
                .get("locked_reason")
                .and_then(Value::as_str)
                .filter(|_| ctx.microversion >= Microversion::new(2, 73))
                .map(str::to_string);
            cloud.lock(&id, reason, &ctx.ids).map(|()| accepted())
        }
        "unlock" => cloud.unlock(&id, &ctx.ids).map(|()| accepted()),
        "evacuate" => cloud
            .evacuate(&id, args, ctx.microversion, &ctx.ids)
            .map(|()| {
                // 200 (kept for compatibility); a password only before 2.14.
                if ctx.microversion < Microversion::new(2, 14) {
                    Json(json!({"adminPass": "SimPassw0rd"})).into_response()
                } else {
                    StatusCode::OK.into_response()
                }
            }),
        other => {
            return fault(400, &format!("There is no such action: {other}"));
        }
    };
    result.unwrap_or_else(|refusal| refused(&refusal))
}
