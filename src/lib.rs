//! evacdoc: log correlation and diagnostics for OpenStack instance HA.
//!
//! The data flow (see README.md): `ingest` reads inputs, `evacdoc_parsers` turns lines
//! into records; later stages correlate, detect, triage and serve them.

/// Reading input files: the only module that opens them.
pub mod ingest;

pub use evacdoc_parsers as parsers;
