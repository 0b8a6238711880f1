//! The HTTP side of the simulator: Keystone under `/identity`, Nova under `/compute`,
//! Cinder under `/volume`, one file per resource, and the middleware around them all.

mod cinder_attachments;
mod cinder_volumes;
pub mod context;
mod keystone;
mod middleware;
mod nova_actions;
mod nova_history;
mod nova_servers;
mod nova_services;
mod nova_versions;
mod router;
mod views;

pub use router::router;
