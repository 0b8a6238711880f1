//! Signing in with the service token (a session cookie, HttpOnly and SameSite=Strict) and
//! signing out (a form carrying the session's CSRF token).

use askama::Template;
use axum::Form;
use axum::extract::{Query, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::guard::{Viewer, safe_next};
use super::render::{self, Chrome, PageError};
use crate::http::api::analyses::blocking;
use crate::http::auth::{hash_secret, new_session, same_hash, session_cookie};
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

/// `POST /login`: the token checked; a session made and its cookie set.
pub async fn sign_in(State(state): State<AppState>, Form(form): Form<SignInForm>) -> Response {
    let next = safe_next(form.next.as_deref());
    let token = form.token.trim();
    if token.is_empty() || !same_hash(&hash_secret(token), &state.token_hash) {
        let _ = blocking(&state, |store| {
            store.audit("anonymous", "login-refused", "", "wrong token")
        })
        .await;
        return login_page(
            StatusCode::UNAUTHORIZED,
            next,
            Some("That is not this service's token. It is printed once when the service first starts, and kept in the data folder's token file.".to_string()),
        );
    }
    let (id, session) = new_session();
    let made = blocking(&state, move |store| {
        store.create_session(&session)?;
        store.audit("session", "login", "", "")
    })
    .await;
    if let Err(e) = made {
        return PageError::from(e).into_response();
    }
    redirect_with_cookie(&next, &session_cookie(&id))
}

/// `POST /logout`: the session ended and its cookie cleared, when the form carries the
/// session's CSRF token.
pub async fn sign_out(
    State(state): State<AppState>,
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
    redirect_with_cookie("/login", &session_cookie(""))
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
