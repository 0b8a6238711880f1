//! `os-services`: the list with `state` from heartbeats, and updates: the 2.53 form
//! (`PUT /os-services/{uuid}`) and the older ones (`force-down` from 2.11, `disable`,
//! `enable`, `disable-log-reason`).

use std::collections::HashMap;

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Extension, Path, Query, State};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::{RequestCtx, SimState, fault};
use super::views;
use crate::sim::cloud::model::Migration;
use crate::sim::microversion::Microversion;

/// `GET /os-services?host=&binary=`.
pub async fn list(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let cloud = sim.cloud();
    let now = cloud.now();
    let services: Vec<Value> = cloud
        .services
        .iter()
        .filter(|s| query.get("host").is_none_or(|h| *h == s.host))
        .filter(|s| query.get("binary").is_none_or(|b| *b == s.binary))
        .map(|s| views::service(&cloud, s, ctx.microversion, now))
        .collect();
    Json(json!({ "services": services })).into_response()
}

/// `PUT /os-services/{id}`: by UUID from 2.53, by action name before.
pub async fn update(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path(id): Path<String>,
    body: Bytes,
) -> Response {
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body) else {
        return fault(400, "Malformed request body");
    };
    if ctx.microversion >= Microversion::new(2, 53) {
        update_by_uuid(&sim, &ctx, &id, &body)
    } else {
        update_legacy(&sim, &ctx, &id, &body)
    }
}

fn update_by_uuid(
    sim: &SimState,
    ctx: &RequestCtx,
    id: &str,
    body: &serde_json::Map<String, Value>,
) -> Response {
    if !evacdoc_parsers::text::is_uuid(id) {
        return fault(400, &format!("Invalid uuid {id}"));
    }
    if let Some(extra) = body
        .keys()
        .find(|k| !["status", "disabled_reason", "forced_down"].contains(&k.as_str()))
    {
        return fault(
            400,
            &format!(
                "Invalid input for field/attribute {extra}. Additional properties are not allowed ('{extra}' was unexpected)"
            ),
        );
    }
    let status = body.get("status").and_then(Value::as_str);
    let reason = body.get("disabled_reason").and_then(Value::as_str);
    let forced = body.get("forced_down").and_then(Value::as_bool);
    if status.is_some_and(|s| s != "enabled" && s != "disabled") {
        return fault(
            400,
            "Invalid input for field/attribute status. Value: must be one of ['enabled', 'disabled']",
        );
    }
    if status == Some("enabled") && reason.is_some() {
        return fault(
            400,
            "Specifying 'disabled_reason' with status 'enabled' is invalid.",
        );
    }
    if status.is_none() && forced.is_none() {
        return fault(
            400,
            "No updates were requested. Fields 'status' or 'forced_down' should be specified.",
        );
    }
    let mut cloud = sim.cloud();
    let now = cloud.now();
    let Some(index) = cloud.services.iter().position(|s| s.uuid == id) else {
        return fault(404, &format!("Service {id} not found."));
    };
    let service = &cloud.services[index];
    let host = service.host.clone();
    if service.binary != "nova-compute" {
        let binary = service.binary.clone();
        return fault(
            400,
            &format!(
                "Updating a {binary} service is not supported. Only nova-compute services can be updated."
            ),
        );
    }
    if forced == Some(false)
        && let Some(refusal) = done_evacuations_remain(&cloud.migrations, &host)
    {
        return refusal;
    }
    let service = &mut cloud.services[index];
    if let Some(status) = status {
        service.disabled = status == "disabled";
        service.disabled_reason = if service.disabled {
            reason.map(str::to_string)
        } else {
            None
        };
    }
    if let Some(forced) = forced {
        service.forced_down = forced;
    }
    let shown = views::service(&cloud, &cloud.services[index], ctx.microversion, now);
    Json(json!({ "service": shown })).into_response()
}

fn update_legacy(
    sim: &SimState,
    ctx: &RequestCtx,
    action: &str,
    body: &serde_json::Map<String, Value>,
) -> Response {
    let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
    let (Some(host), Some(binary)) = (text("host"), text("binary")) else {
        return fault(400, "Invalid input: host and binary are required");
    };
    let mut cloud = sim.cloud();
    let forcing_up = action == "force-down"
        && ctx.microversion >= Microversion::new(2, 11)
        && body.get("forced_down").and_then(Value::as_bool) == Some(false);
    if forcing_up
        && binary == "nova-compute"
        && let Some(refusal) = done_evacuations_remain(&cloud.migrations, &host)
    {
        return refusal;
    }
    let Some(service) = cloud
        .services
        .iter_mut()
        .find(|s| s.host == host && s.binary == binary)
    else {
        return fault(404, &format!("Host '{host}' is not mapped to any cell"));
    };
    match action {
        "force-down" if ctx.microversion >= Microversion::new(2, 11) => {
            let Some(forced) = body.get("forced_down").and_then(Value::as_bool) else {
                return fault(400, "Missing forced_down field");
            };
            service.forced_down = forced;
            Json(json!({"service": {"host": host, "binary": binary, "forced_down": forced}}))
                .into_response()
        }
        "enable" => {
            service.disabled = false;
            service.disabled_reason = None;
            Json(json!({"service": {"host": host, "binary": binary, "status": "enabled"}}))
                .into_response()
        }
        "disable" | "disable-log-reason" => {
            let reason = text("disabled_reason");
            if action == "disable-log-reason" && reason.is_none() {
                return fault(400, "Missing disabled reason field");
            }
            service.disabled = true;
            service.disabled_reason = reason.clone();
            let mut shown = json!({"host": host, "binary": binary, "status": "disabled"});
            if let Some(reason) = reason {
                shown["disabled_reason"] = json!(reason);
            }
            Json(json!({ "service": shown })).into_response()
        }
        other => fault(404, &format!("Unknown action {other}")),
    }
}

/// Nova's refusal to force a host up while evacuations from it are still `done` (its
/// `_check_for_evacuations`, since 24.0.0): nova-compute has not started again there to
/// clean them up.
fn done_evacuations_remain(migrations: &[Migration], host: &str) -> Option<Response> {
    migrations
        .iter()
        .any(|m| m.source == host && m.status == "done")
        .then(|| {
            fault(
                400,
                &format!(
                    "Unable to force up host {host} as `done` evacuation migration records \
                     remain associated with the host. Ensure the compute service has been \
                     restarted, allowing these records to move to `completed` before \
                     retrying this request."
                ),
            )
        })
}
