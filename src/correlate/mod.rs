//! Joining what ingest read into one [`Analysis`](crate::correlate::Analysis): events in time order across hosts,
//! indexes from every id to its events, Masakari↔Nova call joins, clock skew, timelines.

pub mod analysis;
pub mod assemble;
pub mod calls;
pub mod document;
mod entry;
pub mod extract;
pub mod fence_log;
pub mod groups;
pub mod ids;
pub mod index;
pub mod joins;
pub mod keeper;
pub mod notification_kinds;
pub mod recovery;
pub mod recovery_outcome;
mod recovery_owner;
pub mod request_instances;
pub mod skew;
pub mod timeline;
pub mod watched;
pub mod window;
pub mod zones;

pub use analysis::Analysis;
pub use entry::{Inventory, correlate};
