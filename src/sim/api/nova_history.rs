//! What happened to servers: `os-instance-actions` (with events) and `os-migrations`.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Extension, Path, Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::{RequestCtx, SimState, fault};
use super::views;
use crate::sim::clock::api_time;
use crate::sim::cloud::model::InstanceAction;
use crate::sim::cloud::state::Cloud;
use crate::sim::microversion::Microversion;

fn action_view(
    cloud: &Cloud,
    server: &str,
    a: &InstanceAction,
    version: Microversion,
    events: bool,
) -> Value {
    let at = |t: f64| api_time(cloud.clock.at(t));
    let mut body = json!({
        "action": a.action,
        "instance_uuid": server,
        "request_id": a.request_id,
        "user_id": a.user_id,
        "project_id": a.project_id,
        "start_time": at(a.start_s),
        "message": null,
    });
    if version >= Microversion::new(2, 58) {
        body["updated_at"] = json!(at(a.updated_s));
    }
    if events {
        let list: Vec<Value> = a
            .events
            .iter()
            .map(|e| {
                let mut event = json!({
                    "event": e.event,
                    "start_time": at(e.start_s),
                    "finish_time": e.finish_s.map(at),
                    "result": e.result,
                    "traceback": null,
                });
                if version >= Microversion::new(2, 62) {
                    event["host"] = json!(e.host.clone().unwrap_or_default());
                    event["hostId"] = json!("");
                }
                event
            })
            .collect();
        body["events"] = json!(list);
    }
    body
}

/// `GET /servers/{id}/os-instance-actions`, newest first.
pub async fn actions(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path(id): Path<String>,
) -> Response {
    let cloud = sim.cloud();
    let Some(server) = cloud.server(&id) else {
        return fault(404, &format!("Instance {id} could not be found."));
    };
    let list: Vec<Value> = server
        .actions
        .iter()
        .rev()
        .map(|a| action_view(&cloud, &id, a, ctx.microversion, false))
        .collect();
    Json(json!({ "instanceActions": list })).into_response()
}

/// `GET /servers/{id}/os-instance-actions/{request_id}`.
pub async fn action(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path((id, request_id)): Path<(String, String)>,
) -> Response {
    let cloud = sim.cloud();
    let Some(server) = cloud.server(&id) else {
        return fault(404, &format!("Instance {id} could not be found."));
    };
    match server.actions.iter().find(|a| a.request_id == request_id) {
        Some(a) => {
            Json(json!({ "instanceAction": action_view(&cloud, &id, a, ctx.microversion, true) }))
                .into_response()
        }
        None => fault(
            404,
            &format!("Action {request_id} on instance {id} could not be found."),
        ),
    }
}

/// `GET /os-migrations?instance_uuid=&source_compute=&migration_type=&status=`.
pub async fn migrations(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let cloud = sim.cloud();
    let list: Vec<Value> = cloud
        .migrations
        .iter()
        .filter(|m| query.get("instance_uuid").is_none_or(|v| *v == m.instance))
        .filter(|m| query.get("source_compute").is_none_or(|v| *v == m.source))
        .filter(|m| query.get("status").is_none_or(|v| *v == m.status))
        .filter(|_| {
            query
                .get("migration_type")
                .is_none_or(|v| v == "evacuation")
        })
        .map(|m| views::migration(&cloud, m, ctx.microversion))
        .collect();
    Json(json!({ "migrations": list })).into_response()
}
