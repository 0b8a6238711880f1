//! The UI: server-rendered pages (askama templates in `web/templates/`), static assets
//! embedded in the binary (`web/static/`), signed in with the service token.
//!
//! One file per page; `guard` decides who may see them, `render` sends them with the
//! page headers (CSP, no caching), [`format`] holds the small formatting helpers the
//! pages share.

mod analysis;
mod assets;
mod bug_panel;
mod config_view;
mod environment_view;
pub(crate) mod escaper;
mod file;
mod finding;
mod format;
mod guard;
mod home;
mod kept;
mod line_markdown;
mod login;
mod read_summary;
mod recoveries_view;
mod render;
mod rows;
mod search;
mod search_parts;
mod share_preview;
pub(crate) mod share_view;
mod timeline;
mod watch;

use axum::routing::{get, post};

use super::routes::Route;

pub use guard::{Viewer, safe_next};
pub use render::{Chrome, PageError};

/// The UI pages (a signed-in browser) and what anyone may load: sign-in, assets.
pub static ROUTES: &[Route] = &[
    Route::public("/login", || get(login::page).post(login::sign_in)),
    Route::page("/logout", || post(login::sign_out)),
    Route::page("/", || get(home::page)),
    Route::page("/analyses/{id}", || get(analysis::page)),
    Route::page("/analyses/{id}/findings/{finding}", || get(finding::page)),
    Route::page("/analyses/{id}/timeline", || get(timeline::page)),
    Route::page("/analyses/{id}/search", || get(search::page)),
    Route::page("/analyses/{id}/files/{file}", || get(file::page)),
    Route::page("/analyses/{id}/kept", || get(kept::page)),
    Route::page("/analyses/{id}/share", || {
        get(share_preview::page).post(share_preview::create)
    }),
    Route::page("/analyses/{id}/shares/{share}/revoke", || {
        post(share_preview::revoke)
    }),
    Route::page("/watch", || get(watch::page)),
    Route::public("/static/{name}", || get(assets::asset)),
];
