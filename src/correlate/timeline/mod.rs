//! The story of one instance, request, notification or host, across hosts and services.
//!
//! Three steps: [`select`] picks the events (index lookups, then the widening an engineer
//! does by hand, then for an instance the attribution that keeps the other instances of
//! its recovery out), in time order; [`fold`] folds status polls into one row each; the
//! renderers ([`render_text`], [`entries`], [`render_svg`]) show the rows in that one order.

mod attribution;
mod fold;
mod render;
mod select;
mod svg;

pub use fold::{Repeat, Row, fold};
pub use render::{Repeated, TimelineEntry, entries, render_text};
pub use select::select;
pub use svg::{Mark, MarkAt, SvgOptions, render_svg};

use crate::model::Uuid;

/// What a timeline is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// An instance UUID.
    Instance(Uuid),
    /// A request id (`req-...`), local or global.
    Request(Uuid),
    /// A Masakari notification UUID.
    Notification(Uuid),
    /// A host name (short or FQDN).
    Host(String),
}

/// RFC 3339 in UTC of nanoseconds since the epoch.
pub fn utc(nanos: i64) -> String {
    match evacdoc_parsers::DateTime::from_unix_nanos(nanos) {
        Some(local) => evacdoc_parsers::Timestamp {
            local,
            offset: Some(0),
        }
        .to_string(),
        None => "-".into(),
    }
}

#[cfg(test)]
mod tests;
