//! The frame of a picture: heading, lanes and their labels, the axis with its ticks and
//! breaks, the legend; the lines and marks are drawn by [`super::items`].

use std::fmt::Write as _;

use crate::correlate::Analysis;
use crate::correlate::timeline::utc;

use super::layout::{CHAR_11, LANE_HEIGHT, Layout};
use super::scale::pause;
use super::xml::{STYLE, clip, escape, num};
use super::{SvgOptions, items};

/// The whole document.
pub(super) fn document(analysis: &Analysis, layout: &Layout<'_>, options: &SvgOptions) -> String {
    let mut out = String::with_capacity(4096 + layout.items.len() * 600);
    let (w, h) = (num(layout.width), num(layout.height));
    let name = options.title.as_deref().unwrap_or("Timeline");
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}" role="img">"#
    );
    let _ = writeln!(out, "<title>{}</title>", escape(name));
    let _ = writeln!(out, "<style>{STYLE}</style>");
    let _ = writeln!(out, r##"<rect width="{w}" height="{h}" fill="#ffffff"/>"##);
    heading(&mut out, layout, options);
    if layout.items.is_empty() {
        let _ = writeln!(
            out,
            r#"<text class="subtitle" x="16" y="{}">No lines for this subject.</text>"#,
            num(layout.axis_y)
        );
        out.push_str("</svg>\n");
        return out;
    }
    lanes(&mut out, layout);
    axis(&mut out, layout);
    // Measured spans behind the breaks, which let them show through and keep their
    // labels readable.
    items::gap_shades(&mut out, layout);
    breaks(&mut out, layout);
    items::joins(&mut out, analysis, layout);
    items::events(&mut out, analysis, layout, options.line_links.as_deref());
    items::marks(&mut out, layout);
    legend(&mut out, layout);
    out.push_str("</svg>\n");
    out
}

fn heading(out: &mut String, layout: &Layout<'_>, options: &SvgOptions) {
    let mut y = 22.0;
    // About 8.5 px a character of the 15 px semibold heading.
    let title_chars = ((layout.width - 32.0) / 8.5).max(20.0) as usize;
    if let Some(title) = &options.title {
        let _ = writeln!(
            out,
            r#"<text class="title" x="16" y="{}">{}</text>"#,
            num(y),
            escape(&clip(title, title_chars))
        );
        y += 20.0;
    }
    let times = layout.items.iter().map(|i| i.event.time);
    let (first, last) = (times.clone().min(), times.max());
    let dates = match (first, last) {
        (Some(a), Some(b)) => {
            let (a, b) = (utc(a), utc(b));
            let (a, b) = (a.get(..10).unwrap_or("-"), b.get(..10).unwrap_or("-"));
            if a == b {
                format!("{a} UTC")
            } else {
                format!("{a} to {b} UTC")
            }
        }
        _ => "UTC".into(),
    };
    let lines: usize = layout
        .items
        .iter()
        .map(|i| i.repeat.map_or(1, |(n, _, _)| n))
        .sum();
    let _ = writeln!(
        out,
        r#"<text class="subtitle" x="16" y="{}">{} · {lines} lines · {} lanes · quiet stretches cut out (≈)</text>"#,
        num(y),
        escape(&dates),
        layout.lanes.len()
    );
}

fn lanes(out: &mut String, layout: &Layout<'_>) {
    out.push_str("<g class=\"lanes\">\n");
    for (key, position) in layout.lanes.iter() {
        let top = layout.lanes_top + position as f64 * LANE_HEIGHT;
        let _ = write!(
            out,
            r#"<g class="lane" data-host="{}" data-service="{}">"#,
            escape(&key.host),
            escape(&key.service)
        );
        if position % 2 == 0 {
            let _ = write!(
                out,
                r#"<rect class="lane-bg" x="0" y="{}" width="{}" height="{}"/>"#,
                num(top),
                num(layout.width),
                num(LANE_HEIGHT)
            );
        }
        let max_chars = ((layout.label_width - 8.0) / CHAR_11) as usize;
        let _ = writeln!(
            out,
            r#"<text class="service" x="16" y="{}">{}</text><text class="host" x="16" y="{}">{}</text></g>"#,
            num(top + 15.0),
            escape(&clip(&key.service, max_chars)),
            num(top + 29.0),
            escape(&clip(&key.host, max_chars))
        );
    }
    let _ = writeln!(
        out,
        r#"<line class="axis" x1="{x}" y1="{}" x2="{x}" y2="{}"/>"#,
        num(layout.lanes_top),
        num(layout.lanes_bottom),
        x = num(layout.plot_left - 6.0)
    );
    out.push_str("</g>\n");
}

fn axis(out: &mut String, layout: &Layout<'_>) {
    out.push_str("<g class=\"ticks\">\n");
    let _ = writeln!(
        out,
        r#"<line class="axis" x1="{}" y1="{y}" x2="{}" y2="{y}"/>"#,
        num(layout.plot_left - 6.0),
        num(layout.plot_right),
        y = num(layout.axis_y)
    );
    for tick in layout.scale.ticks(CHAR_11) {
        let x = num(tick.x);
        let _ = writeln!(
            out,
            r#"<line class="grid" x1="{x}" y1="{}" x2="{x}" y2="{}"/><line class="axis" x1="{x}" y1="{}" x2="{x}" y2="{}"/><text class="tick" x="{x}" y="{}" text-anchor="middle">{}</text>"#,
            num(layout.lanes_top),
            num(layout.lanes_bottom),
            num(layout.axis_y - 4.0),
            num(layout.axis_y),
            num(layout.axis_y - 8.0),
            escape(&tick.label)
        );
    }
    out.push_str("</g>\n");
}

/// Each cut: a grey strip across the lanes, the axis interrupted by two slanted strokes,
/// and the length of the quiet stretch.
fn breaks(out: &mut String, layout: &Layout<'_>) {
    out.push_str("<g class=\"breaks\">\n");
    for b in layout.scale.breaks() {
        let (top, bottom) = (layout.lanes_top, layout.lanes_bottom);
        let label = pause(b.nanos);
        let (x0, x1) = (b.x0 + 4.0, b.x1 - 4.0);
        let _ = write!(
            out,
            r##"<g class="axis-break" data-seconds="{}"><title>{} with no line drawn, cut out</title><rect class="break" x="{}" y="{}" width="{}" height="{}"/><rect fill="#ffffff" x="{}" y="{}" width="{}" height="8"/>"##,
            b.nanos / 1_000_000_000,
            escape(&label),
            num(x0),
            num(top),
            num(x1 - x0),
            num(bottom - top),
            num(x0),
            num(layout.axis_y - 4.0),
            num(x1 - x0),
        );
        for x in [x0, x1] {
            let _ = write!(
                out,
                r#"<path class="break-line" d="M {} {} L {} {}"/>"#,
                num(x - 3.0),
                num(layout.axis_y + 6.0),
                num(x + 3.0),
                num(layout.axis_y - 6.0)
            );
        }
        let centre = num((b.x0 + b.x1) / 2.0);
        for (i, part) in break_lines(&label).iter().enumerate() {
            let _ = write!(
                out,
                r#"<text class="break-label" x="{centre}" y="{}" text-anchor="middle">{}</text>"#,
                num(layout.lanes_top + 14.0 + i as f64 * 13.0),
                escape(part)
            );
        }
        out.push_str("</g>\n");
    }
    out.push_str("</g>\n");
}

/// A break's label in lines that fit its width: `2 min 28 s` as `2 min` / `28 s`.
fn break_lines(label: &str) -> Vec<String> {
    for unit in [" min ", " h "] {
        if let Some(i) = label.find(unit) {
            let (a, b) = label.split_at(i + unit.len() - 1);
            return vec![a.to_string(), b.trim().to_string()];
        }
    }
    vec![label.to_string()]
}

fn legend(out: &mut String, layout: &Layout<'_>) {
    let y = layout.lanes_bottom + 26.0;
    let mut x = 16.0;
    out.push_str("<g class=\"legend\">\n");
    for (class, words) in [
        ("error", "error"),
        ("warning", "warning"),
        ("info", "info"),
        ("debug", "debug"),
    ] {
        let _ = write!(
            out,
            r#"<circle class="dot {class}" cx="{}" cy="{}" r="4"/><text class="legend" x="{}" y="{}">{words}</text>"#,
            num(x + 4.0),
            num(y - 4.0),
            num(x + 12.0),
            num(y)
        );
        x += 24.0 + words.len() as f64 * CHAR_11;
    }
    let _ = write!(
        out,
        r#"<rect class="bar info" x="{}" y="{}" width="22" height="8" rx="4"/><text class="legend" x="{}" y="{}">repeated lines (×count)</text>"#,
        num(x),
        num(y - 8.0),
        num(x + 28.0),
        num(y)
    );
    x += 40.0 + 23.0 * CHAR_11;
    let _ = write!(
        out,
        r#"<line class="join" x1="{}" y1="{}" x2="{}" y2="{}"/><text class="legend" x="{}" y="{}">Masakari call → Nova request</text>"#,
        num(x),
        num(y - 1.0),
        num(x + 22.0),
        num(y - 8.0),
        num(x + 28.0),
        num(y)
    );
    out.push_str("</g>\n");
}

#[cfg(test)]
mod tests {
    use super::break_lines;

    #[test]
    fn break_labels_split_after_their_first_unit() {
        assert_eq!(break_lines("2 min 28 s"), ["2 min", "28 s"]);
        assert_eq!(break_lines("2 h 05 min"), ["2 h", "05 min"]);
        assert_eq!(break_lines("47 min"), ["47 min"]);
    }
}
