//! Nova servers: list (with `all_tenants`, `host` and other filters), show, and a
//! server's volume attachments.

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Value, json};

use super::context::{RequestCtx, SimState, fault};
use super::views;
use crate::sim::cloud::model::Server;
use crate::sim::microversion::Microversion;

/// Whether a server passes the query's filters (`host`, `name` as a substring as
/// Nova's regex match mostly is, `status`, `locked`).
fn passes(server: &Server, shown: &Value, query: &HashMap<String, String>) -> bool {
    let field = |key: &str| shown.get(key).and_then(Value::as_str).unwrap_or("");
    query.iter().all(|(key, value)| match key.as_str() {
        "host" | "node" => server.host == *value,
        "name" => server
            .name
            .contains(value.trim_matches(|c| c == '^' || c == '$')),
        "status" => field("status").eq_ignore_ascii_case(value),
        "uuid" => server.id == *value,
        "locked" => (server.locked.is_some()).to_string() == value.to_ascii_lowercase(),
        _ => true,
    })
}

fn list(
    sim: &SimState,
    ctx: &RequestCtx,
    query: &HashMap<String, String>,
    detail: bool,
) -> Response {
    let cloud = sim.cloud();
    let servers: Vec<Value> = cloud
        .servers
        .iter()
        .filter_map(|s| {
            let shown = views::server(&cloud, s, ctx.microversion, &sim.base_url);
            passes(s, &shown, query).then(|| {
                if detail {
                    shown
                } else {
                    json!({"id": s.id, "name": s.name, "links": shown["links"]})
                }
            })
        })
        .collect();
    Json(json!({ "servers": servers })).into_response()
}

/// `GET /servers/detail`.
pub async fn detail(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    list(&sim, &ctx, &query, true)
}

/// `GET /servers`.
pub async fn brief(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    list(&sim, &ctx, &query, false)
}

/// `GET /servers/{id}`.
pub async fn show(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path(id): Path<String>,
) -> Response {
    let cloud = sim.cloud();
    match cloud.server(&id) {
        Some(s) => {
            Json(json!({ "server": views::server(&cloud, s, ctx.microversion, &sim.base_url) }))
                .into_response()
        }
        None => fault(404, &format!("Instance {id} could not be found.")),
    }
}

/// `GET /servers/{id}/os-volume_attachments`.
pub async fn volume_attachments(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path(id): Path<String>,
) -> Response {
    let cloud = sim.cloud();
    let Some(server) = cloud.server(&id) else {
        return fault(404, &format!("Instance {id} could not be found."));
    };
    let v = ctx.microversion;
    let attachments: Vec<Value> = server
        .volume
        .iter()
        .map(|volume| {
            let mut entry = json!({"device": "/dev/vda", "serverId": id, "volumeId": volume});
            if v < Microversion::new(2, 89) {
                entry["id"] = json!(volume);
            }
            if v >= Microversion::new(2, 70) {
                entry["tag"] = Value::Null;
            }
            if v >= Microversion::new(2, 79) {
                entry["delete_on_termination"] = json!(false);
            }
            if v >= Microversion::new(2, 89) {
                let attachment = cloud
                    .volumes
                    .iter()
                    .find(|x| x.id == *volume)
                    .and_then(|x| x.attachments.iter().find(|a| a.server_id == id));
                entry["attachment_id"] = json!(attachment.map(|a| a.id.clone()));
                entry["bdm_uuid"] = json!(uuid::Uuid::new_v4().hyphenated().to_string());
            }
            entry
        })
        .collect();
    Json(json!({ "volumeAttachments": attachments })).into_response()
}
