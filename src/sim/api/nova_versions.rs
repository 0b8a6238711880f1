//! Nova's version documents: `/compute/` and `/compute/v2.1`, with the microversion
//! range the scenario offers.

use axum::Json;
use axum::extract::State;
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::SimState;

fn v21(sim: &SimState) -> Value {
    let max = sim.cloud().scenario.nova.max_microversion.clone();
    json!({
        "id": "v2.1",
        "status": "CURRENT",
        "version": max,
        "min_version": "2.1",
        "updated": "2013-07-23T11:33:21Z",
        "links": [
            {"rel": "self", "href": format!("{}/compute/v2.1/", sim.base_url)},
            {"rel": "describedby", "type": "text/html", "href": "http://docs.openstack.org/"},
        ],
        "media-types": [{"base": "application/json", "type": "application/vnd.openstack.compute+json;version=2.1"}],
    })
}

/// `GET /compute/`.
pub async fn versions(State(sim): State<SimState>) -> Response {
    Json(json!({ "versions": [v21(&sim)] })).into_response()
}

/// `GET /compute/v2.1`.
pub async fn version(State(sim): State<SimState>) -> Response {
    Json(json!({ "version": v21(&sim) })).into_response()
}
