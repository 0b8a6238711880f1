//! evacdoc: log correlation and diagnostics for OpenStack instance HA.
//!
//! The data flow (see README.md): [`run::analyze_inputs`] is the one entry point. `ingest`
//! finds and reads the inputs (the only module that opens them), `evacdoc_parsers` turns
//! bytes into records, which are pushed into sinks ([`ingest::sink::RecordSink`]: the event
//! keeper now, the search indexer and the live watcher later) in one pass; `correlate`
//! assembles the kept events into one [`correlate::Analysis`], `detect` finds what went
//! wrong and `triage` attaches the known bugs. `correlate` and `detect` are pure functions
//! over data.

/// Where uploads, analysis documents and search indexes are kept: a folder, S3 or Swift.
pub mod blobs;
/// Joining records into one analysis: events, indexes, joins, clock skew, timelines.
pub mod correlate;
/// Detectors: what went wrong, with the evidence.
pub mod detect;
/// `evacdoc serve`: the HTTP API and the UI.
pub mod http;
/// The full-text search index of every record (the only module that uses tantivy).
pub mod index;
/// Reading input files: the only module that opens them.
pub mod ingest;
/// The service's analysis jobs: queue, workers, progress, loaded results.
pub mod jobs;
/// The process's resident memory, for the stage logs.
pub mod memory;
/// Hosts, services, ids and events.
pub mod model;
/// An OpenStack cloud as the executor sees it (`cloud`), and its client: clouds.yaml,
/// Keystone sessions, Nova and Cinder calls. Used by `recovery` and the Swift blob store.
pub mod openstack;
/// What a caught panic said (handlers and jobs contain theirs).
pub mod panics;
/// The recovery executor: plan, apply and journal a host recovery against OpenStack.
pub mod recovery;
/// Consistent pseudonymisation of a bundle: the engine (identification, maps, views).
pub mod redact;
/// `evacdoc redact` and a share's bundle: a redacted copy of a whole bundle, read once.
pub mod redacted_copy;
/// The library entry point: inputs and options in, analysis and findings out.
pub mod run;
/// Public share links: scopes, the redacted view of an analysis, the redacted bundle.
pub mod share;
/// An OpenStack simulator (Keystone, Nova, Cinder subsets) with scripted faults, for
/// the recovery executor's tests and demos (`evacdoc sim`).
pub mod sim;
/// The embedded store of `evacdoc serve`: analyses, job queue, findings, sessions, audit
/// log, and the data folder's layout. The only module that knows SQL.
pub mod store;
/// Known bugs, fix status and reports.
pub mod triage;
/// Acting on findings: a policy, signed webhooks, remediation, guards, audit.
pub mod trigger;
/// Control characters of log text made visible in everything shown to people.
pub mod visible;
/// Following live logs: findings as their evidence completes (`evacdoc watch`).
pub mod watch;

pub use evacdoc_parsers as parsers;
