//! The UI: server-rendered pages (askama templates in `web/templates/`), static assets
//! embedded in the binary (`web/static/`), signed in with the service token.
//!
//! One file per page; `guard` decides who may see them, `render` sends them with the
//! page headers (CSP, no caching), [`format`] holds the small formatting helpers the
//! pages share.

mod analysis;
mod assets;
mod config_view;
mod file;
mod finding;
mod format;
mod guard;
mod home;
mod login;
mod render;
mod rows;
mod search;
mod share_preview;
pub(crate) mod share_view;
mod timeline;

use axum::Router;
use axum::routing::get;

use super::state::AppState;

pub use guard::{Viewer, safe_next};
pub use render::{Chrome, PageError};

/// The routes of the UI pages and their assets.
pub fn routes() -> Router<AppState> {
    Router::new()
        .route("/login", get(login::page).post(login::sign_in))
        .route("/logout", axum::routing::post(login::sign_out))
        .route("/", get(home::page))
        .route("/analyses/{id}", get(analysis::page))
        .route("/analyses/{id}/findings/{finding}", get(finding::page))
        .route("/analyses/{id}/timeline", get(timeline::page))
        .route("/analyses/{id}/search", get(search::page))
        .route("/analyses/{id}/files/{file}", get(file::page))
        .route(
            "/analyses/{id}/share",
            get(share_preview::page).post(share_preview::create),
        )
        .route(
            "/analyses/{id}/shares/{share}/revoke",
            axum::routing::post(share_preview::revoke),
        )
        .route("/static/{name}", get(assets::asset))
}
