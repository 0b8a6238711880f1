//! The public routes of share links, `/s/<token>/…`: no sign-in, only the redacted view
//! of the link's scope. Unknown, expired and revoked tokens, and routes the scope does
//! not have, all get the same 404. Every answer carries the headers that keep it out of
//! search engines, referrers and caches, and every client address is rate-limited.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::http::auth::hash_secret;
use crate::http::error::ApiError;
use crate::http::pages::PageError;
use crate::http::pages::share_view::{self, render_public};
use crate::http::routes::{Route, mount};
use crate::http::state::AppState;
use crate::share::{RedactedView, Scope, redacted_bundle};

/// The policy of every public answer: nothing but this site's stylesheet and inline
/// styles (the pictures), no scripts, no forms, no frames.
pub const PUBLIC_CSP: &str = "default-src 'none'; style-src 'self' 'unsafe-inline'; \
    img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/// The public routes, rate-limited and with the public headers.
pub fn routes(state: AppState) -> Router<AppState> {
    mount(ROUTES).layer(middleware::from_fn_with_state(state, guard))
}

/// The share-link routes (see [`routes`] for the layer around them).
pub static ROUTES: &[Route] = &[
    Route::share("/s/{token}", || get(page)),
    Route::share("/s/{token}/data.json", || get(data)),
    Route::share("/s/{token}/picture.svg", || get(picture)),
    Route::share("/s/{token}/findings/{n}", || get(finding_page)),
    Route::share("/s/{token}/findings/{n}/picture.svg", || {
        get(finding_picture)
    }),
    Route::share("/s/{token}/bundle.tar.gz", || get(bundle)),
];

/// The one answer for anything that is not a live link's route.
pub fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "Not found: this link does not exist or is no longer shared.\n",
    )
        .into_response()
}

fn failed(error: impl std::fmt::Display) -> Response {
    tracing::error!(error = %error, "share link");
    (
        StatusCode::INTERNAL_SERVER_ERROR,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        "The shared view could not be made.\n",
    )
        .into_response()
}

/// Rate limit first, the public headers on whatever the answer is.
async fn guard(State(state): State<AppState>, request: Request, next: Next) -> Response {
    // Behind a trusted proxy, the address it names (else every reader shares one bucket).
    let client = state
        .clients
        .client_ip(crate::http::client::peer(&request), request.headers());
    let mut response = match state.public_limit.take(client) {
        Ok(()) => next.run(request).await,
        Err(wait) => {
            let seconds = wait.as_secs() + u64::from(wait.subsec_nanos() > 0);
            (
                StatusCode::TOO_MANY_REQUESTS,
                [
                    (header::RETRY_AFTER, seconds.max(1).to_string()),
                    (
                        header::CONTENT_TYPE,
                        "text/plain; charset=utf-8".to_string(),
                    ),
                ],
                "Too many requests: wait a little.\n",
            )
                .into_response()
        }
    };
    with_public_headers(&mut response);
    response
}

/// The headers of every public answer, set over any the handler set.
pub fn with_public_headers(response: &mut Response) {
    let headers = response.headers_mut();
    headers.insert(
        "x-robots-tag",
        HeaderValue::from_static("noindex, nofollow"),
    );
    headers.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(PUBLIC_CSP),
    );
    headers.insert(
        header::CACHE_CONTROL,
        HeaderValue::from_static("private, no-store"),
    );
}

/// The service's fallback: any other path under `/s/` gets a link's 404 with the public
/// headers, one under `/api/` the API's JSON error, the rest the UI's own error page
/// (not the browser's bare one).
pub async fn fallback(uri: axum::http::Uri) -> Response {
    let path = uri.path();
    if path.starts_with("/s/") {
        let mut response = not_found();
        with_public_headers(&mut response);
        response
    } else if path == "/api" || path.starts_with("/api/") {
        ApiError::not_found("route").into_response()
    } else {
        PageError::new(StatusCode::NOT_FOUND, "There is no page at this address.").into_response()
    }
}

/// A link's scope and its analysis's redacted view, or the 404.
async fn resolve(
    state: &AppState,
    token: &str,
) -> Result<(Scope, String, Arc<RedactedView>), Response> {
    // 256 random bits as hex: anything else is not a token, and costs no lookup.
    if token.len() != 64
        || !token
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    {
        return Err(not_found());
    }
    let hash = hash_secret(token);
    let (store, cache, views) = (
        state.store.clone(),
        state.cache.clone(),
        state.shares.clone(),
    );
    let found = tokio::task::spawn_blocking(move || {
        let Some(share) = store.live_share(&hash)? else {
            return Ok(None);
        };
        let Ok(scope) = serde_json::from_str::<Scope>(&share.scope_json) else {
            return Ok(None);
        };
        match views.get(store.as_ref(), &cache, &share.analysis_id) {
            Ok(view) => Ok(Some((scope, share.analysis_id, view))),
            Err(crate::share::ShareError::NotReady(_)) => Ok(None),
            Err(e) => Err(e),
        }
    })
    .await
    .map_err(failed)?;
    match found {
        Ok(Some(found)) => Ok(found),
        Ok(None) => Err(not_found()),
        Err(e) => Err(failed(e)),
    }
}

fn base(token: &str) -> String {
    format!("/s/{token}")
}

fn svg(svg: String) -> Response {
    (
        [(header::CONTENT_TYPE, "image/svg+xml; charset=utf-8")],
        svg,
    )
        .into_response()
}

/// Which links a public route serves.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Serves {
    /// Every scope.
    AnyScope,
    /// Analysis links only (their findings one by one).
    AnalysisOnly,
}

/// The answer of a route that shows part of a link's redacted view: the token resolved,
/// the scope checked, `make` run on a blocking thread (`None` is the 404), `answer` made
/// of what it gives.
async fn from_view<T: Send + 'static>(
    state: &AppState,
    token: &str,
    serves: Serves,
    make: impl FnOnce(&RedactedView, &Scope, &str) -> Option<T> + Send + 'static,
    answer: fn(T) -> Response,
) -> Response {
    let (scope, _, view) = match resolve(state, token).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if serves == Serves::AnalysisOnly && scope != Scope::Analysis {
        return not_found();
    }
    let base = base(token);
    match tokio::task::spawn_blocking(move || make(&view, &scope, &base)).await {
        Ok(Some(made)) => answer(made),
        Ok(None) => not_found(),
        Err(e) => failed(e),
    }
}

/// `GET /s/{token}`: the page of the link's scope.
async fn page(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let make = |view: &RedactedView, scope: &Scope, base: &str| {
        share_view::content(view, scope, Some(base))
    };
    from_view(&state, &token, Serves::AnyScope, make, render_public).await
}

/// `GET /s/{token}/data.json`: the scope as JSON.
async fn data(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let make =
        |view: &RedactedView, scope: &Scope, base: &str| share_view::json(view, scope, Some(base));
    let answer = |value: serde_json::Value| axum::Json(value).into_response();
    from_view(&state, &token, Serves::AnyScope, make, answer).await
}

/// `GET /s/{token}/picture.svg`: a finding's or a timeline's picture.
async fn picture(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let make = |view: &RedactedView, scope: &Scope, _: &str| share_view::picture(view, scope);
    from_view(&state, &token, Serves::AnyScope, make, svg).await
}

/// `GET /s/{token}/findings/{n}`: finding `n` of an analysis link.
async fn finding_page(
    State(state): State<AppState>,
    Path((token, n)): Path<(String, usize)>,
) -> Response {
    let make = move |view: &RedactedView, _: &Scope, _: &str| share_view::nth_finding(view, n);
    from_view(&state, &token, Serves::AnalysisOnly, make, render_public).await
}

/// `GET /s/{token}/findings/{n}/picture.svg`.
async fn finding_picture(
    State(state): State<AppState>,
    Path((token, n)): Path<(String, usize)>,
) -> Response {
    let make = move |view: &RedactedView, _: &Scope, _: &str| share_view::nth_picture(view, n);
    from_view(&state, &token, Serves::AnalysisOnly, make, svg).await
}

/// `GET /s/{token}/bundle.tar.gz`: the redacted copy of the whole upload (analysis
/// links only), made on first download and kept, streamed from the file.
async fn bundle(State(state): State<AppState>, Path(token): Path<String>) -> Response {
    let (scope, id, _) = match resolve(&state, &token).await {
        Ok(found) => found,
        Err(response) => return response,
    };
    if scope != Scope::Analysis {
        return not_found();
    }
    let (views, store) = (state.shares.clone(), state.store.clone());
    let limits = state.jobs.limits();
    let made =
        tokio::task::spawn_blocking(move || redacted_bundle(&views, store.as_ref(), limits, &id));
    let path = match made.await {
        Ok(Ok(path)) => path,
        Ok(Err(e)) => return failed(e),
        Err(e) => return failed(e),
    };
    let file = match tokio::fs::File::open(&path).await {
        Ok(file) => file,
        Err(e) => return failed(e),
    };
    let body = Body::from_stream(tokio_util::io::ReaderStream::new(file));
    (
        [
            (header::CONTENT_TYPE, "application/gzip"),
            (
                header::CONTENT_DISPOSITION,
                "attachment; filename=\"evacdoc-redacted.tar.gz\"",
            ),
        ],
        body,
    )
        .into_response()
}
