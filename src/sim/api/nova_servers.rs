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

/// The servers passing the query's filters, one page of them: at most `limit` (and
/// Nova's `max_limit`) after the `marker` server, with a `servers_links` `next` link when
/// the page is full, as Nova pages.
fn list(
    sim: &SimState,
    ctx: &RequestCtx,
    query: &HashMap<String, String>,
    detail: bool,
) -> Response {
    let cloud = sim.cloud();
    let max_limit = cloud.scenario.nova.max_limit;
    let limit = match query.get("limit").map(|l| l.parse::<usize>()) {
        None => max_limit,
        Some(Ok(limit)) => limit.min(max_limit),
        Some(Err(_)) => return fault(400, "limit param must be an integer"),
    };
    let matched: Vec<(&Server, Value)> = cloud
        .servers
        .iter()
        .filter_map(|s| {
            let shown = views::server(&cloud, s, ctx.microversion, &sim.base_url);
            passes(s, &shown, query).then_some((s, shown))
        })
        .collect();
    let start = match query.get("marker") {
        None => 0,
        Some(marker) => match matched.iter().position(|(s, _)| s.id == *marker) {
            Some(at) => at + 1,
            None => return fault(400, &format!("marker [{marker}] not found")),
        },
    };
    let page: Vec<&(&Server, Value)> = matched.iter().skip(start).take(limit).collect();
    let servers: Vec<Value> = page
        .iter()
        .map(|(s, shown)| {
            if detail {
                shown.clone()
            } else {
                json!({"id": s.id, "name": s.name, "links": shown["links"]})
            }
        })
        .collect();
    let mut body = json!({ "servers": servers });
    if let Some((last, _)) = page.last()
        && page.len() == limit
    {
        let mut params: Vec<String> = query
            .iter()
            .filter(|(k, _)| *k != "marker" && *k != "limit")
            .map(|(k, v)| format!("{k}={v}"))
            .collect();
        params.sort();
        params.push(format!("limit={limit}"));
        params.push(format!("marker={}", last.id));
        let list = if detail { "servers/detail" } else { "servers" };
        body["servers_links"] = json!([{
            "rel": "next",
            "href": format!("{}/compute/v2.1/{list}?{}", sim.base_url, params.join("&")),
        }]);
    }
    Json(body).into_response()
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
