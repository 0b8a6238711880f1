//! Public share links (issue 10): what a link shows (its [`Scope`](crate::share::Scope)),
//! the redacted view of an analysis every link of it is served from
//! ([`RedactedView`](crate::share::RedactedView), built once with the analysis's case map
//! and kept), and the redacted bundle an analysis link offers for download.
//!
//! The case map is kept in the store (a row per analysis, `Store::merge_case_map`), so
//! that every API process of a scale-out serves a link with the same pseudonyms: what a
//! view or a bundle gives new is merged into it, and a value keeps the pseudonym it was
//! first given. A private copy of it and the seeds live in the analysis's folder under
//! `share/` (mode 0600), never served: a later view, the bundle and (when asked) a later
//! upload of the same case reuse the map, so one real value has one pseudonym everywhere.
//!
//! Every text a link shows goes through the default-deny public step
//! ([`crate::redact::public`]): words not known to be safe get pseudonyms, config values
//! are shown only for allow-listed options, the upload's name reads `bundle`. Besides,
//! what a link replaces, everywhere it shows text (evidence and timeline lines, their
//! further lines, config values, finding titles, summaries, explanations, remedies,
//! actions, picture labels, file paths): host names, FQDNs and domains (seeded from the
//! analysis's hosts, the names its lines mention, failed hosts, `host =` options and the
//! upload's `/etc/hosts`), IPv4 (per /24), IPv6, MAC and e-mail addresses, user and
//! project names of oslo contexts, Keystone ids; secrets are hidden outright (secret
//! options, URLs with credentials, Fernet tokens, `X-Auth-Token`/`X-Subject-Token`,
//! private keys and certificates). What it keeps: instance, notification, volume and
//! request ids, times, levels, loggers, services, the shape of paths, option names and
//! their other values, package versions, known bugs, service accounts (`admin`, `nova`,
//! `masakari`, …). The private note of a link is never shown on it.

mod bundle;
mod report;
mod scope;
mod view;

pub use bundle::{bundle_key, redacted_bundle, share_case_map};
pub use report::{DroppedFile, RedactionReport};
pub use scope::{Scope, TimelineScope};
pub use view::{RedactedView, ShareError, ShareFiles, ShareViews};
