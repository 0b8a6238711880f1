//! Printing a timeline's rows, as text or as JSON entries, in the rows' order.

use crate::model::EventsById;
use std::collections::HashMap;

use serde::Serialize;

use crate::correlate::Analysis;
use crate::model::{Event, Project};

use super::select::project;
use super::{Row, utc};

/// One line of a timeline, as JSON shows it.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineEntry<'a> {
    /// UTC time, RFC 3339.
    pub timestamp: String,
    /// True when the line's time has one-second precision (Apache `%t`): the line
    /// happened within that second, and is placed at its end.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub second_precision: bool,
    /// Host name.
    pub host: &'a str,
    /// Service.
    pub service: &'a str,
    /// File, relative to the input root.
    pub path: &'a str,
    /// 1-based line.
    pub line: u32,
    /// The record's first line as written.
    pub text: std::borrow::Cow<'a, str>,
    /// Its further lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<String>,
    /// The lines of the same shape folded into this one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repeated: Option<Repeated>,
}

/// A folded run, as JSON shows it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Repeated {
    /// Lines in the run, this one included.
    pub count: usize,
    /// UTC time of the run's last line.
    pub until: String,
    /// 1-based line of the run's last line (in the same file).
    pub last_line: u32,
}

/// The entries of `rows`.
pub fn entries<'a>(analysis: &'a Analysis, rows: &[Row]) -> Vec<TimelineEntry<'a>> {
    rows.iter()
        .filter_map(|row| {
            let e = analysis.events.by_id(row.event)?;
            let file = analysis.file(e.file);
            let repeated = row.repeated.as_ref().and_then(|r| {
                let last = analysis.events.by_id(r.last)?;
                Some(Repeated {
                    count: r.count,
                    until: utc(last.time),
                    last_line: last.line,
                })
            });
            Some(TimelineEntry {
                timestamp: utc(e.time),
                second_precision: e.second_precision,
                host: host_name(analysis, e),
                service: file.map(|f| f.service.name()).unwrap_or("?"),
                path: file.map(|f| f.path.as_str()).unwrap_or("?"),
                line: e.line,
                text: e.text(),
                more: e.more().collect(),
                repeated,
            })
        })
        .collect()
}

fn host_name<'a>(analysis: &'a Analysis, event: &Event) -> &'a str {
    analysis
        .host(event.host)
        .map(|h| h.hostname.as_str())
        .unwrap_or("?")
}

/// The text form: blocks per project like an engineer's notes (`>>> Masakari`,
/// `>>> Nova`), each line `path:line:text` as `grep -Hn` prints it, a folded run as its
/// first line and `... repeated N times over <span> (until <UTC>)`.
pub fn render_text(analysis: &Analysis, rows: &[Row]) -> String {
    let mut out = String::new();
    let mut current: Option<(Project, u32)> = None;
    let mut header_of: HashMap<(Project, u32), String> = HashMap::new();
    for row in rows {
        let Some(event) = analysis.events.by_id(row.event) else {
            continue;
        };
        let key = (project(analysis, event), event.host);
        if current != Some(key) {
            let header = header_of.entry(key).or_insert_with(|| {
                format!(">>> {} ({})", key.0.title(), host_name(analysis, event))
            });
            if current.is_some() {
                out.push('\n');
            }
            out.push_str(header);
            out.push('\n');
            current = Some(key);
        }
        let path = analysis
            .file(event.file)
            .map(|f| f.path.as_str())
            .unwrap_or("?");
        out.push_str(&format!("{path}:{}:{}\n", event.line, event.text()));
        for line in event.more() {
            out.push_str(&format!("    {line}\n"));
        }
        if let Some(repeat) = &row.repeated
            && let Some(last) = analysis.events.by_id(repeat.last)
        {
            out.push_str(&format!(
                "    ... repeated {} times over {} (until {})\n",
                repeat.count,
                span(last.time - event.time),
                utc(last.time)
            ));
        }
    }
    // Log text may carry terminal escapes and NULs: shown, never passed on.
    crate::visible::visible_controls(&out).into_owned()
}

/// A duration as an engineer writes it: `850ms`, `42s`, `5m12s`, `1h02m03s`.
fn span(nanos: i64) -> String {
    let nanos = nanos.max(0);
    if nanos < 1_000_000_000 {
        return format!("{}ms", nanos / 1_000_000);
    }
    let secs = (nanos + 500_000_000) / 1_000_000_000;
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}h{m:02}m{s:02}s")
    } else if m > 0 {
        format!("{m}m{s:02}s")
    } else {
        format!("{s}s")
    }
}

#[cfg(test)]
mod tests {
    use super::span;

    #[test]
    fn spans_read_like_notes() {
        assert_eq!(span(850_000_000), "850ms");
        assert_eq!(span(42_300_000_000), "42s");
        assert_eq!(span(312_000_000_000), "5m12s");
        assert_eq!(span(3_723_000_000_000), "1h02m03s");
    }
}
