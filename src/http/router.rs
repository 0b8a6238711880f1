//! Every route of the service and the layers around them.

use axum::Router;
use axum::extract::{DefaultBodyLimit, State};
use axum::http::{HeaderValue, header};
use axum::middleware;
use axum::response::IntoResponse;
use axum::routing::{get, post};
use tower_http::request_id::{MakeRequestUuid, PropagateRequestIdLayer, SetRequestIdLayer};
use tower_http::set_header::SetResponseHeaderLayer;
use tower_http::trace::TraceLayer;

use super::api::{analyses, findings, lines, search, timeline, triage};
use super::share::api as share_api;
use super::share::public as share_public;
use super::state::AppState;
use super::{auth, error, metrics, openapi, pages};

/// The service's router over `state`.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route(
            "/api/v1/analyses",
            post(analyses::upload)
                .layer(DefaultBodyLimit::disable())
                .get(analyses::list),
        )
        .route(
            "/api/v1/analyses/{id}",
            get(analyses::show).delete(analyses::delete),
        )
        .route("/api/v1/analyses/{id}/findings", get(findings::list))
        .route(
            "/api/v1/analyses/{id}/findings/{finding}",
            get(findings::show),
        )
        .route(
            "/api/v1/analyses/{id}/findings/{finding}/picture",
            get(findings::picture),
        )
        .route("/api/v1/analyses/{id}/timeline", get(timeline::show))
        .route("/api/v1/analyses/{id}/search", get(search::search))
        .route("/api/v1/analyses/{id}/triage", get(triage::show))
        .route(
            "/api/v1/triage",
            post(triage::submit).layer(DefaultBodyLimit::disable()),
        )
        .route(
            "/api/v1/analyses/{id}/shares",
            post(share_api::create).get(share_api::list),
        )
        .route(
            "/api/v1/analyses/{id}/shares/preview",
            post(share_api::preview),
        )
        .route(
            "/api/v1/analyses/{id}/shares/{share}",
            axum::routing::delete(share_api::revoke),
        )
        .route(
            "/api/v1/analyses/{id}/files/{file}/lines",
            get(lines::lines),
        )
        .route_layer(middleware::from_fn_with_state(state.clone(), auth::require));
    let public = Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(metrics_text))
        .route("/api/v1/openapi.json", get(openapi::document));
    Router::new()
        .merge(public)
        .merge(api)
        .merge(pages::routes())
        .merge(share_public::routes(state.clone()))
        .fallback(share_public::fallback)
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            metrics::track,
        ))
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
        .layer(TraceLayer::new_for_http())
        .with_state(state)
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
