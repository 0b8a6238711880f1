//! Triage: the known-bug catalog, whether the bundle's packages carry a fix, and the
//! reports (`evacdoc.analysis/v1` JSON, terminal text, Markdown for bug trackers), and the
//! triage of a bundle for bots: known-bug matches with confidence and reasons
//! (`evacdoc.triage/v1`) and a complete bug report.

pub mod catalog;
pub mod document;
pub mod launchpad;
pub mod matching;
pub mod release;
pub mod report;
pub mod version;

pub use catalog::{Catalog, CatalogError, attach_known_bugs};
pub use document::{TRIAGE_SCHEMA, Triage};
