//! Text hidden inside a value: base64 (`user_data`) and JSON escaped inside JSON, read
//! as text of its own, [`DEPTH`](super::DEPTH) levels down at most.

use std::sync::LazyLock;

use memchr::memmem;

use super::{DEPTH, Identifier};

static ESCAPED_QUOTE: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("\\\""));

impl Identifier {
    /// JSON escaped inside a line (`\"key\": \"value\"`), read unescaped.
    pub(super) fn escaped_json(&mut self, line: &str) {
        if self.depth < DEPTH && ESCAPED_QUOTE.find(line.as_bytes()).is_some() {
            let unescaped = line.replace("\\\\", "\\").replace("\\\"", "\"");
            self.nested(&unescaped);
        }
    }

    /// A key's value that is base64 of text, read as that text.
    pub(super) fn base64_value(&mut self, value: &str) {
        if self.depth < DEPTH && value.len() >= 16 && is_base64(value) {
            let decoded = decode_base64(value);
            if let Ok(text) = std::str::from_utf8(&decoded)
                && text.chars().all(|c| !c.is_control() || c.is_whitespace())
            {
                let text = text.to_string();
                self.nested(&text);
            }
        }
    }

    /// Text found inside a line (decoded or unescaped), read with its own state.
    fn nested(&mut self, text: &str) {
        let mut inner = Identifier {
            depth: self.depth + 1,
            ..Identifier::default()
        };
        for line in text.lines() {
            inner.line(line, false);
        }
        self.seeds.merge(inner.seeds);
    }
}

fn is_base64(v: &str) -> bool {
    let v = v.trim_end_matches('=');
    v.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
        && !v.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Standard or URL-safe base64, padding and unknown bytes skipped.
pub(crate) fn decode_base64(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => continue,
        };
        acc = (acc << 6 | u32::from(v)) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits & 0xff) as u8);
        }
    }
    out
}
