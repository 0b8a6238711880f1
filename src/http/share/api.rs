//! `/api/v1/analyses/{id}/shares`: share links made, listed and revoked by a signed-in
//! user (bearer token, or a session with its CSRF header on changes), and the preview of
//! what a link would show before it is made.

use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::http::api::analyses::{blocking, row_of};
use crate::http::api::timeline::loaded;
use crate::http::auth::{Principal, hash_secret, random_secret};
use crate::http::error::{ApiError, ErrorBody};
use crate::http::pages::share_view;
use crate::http::state::AppState;
use crate::share::{RedactedView, RedactionReport, Scope};
use crate::store::{NewShare, ShareRow};

/// The default lifetime of a link.
pub const DEFAULT_DAYS: u32 = 30;
/// The longest lifetime of a link.
pub const MAX_DAYS: u32 = 365;
/// The longest note.
pub const MAX_NOTE: usize = 500;

/// A share to make.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct NewShareBody {
    /// What the link shows.
    pub scope: Scope,
    /// Days until it expires (1 to 365, default 30).
    #[serde(default)]
    pub expires_in_days: Option<u32>,
    /// A private note (for whom, why): never shown on the link.
    #[serde(default)]
    pub note: Option<String>,
}

/// A scope to preview.
#[derive(Debug, Clone, Deserialize, utoipa::ToSchema)]
pub struct PreviewBody {
    /// What the link would show.
    pub scope: Scope,
}

/// A share as listed (never its token).
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct ShareView {
    pub id: String,
    pub scope: Scope,
    pub note: String,
    pub created_at: String,
    pub expires_at: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revoked_at: Option<String>,
    /// `live`, `expired` or `revoked`.
    pub state: &'static str,
}

/// A share just made: its link, shown this once.
#[derive(Debug, Clone, Serialize, utoipa::ToSchema)]
pub struct CreatedShare {
    #[serde(flatten)]
    pub share: ShareView,
    /// The link's path, `/s/<token>` (the token has 256 random bits; only its hash is kept).
    pub url: String,
    /// What the redaction did to what the link shows (never shown on the link).
    pub redaction: RedactionReport,
}

impl ShareView {
    fn of(row: ShareRow) -> Option<ShareView> {
        let scope = serde_json::from_str(&row.scope_json).ok()?;
        let expired = row
            .expires_at
            .parse::<jiff::Timestamp>()
            .is_ok_and(|t| t <= jiff::Timestamp::now());
        let state = if row.revoked_at.is_some() {
            "revoked"
        } else if expired {
            "expired"
        } else {
            "live"
        };
        Some(ShareView {
            id: row.id,
            scope,
            note: row.note,
            created_at: row.created_at,
            expires_at: row.expires_at,
            revoked_at: row.revoked_at,
            state,
        })
    }
}

/// Checks that `scope` names something in analysis `id` (done): a finding it has, a
/// timeline subject and range that parse.
pub async fn check_scope(state: &AppState, id: &str, scope: &Scope) -> Result<(), ApiError> {
    let loaded = loaded(state, id).await?;
    match scope {
        Scope::Finding { finding } => {
            if loaded.findings.iter().any(|f| &f.id == finding) {
                Ok(())
            } else {
                Err(ApiError::not_found("finding"))
            }
        }
        Scope::Timeline(t) => t.check().map_err(ApiError::bad_request),
        Scope::Analysis => Ok(()),
    }
}

/// The redacted view of analysis `id`, built when not kept.
pub async fn redacted_view(
    state: &AppState,
    id: &str,
) -> Result<std::sync::Arc<RedactedView>, ApiError> {
    let (store, cache, views, id) = (
        state.store.clone(),
        state.cache.clone(),
        state.shares.clone(),
        id.to_string(),
    );
    tokio::task::spawn_blocking(move || views.get(store.as_ref(), &cache, &id))
        .await?
        .map_err(ApiError::internal)
}

/// Makes a share of analysis `id`: the link (`/s/<token>`) and the stored row.
pub async fn make_share(
    state: &AppState,
    id: &str,
    scope: Scope,
    days: Option<u32>,
    note: Option<String>,
    actor: &'static str,
) -> Result<CreatedShare, ApiError> {
    let row = row_of(state, id).await?;
    check_scope(state, &row.id, &scope).await?;
    let days = days.unwrap_or(DEFAULT_DAYS);
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(ApiError::bad_request(format!(
            "expires_in_days {days}: from 1 to {MAX_DAYS}"
        )));
    }
    let note = note.unwrap_or_default().trim().to_string();
    if note.chars().count() > MAX_NOTE {
        return Err(ApiError::bad_request(format!(
            "the note is longer than {MAX_NOTE} characters"
        )));
    }
    // The view is made now, so that the first visitor does not wait for it.
    let view = redacted_view(state, &row.id).await?;
    let report_scope = scope.clone();
    let redaction = tokio::task::spawn_blocking(move || view.report(&report_scope))
        .await?
        .unwrap_or_default();
    let token = random_secret();
    let expires = jiff::Timestamp::now()
        .checked_add(jiff::SignedDuration::from_hours(24 * i64::from(days)))
        .map_err(ApiError::internal)?;
    let new = NewShare {
        id: uuid::Uuid::new_v4().hyphenated().to_string(),
        token_hash: hash_secret(&token),
        analysis_id: row.id.clone(),
        scope_kind: scope.kind().to_string(),
        scope_json: serde_json::to_string(&scope).map_err(ApiError::internal)?,
        note,
        expires_at: expires.to_string(),
    };
    let stored = blocking(state, move |store| {
        let stored = store.create_share(&new)?;
        store.audit(actor, "share", &stored.analysis_id, &stored.scope_json)?;
        Ok(stored)
    })
    .await?;
    let share =
        ShareView::of(stored).ok_or_else(|| ApiError::internal("stored scope unreadable"))?;
    Ok(CreatedShare {
        share,
        url: format!("/s/{token}"),
        redaction,
    })
}

fn actor(principal: Option<axum::Extension<Principal>>) -> &'static str {
    principal.map_or("anonymous", |p| p.0.actor())
}

/// Make a share link of a finding, a timeline or the whole analysis.
#[utoipa::path(post, path = "/api/v1/analyses/{id}/shares", tag = "shares",
    params(("id" = String, Path, description = "analysis id")),
    request_body = NewShareBody,
    responses((status = 201, body = CreatedShare), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn create(
    State(state): State<AppState>,
    Path(id): Path<String>,
    principal: Option<axum::Extension<Principal>>,
    Json(body): Json<NewShareBody>,
) -> Result<(StatusCode, Json<CreatedShare>), ApiError> {
    let created = make_share(
        &state,
        &id,
        body.scope,
        body.expires_in_days,
        body.note,
        actor(principal),
    )
    .await?;
    Ok((StatusCode::CREATED, Json(created)))
}

/// The share links of an analysis, newest first (never their tokens).
#[utoipa::path(get, path = "/api/v1/analyses/{id}/shares", tag = "shares",
    params(("id" = String, Path, description = "analysis id")),
    responses((status = 200, body = Vec<ShareView>), (status = 404, body = ErrorBody)))]
pub async fn list(
    State(state): State<AppState>,
    Path(id): Path<String>,
) -> Result<Json<Vec<ShareView>>, ApiError> {
    let row = row_of(&state, &id).await?;
    let rows = blocking(&state, move |store| store.shares(&row.id)).await?;
    Ok(Json(rows.into_iter().filter_map(ShareView::of).collect()))
}

/// Revoke a share link: it answers 404 from now on.
#[utoipa::path(delete, path = "/api/v1/analyses/{id}/shares/{share}", tag = "shares",
    params(("id" = String, Path, description = "analysis id"),
           ("share" = String, Path, description = "share id")),
    responses((status = 204), (status = 404, body = ErrorBody)))]
pub async fn revoke(
    State(state): State<AppState>,
    Path((id, share)): Path<(String, String)>,
    principal: Option<axum::Extension<Principal>>,
) -> Result<StatusCode, ApiError> {
    revoke_share(&state, &id, &share, actor(principal)).await?;
    Ok(StatusCode::NO_CONTENT)
}

/// Revokes share `share` of analysis `id`, or 404.
pub async fn revoke_share(
    state: &AppState,
    id: &str,
    share: &str,
    actor: &'static str,
) -> Result<(), ApiError> {
    let row = row_of(state, id).await?;
    let share = share.to_string();
    let revoked = blocking(state, move |store| {
        let revoked = store.revoke_share(&row.id, &share)?;
        if revoked {
            store.audit(actor, "revoke-share", &row.id, &share)?;
        }
        Ok(revoked)
    })
    .await?;
    if revoked {
        Ok(())
    } else {
        Err(ApiError::not_found("share"))
    }
}

/// What a link of this scope would show, redacted, as its `data.json` gives it, with
/// the redaction report under `redaction` (what the engineer checks before sharing).
#[utoipa::path(post, path = "/api/v1/analyses/{id}/shares/preview", tag = "shares",
    params(("id" = String, Path, description = "analysis id")),
    request_body = PreviewBody,
    responses((status = 200, body = Object), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn preview(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Json(body): Json<PreviewBody>,
) -> Result<Json<serde_json::Value>, ApiError> {
    let row = row_of(&state, &id).await?;
    check_scope(&state, &row.id, &body.scope).await?;
    let view = redacted_view(&state, &row.id).await?;
    let value = tokio::task::spawn_blocking(move || {
        let mut value = share_view::json(&view, &body.scope, None)?;
        let report = view.report(&body.scope)?;
        if let (serde_json::Value::Object(fields), Ok(report)) =
            (&mut value, serde_json::to_value(report))
        {
            fields.insert("redaction".into(), report);
        }
        Some(value)
    })
    .await?
    .ok_or_else(|| ApiError::not_found("scope"))?;
    Ok(Json(value))
}
