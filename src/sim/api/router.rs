//! Every route of the simulator, and the middleware around them.

use axum::Router;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, post, put};

use super::context::SimState;
use super::{
    cinder_attachments, cinder_volumes, keystone, middleware, nova_actions, nova_history,
    nova_servers, nova_services, nova_versions,
};

const NOVA: &str = "/compute/v2.1";
const CINDER: &str = "/volume/v3/{project}";

/// The simulator's router over `state`.
pub fn router(state: SimState) -> Router {
    let nova = |path: &str| format!("{NOVA}{path}");
    let cinder = |path: &str| format!("{CINDER}{path}");
    Router::new()
        .route("/identity", get(keystone::versions))
        .route("/identity/", get(keystone::versions))
        .route("/identity/v3", get(keystone::version))
        .route("/identity/v3/", get(keystone::version))
        .route(
            "/identity/v3/auth/tokens",
            post(keystone::issue).get(keystone::validate),
        )
        .route("/compute", get(nova_versions::versions))
        .route("/compute/", get(nova_versions::versions))
        .route(NOVA, get(nova_versions::version))
        .route(&nova("/"), get(nova_versions::version))
        .route(&nova("/servers"), get(nova_servers::brief))
        .route(&nova("/servers/detail"), get(nova_servers::detail))
        .route(&nova("/servers/{id}"), get(nova_servers::show))
        .route(&nova("/servers/{id}/action"), post(nova_actions::action))
        .route(
            &nova("/servers/{id}/os-volume_attachments"),
            get(nova_servers::volume_attachments),
        )
        .route(
            &nova("/servers/{id}/os-instance-actions"),
            get(nova_history::actions),
        )
        .route(
            &nova("/servers/{id}/os-instance-actions/{request_id}"),
            get(nova_history::action),
        )
        .route(&nova("/os-services"), get(nova_services::list))
        .route(&nova("/os-services/{id}"), put(nova_services::update))
        .route(&nova("/os-migrations"), get(nova_history::migrations))
        .route("/volume", get(cinder_volumes::versions))
        .route("/volume/", get(cinder_volumes::versions))
        .route("/volume/v3", get(cinder_volumes::version))
        .route("/volume/v3/", get(cinder_volumes::version))
        .route(&cinder("/volumes"), get(cinder_volumes::list))
        .route(&cinder("/volumes/detail"), get(cinder_volumes::list))
        .route(&cinder("/volumes/{id}"), get(cinder_volumes::show))
        .route(
            &cinder("/volumes/{id}/action"),
            post(cinder_volumes::action),
        )
        .route(&cinder("/attachments"), get(cinder_attachments::list))
        .route(
            &cinder("/attachments/detail"),
            get(cinder_attachments::list),
        )
        .route(
            &cinder("/attachments/{id}"),
            get(cinder_attachments::show).delete(cinder_attachments::delete),
        )
        .layer(from_fn_with_state(state.clone(), middleware::around))
        .with_state(state)
}
