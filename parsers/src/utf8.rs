//! Reading bytes that should be UTF-8 and sometimes are not.
//!
//! Logs carry latin-1 names, binary junk and lines cut mid-character. The whole input is
//! validated once; only an input with invalid bytes is copied, with each invalid sequence
//! replaced by U+FFFD, and the lines that had them are reported.

use std::borrow::Cow;

/// Text decoded from bytes, borrowed when the bytes were valid UTF-8.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Decoded<'a> {
    /// The text, with each invalid sequence replaced by U+FFFD.
    pub text: Cow<'a, str>,
    /// How many invalid byte sequences were replaced.
    pub invalid_sequences: usize,
    /// The 1-based numbers of the lines that held invalid bytes, in order.
    pub invalid_lines: Vec<usize>,
}

/// Decodes `bytes` as UTF-8, lossy where needed.
///
/// ```
/// use evacdoc_parsers::utf8::decode;
/// let d = decode(b"ok line\ncaf\xe9 au lait\n");
/// assert_eq!(d.text, "ok line\ncaf\u{fffd} au lait\n");
/// assert_eq!((d.invalid_sequences, d.invalid_lines), (1, vec![2]));
/// assert!(matches!(decode(b"plain").text, std::borrow::Cow::Borrowed(_)));
/// ```
pub fn decode(bytes: &[u8]) -> Decoded<'_> {
    if let Ok(text) = std::str::from_utf8(bytes) {
        return Decoded {
            text: Cow::Borrowed(text),
            invalid_sequences: 0,
            invalid_lines: Vec::new(),
        };
    }
    let mut text = String::with_capacity(bytes.len() + 16);
    let mut invalid_sequences = 0;
    let mut invalid_lines = Vec::new();
    let mut line = 1;
    for chunk in bytes.utf8_chunks() {
        let valid = chunk.valid();
        line += memchr::memchr_iter(b'\n', valid.as_bytes()).count();
        text.push_str(valid);
        let invalid = chunk.invalid();
        if !invalid.is_empty() {
            invalid_sequences += 1;
            text.push(char::REPLACEMENT_CHARACTER);
            if invalid_lines.last() != Some(&line) {
                invalid_lines.push(line);
            }
            // An invalid sequence never holds a newline byte (0x0A is valid UTF-8).
        }
    }
    Decoded {
        text: Cow::Owned(text),
        invalid_sequences,
        invalid_lines,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_sequences_and_lines() {
        let d = decode(b"\xff first\nsecond \xe2\x82 cut\nthird\n\xc3\xa9t\xe9 \xe9\n");
        assert_eq!(d.invalid_sequences, 4);
        assert_eq!(d.invalid_lines, vec![1, 2, 4]);
        assert_eq!(d.text.lines().nth(3), Some("\u{e9}t\u{fffd} \u{fffd}"));
    }

    #[test]
    fn valid_input_is_borrowed() {
        let d = decode("été – ok".as_bytes());
        assert!(matches!(d.text, Cow::Borrowed("été – ok")));
        assert!(d.invalid_lines.is_empty());
    }
}
