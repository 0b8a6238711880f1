//! Errors of the HTTP API: `{ "error", "message", "request_id" }`, with a status code and
//! nothing of the internals (the details go to the log, under the same request id).

use axum::Json;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use crate::store::StoreError;

/// An API error: a stable code for programs, a message for people.
#[derive(Debug, Clone)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// A short stable code (`not_found`, `bad_request`, ...).
    pub code: &'static str,
    /// What went wrong, for a person; never internal details.
    pub message: String,
    /// Seconds to wait before trying again (`Retry-After`), when busy.
    pub retry_after: Option<u64>,
}

/// The JSON body of an error.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct ErrorBody {
    /// A short stable code (`not_found`, `unauthorized`, `bad_request`, ...).
    pub error: String,
    /// What went wrong.
    pub message: String,
    /// The request's id (`x-request-id`), to find it in the service's log.
    pub request_id: String,
}

impl ApiError {
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> ApiError {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
        }
    }

    pub fn not_found(what: &str) -> ApiError {
        ApiError::new(
            StatusCode::NOT_FOUND,
            "not_found",
            format!("{what} not found"),
        )
    }

    pub fn bad_request(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::BAD_REQUEST, "bad_request", message)
    }

    pub fn unauthorized() -> ApiError {
        ApiError::new(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "a valid bearer token or session is needed",
        )
    }

    pub fn forbidden(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::FORBIDDEN, "forbidden", message)
    }

    pub fn conflict(message: impl Into<String>) -> ApiError {
        ApiError::new(StatusCode::CONFLICT, "conflict", message)
    }

    /// Busy: try again after `seconds` (429 for a client's too many uploads at once, 503
    /// for a full queue).
    pub fn busy(status: StatusCode, message: impl Into<String>, seconds: u64) -> ApiError {
        ApiError {
            retry_after: Some(seconds),
            ..ApiError::new(status, "busy", message)
        }
    }

    /// A write that failed: the disk full or a file-size limit met is said (507),
    /// anything else is internal.
    pub fn storage(cause: std::io::Error) -> ApiError {
        use std::io::ErrorKind::{FileTooLarge, QuotaExceeded, StorageFull};
        if matches!(cause.kind(), StorageFull | FileTooLarge | QuotaExceeded) {
            tracing::error!(error = %cause, "no room for an upload");
            return ApiError::new(
                StatusCode::INSUFFICIENT_STORAGE,
                "insufficient_storage",
                "the service has no room to store the upload (disk full or a file-size limit); it was not kept",
            );
        }
        ApiError::internal(cause)
    }

    /// An internal failure: logged with its cause, answered without it.
    pub fn internal(cause: impl std::fmt::Display) -> ApiError {
        tracing::error!(error = %cause, "internal error");
        ApiError::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            "internal error (see the service log for this request id)",
        )
    }
}

impl From<StoreError> for ApiError {
    fn from(error: StoreError) -> ApiError {
        ApiError::internal(error)
    }
}

impl From<tokio::task::JoinError> for ApiError {
    fn from(error: tokio::task::JoinError) -> ApiError {
        ApiError::internal(error)
    }
}

/// Carried in the response's extensions until [`with_request_id`] writes the body, which
/// knows the request id.
#[derive(Debug, Clone)]
pub(crate) struct PendingError(pub ApiError);

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = self.status.into_response();
        if let Some(seconds) = self.retry_after {
            response
                .headers_mut()
                .insert(axum::http::header::RETRY_AFTER, seconds.into());
        }
        response.extensions_mut().insert(PendingError(self));
        response
    }
}

/// Middleware: turns a [`PendingError`] into its JSON body with the request's id.
pub(crate) async fn with_request_id(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> Response {
    let request_id = request
        .headers()
        .get("x-request-id")
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut response = next.run(request).await;
    if let Some(PendingError(error)) = response.extensions_mut().remove::<PendingError>() {
        let body = ErrorBody {
            error: error.code.to_string(),
            message: error.message,
            request_id,
        };
        let mut answer = (error.status, Json(body)).into_response();
        // Keep headers set on the way (`www-authenticate`, `x-request-id`).
        for (name, value) in response.headers() {
            answer.headers_mut().entry(name).or_insert(value.clone());
        }
        return answer;
    }
    response
}
