//! A record's text (message, continuation and traceback lines) told as byte ranges of its
//! raw lines, so that the spool and the index hold the raw lines once: the parsers hand
//! out the text as slices of the lines, so their places are pointer differences.
//!
//! Spans are little-endian `u32` pairs `(start, end)` into the raw text (the lines joined
//! by `\n`); the text is the spans' slices joined by `\n`. No spans means the text is the
//! raw text itself.

/// Writes into `out` the spans of `pieces` within `lines` (joined by `\n`), or returns
/// false when a piece is not a slice of a line (a decoded container line): then the text
/// must be kept on its own. `out` is left empty when the text is the raw text.
pub(crate) fn spans_of(pieces: &[&str], lines: &[&str], out: &mut Vec<u8>) -> bool {
    out.clear();
    if pieces.len() == lines.len() && pieces.iter().zip(lines).all(|(p, l)| same(p, l)) {
        return true;
    }
    for piece in pieces {
        let (start, end) = if piece.is_empty() {
            (0, 0)
        } else {
            let mut at = 0usize;
            let mut found = None;
            for line in lines {
                if let Some(offset) = offset_in(piece, line) {
                    found = Some(at + offset);
                    break;
                }
                at += line.len() + 1;
            }
            let Some(start) = found else {
                out.clear();
                return false;
            };
            (start, start + piece.len())
        };
        let (Ok(start), Ok(end)) = (u32::try_from(start), u32::try_from(end)) else {
            out.clear();
            return false;
        };
        out.extend_from_slice(&start.to_le_bytes());
        out.extend_from_slice(&end.to_le_bytes());
    }
    true
}

fn same(a: &str, b: &str) -> bool {
    a.as_ptr() == b.as_ptr() && a.len() == b.len()
}

/// Where `piece` starts in `line`, if it is a slice of it.
fn offset_in(piece: &str, line: &str) -> Option<usize> {
    let start = (piece.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    (start + piece.len() <= line.len()).then_some(start)
}

/// The text `spans` tell of `raw` into `out` (replacing what it held); false when a span
/// does not fit `raw` (a damaged index).
pub(crate) fn text_of(raw: &str, spans: &[u8], out: &mut String) -> bool {
    out.clear();
    if spans.is_empty() {
        out.push_str(raw);
        return true;
    }
    for (i, pair) in spans.chunks(8).enumerate() {
        let Some(slice) = span(raw, pair) else {
            return false;
        };
        if i > 0 {
            out.push('\n');
        }
        out.push_str(slice);
    }
    true
}

/// The one slice of a single span, without copying.
pub(crate) fn single<'a>(raw: &'a str, spans: &[u8]) -> Option<&'a str> {
    match spans.len() {
        0 => Some(raw),
        8 => span(raw, spans),
        _ => None,
    }
}

fn span<'a>(raw: &'a str, pair: &[u8]) -> Option<&'a str> {
    let (start, end) = range(pair)?;
    raw.get(start..end)
}

/// The byte ranges `spans` tell, in order; `None` for a damaged pair.
pub(crate) fn ranges(spans: &[u8]) -> impl Iterator<Item = Option<(usize, usize)>> + '_ {
    spans.chunks(8).map(range)
}

fn range(pair: &[u8]) -> Option<(usize, usize)> {
    let (s, e) = pair.split_at_checked(4)?;
    let start = u32::from_le_bytes(s.try_into().ok()?) as usize;
    let end = u32::from_le_bytes(e.try_into().ok()?) as usize;
    Some((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_of_the_lines_come_back_as_the_text() {
        let raw = "2026-03-02 11:10:01.100 41 ERROR a.b [-] Failed\n2026-03-02 11:10:01.100 41 ERROR a.b Traceback";
        let lines: Vec<&str> = raw.split('\n').collect();
        let at = |line: &'static str, word: &str| &line[line.find(word).unwrap()..];
        let pieces = [at(lines[0], "Failed"), "", at(lines[1], "Traceback")];
        let mut spans = Vec::new();
        assert!(spans_of(&pieces, &lines, &mut spans));
        assert_eq!(spans.len(), 24);
        let mut text = String::new();
        assert!(text_of(raw, &spans, &mut text));
        assert_eq!(text, "Failed\n\nTraceback");
        assert_eq!(single(raw, &spans), None);

        // The text is the raw text: no spans.
        assert!(spans_of(&lines, &lines, &mut spans));
        assert!(spans.is_empty());
        assert_eq!(single(raw, &spans), Some(raw));

        // One message of one line: one span, read without copying.
        assert!(spans_of(&[at(lines[0], "Failed")], &lines[..1], &mut spans));
        assert_eq!(single(lines[0], &spans), Some("Failed"));
    }

    #[test]
    fn text_from_elsewhere_is_refused_and_bad_spans_are_caught() {
        let lines = ["abc"];
        let decoded = String::from("abc");
        let mut spans = Vec::new();
        assert!(!spans_of(&[decoded.as_str()], &lines, &mut spans));
        assert!(spans.is_empty());
        let bad = [0u8, 0, 0, 0, 9, 0, 0, 0];
        assert!(!text_of("abc", &bad, &mut String::new()));
        assert_eq!(single("abc", &bad), None);
    }
}
