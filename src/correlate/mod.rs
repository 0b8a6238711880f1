//! Joining what ingest read into one [`Analysis`](crate::correlate::Analysis): events in time order across hosts,
//! indexes from every id to its events, Masakari↔Nova call joins, clock skew, timelines.

pub mod analysis;
pub mod build;
pub mod document;
pub mod extract;
pub mod ids;
pub mod index;
pub mod joins;
pub mod recovery;
pub mod skew;
pub mod timeline;

pub use analysis::Analysis;
pub use build::{AnalyzeError, Options, analyze};
