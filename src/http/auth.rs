//! Who may use the private routes: the bearer token (`EVACDOC_TOKEN`, or made at first start
//! and kept under `--data`), or a browser session made by signing in with it (an HttpOnly,
//! SameSite=Strict cookie; requests that change something also carry the session's CSRF
//! token).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::Response;
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::sign_in_limit;
use super::state::AppState;
use crate::store::{DataPaths, Session, Store, StoreError, read_token, write_token};

/// The session cookie's name.
pub const SESSION_COOKIE: &str = "evacdoc_session";
/// The header carrying a session's CSRF token on requests that change something.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// How long a browser session lasts.
pub const SESSION_HOURS: i64 = 12;

/// Where the token came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TokenSource {
    /// `EVACDOC_TOKEN`.
    Environment,
    /// The token file under `--data`, from an earlier start.
    File,
    /// Made now and written to the token file (print it once).
    Generated,
}

/// A random secret of 32 bytes, hex.
pub fn random_secret() -> String {
    let mut bytes = [0u8; 32];
    rand::fill(&mut bytes);
    hex::encode(bytes)
}

/// SHA-256 of a secret, hex: what is stored and compared, never the secret itself.
pub fn hash_secret(secret: &str) -> String {
    hex::encode(Sha256::digest(secret.as_bytes()))
}

/// The service token: `EVACDOC_TOKEN` if set, else the data folder's token file, else a
/// new one written there (mode 0600).
pub fn load_or_create_token(
    env: Option<String>,
    paths: &DataPaths,
) -> Result<(String, TokenSource), StoreError> {
    if let Some(token) = env.filter(|t| !t.trim().is_empty()) {
        return Ok((token.trim().to_string(), TokenSource::Environment));
    }
    if let Some(token) = read_token(paths)? {
        return Ok((token, TokenSource::File));
    }
    let token = random_secret();
    write_token(paths, &token)?;
    Ok((token, TokenSource::Generated))
}

/// Who made a request.
#[derive(Debug, Clone)]
pub enum Principal {
    /// The bearer token.
    Token,
    /// A signed-in browser; its CSRF token.
    Session { csrf: String },
}

impl Principal {
    /// The name in the audit log.
    pub fn actor(&self) -> &'static str {
        match self {
            Principal::Token => "token",
            Principal::Session { .. } => "session",
        }
    }
}

/// The bearer token of a request, if it has one.
fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let (scheme, token) = value.split_once(' ')?;
    scheme.eq_ignore_ascii_case("bearer").then(|| token.trim())
}

/// The value of a cookie.
pub fn cookie<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(k, _)| *k == name)
        .map(|(_, v)| v)
}

/// Compares two hex hashes in time that does not depend on where they differ.
pub(crate) fn same_hash(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

/// The principal of a request: its bearer token, else its session cookie. A bearer token
/// is a try at the token: a client past its allowance of wrong ones gets 429 before its
/// token is looked at ([`super::sign_in_limit`]).
pub async fn principal(
    state: &AppState,
    peer: Option<std::net::IpAddr>,
    headers: &HeaderMap,
) -> Result<Option<Principal>, ApiError> {
    if let Some(token) = bearer(headers) {
        let attempt = sign_in_limit::attempt(state, peer, headers).map_err(|seconds| ApiError {
            retry_after: Some(seconds),
            ..ApiError::new(
                StatusCode::TOO_MANY_REQUESTS,
                "too_many_attempts",
                "too many wrong tokens from this address: wait before trying again",
            )
        })?;
        if !same_hash(&hash_secret(token), &state.token_hash) {
            return Ok(None);
        }
        attempt.succeeded(state);
        state.token_use.signed_in().await;
        return Ok(Some(Principal::Token));
    }
    let Some(id) = cookie(headers, SESSION_COOKIE) else {
        return Ok(None);
    };
    let id_hash = hash_secret(id);
    let store: Arc<dyn Store> = state.store.clone();
    let session = tokio::task::spawn_blocking(move || store.session(&id_hash)).await??;
    Ok(session.map(|s| Principal::Session { csrf: s.csrf }))
}

/// Middleware of the private API routes: a valid token or session, and for a session a
/// request that changes something must carry its CSRF token.
pub async fn require(State(state): State<AppState>, mut request: Request, next: Next) -> Response {
    use axum::response::IntoResponse as _;
    let peer = super::client::peer(&request);
    let principal = match principal(&state, peer, request.headers()).await {
        Ok(Some(p)) => p,
        Ok(None) => {
            let mut response = ApiError::unauthorized().into_response();
            response.headers_mut().insert(
                header::WWW_AUTHENTICATE,
                header::HeaderValue::from_static("Bearer"),
            );
            return response;
        }
        Err(e) => return e.into_response(),
    };
    if let Principal::Session { csrf } = &principal {
        let safe = matches!(
            *request.method(),
            Method::GET | Method::HEAD | Method::OPTIONS
        );
        let sent = request
            .headers()
            .get(CSRF_HEADER)
            .and_then(|v| v.to_str().ok());
        if !safe && sent.is_none_or(|s| !same_hash(s, csrf)) {
            return ApiError::forbidden("missing or wrong CSRF token").into_response();
        }
    }
    request.extensions_mut().insert(principal);
    next.run(request).await
}

/// A new browser session: its cookie value (the secret) and what is stored (its hash).
pub fn new_session() -> (String, Session) {
    let id = random_secret();
    let now = jiff::Timestamp::now();
    let expires = now
        .checked_add(jiff::SignedDuration::from_hours(SESSION_HOURS))
        .unwrap_or(now);
    let session = Session {
        id_hash: hash_secret(&id),
        csrf: random_secret(),
        created_at: now.to_string(),
        expires_at: expires.to_string(),
    };
    (id, session)
}

/// The `Set-Cookie` value of a session (or of its removal, with an empty id); `Secure`
/// when the browser reached the service over HTTPS, so that it is never sent in clear.
pub fn session_cookie(id: &str, secure: bool) -> String {
    let max_age = if id.is_empty() {
        0
    } else {
        SESSION_HOURS * 3600
    };
    let secure = if secure { "; Secure" } else { "" };
    format!("{SESSION_COOKIE}={id}; Path=/; HttpOnly; SameSite=Strict; Max-Age={max_age}{secure}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_token_comes_from_the_environment_then_the_file_then_is_made_once() {
        let dir = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(dir.path());
        let (made, source) = load_or_create_token(None, &paths).unwrap();
        assert_eq!(source, TokenSource::Generated);
        assert_eq!(made.len(), 64);
        let (again, source) = load_or_create_token(None, &paths).unwrap();
        assert_eq!((again.as_str(), source), (made.as_str(), TokenSource::File));
        let (env, source) = load_or_create_token(Some("s3cret".into()), &paths).unwrap();
        assert_eq!((env.as_str(), source), ("s3cret", TokenSource::Environment));
        // The environment's token is not written over the file's.
        assert_eq!(read_token(&paths).unwrap().as_deref(), Some(made.as_str()));
    }

    #[test]
    fn bearer_and_cookies_are_read_from_headers() {
        let mut headers = HeaderMap::new();
        headers.insert(header::AUTHORIZATION, "Bearer  abc ".parse().unwrap());
        headers.insert(
            header::COOKIE,
            "a=1; evacdoc_session=xyz; b=2".parse().unwrap(),
        );
        assert_eq!(bearer(&headers), Some("abc"));
        assert_eq!(cookie(&headers, SESSION_COOKIE), Some("xyz"));
        assert_eq!(cookie(&headers, "c"), None);
        headers.insert(header::AUTHORIZATION, "Basic abc".parse().unwrap());
        assert_eq!(bearer(&headers), None);
    }

    #[test]
    fn hashes_compare_whole() {
        let a = hash_secret("one");
        assert!(same_hash(&a, &hash_secret("one")));
        assert!(!same_hash(&a, &hash_secret("two")));
        assert!(!same_hash(&a, &a[..10]));
    }

    #[test]
    fn session_cookies_are_http_only_and_strict() {
        let (id, session) = new_session();
        assert_eq!(session.id_hash, hash_secret(&id));
        assert_ne!(session.csrf, id);
        let set = session_cookie(&id, false);
        assert!(
            set.contains("HttpOnly") && set.contains("SameSite=Strict"),
            "{set}"
        );
        assert!(!set.contains("Secure"), "{set}");
        assert!(session_cookie(&id, true).ends_with("; Secure"));
        assert!(session_cookie("", false).contains("Max-Age=0"));
    }
}
