//! The route table: every route of the service with who may use it. The router is built
//! from these tables alone, so a test that walks them (`tests/serve_routes.rs`) covers
//! every route there is, and a new route cannot be added without saying who may use it.

use axum::Router;
use axum::routing::MethodRouter;

use super::state::AppState;

/// Who may use a route.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// The API: a bearer token, or a session (with its CSRF header on changes).
    Private,
    /// A UI page: a signed-in browser; anyone else is sent to sign in.
    Page,
    /// Anyone: health, metrics, the API document, signing in, static assets.
    Public,
    /// Anyone holding a live share token; any other token gets the same 404.
    Share,
}

/// One route: its path (axum syntax), who may use it and its handlers.
#[derive(Debug)]
pub struct Route {
    /// The path, with `{name}` parameters.
    pub path: &'static str,
    /// Who may use it.
    pub access: Access,
    /// The handlers per method (a function, so the table can be a static).
    pub handlers: fn() -> MethodRouter<AppState>,
}

impl Route {
    /// A route of the API ([`Access::Private`]).
    pub const fn private(path: &'static str, handlers: fn() -> MethodRouter<AppState>) -> Route {
        Route::new(path, Access::Private, handlers)
    }

    /// A UI page ([`Access::Page`]).
    pub const fn page(path: &'static str, handlers: fn() -> MethodRouter<AppState>) -> Route {
        Route::new(path, Access::Page, handlers)
    }

    /// A route anyone may use ([`Access::Public`]).
    pub const fn public(path: &'static str, handlers: fn() -> MethodRouter<AppState>) -> Route {
        Route::new(path, Access::Public, handlers)
    }

    /// A share-link route ([`Access::Share`]).
    pub const fn share(path: &'static str, handlers: fn() -> MethodRouter<AppState>) -> Route {
        Route::new(path, Access::Share, handlers)
    }

    const fn new(
        path: &'static str,
        access: Access,
        handlers: fn() -> MethodRouter<AppState>,
    ) -> Route {
        Route {
            path,
            access,
            handlers,
        }
    }
}

/// Every route of the service, all tables together.
pub fn table() -> impl Iterator<Item = &'static Route> {
    super::router::API_ROUTES
        .iter()
        .chain(super::router::PUBLIC_ROUTES)
        .chain(super::pages::ROUTES)
        .chain(super::share::public::ROUTES)
}

/// A router of the routes of `table`.
pub(crate) fn mount(table: &'static [Route]) -> Router<AppState> {
    table.iter().fold(Router::new(), |router, route| {
        router.route(route.path, (route.handlers)())
    })
}
