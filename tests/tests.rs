//! Integration tests of the `evacdoc` binary: one test binary, one module per area.

// A panic in a test is a failed test, not a crash on input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// The analysis of the sample scenarios.
mod analysis;
/// `evacdoc analyze` formats and exit codes.
mod analyze_cli;
/// `evacdoc parse` on committed samples and on bad input.
mod cli_parse;
/// Kubernetes CRI and Docker `json-file` container logs.
mod container_logs;
/// Control bytes of log lines shown as escapes; reports name the bundle, not its folders.
mod control_characters;
/// Detectors over every scenario: expected findings, evidence, golden JSON.
mod detect;
/// The failure classes beyond the first three: finding, host, evidence; none on look-alikes.
mod detect_classes;
/// An upstream CI job's DevStack logs (`screen-*.txt`, journal lines without a year).
mod devstack_logs;
/// The analysis document: serialized, read back, detected again.
mod document;
/// Hostile archives and files, through the CLI and the service; the service under faults.
mod hostile;
/// Host identity on bundles shaped unlike our samples.
mod hosts;
/// Masakari's host-failure flow, the baseline the executor is compared with.
mod masakari_flow;
/// Logs that interleave several services' lines (journal, syslog, kubectl --prefix).
mod merged_sources;
/// oslo.log lines under other time formats (`T`, `%(isotime)s` with any offset).
mod oslo_date_formats;
/// Pictures of findings and `timeline --format svg`.
mod picture;
/// Bundles produced by real Keystone, Nova and Masakari, against their ground truth.
mod realstack;
/// The recovery executor against the simulator: SRU plan, race, BFV, faults, speed.
mod recovery;
/// The recovery executor's OpenStack client against the simulator.
mod recovery_client;
/// InstanceHA's guards, a host forced up while evacuations remain, fencing warnings.
mod recovery_guards;
/// What became of each instance of the scenarios' recoveries.
mod recovery_outcomes;
/// The executor's OpenStack client follows no redirect, at sign-in or on a call.
mod recovery_redirects;
/// `evacdoc redact`: same findings on pseudonymous hosts, nothing left behind.
mod redact;
/// `evacdoc search`: the index built with the analysis, queried.
mod search;
/// Literal search against `grep -F` on pieces cut at random from real lines.
mod search_literals;
/// `evacdoc serve`: the HTTP API in-process and on a loopback port.
mod serve_api;
/// `evacdoc serve` in headless Chromium: sign in, upload, finding, picture, search.
mod serve_browser;
/// Upload to a copied, redacted bug text in headless Chromium.
mod serve_browser_bug;
/// Chromium: several sosreports chosen at once, a pasted id searched, bars and ±30 s.
mod serve_browser_search;
/// `evacdoc serve` against trickling uploads and guessed tokens; Secure cookies; the token
/// printed until used.
mod serve_connections;
/// Hostile searches: bounded query text and pages, answered 4xx on the API and the UI.
mod serve_limits;
/// Several files in one upload: one analysis, bounded, errors naming the part.
mod serve_multi_upload;
/// The UI pages of `evacdoc serve`: sign in and out, an uploaded scenario's pages.
mod serve_pages;
/// Remediation of findings through the service: refusals, the run against the simulator.
mod serve_remediation;
/// `evacdoc serve` killed during a job, and started again.
mod serve_restart;
/// Every route from the route table, with and without credentials.
mod serve_routes;
/// Two API processes and three workers on a throwaway PostgreSQL, one worker killed.
mod serve_scale;
/// Search through the service: pasted ids, filters, facets, histogram, time ranges, page.
mod serve_search;
/// Uploads that are not bundles, members with names too long, work files under `--data`.
mod serve_uploads;
/// The service's live watcher and the latency from a failed recovery to its remediation.
mod serve_watch;
/// The support engineer's workbench: recoveries first, honest states, paged and
/// compressed timelines, the redacted bug text, kept lines, HTML 404s.
mod serve_workbench;
/// Share links: redacted public views, access, rate limit.
mod share;
/// `evacdoc sim`: Keystone, Nova and Cinder on a loopback port.
mod sim;
/// Clock skew on copies of scenarios with moved clocks.
mod skew;
/// Clock skew pinned by two pairs tied by ids.
mod skew_ids;
/// `evacdoc timeline` on the sample scenarios.
mod timeline;
/// `evacdoc triage` and `/api/v1/triage`: known-bug matches, environment, bug report.
mod triage;
/// Shared helpers: run the binary, find the samples, a listener that counts connections.
/// Issue 29's classes on bundles of an independent generator, and the gaps it found.
mod unseen29;
mod util;
/// `evacdoc watch`: live logs, rotations and truncations, findings once, bounded memory.
mod watch;
/// The trigger of `evacdoc watch`: signed webhooks, guards, remediation, audit.
mod watch_triggers;
