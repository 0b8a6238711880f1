//! `/api/v1/analyses`: upload a bundle (queued as a job), list, show with status and
//! result, delete.

use std::sync::Arc;

use axum::Json;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use crate::http::auth::Principal;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::http::upload::{Received, receive, refuse_non_bundle, safe_file_name};
use crate::http::upload_parts::receive_parts;
use crate::http::upload_rate;
use crate::jobs::input_dir;
use crate::store::{AnalysisRow, JobStatus, NewAnalysis, Store};

/// Answer to an upload.
#[derive(Debug, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Created {
    /// The analysis id.
    pub id: String,
    /// `queued`.
    pub status: JobStatus,
}

/// An analysis with its status and, when done, its result.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct AnalysisView {
    #[serde(flatten)]
    pub row: AnalysisRow,
    /// The `evacdoc.analysis/v1` document, when done.
    #[schema(value_type = Object)]
    pub result: Option<serde_json::Value>,
}

/// The file name of an octet-stream upload.
#[derive(Debug, Deserialize, utoipa::IntoParams)]
pub struct UploadQuery {
    /// The bundle's file name (its extension is not needed: archives are told by their bytes).
    pub name: Option<String>,
    /// An earlier analysis of the same case: this one's share links and redacted bundle
    /// reuse its pseudonym map, so one real value keeps one pseudonym across uploads.
    pub case: Option<String>,
}

/// Runs a store call on a blocking thread.
pub async fn blocking<T: Send + 'static>(
    state: &AppState,
    call: impl FnOnce(&dyn Store) -> Result<T, crate::store::StoreError> + Send + 'static,
) -> Result<T, ApiError> {
    let store: Arc<dyn Store> = state.store.clone();
    Ok(tokio::task::spawn_blocking(move || call(store.as_ref())).await??)
}

/// The id of a path, checked: a UUID, nothing that could leave the data folder.
pub fn analysis_id(id: &str) -> Result<String, ApiError> {
    uuid::Uuid::parse_str(id)
        .map(|u| u.hyphenated().to_string())
        .map_err(|_| ApiError::not_found("analysis"))
}

/// Upload a bundle (`application/octet-stream` with `?name=`, or `multipart/form-data` with
/// one file field, or several: at most 64, one analysis over all of them, such as one
/// sosreport per node; their sum within the size limit; the recorded SHA-256 is then
/// that of the parts' `sha256sum` listing): stored, checksummed and queued for analysis.
#[utoipa::path(post, path = "/api/v1/analyses", tag = "analyses",
    params(UploadQuery),
    request_body(content = Vec<u8>, content_type = "application/octet-stream"),
    responses((status = 202, body = Created), (status = 400, body = ErrorBody),
              (status = 401, body = ErrorBody), (status = 408, body = ErrorBody),
              (status = 413, body = ErrorBody),
              (status = 415, body = ErrorBody), (status = 429, body = ErrorBody),
              (status = 503, body = ErrorBody), (status = 507, body = ErrorBody)))]
pub async fn upload(
    State(state): State<AppState>,
    query: Query<UploadQuery>,
    principal: Option<axum::Extension<Principal>>,
    request: Request,
) -> Result<Response, ApiError> {
    match receive_upload(state, query, principal, request).await {
        Ok(response) => Ok(response),
        Err(error) => {
            // The body may be unread: the connection cannot carry another request, and
            // a client that reused it would see it closed under its next one.
            let mut response = error.into_response();
            response.headers_mut().insert(
                header::CONNECTION,
                header::HeaderValue::from_static("close"),
            );
            Ok(response)
        }
    }
}

async fn receive_upload(
    state: AppState,
    Query(query): Query<UploadQuery>,
    principal: Option<axum::Extension<Principal>>,
    request: Request,
) -> Result<Response, ApiError> {
    let content_type = request
        .headers()
        .get(header::CONTENT_TYPE)
        .map(|v| v.to_str().unwrap_or("?"));
    refuse_non_bundle(content_type)?;
    let _slot = upload_slot(&state).await?;
    let id = uuid::Uuid::new_v4().hyphenated().to_string();
    let case = match query.case.as_deref().filter(|c| !c.trim().is_empty()) {
        Some(case) => Some(row_of(&state, case).await?.id),
        None => None,
    };
    let dir = input_dir(state.store.paths(), &id)?;
    let multipart = request
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.starts_with("multipart/form-data"));
    // Slower than the least rate, the upload is cut (408) and its slot freed.
    let (request, sent) = upload_rate::counted(request);
    let received = upload_rate::within(state.upload_rate, &sent, async {
        if multipart {
            receive_multipart(&state, request, &dir).await
        } else {
            let name = safe_file_name(query.name.as_deref().unwrap_or(""));
            let body = request.into_body().into_data_stream();
            receive(body, &dir, &name, state.max_upload).await
        }
    })
    .await;
    let received: Received = match received {
        Ok(r) => r,
        Err(e) => {
            if let Ok(folder) = state.store.paths().analysis_dir(&id) {
                let _ = tokio::fs::remove_dir_all(folder).await;
            }
            return Err(e);
        }
    };
    let name = received
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // With an object store, the upload goes there (read part by part from the file just
    // received) before the analysis is queued: any worker can then fetch it.
    if let Some(remote) = state.store.remote_blobs().cloned() {
        let (paths, id, name) = (state.store.paths().clone(), id.clone(), name.clone());
        let sent = tokio::task::spawn_blocking(move || {
            let sent = crate::jobs::remote::send_upload(remote.as_ref(), &paths, &id, &name);
            if sent.is_err()
                && let Ok(folder) = paths.analysis_dir(&id)
            {
                let _ = std::fs::remove_dir_all(folder);
            }
            sent
        })
        .await?;
        sent?;
    }
    let new = NewAnalysis {
        id: id.clone(),
        name: name.clone(),
        size_bytes: received.size,
        sha256: received.sha256.clone(),
    };
    let actor = principal.map_or("anonymous", |p| p.0.actor());
    let row = blocking(&state, move |store| {
        let row = store.create_analysis(&new)?;
        store.audit(
            actor,
            "upload",
            &new.id,
            &format!("{} ({} bytes)", new.name, new.size_bytes),
        )?;
        Ok(row)
    })
    .await?;
    if let Some(case) = case {
        let (views, store, to) = (state.shares.clone(), state.store.clone(), id.clone());
        tokio::task::spawn_blocking(move || {
            crate::share::share_case_map(&views, store.as_ref(), &case, &to)
        })
        .await?
        .map_err(ApiError::internal)?;
    }
    state.jobs.wake();
    tracing::info!(analysis = %id, name = %name, bytes = received.size, sha256 = %received.sha256, "upload queued");
    let created = Created {
        id: row.id.clone(),
        status: row.status,
    };
    Ok((
        StatusCode::ACCEPTED,
        [(header::LOCATION, format!("/api/v1/analyses/{}", row.id))],
        Json(created),
    )
        .into_response())
}

/// Room for one more upload: 503 when the queue is full, 429 when as many uploads as
/// allowed are being received; both with `Retry-After`. Held until the upload is queued.
async fn upload_slot(state: &AppState) -> Result<tokio::sync::OwnedSemaphorePermit, ApiError> {
    let queued = blocking(state, |store| store.counts_by_status())
        .await?
        .into_iter()
        .filter(|(status, _)| *status == JobStatus::Queued)
        .map(|(_, n)| n)
        .sum::<u64>();
    if queued >= state.max_queued {
        return Err(ApiError::busy(
            StatusCode::SERVICE_UNAVAILABLE,
            format!("{queued} analyses are waiting: try again later"),
            30,
        ));
    }
    state.uploads.clone().try_acquire_owned().map_err(|_| {
        ApiError::busy(
            StatusCode::TOO_MANY_REQUESTS,
            "as many uploads as the service takes at once are under way: try again shortly",
            5,
        )
    })
}

/// The file fields of a multipart upload, streamed to disk: one bundle of them all.
async fn receive_multipart(
    state: &AppState,
    request: Request,
    dir: &std::path::Path,
) -> Result<Received, ApiError> {
    let multipart = Multipart::from_request(request, state)
        .await
        .map_err(|e| ApiError::bad_request(format!("not a multipart upload: {e}")))?;
    receive_parts(multipart, dir, state.max_upload).await
}

/// Analyses, newest first.
#[utoipa::path(get, path = "/api/v1/analyses", tag = "analyses",
    responses((status = 200, body = Vec<AnalysisRow>), (status = 401, body = ErrorBody)))]
pub async fn list(State(state): State<AppState>) -> Result<Json<Vec<AnalysisRow>>, ApiError> {
    let mut rows = blocking(&state, |store| store.list_analyses(200)).await?;
    for row in &mut rows {
        live_progress(&state, row);
    }
    Ok(Json(rows))
}

/// A running job's progress from memory (the store's copy is up to a second old).
fn live_progress(state: &AppState, row: &mut AnalysisRow) {
    if row.status == JobStatus::Running
        && let Some(progress) = state.jobs.progress(&row.id)
    {
        row.progress = progress;
    }
}

/// Fetches an analysis row or answers 404.
pub async fn row_of(state: &AppState, id: &str) -> Result<AnalysisRow, ApiError> {
    let id = analysis_id(id)?;
    let mut row = blocking(state, move |store| store.get_analysis(&id))
        .await?
        .ok_or_else(|| ApiError::not_found("analysis"))?;
    live_progress(state, &mut row);
    Ok(row)
}

/// An analysis: status, progress, error, and the `evacdoc.analysis/v1` result when done.
#[utoipa::path(get, path = "/api/v1/analyses/{id}", tag = "analyses",
    params(("id" = String, Path, description = "analysis id")),
    responses((status = 200, body = AnalysisView), (status = 404, body = ErrorBody)))]
pub async fn show(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<AnalysisView>, ApiError> {
    let row = row_of(&state, &id).await?;
    let result = if row.status == JobStatus::Done {
        let id = row.id.clone();
        blocking(&state, move |store| store.result_json(&id))
            .await?
            .and_then(|text| serde_json::from_str(&text).ok())
    } else {
        None
    };
    Ok(Json(AnalysisView { row, result }))
}

/// Deletes an analysis: its rows, upload, document and index.
#[utoipa::path(delete, path = "/api/v1/analyses/{id}", tag = "analyses",
    params(("id" = String, Path, description = "analysis id")),
    responses((status = 204), (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn delete(
    State(state): State<AppState>,
    Path(id): Path<String>,
    principal: Option<axum::Extension<Principal>>,
) -> Result<StatusCode, ApiError> {
    let row = row_of(&state, &id).await?;
    if row.status == JobStatus::Running {
        return Err(ApiError::conflict(
            "the analysis is running: delete it when it has ended",
        ));
    }
    let actor = principal.map_or("anonymous", |p| p.0.actor());
    let id = row.id.clone();
    state.cache.remove(&id);
    state.shares.remove(&id);
    let deleted = blocking(&state, move |store| {
        let deleted = store.delete_analysis(&id)?;
        store.audit(actor, "delete", &id, "")?;
        Ok(deleted)
    })
    .await?;
    if deleted {
        Ok(StatusCode::NO_CONTENT)
    } else {
        Err(ApiError::not_found("analysis"))
    }
}
