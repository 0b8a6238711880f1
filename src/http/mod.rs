//! `evacdoc serve`: the HTTP API and the UI on axum. Handlers are thin: the store, the
//! jobs and the search index do the work.

pub mod api;
pub mod auth;
pub mod client;
pub mod error;
mod listen;
pub mod live;
pub mod metrics;
pub mod openapi;
pub mod pages;
pub mod remediation;
mod router;
pub mod routes;
mod server;
pub mod share;
pub mod sign_in_limit;
pub mod state;
pub mod token_use;
pub mod upload;
pub mod upload_parts;
pub mod upload_rate;

pub use router::router;
pub use server::{ServeConfig, ServeError, Service, start};
