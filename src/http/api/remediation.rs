//! `POST /api/v1/analyses/{id}/findings/{finding}/remediation`: the recovery a finding
//! asks for, planned (reads only), or applied in the background once confirmed, on a
//! cloud the service is configured for. Every decision goes to the audit log.

use axum::Extension;
use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::timeline::loaded;
use crate::http::auth::Principal;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::remediation::{Asker, BundleFacts, RunError};
use crate::http::state::AppState;
use crate::recovery::down_time;

/// What to do with the finding.
#[derive(Debug, Default, Deserialize, utoipa::ToSchema)]
#[serde(deny_unknown_fields)]
pub struct RemediationBody {
    /// The cloud (a `clouds.yaml` name the service is configured for); the first
    /// configured one when left out.
    #[serde(default)]
    pub cloud: Option<String>,
    /// Apply the plan (else plan only: reads, nothing changes).
    #[serde(default)]
    pub apply: bool,
    /// Applying needs the finding's id here, typed again.
    #[serde(default)]
    pub confirm: Option<String>,
    /// The operator states the failed host is powered off or isolated: a compute service
    /// Nova still sees up may be forced down (otherwise it is waited for, then refused).
    #[serde(default)]
    pub host_fenced: bool,
}

/// A remediation started.
#[derive(Debug, Serialize, utoipa::ToSchema)]
pub struct RemediationStarted {
    /// The journal's id of the recovery.
    pub recovery_id: i64,
    /// `running`.
    pub status: &'static str,
    /// The failed host.
    pub host: String,
    /// The cloud it runs on.
    pub cloud: String,
    /// Its progress, as server-sent events.
    pub events: String,
}

/// Plans, or applies, the recovery a finding asks for.
#[utoipa::path(post, path = "/api/v1/analyses/{id}/findings/{finding}/remediation",
    tag = "findings",
    params(("id" = String, Path, description = "analysis id"),
           ("finding" = String, Path, description = "finding id")),
    request_body = RemediationBody,
    responses((status = 200, body = Object, description = "the plan (`evacdoc.recovery/v1`, status `planned`)"),
              (status = 202, body = RemediationStarted),
              (status = 400, body = ErrorBody), (status = 403, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody),
              (status = 422, body = ErrorBody), (status = 502, body = ErrorBody)))]
pub async fn remediate(
    State(state): State<AppState>,
    Extension(principal): Extension<Principal>,
    Path((id, finding)): Path<(String, String)>,
    body: Result<Json<RemediationBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let Json(body) = body.map_err(|e| ApiError::bad_request(e.body_text()))?;
    let loaded = loaded(&state, &id).await?;
    let found = loaded
        .findings
        .iter()
        .find(|f| f.id == finding)
        .cloned()
        .ok_or_else(|| ApiError::not_found("finding"))?;
    let remediations = state.remediations.clone();
    // The uploaded bundle's nova.conf says how long its Nova takes to see a host down.
    let bundle = BundleFacts {
        service_down_time: down_time::from_bundle(&loaded.analysis.config),
    };
    let asker = Asker {
        actor: principal.actor().to_owned(),
        target: format!("{id}/{}", found.id),
    };
    let audit = |action: &'static str, detail: String| {
        let (remediations, asker) = (remediations.clone(), asker.clone());
        async move {
            let _ = tokio::task::spawn_blocking(move || {
                remediations.audit(&asker.actor, action, &asker.target, &detail)
            })
            .await;
        }
    };
    let what = if body.apply { "apply" } else { "plan" };
    let refuse = |error: ApiError| {
        let detail = format!("{what} refused: {}", error.message);
        async move {
            audit("remediation-refused", detail).await;
            Err::<Response, ApiError>(error)
        }
    };
    let cloud = match remediations.config.cloud(body.cloud.as_deref()) {
        Ok(cloud) => cloud,
        Err(error) => return refuse(run_error(error)).await,
    };
    if !body.apply {
        return match remediations
            .plan(&found, &cloud, body.host_fenced, &bundle)
            .await
        {
            Ok(report) => {
                audit(
                    "remediation-plan",
                    format!(
                        "planned on {cloud}: {} calls, {} moves on {}",
                        report.plan.len(),
                        report.moves.len(),
                        report.host
                    ),
                )
                .await;
                Ok(Json(report).into_response())
            }
            Err(error) => refuse(run_error(error)).await,
        };
    }
    if body.confirm.as_deref().map(str::trim) != Some(found.id.as_str()) {
        let message = match body.confirm {
            None => format!(
                "applying needs an explicit confirmation: send \"confirm\": \"{}\" (the finding id)",
                found.id
            ),
            Some(_) => format!(
                "the confirmation does not match: \"confirm\" must be the finding id \"{}\"",
                found.id
            ),
        };
        return refuse(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "confirmation_required",
            message,
        ))
        .await;
    }
    let started = remediations
        .start(
            found.clone(),
            cloud.clone(),
            body.host_fenced,
            &bundle,
            asker.clone(),
        )
        .await;
    match started {
        Ok(recovery_id) => {
            let host = found.failed_host.clone().unwrap_or_default();
            audit(
                "remediation-apply",
                format!(
                    "recovery {recovery_id} of {host} started on {cloud}{}",
                    if body.host_fenced {
                        " (host stated fenced)"
                    } else {
                        ""
                    }
                ),
            )
            .await;
            let started = RemediationStarted {
                recovery_id,
                status: "running",
                host,
                cloud,
                events: format!("/api/v1/recoveries/{recovery_id}/events"),
            };
            Ok((StatusCode::ACCEPTED, Json(started)).into_response())
        }
        Err(error) => refuse(run_error(error)).await,
    }
}

fn run_error(error: RunError) -> ApiError {
    let code = match error {
        RunError::NoCloud => "no_cloud",
        RunError::CloudNotAllowed { .. } => "cloud_not_allowed",
        RunError::NotRemediable(_) => "not_remediable",
        RunError::HostBusy(_) => "host_busy",
        RunError::Connect(_) => "cloud_unreachable",
        RunError::Plan(_) => "plan_failed",
        RunError::Refused { code, .. } => code,
        RunError::Failed(_) => "internal",
    };
    ApiError::new(error.status(), code, error.to_string())
}
