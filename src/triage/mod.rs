//! Triage: the known-bug catalog, whether the bundle's packages carry a fix, and the
//! reports (`evacdoc.analysis/v1` JSON, terminal text, Markdown for bug trackers).

pub mod catalog;
pub mod report;
pub mod version;

pub use catalog::{Catalog, CatalogError, attach_known_bugs};
