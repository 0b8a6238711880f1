//! Who may see a page: a browser signed in with the service token (its session cookie).
//! Anyone else is sent to the sign-in page, with the page they asked for to come back to.

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use axum::http::{Method, StatusCode, header};
use axum::response::{IntoResponse, Response};

use super::format::encode_component;
use super::render::PageError;
use crate::http::api::analyses::blocking;
use crate::http::auth::{SESSION_COOKIE, cookie, hash_secret};
use crate::http::state::AppState;

/// A signed-in browser.
#[derive(Debug, Clone)]
pub struct Viewer {
    /// Its session's CSRF token (forms and the upload carry it).
    pub csrf: String,
    /// The hash of its session id (what the store keys sessions by).
    pub id_hash: String,
}

impl FromRequestParts<AppState> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, state: &AppState) -> Result<Viewer, Response> {
        // Only a page can be come back to: a form sent signed out starts again at home.
        let asked = if parts.method == Method::GET {
            parts.uri.path_and_query().map_or("/", |p| p.as_str())
        } else {
            "/"
        }
        .to_string();
        let Some(id) = cookie(&parts.headers, SESSION_COOKIE).filter(|id| !id.is_empty()) else {
            return Err(to_login(&asked));
        };
        let id_hash = hash_secret(id);
        let key = id_hash.clone();
        let session = blocking(state, move |store| store.session(&key))
            .await
            .map_err(|e| PageError::from(e).into_response())?;
        match session {
            Some(session) => Ok(Viewer {
                csrf: session.csrf,
                id_hash,
            }),
            None => Err(to_login(&asked)),
        }
    }
}

/// A redirection to the sign-in page that comes back to `asked`.
fn to_login(asked: &str) -> Response {
    let next = safe_next(Some(asked));
    let location = if next == "/" {
        "/login".to_string()
    } else {
        format!("/login?next={}", encode_component(&next))
    };
    (StatusCode::SEE_OTHER, [(header::LOCATION, location)]).into_response()
}

/// Where to go after signing in: `next` when it is a path of this site (`/...`, not
/// `//host` nor `/\host`, which browsers read as another site), else `/`.
pub fn safe_next(next: Option<&str>) -> String {
    let Some(next) = next else {
        return "/".to_string();
    };
    let same_site = next.starts_with('/')
        && !next.starts_with("//")
        && !next.starts_with("/\\")
        && !next.contains('\\')
        && next.len() <= 2000
        && !next.chars().any(char::is_control);
    if same_site && !next.starts_with("/login") {
        next.to_string()
    } else {
        "/".to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_paths_of_this_site_are_followed_after_signing_in() {
        assert_eq!(
            safe_next(Some("/analyses/x?q=a%20b")),
            "/analyses/x?q=a%20b"
        );
        assert_eq!(safe_next(Some("https://evil.example/")), "/");
        assert_eq!(safe_next(Some("//evil.example/")), "/");
        assert_eq!(safe_next(Some("/\\evil.example/")), "/");
        assert_eq!(safe_next(Some("/a\\b")), "/");
        assert_eq!(safe_next(Some("/a\nb")), "/");
        assert_eq!(safe_next(Some("javascript:alert(1)")), "/");
        assert_eq!(safe_next(Some("/login?next=/login")), "/");
        assert_eq!(safe_next(None), "/");
    }

    #[test]
    fn the_way_to_sign_in_keeps_the_page_asked_for() {
        let response = to_login("/analyses/1/search?q=a b&page=2");
        assert_eq!(response.status(), StatusCode::SEE_OTHER);
        let location = response.headers()[header::LOCATION].to_str().unwrap();
        assert_eq!(
            location,
            "/login?next=%2Fanalyses%2F1%2Fsearch%3Fq%3Da%20b%26page%3D2"
        );
        assert_eq!(
            to_login("/").headers()[header::LOCATION].to_str().unwrap(),
            "/login"
        );
    }
}
