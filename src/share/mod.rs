//! Public share links (issue 10): what a link shows (its [`Scope`](crate::share::Scope)),
//! the redacted view of an analysis every link of it is served from
//! ([`RedactedView`](crate::share::RedactedView), built once with the analysis's case map
//! and kept), and the redacted bundle an analysis link offers for download.
//!
//! The case map and the seeds live in the analysis's folder under `share/` (mode 0600),
//! never served: a later view, the bundle and (when asked) a later upload of the same
//! case reuse them, so one real value has one pseudonym everywhere.

mod bundle;
mod scope;
mod view;

pub use bundle::{redacted_bundle, share_case_map};
pub use scope::{Scope, TimelineScope};
pub use view::{RedactedView, ShareError, ShareFiles, ShareViews};
