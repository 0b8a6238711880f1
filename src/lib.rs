//! evacdoc: log correlation and diagnostics for OpenStack instance HA.
//!
//! The data flow (see README.md): `ingest` finds and reads the inputs, `evacdoc_parsers`
//! turns lines into records, `correlate` joins them into one [`correlate::Analysis`].

/// Joining records into one analysis: events, indexes, joins, clock skew, timelines.
pub mod correlate;
/// Detectors: what went wrong, with the evidence.
pub mod detect;
/// Reading input files: the only module that opens them.
pub mod ingest;
/// Hosts, services, ids and events.
pub mod model;
/// The library entry point: inputs and options in, analysis and findings out.
pub mod run;
/// Known bugs, fix status and reports.
pub mod triage;

pub use evacdoc_parsers as parsers;
