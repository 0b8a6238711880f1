//! Where everything of a picture goes: the rows' lanes and positions, the axis, the
//! rows of mark labels, and the picture's height.

use crate::model::EventsById;
use std::collections::{BTreeMap, BTreeSet};

use crate::correlate::Analysis;
use crate::model::{Event, EventId};

use super::band::{Placed, place};
use super::lanes::{LaneKey, Lanes};
use super::scale::Scale;
use super::xml::Tone;
use super::{Mark, MarkAt, SvgOptions};
use crate::correlate::timeline::Row;

/// Average width of a character of 11 px text, and of 12 px semibold text.
pub(super) const CHAR_11: f64 = 6.2;
pub(super) const CHAR_12_BOLD: f64 = 7.3;
pub(super) const LANE_HEIGHT: f64 = 36.0;
pub(super) const BAND_ROW: f64 = 22.0;
const MARGIN: f64 = 16.0;
const NANOS_PER_SEC: i64 = 1_000_000_000;

/// A row placed: its first event, lane and position, and a folded run's end. Lines are
/// placed by [`Event::sort_key`], the order of the rows: an Apache line stamped to the
/// second sits after the call that caused it within that second.
#[derive(Debug)]
pub(super) struct Item<'a> {
    pub id: EventId,
    pub event: &'a Event,
    pub lane: usize,
    pub x: f64,
    pub y: f64,
    pub tone: Tone,
    /// A folded run: its count, its last event and the x of that.
    pub repeat: Option<(usize, &'a Event, f64)>,
}

/// A mark placed: its label's row and extent, and where it points.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Pointer {
    /// At a drawn line.
    Event { x: f64, y: f64 },
    /// Over a span.
    Span { x0: f64, x1: f64 },
}

#[derive(Debug)]
pub(super) struct Layout<'a> {
    pub items: Vec<Item<'a>>,
    pub lanes: Lanes,
    pub scale: Scale,
    pub marks: Vec<Placed<(String, Pointer)>>,
    pub width: f64,
    pub label_width: f64,
    pub plot_left: f64,
    pub plot_right: f64,
    /// Top of the mark band, and its rows.
    pub band_top: f64,
    pub band_rows: usize,
    /// The axis line, and the lanes below it.
    pub axis_y: f64,
    pub lanes_top: f64,
    pub lanes_bottom: f64,
    pub height: f64,
}

impl<'a> Layout<'a> {
    pub fn new(
        analysis: &'a Analysis,
        rows: &[Row],
        marks: &[Mark],
        options: &SvgOptions,
    ) -> Layout<'a> {
        let drawn = drawn_rows(analysis, rows, marks);
        let keys: Vec<LaneKey> = drawn
            .iter()
            .map(|(_, e, _)| LaneKey::of(analysis, e))
            .collect();
        let lanes = Lanes::new(&keys);
        let width = f64::from(options.width.max(400));
        let label_width = lanes
            .iter()
            .map(|(k, _)| {
                (k.service.chars().count() as f64 * CHAR_12_BOLD)
                    .max(k.host.chars().count() as f64 * CHAR_11)
            })
            .fold(0.0, f64::max)
            .clamp(110.0, width * 0.3)
            + 16.0;
        let plot_left = MARGIN + label_width + 8.0;
        let plot_right = width - MARGIN - 8.0;
        let mut times: Vec<i64> = Vec::new();
        for (_, e, repeat) in &drawn {
            times.push(e.sort_key());
            times.extend(repeat.map(|(_, last)| last.sort_key()));
        }
        for mark in marks {
            if let MarkAt::Span { from, to } = mark.at {
                times.extend([from, to]);
            }
        }
        let min_break = i64::from(options.min_break_secs.max(1)) * NANOS_PER_SEC;
        let scale = Scale::new(&times, plot_left, plot_right, min_break);

        let header = if options.title.is_some() { 48.0 } else { 28.0 };
        let positions: BTreeMap<EventId, usize> = drawn
            .iter()
            .enumerate()
            .map(|(i, (id, _, _))| (*id, i))
            .collect();
        // Lanes are placed once the band's height is known: marks' labels only need x.
        let lane_of: Vec<usize> = keys
            .iter()
            .map(|k| lanes.position(k).unwrap_or(0))
            .collect();
        let mut labels: Vec<(f64, f64, (String, MarkKindAt))> = marks
            .iter()
            .filter_map(|m| {
                let at = match m.at {
                    MarkAt::Event(id) => {
                        let i = *positions.get(&id)?;
                        let (_, e, _) = drawn.get(i)?;
                        MarkKindAt::Event {
                            x: scale.x(e.sort_key()),
                            lane: lane_of[i],
                        }
                    }
                    MarkAt::Span { from, to } => MarkKindAt::Span {
                        x0: scale.x(from.min(to)),
                        x1: scale.x(to.max(from)),
                    },
                };
                let (lo, hi) = match at {
                    MarkKindAt::Event { x, .. } => (x, x),
                    MarkKindAt::Span { x0, x1 } => (x0, x1),
                };
                let half = m.label.chars().count() as f64 * CHAR_11 / 2.0 + 2.0;
                let centre = ((lo + hi) / 2.0).clamp(MARGIN + half, width - MARGIN - half);
                Some((
                    (centre - half).min(lo),
                    (centre + half).max(hi),
                    (m.label.clone(), at),
                ))
            })
            .collect();
        labels.sort_by(|a, b| a.0.total_cmp(&b.0).then_with(|| a.2.0.cmp(&b.2.0)));
        let placed = place(labels);
        let band_rows = placed.iter().map(|p| p.row + 1).max().unwrap_or(0);
        let band_top = header;
        let axis_y = band_top + band_rows as f64 * BAND_ROW + 26.0;
        let lanes_top = axis_y + 4.0;
        let lanes_bottom = lanes_top + lanes.len() as f64 * LANE_HEIGHT;
        let lane_y = |lane: usize| lanes_top + (lane as f64 + 0.5) * LANE_HEIGHT;
        let marks = placed
            .into_iter()
            .map(|p| {
                let pointer = match p.item.1 {
                    MarkKindAt::Event { x, lane } => Pointer::Event { x, y: lane_y(lane) },
                    MarkKindAt::Span { x0, x1 } => Pointer::Span { x0, x1 },
                };
                Placed {
                    left: p.left,
                    right: p.right,
                    row: p.row,
                    item: (p.item.0, pointer),
                }
            })
            .collect();
        let items = drawn
            .into_iter()
            .zip(lane_of)
            .map(|((id, event, repeat), lane)| Item {
                id,
                event,
                lane,
                x: scale.x(event.sort_key()),
                y: lane_y(lane),
                tone: Tone::of(event),
                repeat: repeat.map(|(count, last)| (count, last, scale.x(last.sort_key()))),
            })
            .collect();
        Layout {
            items,
            lanes,
            scale,
            marks,
            width,
            label_width,
            plot_left,
            plot_right,
            band_top,
            band_rows,
            axis_y,
            lanes_top,
            lanes_bottom,
            height: lanes_bottom + 44.0,
        }
    }

    /// The y of a label row's text baseline (row 0 nearest the axis).
    pub fn band_y(&self, row: usize) -> f64 {
        self.band_top + (self.band_rows.saturating_sub(row + 1)) as f64 * BAND_ROW + 15.0
    }
}

/// Where a mark points, before the lanes have their y.
#[derive(Clone, Copy, Debug, PartialEq)]
enum MarkKindAt {
    Event { x: f64, lane: usize },
    Span { x0: f64, x1: f64 },
}

type Drawn<'a> = (EventId, &'a Event, Option<(usize, &'a Event)>);

/// The rows' events (and the marked events not among them) in time order, with the
/// count and last event of each folded run.
fn drawn_rows<'a>(analysis: &'a Analysis, rows: &[Row], marks: &[Mark]) -> Vec<Drawn<'a>> {
    let mut seen: BTreeSet<EventId> = BTreeSet::new();
    let mut out: Vec<Drawn<'a>> = Vec::new();
    for row in rows {
        let Some(event) = analysis.events.by_id(row.event) else {
            continue;
        };
        if !seen.insert(row.event) {
            continue;
        }
        let repeat = row.repeated.as_ref().and_then(|r| {
            let last = analysis.events.by_id(r.last)?;
            Some((r.count, last))
        });
        out.push((row.event, event, repeat));
    }
    for mark in marks {
        if let MarkAt::Event(id) = mark.at
            && let Some(event) = analysis.events.by_id(id)
            && seen.insert(id)
        {
            out.push((id, event, None));
        }
    }
    out.sort_by_key(|(id, e, _)| (e.sort_key(), e.file, e.line, *id));
    out
}
