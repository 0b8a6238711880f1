//! The records of a log, identified as they are read (a sink of the analysis).

use super::Identifier;
use super::context::context_brackets;
use super::hints::{HINT, hint_places};
use super::key_values::is_key_byte;
use crate::redact::fasthash;
use crate::redact::map::Kind;
use crate::redact::names::Seeds;

/// Identifies every record of one log as it is read (a sink of the analysis).
///
/// An oslo.log record is read as its message: the text before it (time, pid, level,
/// logger, wrapper, context bracket) gives only the bracket's user and project, unless it
/// holds something a key or a value could be made of (then the whole line is read). A
/// one-line record whose message came before gives nothing new: most DEBUG messages
/// repeat.
#[derive(Debug, Default)]
pub struct IdentifySink {
    identify: Identifier,
    /// The messages of one-line records read so far (by hash), and whether each holds a
    /// word of [`HINTS`](super::hints::HINTS).
    messages: fasthash::FxHashMap<u64, u8>,
    /// The context bracket whose names were read last, when it was the only context of
    /// its line's prefix (the next line of the same request gives the same names).
    last_context: Option<String>,
    /// Scratch: where the words of [`HINTS`](super::hints::HINTS) are in a message.
    hits: Vec<(usize, usize, usize)>,
}

/// At most this many messages are remembered per log (a bound on memory).
const MESSAGES_KEPT: usize = 1 << 20;
/// What is remembered of a message: it holds a hint; it was read; it was read past the
/// hint test.
const HINTED: u8 = 1;
const READ: u8 = 2;
const READ_OPEN: u8 = 4;

impl IdentifySink {
    /// What the records gave.
    pub fn into_seeds(self) -> Seeds {
        self.identify.into_seeds()
    }

    /// The user and project of the context brackets of an oslo line's prefix, as
    /// [`context_brackets`] reads them. A prefix whose only context is the bracket read
    /// last gives the names weighed then: they are not read again.
    fn bracket_names(&mut self, prefix: &str, context: Option<&str>) {
        let alone = context.filter(|raw| only_context(prefix, raw));
        if alone.is_some() && self.last_context.as_deref() == alone {
            return;
        }
        for (user, project) in context_brackets(prefix) {
            self.identify.name(user, Kind::User);
            self.identify.name(project, Kind::Project);
        }
        match (alone, &mut self.last_context) {
            (Some(raw), Some(last)) => {
                last.clear();
                last.push_str(raw);
            }
            (alone, last) => *last = alone.map(str::to_string),
        }
    }
}

impl crate::ingest::sink::RecordSink for IdentifySink {
    fn record(
        &mut self,
        _file: &crate::ingest::sink::FileCtx<'_>,
        record: &evacdoc_parsers::Record<'_>,
        _span: crate::ingest::sink::RecordSpan,
    ) {
        let rest = record.continuation.iter().chain(&record.traceback).copied();
        let head = &record.head;
        let split = match &head.content {
            evacdoc_parsers::line::Content::Oslo(o) => split_at_message(head.raw, o.message)
                .filter(|(prefix, message)| !opens_table(message) && plain_prefix(prefix))
                .map(|(prefix, message)| (prefix, message, o.context_raw)),
            _ => None,
        };
        let Some((prefix, message, context)) = split else {
            self.identify.record(head.raw, rest);
            return;
        };
        let one_line = record.continuation.is_empty() && record.traceback.is_empty();
        let key = if one_line { message_hash(message) } else { 0 };
        let known = if one_line {
            self.messages.get(&key).copied()
        } else {
            None
        };
        // The message's hints are found once: for the test and for reading it.
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        let hinted = match known {
            Some(k) => k & HINTED != 0,
            None => {
                hint_places(message, &mut hits);
                !hits.is_empty()
            }
        };
        // The whole line is read past the hint test when any part of it has a hint: the
        // message is read so too when only the text before it has one.
        // `[req-` is a hint: a request context, in most prefixes, answers without the
        // automaton.
        let open = !hinted && (prefix.contains("[req-") || HINT.find(prefix).is_some());
        let done = if open { READ_OPEN } else { READ };
        // The bracket's names, first as in the whole line.
        if hinted || open {
            self.bracket_names(prefix, context);
        }
        if known.is_none_or(|k| k & done == 0) {
            if known.is_some() {
                hint_places(message, &mut hits);
            }
            self.identify.reset();
            self.identify
                .line_hinted(message, false, hinted || open, Some(&hits));
            if one_line && (known.is_some() || self.messages.len() < MESSAGES_KEPT) {
                let flags = known.unwrap_or(if hinted { HINTED } else { 0 }) | done;
                self.messages.insert(key, flags);
            }
        }
        self.hits = hits;
        for line in rest {
            self.identify.line(line, true);
        }
        self.identify.reset();
    }

    // Every record is read, so the reader may pass over any line the other sinks
    // ignore: it is read here as the one-line record it is.
    fn skims(&self) -> bool {
        true
    }

    fn candidate(&self, _: &crate::ingest::sink::FileCtx<'_>, _: &str) -> bool {
        true
    }

    fn ignores(&self, _: &crate::ingest::sink::FileCtx<'_>, _: &evacdoc_parsers::Line<'_>) -> bool {
        true
    }

    fn skipped(
        &mut self,
        file: &crate::ingest::sink::FileCtx<'_>,
        head: &evacdoc_parsers::Line<'_>,
        span: crate::ingest::sink::RecordSpan,
    ) {
        let record = crate::ingest::sink::record_of_line(head, span);
        crate::ingest::sink::RecordSink::record(self, file, &record, span);
    }
}

/// Whether the context bracket `raw` (a part of `prefix`, inside `[` and `]`) is the only
/// text of `prefix` that [`context_brackets`] can read names from: no other `[` in it
/// opens with a request id or `None`.
pub(super) fn only_context(prefix: &str, raw: &str) -> bool {
    let Some(start) = (raw.as_ptr() as usize).checked_sub(prefix.as_ptr() as usize) else {
        return false;
    };
    let end = start + raw.len();
    if start == 0 || end >= prefix.len() {
        return false;
    }
    let b = prefix.as_bytes();
    if b[start - 1] != b'[' || b[end] != b']' {
        return false;
    }
    let opens = |part: &[u8]| {
        memchr::memchr_iter(b'[', part).any(|at| {
            let after = &part[at + 1..];
            after.starts_with(b"req-") || after.starts_with(b"None")
        })
    };
    !opens(&b[..start - 1]) && !opens(&b[end..])
}

/// The part of `raw` before `message` and `message`, when `message` is the end of `raw`.
fn split_at_message<'a>(raw: &'a str, message: &str) -> Option<(&'a str, &'a str)> {
    let start = (message.as_ptr() as usize).checked_sub(raw.as_ptr() as usize)?;
    (start + message.len() == raw.len() && raw.is_char_boundary(start)).then(|| raw.split_at(start))
}

/// Whether the text before an oslo message can give nothing but its context bracket's
/// names: it ends with the bracket, holds no separator a key's value could follow
/// (`=`, `|`, a `:` after a word holding a hint), no quote, flag, URL, credential, `Basic`,
/// Fernet token or `DNS:` name.
pub(super) fn plain_prefix(prefix: &str) -> bool {
    if !prefix.trim_end().ends_with(']') {
        return false;
    }
    // One pass: each byte that can start what is looked for is tested where it is; the
    // bytes between are passed over by a table lookup.
    let b = prefix.as_bytes();
    let mut from = 0;
    while let Some(found) = b[from..].iter().position(|&c| STARTS[usize::from(c)]) {
        let at = from + found;
        if !plain_at(prefix, at) {
            return false;
        }
        from = at + 1;
    }
    true
}

/// The bytes [`plain_at`] tests.
static STARTS: [bool; 256] = {
    let mut starts = [false; 256];
    let bytes = b"=|@\"'\\-gbB:";
    let mut i = 0;
    while i < bytes.len() {
        starts[bytes[i] as usize] = true;
        i += 1;
    }
    starts
};

/// Whether the byte at `at` of a prefix starts nothing [`plain_prefix`] looks for.
pub(super) fn plain_at(prefix: &str, at: usize) -> bool {
    let b = prefix.as_bytes();
    match b[at] {
        b'=' | b'|' | b'@' | b'"' | b'\'' | b'\\' => false,
        // A flag (`--`).
        b'-' => b.get(at + 1) != Some(&b'-'),
        // A Fernet token.
        b'g' => !b[at..].starts_with(b"gAAAAA"),
        b'b' | b'B' => !b
            .get(at..at + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"basic ")),
        // A URL, a `DNS:` name, a key.
        b':' => {
            !b[at + 1..].starts_with(b"//") && !b[..at].ends_with(b"DNS") && {
                let before = prefix[..at].trim_end_matches([' ', '\t']).as_bytes();
                let word = before
                    .iter()
                    .rposition(|&c| !is_key_byte(c))
                    .map_or(before, |i| &before[i + 1..]);
                // Times (`02:00:00`) are digits; a word with letters may be a key.
                !word.iter().any(u8::is_ascii_alphabetic) || HINT.find(word).is_none()
            }
        }
        _ => true,
    }
}

/// Whether `message` starts like a CLI table's line (read with the whole line instead).
fn opens_table(message: &str) -> bool {
    let t = message.trim_start();
    t.starts_with('|') || t.starts_with("+-")
}

/// The key a message is remembered by: [`fasthash::fold_hash`] instead of SipHash,
/// which cost more than the rest of a remembered line's reading.
fn message_hash(message: &str) -> u64 {
    fasthash::fold_hash(message.as_bytes())
}
