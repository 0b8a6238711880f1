//! A timeline as a picture: an SVG swimlane, one lane per host and service, the lines
//! on a UTC axis with long quiet stretches cut out, the calls Masakari made joined to
//! the Nova requests they caused, and what a finding wants seen marked and labelled.
//!
//! The output is one self-contained SVG document (no script, no external font or
//! stylesheet), the same bytes for the same input. Every line drawn has a tooltip
//! (`<title>`) with its time, host, service, text and `path:line`.

mod band;
mod draw;
mod items;
mod lanes;
mod layout;
mod scale;
mod xml;

use crate::correlate::Analysis;
use crate::model::EventId;

use super::Row;

/// How a picture is drawn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SvgOptions {
    /// Width in pixels; the height follows from the lanes and labels.
    pub width: u32,
    /// A heading drawn at the top (and the picture's accessible name).
    pub title: Option<String>,
    /// Pauses longer than this many seconds may be cut out of the axis.
    pub min_break_secs: u32,
    /// Where a line's raw file is shown: each dot links to `{prefix}{file}?line={n}#L{n}`
    /// (`/analyses/<id>/files/`). None (shares, the CLI): no links.
    pub line_links: Option<String>,
}

impl Default for SvgOptions {
    fn default() -> SvgOptions {
        SvgOptions {
            width: 1200,
            title: None,
            min_break_secs: 30,
            line_links: None,
        }
    }
}

/// Something a finding wants highlighted, with a few words.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Mark {
    /// What the picture writes next to it (`evacuate → 400`, `60 s sleep`).
    pub label: String,
    /// Where.
    pub at: MarkAt,
}

/// Where a [`Mark`] is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarkAt {
    /// One line (a failing call, a status): ringed and labelled.
    Event(EventId),
    /// A span between two UTC times (nanoseconds since the epoch): shaded across the
    /// lanes and bracketed with its label.
    Span {
        /// Start.
        from: i64,
        /// End.
        to: i64,
    },
}

/// The SVG picture of a timeline's `rows` (from [`super::fold`]), with `marks`.
///
/// A marked line that is not among the rows is drawn too, so that every mark has its
/// line.
pub fn render_svg(
    analysis: &Analysis,
    rows: &[Row],
    marks: &[Mark],
    options: &SvgOptions,
) -> String {
    let layout = layout::Layout::new(analysis, rows, marks, options);
    draw::document(analysis, &layout, options)
}

#[cfg(test)]
mod tests;
