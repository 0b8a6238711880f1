//! The JSON API under `/api/v1`, one module per resource.

pub mod analyses;
pub mod bug_text;
pub mod findings;
pub mod lines;
pub mod recoveries;
pub mod remediation;
pub mod search;
pub mod timeline;
pub mod timeline_window;
pub mod triage;
pub mod watch;
