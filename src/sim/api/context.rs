//! What every handler gets from the middleware: the request's ids and microversion, the
//! shared cloud, and the fault bodies Nova, Cinder and Keystone answer with.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde_json::json;

use crate::sim::cloud::model::RequestIds;
use crate::sim::cloud::refusal::Refusal;
use crate::sim::cloud::state::Cloud;
use crate::sim::microversion::Microversion;

/// The simulator shared by the handlers.
#[derive(Debug)]
pub struct Shared {
    cloud: Mutex<Cloud>,
    /// `http://127.0.0.1:PORT`, for the catalog and version links.
    pub base_url: String,
}

/// The router's state.
pub type SimState = Arc<Shared>;

impl Shared {
    pub fn new(cloud: Cloud, base_url: String) -> Shared {
        Shared {
            cloud: Mutex::new(cloud),
            base_url,
        }
    }

    /// The cloud, locked. A handler that panicked cannot leave it half-changed in a way
    /// that matters to a simulator, so a poisoned lock is taken over.
    pub fn cloud(&self) -> MutexGuard<'_, Cloud> {
        self.cloud.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The request's ids (for logs and instance actions) and its API microversion.
#[derive(Clone, Debug)]
pub struct RequestCtx {
    pub ids: RequestIds,
    pub microversion: Microversion,
}

/// Nova's and Cinder's fault body: `{"badRequest": {"code": 400, "message": ...}}`.
pub fn fault(status: u16, message: &str) -> Response {
    let name = match status {
        400 => "badRequest",
        401 => "unauthorized",
        403 => "forbidden",
        404 => "itemNotFound",
        405 => "badMethod",
        409 => "conflictingRequest",
        413 | 429 => "overLimit",
        415 => "badMediaType",
        501 => "notImplemented",
        503 => "serviceUnavailable",
        _ => "computeFault",
    };
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    (
        code,
        Json(json!({ name: { "code": status, "message": message } })),
    )
        .into_response()
}

/// Keystone's error body (also what keystonemiddleware answers a bad token with).
pub fn keystone_error(status: u16, title: &str, message: &str) -> Response {
    let code = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({ "error": { "code": status, "title": title, "message": message } });
    (code, Json(body)).into_response()
}

/// The answer to a refused request.
pub fn refused(refusal: &Refusal) -> Response {
    fault(refusal.status, &refusal.message)
}

/// 202 with no body (lock, unlock, volume actions).
pub fn accepted() -> Response {
    StatusCode::ACCEPTED.into_response()
}
