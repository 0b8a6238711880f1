//! Cinder's attachments API (microversion 3.27 and later): list, show and delete.

use axum::Json;
use axum::extract::{Extension, Path, State};
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::{RequestCtx, SimState, fault};
use crate::sim::clock::api_time;
use crate::sim::cloud::model::{Attachment, Volume};
use crate::sim::cloud::state::Cloud;
use crate::sim::microversion::Microversion;

const MIN: Microversion = Microversion::new(3, 27);

fn view(cloud: &Cloud, v: &Volume, a: &Attachment) -> Value {
    json!({
        "id": a.id,
        "status": "attached",
        "instance": a.server_id,
        "volume_id": v.id,
        "attached_at": api_time(cloud.clock.at(a.attached_s)),
        "detached_at": null,
        "attach_mode": "rw",
        "connection_info": {"driver_volume_type": "iscsi", "host": a.host_name},
    })
}

fn too_old() -> Response {
    fault(404, "The resource could not be found.")
}

/// `GET /attachments` and `GET /attachments/detail`.
pub async fn list(State(sim): State<SimState>, Extension(ctx): Extension<RequestCtx>) -> Response {
    if ctx.microversion < MIN {
        return too_old();
    }
    let cloud = sim.cloud();
    let list: Vec<Value> = cloud
        .volumes
        .iter()
        .flat_map(|v| v.attachments.iter().map(move |a| (v, a)))
        .map(|(v, a)| view(&cloud, v, a))
        .collect();
    Json(json!({ "attachments": list })).into_response()
}

/// `GET /attachments/{id}`.
pub async fn show(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path((_project, id)): Path<(String, String)>,
) -> Response {
    if ctx.microversion < MIN {
        return too_old();
    }
    let cloud = sim.cloud();
    let found = cloud
        .volumes
        .iter()
        .find_map(|v| v.attachments.iter().find(|a| a.id == id).map(|a| (v, a)));
    match found {
        Some((v, a)) => Json(json!({ "attachment": view(&cloud, v, a) })).into_response(),
        None => fault(404, &format!("VolumeAttachment {id} could not be found.")),
    }
}

/// `DELETE /attachments/{id}`: the attachment goes; with the bug #2004555 guard on, only
/// a call carrying a service token may delete one whose server still exists.
pub async fn delete(
    State(sim): State<SimState>,
    Extension(ctx): Extension<RequestCtx>,
    Path((_project, id)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if ctx.microversion < MIN {
        return too_old();
    }
    let mut cloud = sim.cloud();
    let now = cloud.now();
    let guard =
        cloud.scenario.cinder.attachment_deletion_guard && !headers.contains_key("x-service-token");
    let found = cloud.volumes.iter().find_map(|v| {
        v.attachments
            .iter()
            .find(|a| a.id == id)
            .map(|a| a.server_id.clone())
    });
    let Some(server) = found else {
        return fault(404, &format!("VolumeAttachment {id} could not be found."));
    };
    if guard && cloud.server(&server).is_some() {
        return fault(
            409,
            &format!("Detach volume from instance {server} using the Compute API"),
        );
    }
    let mut remaining = Vec::new();
    for volume in &mut cloud.volumes {
        if volume.attachments.iter().any(|a| a.id == id) {
            volume.attachments.retain(|a| a.id != id);
            volume.status = if volume.attachments.is_empty() {
                "available"
            } else {
                "in-use"
            }
            .into();
            volume.updated_s = now;
            remaining = volume.attachments.iter().map(|a| json!({"id": a.id, "status": "attached", "instance": a.server_id, "volume_id": volume.id})).collect();
        }
    }
    Json(json!({ "attachments": remaining })).into_response()
}
