//! Every route of the service and the layers around them.

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, header};
use axum::middleware;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use tower_http::catch_panic::CatchPanicLayer;
use tower_http::compression::CompressionLayer;
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use super::api::{
    analyses, bug_text, findings, lines, recoveries, remediation, search, timeline, triage, watch,
};
use super::routes::{Route, mount};
use super::share::api as share_api;
use super::share::public as share_public;
use super::state::AppState;
use super::{auth, error, metrics, openapi, pages};

/// The private API: a bearer token or a session (see [`auth::require`]).
pub static API_ROUTES: &[Route] = &[
    Route::private("/api/v1/analyses", || {
        post(analyses::upload)
            .layer(DefaultBodyLimit::disable())
            .get(analyses::list)
    }),
    Route::private("/api/v1/analyses/{id}", || {
        get(analyses::show).delete(analyses::delete)
    }),
    Route::private("/api/v1/analyses/{id}/findings", || get(findings::list)),
    Route::private("/api/v1/analyses/{id}/findings/{finding}", || {
        get(findings::show)
    }),
    Route::private("/api/v1/analyses/{id}/findings/{finding}/picture", || {
        get(findings::picture)
    }),
    Route::private(
        "/api/v1/analyses/{id}/findings/{finding}/remediation",
        || post(remediation::remediate),
    ),
    Route::private("/api/v1/recoveries/{recovery}", || get(recoveries::show)),
    Route::private("/api/v1/recoveries/{recovery}/events", || {
        get(recoveries::events)
    }),
    Route::private("/api/v1/watch/events", || get(watch::events)),
    Route::private("/api/v1/analyses/{id}/timeline", || get(timeline::show)),
    Route::private("/api/v1/analyses/{id}/search", || get(search::search)),
    Route::private("/api/v1/analyses/{id}/triage", || get(triage::show)),
    Route::private("/api/v1/analyses/{id}/bug-text", || get(bug_text::show)),
    Route::private("/api/v1/triage", || {
        post(triage::submit).layer(DefaultBodyLimit::disable())
    }),
    Route::private("/api/v1/analyses/{id}/shares", || {
        post(share_api::create).get(share_api::list)
    }),
    Route::private("/api/v1/analyses/{id}/shares/preview", || {
        post(share_api::preview)
    }),
    Route::private("/api/v1/analyses/{id}/shares/{share}", || {
        axum::routing::delete(share_api::revoke)
    }),
    Route::private("/api/v1/analyses/{id}/files/{file}/lines", || {
        get(lines::lines)
    }),
];

/// What anyone may read: health, metrics and the API document.
pub static PUBLIC_ROUTES: &[Route] = &[
    Route::public("/healthz", || get(healthz)),
    Route::public("/metrics", || get(metrics_text)),
    Route::public("/api/v1/openapi.json", || get(openapi::document)),
];

/// The service's router over `state`, built from the route tables ([`crate::http::routes::table`]).
pub fn router(state: AppState) -> Router {
    layered(routes(&state), state)
}

/// Every route of the tables, before the layers around them.
fn routes(state: &AppState) -> Router<AppState> {
    let api =
        mount(API_ROUTES).route_layer(middleware::from_fn_with_state(state.clone(), auth::require));
    Router::new()
        .merge(mount(PUBLIC_ROUTES))
        .merge(api)
        .merge(mount(pages::ROUTES))
        .merge(share_public::routes(state.clone()))
        .fallback(share_public::fallback)
}

/// `routes` with the layers every answer goes through. Answers are gzipped when the
/// client accepts it (pages and timelines shrink tenfold; event streams, images and tiny
/// bodies are left alone by the layer's default predicate). A panic in a handler is caught
/// and answered as an internal error (500, the generic body with the request id): it
/// ends that request only, and the service goes on serving. It is caught inside the
/// metrics (so they count it) and again outside the routes (the fallback, middleware).
fn layered(routes: Router<AppState>, state: AppState) -> Router {
    routes
        .route_layer(CatchPanicLayer::custom(answer_panic))
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
        .layer(CatchPanicLayer::custom(answer_panic))
        .layer(middleware::from_fn(error::with_request_id))
        .layer(PropagateRequestIdLayer::x_request_id())
        .layer(SetRequestIdLayer::x_request_id(MakeRequestUuid))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_CONTENT_TYPE_OPTIONS,
            HeaderValue::from_static("nosniff"),
        ))
        .layer(SetResponseHeaderLayer::if_not_present(
            header::X_FRAME_OPTIONS,
            HeaderValue::from_static("DENY"),
        ))
        .layer(CompressionLayer::new())
        .layer(TraceLayer::new_for_http())
        .with_state(state)
}

/// The answer to a handler's panic: logged with its message, answered without it.
fn answer_panic(panic: Box<dyn std::any::Any + Send + 'static>) -> Response {
    let message = crate::panics::message(panic.as_ref());
    error::ApiError::internal(format!("a handler panicked: {message}")).into_response()
}

/// `GET /healthz`: the service answers and its store is readable.
async fn healthz(State(state): State<AppState>) -> impl IntoResponse {
    let store = state.store.clone();
    match tokio::task::spawn_blocking(move || store.counts_by_status()).await {
        Ok(Ok(_)) => (axum::http::StatusCode::OK, "ok\n"),
        _ => (
            axum::http::StatusCode::SERVICE_UNAVAILABLE,
            "store unavailable\n",
        ),
    }
}

/// `GET /metrics`: Prometheus text format.
async fn metrics_text(State(state): State<AppState>) -> impl IntoResponse {
    let store = state.store.clone();
    let counts = tokio::task::spawn_blocking(move || store.counts_by_status())
        .await
        .ok()
        .and_then(Result::ok)
        .unwrap_or_default();
    (
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        state.metrics.render(&counts, &state.jobs.counters),
    )
}

#[cfg(test)]
#[path = "router_tests.rs"]
mod tests;
