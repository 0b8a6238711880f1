//! Cinder volumes under `/volume/v3/{project}`: version documents, list and show, and
//! the admin actions `os-force_detach` and `os-reset_status`.

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::{SimState, accepted, fault};
use super::views;

fn v3(sim: &SimState) -> Value {
    let max = sim.cloud().scenario.cinder.max_microversion.clone();
    json!({
        "id": "v3.0",
        "status": "CURRENT",
        "version": max,
        "min_version": "3.0",
        "updated": "2023-08-31T00:00:00Z",
        "links": [{"rel": "self", "href": format!("{}/volume/v3/", sim.base_url)}],
        "media-types": [{"base": "application/json", "type": "application/vnd.openstack.volume+json;version=3"}],
    })
}

/// `GET /volume/` (300 Multiple Choices, as Cinder answers).
pub async fn versions(State(sim): State<SimState>) -> Response {
    (
        StatusCode::MULTIPLE_CHOICES,
        Json(json!({ "versions": [v3(&sim)] })),
    )
        .into_response()
}

/// `GET /volume/v3/`.
pub async fn version(State(sim): State<SimState>) -> Response {
    Json(json!({ "versions": [v3(&sim)] })).into_response()
}

/// `GET /volumes/detail` and `GET /volumes`.
pub async fn list(State(sim): State<SimState>, Path(project): Path<String>) -> Response {
    let cloud = sim.cloud();
    if project != cloud.project_id {
        return fault(404, &format!("Project {project} could not be found."));
    }
    let list: Vec<Value> = cloud
        .volumes
        .iter()
        .map(|v| views::volume(&cloud, v, &sim.base_url))
        .collect();
    Json(json!({ "volumes": list })).into_response()
}

/// `GET /volumes/{id}`.
pub async fn show(
    State(sim): State<SimState>,
    Path((_project, id)): Path<(String, String)>,
) -> Response {
    let cloud = sim.cloud();
    match cloud.volumes.iter().find(|v| v.id == id) {
        Some(v) => {
            Json(json!({ "volume": views::volume(&cloud, v, &sim.base_url) })).into_response()
        }
        None => fault(404, &format!("Volume {id} could not be found.")),
    }
}

/// `POST /volumes/{id}/action`: `os-force_detach` and `os-reset_status`.
pub async fn action(
    State(sim): State<SimState>,
    Path((_project, id)): Path<(String, String)>,
    body: Bytes,
) -> Response {
    let Ok(Value::Object(body)) = serde_json::from_slice::<Value>(&body) else {
        return fault(400, "Malformed request body");
    };
    let Some((name, args)) = body.iter().next() else {
        return fault(400, "Malformed request body");
    };
    let mut cloud = sim.cloud();
    let now = cloud.now();
    let Some(volume) = cloud.volume_mut(&id) else {
        return fault(404, &format!("Volume {id} could not be found."));
    };
    match name.as_str() {
        "os-force_detach" => {
            let attachment = args.get("attachment_id").and_then(Value::as_str);
            if let Some(a) = attachment
                && !volume.attachments.iter().any(|x| x.id == a)
            {
                return fault(
                    400,
                    &format!(
                        "Error force detaching volume - VolumeAttachmentNotFound: Volume attachment could not be found with filter: attachment_id = {a}."
                    ),
                );
            }
            volume
                .attachments
                .retain(|x| attachment.is_some_and(|a| x.id != a));
            if volume.attachments.is_empty() {
                volume.status = "available".into();
            }
            volume.updated_s = now;
            accepted()
        }
        "os-reset_status" => {
            let field = |k: &str| args.get(k).and_then(Value::as_str);
            if let Some(status) = field("status") {
                if status == "deleting" {
                    return fault(400, &format!("Cannot reset-state to {status}"));
                }
                if status == "in-use"
                    && volume.attachments.is_empty()
                    && field("attach_status") != Some("attached")
                {
                    return fault(
                        400,
                        "Cannot reset-state to in-use because volume does not have any attachments.",
                    );
                }
                volume.status = status.to_string();
            }
            if field("attach_status") == Some("detached") {
                volume.attachments.clear();
            }
            volume.updated_s = now;
            accepted()
        }
        other => fault(400, &format!("There is no such action: {other}")),
    }
}
