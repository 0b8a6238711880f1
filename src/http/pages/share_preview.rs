//! `GET /analyses/{id}/share?scope=…`: the preview of a share link (the redacted view
//! the link would show) with the form that makes it; `POST` makes it and shows the link
//! once; the analysis's links are listed below, each with a button that revokes it.

use askama::Template;
use axum::Form;
use axum::extract::{Path, Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::guard::Viewer;
use super::render::{Chrome, PageError, ok};
use super::share_view::{self, ShareContent};
use crate::http::api::analyses::{blocking, row_of};
use crate::http::auth::same_hash;
use crate::http::error::ApiError;
use crate::http::share::api::{check_scope, make_share, redacted_view, revoke_share};
use crate::http::state::AppState;
use crate::share::{RedactionReport, Scope, TimelineScope};

#[derive(Template)]
#[template(path = "share_preview.html")]
struct PreviewPage {
    chrome: Chrome,
    id: String,
    scope_json: String,
    /// The link, once made (shown this once).
    link: Option<String>,
    expires: String,
    content: ShareContent,
    /// What the redaction did, beside the button that makes the link.
    report: RedactionReport,
    shares: Vec<ShareLine>,
}

struct ShareLine {
    id: String,
    what: String,
    note: String,
    expires: String,
    state: &'static str,
}

/// The scope as the page's query gives it.
#[derive(Debug, Default, Deserialize)]
pub struct ScopeQuery {
    scope: Option<String>,
    finding: Option<String>,
    instance: Option<String>,
    notification: Option<String>,
    host: Option<String>,
    from: Option<String>,
    to: Option<String>,
}

impl ScopeQuery {
    fn scope(self) -> Result<Scope, ApiError> {
        match self.scope.as_deref() {
            Some("finding") => Ok(Scope::Finding {
                finding: self
                    .finding
                    .ok_or_else(|| ApiError::bad_request("which finding?"))?,
            }),
            Some("timeline") => Ok(Scope::Timeline(TimelineScope {
                instance: self.instance,
                notification: self.notification,
                host: self.host,
                from: self.from.filter(|v| !v.trim().is_empty()),
                to: self.to.filter(|v| !v.trim().is_empty()),
            })),
            Some("analysis") | None => Ok(Scope::Analysis),
            Some(other) => Err(ApiError::bad_request(format!(
                "scope {other:?}: finding, timeline or analysis"
            ))),
        }
    }
}

/// The form that makes a link.
#[derive(Debug, Deserialize)]
pub struct CreateForm {
    csrf: String,
    scope: String,
    days: Option<u32>,
    note: Option<String>,
}

/// The form that revokes a link.
#[derive(Debug, Deserialize)]
pub struct RevokeForm {
    csrf: String,
}

/// `GET /analyses/{id}/share`.
pub async fn page(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    Query(query): Query<ScopeQuery>,
) -> Result<Response, PageError> {
    let scope = query.scope()?;
    render(&state, &viewer, &id, scope, None).await
}

/// `POST /analyses/{id}/share`: the link made, shown once.
pub async fn create(
    State(state): State<AppState>,
    viewer: Viewer,
    Path(id): Path<String>,
    headers: HeaderMap,
    Form(form): Form<CreateForm>,
) -> Result<Response, PageError> {
    check_csrf(&form.csrf, &viewer)?;
    let scope: Scope = serde_json::from_str(&form.scope)
        .map_err(|e| ApiError::bad_request(format!("scope: {e}")))?;
    let note = form.note.filter(|n| !n.trim().is_empty());
    let created = make_share(&state, &id, scope.clone(), form.days, note, "session").await?;
    let link = format!("{}{}", origin(&headers), created.url);
    let expires = created.share.expires_at.clone();
    render(&state, &viewer, &id, scope, Some((link, expires))).await
}

/// `POST /analyses/{id}/shares/{share}/revoke`.
pub async fn revoke(
    State(state): State<AppState>,
    viewer: Viewer,
    Path((id, share)): Path<(String, String)>,
    Form(form): Form<RevokeForm>,
) -> Result<Response, PageError> {
    check_csrf(&form.csrf, &viewer)?;
    let row = row_of(&state, &id).await?;
    revoke_share(&state, &row.id, &share, "session").await?;
    Ok((
        StatusCode::SEE_OTHER,
        [(header::LOCATION, format!("/analyses/{}/share", row.id))],
    )
        .into_response())
}

fn check_csrf(sent: &str, viewer: &Viewer) -> Result<(), PageError> {
    if same_hash(sent, &viewer.csrf) {
        Ok(())
    } else {
        Err(PageError::new(
            StatusCode::FORBIDDEN,
            "The form did not carry this session's CSRF token: reload the page and try again.",
        ))
    }
}

/// `scheme://host` of the request, as the browser reached the service.
fn origin(headers: &HeaderMap) -> String {
    let text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    match text("host") {
        Some(host) if !host.contains(['/', '\\', '@', ' ']) => {
            let scheme = match text("x-forwarded-proto") {
                Some("https") => "https",
                _ => "http",
            };
            format!("{scheme}://{host}")
        }
        _ => String::new(),
    }
}

async fn render(
    state: &AppState,
    viewer: &Viewer,
    id: &str,
    scope: Scope,
    made: Option<(String, String)>,
) -> Result<Response, PageError> {
    let row = row_of(state, id).await?;
    check_scope(state, &row.id, &scope).await?;
    let view = redacted_view(state, &row.id).await?;
    let scope_json = serde_json::to_string(&scope).map_err(ApiError::internal)?;
    let (content, report) = tokio::task::spawn_blocking(move || {
        Some((
            share_view::content(&view, &scope, None)?,
            view.report(&scope)?,
        ))
    })
    .await?
    .ok_or_else(|| ApiError::not_found("scope"))?;
    let analysis_id = row.id.clone();
    let shares = blocking(state, move |store| store.shares(&analysis_id)).await?;
    let now = jiff::Timestamp::now();
    let shares = shares
        .into_iter()
        .map(|s| {
            let expired = s
                .expires_at
                .parse::<jiff::Timestamp>()
                .is_ok_and(|t| t <= now);
            ShareLine {
                what: match serde_json::from_str::<Scope>(&s.scope_json) {
                    Ok(Scope::Finding { finding }) => format!("finding {finding}"),
                    Ok(Scope::Timeline(t)) => format!(
                        "timeline of {}",
                        [t.instance, t.notification, t.host]
                            .into_iter()
                            .flatten()
                            .collect::<Vec<_>>()
                            .join(" ")
                    ),
                    Ok(Scope::Analysis) => "the whole analysis".to_string(),
                    Err(_) => s.scope_kind.clone(),
                },
                id: s.id,
                note: s.note,
                expires: s.expires_at,
                state: if s.revoked_at.is_some() {
                    "revoked"
                } else if expired {
                    "expired"
                } else {
                    "live"
                },
            }
        })
        .collect();
    let (link, expires) = match made {
        Some((link, expires)) => (Some(link), expires),
        None => (None, String::new()),
    };
    let chrome =
        Chrome::new(format!("Share: {}", content.title), &viewer.csrf).within(&row.id, &row.name);
    Ok(ok(&PreviewPage {
        chrome,
        id: row.id,
        scope_json,
        link,
        expires,
        content,
        report,
        shares,
    }))
}
