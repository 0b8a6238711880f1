//! Control characters made visible. A log line may carry raw NUL, BEL, ANSI colour and
//! OSC escape sequences or bidirectional overrides; shown as they are, they change what a
//! terminal, a browser or a bug tracker displays. Every human-facing rendering (HTML
//! pages, SVG, Markdown, the text report, the bug template) passes its log text through
//! here; the stored files keep the raw bytes.

use std::borrow::Cow;
use std::fmt::Write as _;

/// `text` with each control character replaced by a visible escape: ESC as `␛` (so
/// `\x1b[31m` reads `␛[31m`), carriage return as `\r`, other C0 controls and DEL as
/// `\xNN`, C1 controls and bidirectional formatting characters as `\u{NNNN}`. Tab and
/// line feed are layout and stay. Borrowed when there is nothing to replace.
pub fn visible_controls(text: &str) -> Cow<'_, str> {
    let Some(first) = text.find(is_hidden) else {
        return Cow::Borrowed(text);
    };
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    for c in text[first..].chars() {
        push_visible(&mut out, c);
    }
    Cow::Owned(out)
}

/// Whether `c` is replaced by [`visible_controls`].
pub fn is_hidden(c: char) -> bool {
    match c {
        '\t' | '\n' => false,
        c if c.is_control() => true,
        // Bidirectional marks, embeddings, overrides and isolates: they reorder what
        // follows them on screen.
        '\u{061c}'
        | '\u{200e}'
        | '\u{200f}'
        | '\u{202a}'..='\u{202e}'
        | '\u{2066}'..='\u{2069}' => true,
        _ => false,
    }
}

fn push_visible(out: &mut String, c: char) {
    match c {
        c if !is_hidden(c) => out.push(c),
        '\u{1b}' => out.push('␛'),
        '\r' => out.push_str("\\r"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:04x}}}", c as u32);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        let line = "2024-10-08 06:25:03.123 12 INFO masakari.engine [req-1] Call evacuate\tok\n";
        assert!(matches!(visible_controls(line), Cow::Borrowed(_)));
    }

    #[test]
    fn terminal_escapes_nul_bell_and_overrides_become_visible() {
        let line = "\x1b[31mERROR\x1b[0m \x1b]8;;http://evil/\x07link\x1b]8;;\x07 a\x00b\x7f\r\u{202e}cba\u{85}";
        let shown = visible_controls(line);
        assert_eq!(
            shown,
            "␛[31mERROR␛[0m ␛]8;;http://evil/\\x07link␛]8;;\\x07 a\\x00b\\x7f\\r\\u{202e}cba\\u{0085}"
        );
        assert!(!shown.chars().any(is_hidden));
    }

    #[test]
    fn every_character_comes_out_visible_or_unchanged() {
        for code in 0..0x3000u32 {
            let Some(c) = char::from_u32(code) else {
                continue;
            };
            let shown = visible_controls(c.encode_utf8(&mut [0; 4])).into_owned();
            assert!(!shown.chars().any(is_hidden), "{code:#x} stays hidden");
            if !is_hidden(c) {
                assert_eq!(shown, c.to_string());
            }
        }
    }
}
