//! The lines of a picture (a dot each, a bar for a folded run), the joins from Masakari's
//! calls to Nova's requests, and the marks with their labels.

use crate::model::EventsById;
use std::collections::BTreeMap;
use std::fmt::Write as _;

use crate::correlate::Analysis;
use crate::correlate::timeline::utc;
use crate::model::{Event, EventId};

use super::layout::{Item, LANE_HEIGHT, Layout, Pointer};
use super::scale::pause;
use super::xml::{clip, escape, num};

/// How much of a line a tooltip shows.
const TOOLTIP_CHARS: usize = 600;
const TOOLTIP_MORE_LINES: usize = 4;
const TOOLTIP_MORE_CHARS: usize = 200;

/// A line's tooltip: time, host and service, the text, `path:line`.
fn tooltip(analysis: &Analysis, item: &Item<'_>) -> String {
    let e = item.event;
    let file = analysis.file(e.file);
    let host = analysis.host(e.host).map_or("?", |h| h.hostname.as_str());
    let service = file.map_or("?", |f| f.service.name());
    let path = file.map_or("?", |f| f.path.as_str());
    let precision = if e.second_precision {
        " (to the second)"
    } else {
        ""
    };
    let mut text = format!("{}{precision}  {host} · {service}\n", utc(e.time));
    if let Some((count, last, _)) = item.repeat {
        let _ = writeln!(
            text,
            "{count} lines like this over {} (until {}, line {})",
            pause(last.time - e.time),
            utc(last.time),
            last.line
        );
    }
    text.push_str(&clip(&e.text(), TOOLTIP_CHARS));
    for line in e.more().take(TOOLTIP_MORE_LINES) {
        text.push('\n');
        text.push_str(&clip(&line, TOOLTIP_MORE_CHARS));
    }
    let _ = write!(text, "\n{path}:{}", e.line);
    text
}

/// Gap kept between two count labels of one lane.
const LABEL_GAP: f64 = 4.0;

/// Each line: a dot in its lane (a bar with the count over a folded run's span). Errors
/// and warnings are drawn last, over the info dots that share their place; a run's count
/// goes above its bar, or below it when the label before in the lane is in the way, or
/// is left to the tooltip when both are. With `link_prefix`, each line links to its place
/// in its raw file.
pub(super) fn events(
    out: &mut String,
    analysis: &Analysis,
    layout: &Layout<'_>,
    link_prefix: Option<&str>,
) {
    out.push_str("<g class=\"events\">\n");
    // Count labels placed in time order, left to right in each lane.
    let mut labels = CountLabels::default();
    let placed: Vec<Option<(f64, f64)>> = layout
        .items
        .iter()
        .map(|item| {
            let (count, _, x_last) = item.repeat?;
            let width = (x_last - item.x).max(0.0) + 8.0;
            let centre = item.x + width / 2.0 - 4.0;
            let label_y = labels.place(item.lane, centre, &format!("×{count}"), item.y)?;
            Some((centre, label_y))
        })
        .collect();
    let mut order: Vec<_> = layout.items.iter().zip(placed).enumerate().collect();
    // Stable: time order within a tone; the worse tone painted on top. `data-row` keeps
    // each line's place in time order.
    order.sort_by_key(|(_, (i, _))| i.tone);
    for (row, (item, label)) in order {
        let class = item.tone.class();
        let (x, y) = (num(item.x), num(item.y));
        let repeated = match item.repeat {
            Some((count, _, _)) => format!(r#" repeat" data-count="{count}"#),
            None => String::new(),
        };
        if let Some(prefix) = link_prefix {
            let line = item.event.line;
            let _ = write!(
                out,
                r#"<a href="{}{}?line={line}#L{line}">"#,
                escape(prefix),
                item.event.file
            );
        }
        let _ = write!(
            out,
            r#"<g class="event{repeated}" data-row="{row}" data-time="{}" data-lane="{}" data-line="{}"><title>{}</title>"#,
            utc(item.event.time),
            item.lane,
            item.event.line,
            escape(&tooltip(analysis, item))
        );
        if let Some((count, _, x_last)) = item.repeat {
            let width = (x_last - item.x).max(0.0) + 8.0;
            let _ = write!(
                out,
                r#"<rect class="bar {class}" x="{}" y="{}" width="{}" height="8" rx="4"/>"#,
                num(item.x - 4.0),
                num(item.y - 4.0),
                num(width),
            );
            if let Some((centre, label_y)) = label {
                let _ = write!(
                    out,
                    r#"<text class="count" x="{}" y="{}" text-anchor="middle">×{count}</text>"#,
                    num(centre),
                    num(label_y)
                );
            }
        }
        let _ = write!(
            out,
            r#"<circle class="dot {class}" cx="{x}" cy="{y}" r="4"/></g>"#
        );
        out.push_str(if link_prefix.is_some() {
            "</a>\n"
        } else {
            "\n"
        });
    }
    out.push_str("</g>\n");
}

/// Where the count labels of each lane end, above and below the lane's line.
#[derive(Default)]
struct CountLabels {
    /// Per lane: the right edge of the last label above, and below.
    ends: BTreeMap<usize, (f64, f64)>,
}

impl CountLabels {
    /// The baseline of a label centred on `centre` in `lane` (whose line is at `y`):
    /// above when free, else below, else none.
    fn place(&mut self, lane: usize, centre: f64, text: &str, y: f64) -> Option<f64> {
        let half = text.chars().count() as f64 * super::layout::CHAR_11 / 2.0;
        let (left, right) = (centre - half, centre + half);
        let ends = self
            .ends
            .entry(lane)
            .or_insert((f64::NEG_INFINITY, f64::NEG_INFINITY));
        if left >= ends.0 + LABEL_GAP {
            ends.0 = right;
            Some(y - 8.0)
        } else if left >= ends.1 + LABEL_GAP {
            ends.1 = right;
            Some(y + 15.0)
        } else {
            None
        }
    }
}

/// A line from each drawn Masakari call to the Nova request it caused.
pub(super) fn joins(out: &mut String, analysis: &Analysis, layout: &Layout<'_>) {
    let at: BTreeMap<EventId, (f64, f64)> =
        layout.items.iter().map(|i| (i.id, (i.x, i.y))).collect();
    out.push_str("<g class=\"joins\">\n");
    for join in &analysis.joins {
        let (Some(&(x1, y1)), Some(&(x2, y2))) = (at.get(&join.call), at.get(&join.request)) else {
            continue;
        };
        let describe = |id: EventId| {
            analysis
                .events
                .by_id(id)
                .map_or_else(String::new, |e: &Event| clip(&e.message(), 120))
        };
        // A curve, so that a join within one lane or between neighbours stays visible.
        let bend = if (y2 - y1).abs() < 1.0 {
            -LANE_HEIGHT * 0.45
        } else {
            0.0
        };
        let _ = writeln!(
            out,
            r#"<path class="join" d="M {} {} C {} {} {} {} {} {}"><title>{}
→ {} ({} ms later)</title></path>"#,
            num(x1),
            num(y1),
            num(x1),
            num((y1 + y2) / 2.0 + bend),
            num(x2),
            num((y1 + y2) / 2.0 + bend),
            num(x2),
            num(y2),
            escape(&describe(join.call)),
            escape(&describe(join.request)),
            join.delay_ms
        );
    }
    out.push_str("</g>\n");
}

/// The spans marked, shaded across the lanes (behind the lines).
pub(super) fn gap_shades(out: &mut String, layout: &Layout<'_>) {
    for mark in &layout.marks {
        if let (_, Pointer::Span { x0, x1 }) = &mark.item {
            let _ = writeln!(
                out,
                r#"<rect class="gap-shade" x="{}" y="{}" width="{}" height="{}"/>"#,
                num(*x0),
                num(layout.lanes_top),
                num((x1 - x0).max(1.0)),
                num(layout.lanes_bottom - layout.lanes_top)
            );
        }
    }
}

/// The marks' labels in the band above the axis: a span bracketed under its label, a
/// line ringed with a dashed leader up to its label.
pub(super) fn marks(out: &mut String, layout: &Layout<'_>) {
    out.push_str("<g class=\"marks\">\n");
    for mark in &layout.marks {
        let (label, pointer) = &mark.item;
        let y = layout.band_y(mark.row);
        let centre = (mark.left + mark.right) / 2.0;
        match pointer {
            Pointer::Span { x0, x1 } => {
                let centre = label_centre(mark.left, mark.right, *x0, *x1, label);
                let line = y + 5.0;
                let _ = writeln!(
                    out,
                    r#"<g class="mark mark-gap"><path class="gap-bracket" d="M {a} {b} L {a} {line} L {c} {line} L {c} {b}"/><text class="gap-label" x="{}" y="{}" text-anchor="middle">{}</text></g>"#,
                    num(centre),
                    num(y),
                    escape(label),
                    a = num(*x0),
                    c = num(*x1),
                    b = num(line + 5.0),
                    line = num(line),
                );
            }
            Pointer::Event { x, y: event_y } => {
                let _ = writeln!(
                    out,
                    r#"<g class="mark mark-event"><path class="leader" d="M {x} {} L {x} {}"/><circle class="ring" cx="{x}" cy="{}" r="8"/><text class="mark-label" x="{}" y="{}" text-anchor="middle">{}</text></g>"#,
                    num(y + 4.0),
                    num(event_y - 8.0),
                    num(*event_y),
                    num(centre),
                    num(y),
                    escape(label),
                    x = num(*x),
                );
            }
        }
    }
    out.push_str("</g>\n");
}

/// Where a span's label is centred: over the span, moved in when the band placed it
/// against an edge.
fn label_centre(left: f64, right: f64, x0: f64, x1: f64, label: &str) -> f64 {
    let half = label.chars().count() as f64 * super::layout::CHAR_11 / 2.0;
    ((x0 + x1) / 2.0).clamp(left + half, (right - half).max(left + half))
}
