//! Small formatting helpers the pages share: escaping, marking matched words, sizes,
//! times, links to raw lines, a colour per host.

use std::collections::HashMap;
use std::fmt::Write as _;

use crate::correlate::Analysis;

/// `text` with `&`, `<`, `>`, `"` and `'` escaped for HTML text and attributes, and
/// control characters shown as visible escapes ([`crate::visible`]).
pub fn escape_html(text: &str) -> String {
    let text = crate::visible::visible_controls(text);
    let mut out = String::with_capacity(text.len() + text.len() / 8);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#x27;"),
            c => out.push(c),
        }
    }
    out
}

/// `text` escaped for HTML with the byte ranges `marks` wrapped in `<mark>`. Ranges are
/// taken in order, clamped to the text, widened to whole characters (a range that would
/// split a character marks all of it), and overlaps merged; so the result is always
/// well-formed, whatever the ranges.
pub fn marked_html(text: &str, marks: &[(usize, usize)]) -> String {
    let mut ranges: Vec<(usize, usize)> = marks
        .iter()
        .map(|&(start, end)| {
            let (start, end) = (start.min(text.len()), end.min(text.len()));
            (floor_boundary(text, start), ceil_boundary(text, end))
        })
        .filter(|(start, end)| start < end)
        .collect();
    ranges.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::with_capacity(ranges.len());
    for (start, end) in ranges {
        match merged.last_mut() {
            Some(last) if start <= last.1 => last.1 = last.1.max(end),
            _ => merged.push((start, end)),
        }
    }
    let mut out = String::with_capacity(text.len() + merged.len() * 13);
    let mut at = 0;
    for (start, end) in merged {
        out.push_str(&escape_html(&text[at..start]));
        out.push_str("<mark>");
        out.push_str(&escape_html(&text[start..end]));
        out.push_str("</mark>");
        at = end;
    }
    out.push_str(&escape_html(&text[at..]));
    out
}

/// The nearest character boundary at or before `at`.
fn floor_boundary(text: &str, mut at: usize) -> usize {
    while at > 0 && !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// The nearest character boundary at or after `at`.
fn ceil_boundary(text: &str, mut at: usize) -> usize {
    while at < text.len() && !text.is_char_boundary(at) {
        at += 1;
    }
    at
}

/// Prose with `backticked` words as code, HTML-escaped: the findings' texts quote option
/// names and values that way. Unpaired backticks stay as they are.
pub fn prose_html(text: &str) -> String {
    let parts: Vec<&str> = text.split('`').collect();
    if parts.len().is_multiple_of(2) {
        return escape_html(text);
    }
    let mut out = String::with_capacity(text.len() + parts.len() * 7);
    for (i, part) in parts.iter().enumerate() {
        if i % 2 == 1 && !part.is_empty() {
            out.push_str("<code>");
            out.push_str(&escape_html(part));
            out.push_str("</code>");
        } else {
            out.push_str(&escape_html(part));
        }
    }
    out
}

/// A long path cut to its last three parts (`…/nova/nova-api-wsgi.log`); the pages give
/// the whole path as the link's title.
pub fn short_path(path: &str) -> String {
    let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
    if parts.len() <= 3 {
        return path.to_string();
    }
    format!("…/{}", parts[parts.len() - 3..].join("/"))
}

/// `text` percent-encoded for a URL query value or path segment (all but `A-Z a-z 0-9 - . _ ~`).
pub fn encode_component(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for byte in text.bytes() {
        if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') {
            out.push(char::from(byte));
        } else {
            let _ = write!(out, "%{byte:02X}");
        }
    }
    out
}

/// A size for a person: `512 B`, `3.4 KiB`, `1.2 GiB`.
pub fn human_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["KiB", "MiB", "GiB", "TiB", "PiB"];
    if bytes < 1024 {
        return format!("{bytes} B");
    }
    let mut value = bytes as f64 / 1024.0;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    let unit = UNITS.get(unit).copied().unwrap_or("B");
    if value < 10.0 {
        format!("{value:.1} {unit}")
    } else {
        format!("{value:.0} {unit}")
    }
}

/// A count with thousands separated by thin spaces: `1 234 567`.
pub fn count(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push('\u{2009}');
        }
        out.push(c);
    }
    out
}

/// An RFC 3339 time split for display: its date and its time of day (`Z` dropped; the
/// pages say once that times are UTC). Text that is not such a time is the time of day.
pub fn split_time(timestamp: &str) -> (String, String) {
    match timestamp.split_once('T') {
        Some((date, time)) => (date.to_string(), time.trim_end_matches('Z').to_string()),
        None => (String::new(), timestamp.to_string()),
    }
}

/// An RFC 3339 time as `2020-12-08 19:51:12.000`.
pub fn readable_time(timestamp: &str) -> String {
    let (date, time) = split_time(timestamp);
    if date.is_empty() {
        time
    } else {
        format!("{date} {time}")
    }
}

/// Where a known bug links: a web address (a catalog entry cannot put a script in an
/// href), and only for a bug with a number (a tracker's project page is no bug).
pub fn bug_url(bug: &crate::detect::finding::KnownBugRef) -> Option<String> {
    let web = bug.url.starts_with("https://") || bug.url.starts_with("http://");
    (web && !bug.id.trim().is_empty()).then(|| bug.url.clone())
}

/// The time of day of a line as shown: a line stamped to the second (Apache `%t`)
/// without the `.000` it never had.
pub fn shown_time(time: String, second_precision: bool) -> String {
    match time.strip_suffix(".000") {
        Some(whole) if second_precision => whole.to_string(),
        _ => time,
    }
}

/// The CSS class that marks a line of a list by how bad it is: `lvl-error` (ERROR,
/// CRITICAL, an HTTP 5xx), `lvl-warning` (WARNING, an HTTP 4xx), or nothing.
pub fn level_class(event: &crate::model::Event) -> &'static str {
    use crate::model::LogLevel;
    match event.level {
        Some(LogLevel::Error | LogLevel::Critical) => "lvl-error",
        Some(LogLevel::Warning) => "lvl-warning",
        Some(_) => "",
        None => match event.http().map(|h| h.status) {
            Some(500..) => "lvl-error",
            Some(400..500) => "lvl-warning",
            _ => "",
        },
    }
}

/// [`level_class`] of a line known by its text only (evidence): the level word of an
/// oslo or syslog line among its first words, or an access line's status.
pub fn text_level_class(text: &str) -> &'static str {
    for word in text.split_whitespace().take(8) {
        match word.trim_matches(|c: char| !c.is_ascii_alphabetic()) {
            "ERROR" | "CRITICAL" | "error" | "crit" | "err" => return "lvl-error",
            "WARNING" | "WARN" | "warning" | "warn" => return "lvl-warning",
            "INFO" | "DEBUG" | "AUDIT" | "TRACE" => return "",
            _ => {}
        }
    }
    // `"GET /path HTTP/1.1" 503 123`: the word after the quoted request.
    if let Some((_, after)) = text.split_once("\" ")
        && let Some(status) = after
            .split_whitespace()
            .next()
            .and_then(|s| s.parse::<u16>().ok())
    {
        return match status {
            500..=599 => "lvl-error",
            400..=499 => "lvl-warning",
            _ => "",
        };
    }
    ""
}

/// Where a file of an analysis is shown: its id is its position in `analysis.files`.
/// Config files and CLI captures are not kept whole: they link to the page of the lines
/// the analysis kept of them.
#[derive(Debug)]
pub struct FileLinks<'a> {
    analysis_id: &'a str,
    ids: HashMap<&'a str, usize>,
    kept: std::collections::HashSet<&'a str>,
}

impl<'a> FileLinks<'a> {
    pub fn new(analysis_id: &'a str, analysis: &'a Analysis) -> FileLinks<'a> {
        let ids = analysis
            .files
            .iter()
            .enumerate()
            .map(|(id, f)| (f.path.as_str(), id))
            .collect();
        let kept = analysis
            .config
            .iter()
            .map(|c| c.file.as_str())
            .chain(analysis.captures.iter().map(|c| c.file.as_str()))
            .collect();
        FileLinks {
            analysis_id,
            ids,
            kept,
        }
    }

    /// The raw file view at `line` of `path`, when `path` is a file that was read; the
    /// kept lines of a config file or CLI capture.
    pub fn line(&self, path: &str, line: u64) -> Option<String> {
        match self.ids.get(path) {
            Some(id) => Some(file_line_url(self.analysis_id, *id, line)),
            None if self.kept.contains(path) => Some(kept_line_url(self.analysis_id, path, line)),
            None => None,
        }
    }
}

/// The kept lines of config file or capture `path` of analysis `id`, at `line`.
pub fn kept_line_url(id: &str, path: &str, line: u64) -> String {
    format!(
        "/analyses/{id}/kept?path={}&line={line}#L{line}",
        encode_component(path)
    )
}

/// The raw file view of file `file` of analysis `id`, around `line`.
pub fn file_line_url(id: &str, file: usize, line: u64) -> String {
    format!("/analyses/{id}/files/{file}?line={line}#L{line}")
}

/// One of eight colours per host, in the order hosts first appear, so that lines
/// interleaved across hosts can be told apart at a glance.
#[derive(Debug, Default)]
pub struct HostHues(HashMap<String, usize>);

impl HostHues {
    /// The CSS class of `host`'s colour (`h0` .. `h7`).
    pub fn of(&mut self, host: &str) -> String {
        let next = self.0.len();
        let hue = *self.0.entry(host.to_string()).or_insert(next);
        format!("h{}", hue % 8)
    }
}

/// The day of each row, shown only where it changes (rows are in time order).
#[derive(Debug, Default)]
pub struct DayBreaks(String);

impl DayBreaks {
    /// `Some(date)` when `date` differs from the previous row's.
    pub fn at(&mut self, date: &str) -> Option<String> {
        if date.is_empty() || date == self.0 {
            return None;
        }
        self.0 = date.to_string();
        Some(self.0.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn marks_wrap_matched_words_and_everything_else_is_escaped() {
        let text = "<script>alert('x')</script> ERROR in nova & co";
        let at = text.find("ERROR").unwrap();
        let html = marked_html(text, &[(at, at + 5)]);
        assert_eq!(
            html,
            "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; <mark>ERROR</mark> in nova &amp; co"
        );
    }

    #[test]
    fn marks_never_split_a_character_and_survive_bad_ranges() {
        let text = "héllo wörld";
        // 1..2 falls inside 'é' (bytes 1..3): the whole character is marked.
        assert_eq!(marked_html(text, &[(2, 3)]), "h<mark>é</mark>llo wörld");
        // Overlapping, unordered, reversed and out-of-range ranges.
        let html = marked_html(text, &[(7, 100), (0, 2), (1, 4), (5, 3), (200, 300)]);
        assert_eq!(html, "<mark>hél</mark>lo <mark>wörld</mark>");
        assert_eq!(marked_html("", &[(0, 4)]), "");
    }

    #[test]
    fn prose_quotes_become_code_and_paths_are_shortened() {
        assert_eq!(
            prose_html("set `a<b` to `60` & go"),
            "set <code>a&lt;b</code> to <code>60</code> &amp; go"
        );
        assert_eq!(prose_html("one ` alone"), "one ` alone");
        assert_eq!(short_path("a/b/c/d/e.log"), "…/c/d/e.log");
        assert_eq!(short_path("c/d/e.log"), "c/d/e.log");
    }

    #[test]
    fn components_are_percent_encoded() {
        assert_eq!(encode_component("a b/c?d=é"), "a%20b%2Fc%3Fd%3D%C3%A9");
        assert_eq!(encode_component("req-1_2.3~"), "req-1_2.3~");
    }

    #[test]
    fn sizes_counts_and_times_read_well() {
        assert_eq!(human_bytes(512), "512 B");
        assert_eq!(human_bytes(3 * 1024 + 400), "3.4 KiB");
        assert_eq!(human_bytes(8 << 30), "8.0 GiB");
        assert_eq!(human_bytes(200 << 20), "200 MiB");
        assert_eq!(count(1_234_567), "1\u{2009}234\u{2009}567");
        assert_eq!(count(12), "12");
        assert_eq!(
            split_time("2020-12-08T19:51:12.000Z"),
            ("2020-12-08".to_string(), "19:51:12.000".to_string())
        );
        assert_eq!(
            readable_time("2020-12-08T19:51:12.000Z"),
            "2020-12-08 19:51:12.000"
        );
        assert_eq!(readable_time("-"), "-");
    }

    #[test]
    fn lines_are_marked_by_their_level_word_or_status() {
        let oslo = "2020-12-08 19:51:15.537 235 ERROR masakari.engine.manager [req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8 masakari - - - -] Failed to process notification";
        assert_eq!(text_level_class(oslo), "lvl-error");
        let warn = "2020-12-08 19:51:14.214 235 WARNING masakari.compute.nova [-] x";
        assert_eq!(text_level_class(warn), "lvl-warning");
        let access = "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540";
        assert_eq!(text_level_class(access), "lvl-warning");
        let info = "2020-12-08 19:50:57.142 235 INFO masakari.compute.nova [req-009aadf7-5b16-4432-b987-2c4db03e5793 masakari - - - -] Call get server command";
        assert_eq!(text_level_class(info), "");
    }

    #[test]
    fn hosts_keep_their_colour_and_days_show_when_they_change() {
        let mut hues = HostHues::default();
        assert_eq!(hues.of("ctl1"), "h0");
        assert_eq!(hues.of("cmp1"), "h1");
        assert_eq!(hues.of("ctl1"), "h0");
        let mut days = DayBreaks::default();
        assert_eq!(days.at("2020-12-08").as_deref(), Some("2020-12-08"));
        assert_eq!(days.at("2020-12-08"), None);
        assert_eq!(days.at("2020-12-09").as_deref(), Some("2020-12-09"));
        assert_eq!(days.at(""), None);
    }
}
