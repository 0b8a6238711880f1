//! The `head` field: the words of a record's raw lines that its `text` field does not
//! hold, so that a literal search (`grep -F`) is narrowed by the text's words and these
//! together (`index::search::literal`).
//!
//! Indexing every word of the raw lines a second time cost half of the index build, and
//! most of that was the words of the lines' heads that are new terms on every line
//! (timestamps, process ids, request ids). So the head field leaves out, by rule:
//!
//! - words made of digits only (times, process ids, counters): a literal's all-digit word
//!   never narrows the search;
//! - the hex groups of the record's own request and global request ids where the raw
//!   lines spell them canonically (`req-` and a lowercase UUID, outside the text): the
//!   `request` field holds those ids whole, and narrows a literal's hex word by them;
//! - the record's level and the words of its logger's name (`DEBUG`, `nova`, `compute`,
//!   `manager`): the `level` and `logger` fields hold them whole (lowercased), and a
//!   literal's word is also looked for inside those.
//!
//! Every other word outside the text is kept in its case. Words the text field drops for
//! their length (tantivy's default tokenizer keeps words under [`TEXT_WORD_LIMIT`] bytes)
//! are kept here too, so that a literal's word is always in one of the two fields, or in
//! the request field, or all digits.

use evacdoc_parsers::text::is_request_id;

use crate::index::words::word_spans;

/// The text field's tokenizer drops words of this many bytes and more (tantivy's default
/// tokenizer, `RemoveLongFilter::limit(40)`).
pub(crate) const TEXT_WORD_LIMIT: usize = 40;
/// `req-` and a UUID.
const REQUEST_ID_LEN: usize = 40;

/// What the record's other fields hold whole (empty when it has none).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Held<'a> {
    pub request: &'a str,
    pub global: &'a str,
    pub level: &'a str,
    pub logger: &'a str,
}

/// The most logger words left out of a head (a longer name keeps the rest).
const MAX_LOGGER_WORDS: usize = 12;

/// Writes into `out` (replacing what it held) the words of `raw` the head field indexes,
/// separated by spaces. `text_spans` are the byte ranges of `raw` the text field
/// tokenizes (`None`: the text is not made of slices of `raw`, so every word is the
/// head's); `held` what the record's id, level and logger fields hold.
pub(crate) fn head_words(
    raw: &str,
    text_spans: Option<&[(usize, usize)]>,
    held: Held<'_>,
    out: &mut String,
) {
    words_of(raw, text_spans, held, out, Walk::SpansAlone);
}

/// How the words of a raw line are walked: each one (and each tested against the text's
/// spans), or the text's spans read on their own where no word crosses their bounds
/// (the same words, found faster: the text is most of a line).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Walk {
    // What the spans' walk is checked against (tests).
    #[cfg_attr(not(test), allow(dead_code))]
    EveryWord,
    SpansAlone,
}

fn words_of(
    raw: &str,
    text_spans: Option<&[(usize, usize)]>,
    held: Held<'_>,
    out: &mut String,
    walk: Walk,
) {
    out.clear();
    let ids = [held.request, held.global];
    let mut id_spans: [(usize, usize); 4] = [(0, 0); 4];
    let mut found = 0;
    let ids = ids.map(|id| canonical(id).then_some(id));
    if ids.iter().any(Option::is_some) {
        static REQ: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
            std::sync::LazyLock::new(|| memchr::memmem::Finder::new("req-"));
        for at in REQ.find_iter(raw.as_bytes()) {
            let here = raw.get(at..at + REQUEST_ID_LEN);
            if found < id_spans.len() && here.is_some() && ids.contains(&here) {
                // The hex groups only: `req` is a word of every line, cheap to keep.
                id_spans[found] = (at + "req-".len(), at + REQUEST_ID_LEN);
                found += 1;
            }
        }
    }
    let id_spans = &id_spans[..found];
    let mut logger_words: [&str; MAX_LOGGER_WORDS] = [""; MAX_LOGGER_WORDS];
    for (slot, (start, end)) in logger_words.iter_mut().zip(word_spans(held.logger)) {
        *slot = &held.logger[start..end];
    }
    let held_whole =
        |word: &str| word == held.level || (!word.is_empty() && logger_words.contains(&word));
    // A word of the text is the head's only when the text field drops it for its length;
    // any other word unless a field holds it whole or it is all digits.
    let mut take = |start: usize, end: usize, in_text: bool| {
        let word = &raw[start..end];
        let kept = if in_text {
            word.len() >= TEXT_WORD_LIMIT
        } else {
            !(word.bytes().all(|b| b.is_ascii_digit())
                || inside(id_spans, start, end)
                || held_whole(word))
        };
        if kept {
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
        }
    };
    match text_spans.filter(|spans| walk == Walk::SpansAlone && clean(raw, spans)) {
        Some(spans) => {
            // Between the text's spans every word, inside them only the long ones.
            let mut at = 0;
            for &(start, end) in spans {
                for (s, e) in word_spans(&raw[at..start]) {
                    take(at + s, at + e, false);
                }
                long_words(raw, start, end, &mut |s, e| take(s, e, true));
                at = end;
            }
            for (s, e) in word_spans(&raw[at..]) {
                take(at + s, at + e, false);
            }
        }
        None => {
            for (start, end) in word_spans(raw) {
                let in_text = text_spans.is_some_and(|spans| inside(spans, start, end));
                take(start, end, in_text);
            }
        }
    }
}

/// Whether the word in `start..end` lies in one of `spans`.
fn inside(spans: &[(usize, usize)], start: usize, end: usize) -> bool {
    spans.iter().any(|&(s, e)| s <= start && end <= e)
}

/// Whether `spans` follow one another in `raw` and no word crosses their bounds (an
/// ASCII separator, or the line's end, on each side): the words of `raw` are then those
/// between the spans and those inside them, and a text word can be looked for in its
/// span alone.
fn clean(raw: &str, spans: &[(usize, usize)]) -> bool {
    let b = raw.as_bytes();
    let separator = |i: usize| {
        b.get(i)
            .is_some_and(|c| c.is_ascii() && !c.is_ascii_alphanumeric())
    };
    let mut at = 0;
    spans.iter().all(|&(start, end)| {
        let fits = at <= start
            && start <= end
            && end <= b.len()
            && raw.is_char_boundary(start)
            && raw.is_char_boundary(end)
            && (start == 0 || separator(start - 1))
            && (end == b.len() || separator(end));
        at = end;
        fits
    })
}

/// Calls `found` with the words of `raw[start..end]` (a span no word crosses) of at
/// least [`TEXT_WORD_LIMIT`] bytes. An ASCII span is not read byte by byte: a word that
/// long must hold the byte `TEXT_WORD_LIMIT - 1` past any place before it, so a
/// separator there passes over the whole stretch.
fn long_words(raw: &str, start: usize, end: usize, found: &mut dyn FnMut(usize, usize)) {
    let b = raw.as_bytes();
    let span = &b[start..end];
    if !span.is_ascii() {
        for (s, e) in word_spans(&raw[start..end]) {
            if e - s >= TEXT_WORD_LIMIT {
                found(start + s, start + e);
            }
        }
        return;
    }
    let word = |i: usize| b[i].is_ascii_alphanumeric();
    // No word of the span starts before `at` and goes on past it.
    let mut at = start;
    while at + TEXT_WORD_LIMIT <= end {
        let probe = at + TEXT_WORD_LIMIT - 1;
        if !word(probe) {
            at = probe + 1;
            continue;
        }
        let mut first = probe;
        while first > at && word(first - 1) {
            first -= 1;
        }
        let mut last = probe + 1;
        while last < end && word(last) {
            last += 1;
        }
        if last - first >= TEXT_WORD_LIMIT {
            found(first, last);
        }
        at = last + 1;
    }
}

/// A request id as oslo writes it: `req-` and a lowercase UUID, the form the request field
/// holds unchanged (it lowercases what it indexes).
pub(crate) fn canonical(id: &str) -> bool {
    is_request_id(id) && !id.bytes().any(|b| b.is_ascii_uppercase())
}

/// True when `word` may be (part of) a hex group of a canonical request id the head field
/// left out: lowercase hex digits, at most 12.
pub(crate) fn may_be_in_request_id(word: &str) -> bool {
    !word.is_empty()
        && word.len() <= 12
        && word.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(raw: &str, text_from: Option<&str>, ids: [&str; 2]) -> String {
        held_head(
            raw,
            text_from,
            Held {
                request: ids[0],
                global: ids[1],
                ..Held::default()
            },
        )
    }

    fn held_head(raw: &str, text_from: Option<&str>, held: Held<'_>) -> String {
        let spans = text_from.map(|t| {
            let at = raw.find(t).unwrap();
            vec![(at, at + t.len())]
        });
        let mut out = String::from("stale");
        head_words(raw, spans.as_deref(), held, &mut out);
        out
    }

    #[test]
    fn the_head_keeps_the_words_outside_the_text_but_digits_and_request_ids() {
        let req = "req-c9f75f3d-7e41-4790-94e7-b235b073cdd0";
        let raw = format!(
            "2023-03-14 00:00:06.050 26518 DEBUG keystone.server [None {req} 0c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5 - - default default] PATH_INFO: `/v3/auth/tokens` f /x.py:27"
        );
        let message = &raw[raw.find("PATH_INFO").unwrap()..];
        assert_eq!(
            head(&raw, Some(message), [req, ""]),
            "DEBUG keystone server None req 0c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5 default default"
        );
        // Not the record's id, or not canonical: its groups are kept.
        assert_eq!(
            head(&raw, Some(message), ["", ""]),
            "DEBUG keystone server None req c9f75f3d 7e41 94e7 b235b073cdd0 0c1d2e3f4a5b46c7d8e9f0a1b2c3d4e5 default default"
        );
        let upper = raw.replace("c9f75f3d", "C9F75F3D");
        let upper_id = req.replace("c9f75f3d", "C9F75F3D");
        let upper_message = &upper[upper.find("PATH_INFO").unwrap()..];
        assert!(head(&upper, Some(upper_message), [&upper_id, ""]).contains("C9F75F3D"));
        // Text not sliced from the lines: every word is the head's.
        assert!(head(&raw, None, ["", ""]).ends_with("default PATH INFO v3 auth tokens f x py"));
    }

    #[test]
    fn the_level_and_the_logger_words_are_left_to_their_fields() {
        let raw =
            "2023-03-14 00:00:06.050 26518 DEBUG nova.compute.manager [req-x admin] Took DEBUG";
        let message = &raw[raw.find("Took").unwrap()..];
        let held = Held {
            level: "DEBUG",
            logger: "nova.compute.manager",
            ..Held::default()
        };
        assert_eq!(held_head(raw, Some(message), held), "req x admin");
        // Another record's level and logger: kept.
        let other = Held {
            level: "INFO",
            logger: "nova.api",
            ..Held::default()
        };
        assert_eq!(
            held_head(raw, Some(message), other),
            "DEBUG compute manager req x admin"
        );
    }

    #[test]
    fn words_too_long_for_the_text_field_stay_in_the_head() {
        let long = "a".repeat(TEXT_WORD_LIMIT);
        let short = "b".repeat(TEXT_WORD_LIMIT - 1);
        let raw = format!("INFO x [-] {long} {short}");
        assert_eq!(
            head(&raw, Some(&raw[11..]), ["", ""]),
            format!("INFO x {long}")
        );
    }

    /// Every line of the sample scenarios, with the text spans the index gives (the
    /// message, when the line is an oslo line) and others cut at random: walking the
    /// spans alone finds the words walking every word finds.
    #[test]
    fn the_spans_alone_give_what_every_word_gives() {
        let mut files = vec![std::path::PathBuf::from(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/scenarios"
        ))];
        let mut lines = Vec::new();
        while let Some(path) = files.pop() {
            if path.is_dir() {
                files.extend(std::fs::read_dir(&path).unwrap().map(|e| e.unwrap().path()));
            } else if path.extension().is_some_and(|e| e == "log") {
                let bytes = std::fs::read(&path).unwrap();
                lines.extend(String::from_utf8_lossy(&bytes).lines().map(str::to_string));
            }
        }
        lines.push(format!("x [-] {} é{}é ü", "a".repeat(45), "b".repeat(41)));
        lines.push(format!("{}:{}", "c".repeat(50), "d".repeat(39)));
        assert!(lines.len() > 5000, "{}", lines.len());
        let mut seed = 7u64;
        let mut below = |n: usize| {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1);
            ((seed >> 33) as usize) % n.max(1)
        };
        let (mut fast, mut slow, mut compared) = (String::new(), String::new(), 0);
        for raw in &lines {
            let boundaries: Vec<usize> = (0..=raw.len())
                .filter(|&i| raw.is_char_boundary(i))
                .collect();
            let message = raw.find("] ").map(|at| vec![(at + 2, raw.len())]);
            let mut cut: Vec<usize> = (0..4)
                .map(|_| boundaries[below(boundaries.len())])
                .collect();
            cut.sort_unstable();
            let random = vec![(cut[0], cut[1]), (cut[2], cut[3])];
            let held = Held {
                level: "DEBUG",
                logger: "nova.compute.manager",
                ..Held::default()
            };
            for spans in [message, Some(random), None] {
                words_of(raw, spans.as_deref(), held, &mut fast, Walk::SpansAlone);
                words_of(raw, spans.as_deref(), held, &mut slow, Walk::EveryWord);
                assert_eq!(fast, slow, "{raw:?} {spans:?}");
                compared += 1;
            }
        }
        assert!(compared > 15_000, "{compared}");
    }

    #[test]
    fn only_lowercase_hex_words_can_hide_in_a_request_id() {
        assert!(may_be_in_request_id("c9f75f3d"));
        assert!(may_be_in_request_id("b235b073cdd0"));
        assert!(!may_be_in_request_id("b235b073cdd01"));
        assert!(!may_be_in_request_id("C9F7"));
        assert!(!may_be_in_request_id("req"));
        assert!(!may_be_in_request_id(""));
        assert!(canonical("req-c9f75f3d-7e41-4790-94e7-b235b073cdd0"));
        assert!(!canonical("req-C9F75F3D-7e41-4790-94e7-b235b073cdd0"));
        assert!(!canonical("c9f75f3d-7e41-4790-94e7-b235b073cdd0"));
    }
}
