//! Signing in with the service token (a session cookie, HttpOnly and SameSite=Strict,
//! Secure over HTTPS) and signing out (a form carrying the session's CSRF token). Wrong
//! tokens are throttled per client address and counted in one audit row per client and
//! minute.

use askama::Template;
use axum::Form;
use axum::extract::{Query, State};
use axum::http::{Extensions, HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::guard::{Viewer, safe_next};
use super::render::{self, Chrome, PageError};
use crate::http::api::analyses::blocking;
use crate::http::auth::{hash_secret, new_session, same_hash, session_cookie};
use crate::http::client::peer_in;
use crate::http::sign_in_limit;
use crate::http::state::AppState;

#[derive(Template)]
#[template(path = "login.html")]
struct LoginPage {
    chrome: Chrome,
    next: String,
    error: Option<String>,
}

/// `?next=` of the sign-in page.
#[derive(Debug, Deserialize)]
pub struct NextQuery {
    next: Option<String>,
}

/// The sign-in form.
#[derive(Debug, Deserialize)]
pub struct SignInForm {
    #[serde(default)]
    token: String,
    next: Option<String>,
}

/// The sign-out form.
#[derive(Debug, Deserialize)]
pub struct SignOutForm {
    #[serde(default)]
    csrf: String,
}

/// `GET /login`.
pub async fn page(Query(query): Query<NextQuery>) -> Response {
    login_page(StatusCode::OK, safe_next(query.next.as_deref()), None)
}

fn login_page(status: StatusCode, next: String, error: Option<String>) -> Response {
    render::page(
        status,
        &LoginPage {
            chrome: Chrome::new("Sign in", ""),
            next,
            error,
        },
    )
}

/// `POST /login`: the client's allowance of wrong tokens taken, the token checked; a
/// session made and its cookie set.
pub async fn sign_in(
    State(state): State<AppState>,
    headers: HeaderMap,
    extensions: Extensions,
    Form(form): Form<SignInForm>,
) -> Response {
    let next = safe_next(form.next.as_deref());
    let peer = peer_in(&extensions);
    let attempt = match sign_in_limit::attempt(&state, peer, &headers) {
        Ok(attempt) => attempt,
        Err(seconds) => return throttled(next, seconds),
    };
    let token = form.token.trim();
    if token.is_empty() || !same_hash(&hash_secret(token), &state.token_hash) {
        let client = attempt.client.to_string();
        let _ = blocking(&state, move |store| {
            store.audit_counted("anonymous", "login-refused", &client, "wrong token")
        })
        .await;
        return login_page(
            StatusCode::UNAUTHORIZED,
            next,
            Some("That is not this service's token. The service prints it at each start until someone signs in with it, and keeps it in the data folder's token file.".to_string()),
        );
    }
    attempt.succeeded(&state);
    state.token_use.signed_in().await;
    let (id, session) = new_session();
    let made = blocking(&state, move |store| {
        store.create_session(&session)?;
        store.audit("session", "login", "", "")
    })
    .await;
    if let Err(e) = made {
        return PageError::from(e).into_response();
    }
    let secure = state.clients.is_https(peer, &headers);
    redirect_with_cookie(&next, &session_cookie(&id, secure))
}

/// 429 with `Retry-After`: the client has sent too many wrong tokens of late.
fn throttled(next: String, seconds: u64) -> Response {
    let mut response = login_page(
        StatusCode::TOO_MANY_REQUESTS,
        next,
        Some(format!(
            "Too many wrong tokens from this address: try again in {seconds} s."
        )),
    );
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, header::HeaderValue::from(seconds));
    response
}

/// `POST /logout`: the session ended and its cookie cleared, when the form carries the
/// session's CSRF token.
pub async fn sign_out(
    State(state): State<AppState>,
    headers: HeaderMap,
    extensions: Extensions,
    viewer: Viewer,
    Form(form): Form<SignOutForm>,
) -> Response {
    if !same_hash(&form.csrf, &viewer.csrf) {
        return PageError::new(
            StatusCode::FORBIDDEN,
            "The sign-out form did not carry this session's CSRF token: reload the page and try again.",
        )
        .into_response();
    }
    let id_hash = viewer.id_hash.clone();
    let ended = blocking(&state, move |store| {
        store.delete_session(&id_hash)?;
        store.audit("session", "logout", "", "")
    })
    .await;
    if let Err(e) = ended {
        return PageError::from(e).into_response();
    }
    let secure = state.clients.is_https(peer_in(&extensions), &headers);
    redirect_with_cookie("/login", &session_cookie("", secure))
}

/// A 303 to `location` that sets `cookie`.
fn redirect_with_cookie(location: &str, cookie: &str) -> Response {
    (
        StatusCode::SEE_OTHER,
        [
            (header::LOCATION, location.to_string()),
            (header::SET_COOKIE, cookie.to_string()),
            (header::CACHE_CONTROL, "no-store".to_string()),
        ],
    )
        .into_response()
}
