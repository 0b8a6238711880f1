//! The UI: server-rendered pages (askama templates in `web/templates/`), static assets
//! embedded in the binary (`web/static/`), signed in with the service token.

use axum::Router;

use super::state::AppState;

/// The routes of the UI pages and their assets.
pub fn routes() -> Router<AppState> {
    Router::new()
}
