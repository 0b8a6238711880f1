//! The OpenAPI document of `/api/v1`, generated from the handlers and their types.

use axum::Json;
use utoipa::OpenApi;
use utoipa::openapi::security::{HttpAuthScheme, HttpBuilder, SecurityScheme};

use super::api;

#[derive(OpenApi)]
#[openapi(
    info(title = "evacdoc", description = "Log correlation and diagnostics for OpenStack instance HA (Masakari)"),
    paths(
        api::analyses::upload,
        api::analyses::list,
        api::analyses::show,
        api::analyses::delete,
        api::findings::list,
        api::findings::show,
        api::findings::picture,
        api::remediation::remediate,
        api::recoveries::show,
        api::recoveries::events,
        api::watch::events,
        api::timeline::show,
        api::search::search,
        api::lines::lines,
        api::triage::show,
        api::bug_text::show,
        api::triage::submit,
        crate::http::share::api::create,
        crate::http::share::api::list,
        crate::http::share::api::revoke,
        crate::http::share::api::preview,
    ),
    modifiers(&BearerAuth),
    security(("bearer" = [])),
    tags((name = "analyses"), (name = "findings"), (name = "timeline"), (name = "search"), (name = "files"), (name = "triage"), (name = "shares"), (name = "recoveries"), (name = "watch"))
)]
#[derive(Debug)]
pub struct ApiDoc;

struct BearerAuth;

impl utoipa::Modify for BearerAuth {
    fn modify(&self, openapi: &mut utoipa::openapi::OpenApi) {
        let components = openapi.components.get_or_insert_with(Default::default);
        components.add_security_scheme(
            "bearer",
            SecurityScheme::Http(HttpBuilder::new().scheme(HttpAuthScheme::Bearer).build()),
        );
    }
}

/// `GET /api/v1/openapi.json`.
pub async fn document() -> Json<utoipa::openapi::OpenApi> {
    Json(ApiDoc::openapi())
}
