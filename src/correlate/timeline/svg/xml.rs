//! Writing SVG text: escaping, numbers, and the house colours.

use crate::model::{Event, LogLevel};

/// Text as XML character data or an attribute value: markup characters escaped, control
/// characters (which XML 1.0 mostly forbids) shown as visible escapes
/// ([`crate::visible`]), the two non-characters XML forbids dropped.
pub(super) fn escape(text: &str) -> String {
    let text = crate::visible::visible_controls(text);
    let mut out = String::with_capacity(text.len() + 16);
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\u{fffe}' | '\u{ffff}' => {}
            c => out.push(c),
        }
    }
    out
}

/// At most `max` characters of `text`, with an ellipsis when cut.
pub(super) fn clip(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_string(),
    }
}

/// A coordinate: one decimal is finer than a pixel and keeps output stable.
pub(super) fn num(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    let s = format!("{v:.1}");
    s.strip_suffix(".0")
        .map_or_else(|| s.clone(), str::to_string)
}

/// How bad a line is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Tone {
    Debug,
    Info,
    Warning,
    Error,
}

impl Tone {
    /// A line's tone: its level, or for a line without one (an access log) its HTTP
    /// status: 5xx an error, 4xx a warning.
    pub fn of(event: &Event) -> Tone {
        match event.level {
            Some(LogLevel::Error | LogLevel::Critical) => Tone::Error,
            Some(LogLevel::Warning) => Tone::Warning,
            Some(LogLevel::Debug) => Tone::Debug,
            Some(LogLevel::Info) => Tone::Info,
            None => match event.http().map(|h| h.status) {
                Some(500..) => Tone::Error,
                Some(400..500) => Tone::Warning,
                _ => Tone::Info,
            },
        }
    }

    /// The CSS class of marks of this tone.
    pub fn class(self) -> &'static str {
        match self {
            Tone::Debug => "debug",
            Tone::Info => "info",
            Tone::Warning => "warning",
            Tone::Error => "error",
        }
    }
}

/// Fonts and colours, one place. Text colours keep at least 4.5:1 against white.
pub(super) const STYLE: &str = "
text { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, 'Helvetica Neue', 'Noto Sans', 'Liberation Sans', Arial, sans-serif; fill: #1d2939; }
.title { font-size: 15px; font-weight: 600; }
.subtitle, .tick, .host, .legend, .break-label { font-size: 11px; fill: #475467; }
.service { font-size: 12px; font-weight: 600; }
.count { font-size: 10px; fill: #344054; font-weight: 600; }
.mark-label { font-size: 11px; font-weight: 600; fill: #b42318; }
.gap-label { font-size: 11px; font-weight: 600; fill: #93370d; }
.lane-bg { fill: #f9fafb; }
.grid { stroke: #eaecf0; stroke-width: 1; }
.axis { stroke: #98a2b3; stroke-width: 1; }
.break { fill: #eef0f3; fill-opacity: 0.8; }
.break-line { stroke: #667085; stroke-width: 1.5; fill: none; }
.gap-shade { fill: #fedf89; fill-opacity: 0.22; }
.gap-bracket { stroke: #b54708; stroke-width: 1.5; fill: none; }
.leader { stroke: #d92d20; stroke-width: 1; stroke-dasharray: 3 2; fill: none; }
.ring { stroke: #d92d20; stroke-width: 2; fill: none; }
.join { stroke: #7f56d9; stroke-width: 1.2; stroke-opacity: 0.55; fill: none; }
.error { fill: #d92d20; stroke: #912018; }
.warning { fill: #f79009; stroke: #b54708; }
.info { fill: #667085; stroke: #344054; }
.debug { fill: #d0d5dd; stroke: #98a2b3; }
.bar { fill-opacity: 0.35; stroke-width: 1; }
.dot { stroke-width: 0.8; }
";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn markup_is_escaped_and_control_characters_shown() {
        assert_eq!(
            escape("<RequestContext object at 0x7f> & \"x\" 'y'\u{1}\r\u{1b}[31m"),
            "&lt;RequestContext object at 0x7f&gt; &amp; &quot;x&quot; &apos;y&apos;\\x01\\r\u{241b}[31m"
        );
        assert_eq!(clip("abcdef", 3), "abc…");
        assert_eq!(clip("abc", 3), "abc");
        assert_eq!(num(12.04), "12");
        assert_eq!(num(12.26), "12.3");
    }
}
