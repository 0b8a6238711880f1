//! An oslo.log line shown as its head and its message, each by default-deny, and a
//! message shown before shown again as it was: a bundle repeats its messages under other
//! timestamps, processes and request contexts. On a 1 GiB sosreport bundle a third of the
//! lines repeat a message of their own file, and half one that their worker showed before
//! in any file ([`super::Judged`] carries the memo from file to file). A head, with its
//! request context, is seldom repeated and is not remembered.

use super::*;
use crate::redact::secrets::holds_no_secret_piece;

/// A message as it was shown, with the pseudonyms it asked for (counted again when it
/// is shown again) and what it said of its line. All of it follows from the message's
/// text, the seeds and the upload's names (fixed for a run), the words judged (the same
/// verdicts whenever judged) and the map, which never changes a pseudonym once given:
/// showing it again as it was shown is what showing it anew gives.
#[derive(Debug)]
pub(super) struct Shown {
    text: Box<str>,
    shown: Box<str>,
    kinds: Box<[Kind]>,
    facts: Facts,
    /// [`holds_no_secret_piece`] of `text`.
    clean: bool,
}

/// What showing a text said of its line.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(super) struct Facts {
    /// A word was replaced because it was not known to be safe.
    pub(super) reduced: bool,
    /// A known template matched.
    pub(super) templated: bool,
    /// The text's last word was a key (`password`, `--os-username`): the value after it
    /// would be judged by it.
    pub(super) ends_on_key: bool,
}

/// Messages shown, in a direct-mapped cache by [`crate::redact::fasthash::fold_hash`]
/// (compared byte for byte): a colliding message only evicts another, so the cost per
/// line and the memory stay bounded whatever the input picks.
#[derive(Debug, Default)]
pub(super) struct Remembered {
    slots: Vec<Option<Shown>>,
}

/// Slots of [`Remembered`]: 2^13.
const MESSAGE_BITS: u32 = 13;

/// The longest message remembered: with the slots, a bound of 16 MiB per [`super::Judged`].
const LONGEST_MESSAGE: usize = 1024;

impl Remembered {
    fn slot(hash: u64) -> usize {
        (hash >> (64 - MESSAGE_BITS)) as usize
    }

    fn get(&self, text: &str, hash: u64) -> Option<&Shown> {
        self.slots
            .get(Remembered::slot(hash))?
            .as_ref()
            .filter(|s| &*s.text == text)
    }

    fn put(&mut self, hash: u64, shown: Shown) {
        if self.slots.is_empty() {
            self.slots.resize_with(1 << MESSAGE_BITS, || None);
        }
        if let Some(slot) = self.slots.get_mut(Remembered::slot(hash)) {
            *slot = Some(shown);
        }
    }
}

impl PublicText<'_> {
    /// An oslo.log line shown into `out`: its head (time, process, level, logger and
    /// request context), then its message (remembered), each by default-deny. `clean`:
    /// [`PublicText::clean`] found no piece of a secret in the line (remembered with the
    /// message). The kinds of pseudonyms asked for are noted in `map`.
    pub(super) fn oslo_shown(
        &mut self,
        line: &str,
        message_at: usize,
        clean: bool,
        map: &mut Asked<'_>,
        out: &mut String,
    ) -> Facts {
        let (out_at, kinds_at) = (out.len(), map.kinds.len());
        let head = self.words_into(
            &line[..message_at],
            Vocabulary::Log,
            Reading::Head,
            map,
            out,
        );
        // A head ending on a key (a logger named like one) would judge the message's
        // first word by it: such a line is shown whole, as any other.
        if !head.ends_on_key {
            let message = self.message_into(&line[message_at..], clean, map, out);
            return Facts {
                reduced: head.reduced || message.reduced,
                ..message
            };
        }
        out.truncate(out_at);
        map.kinds.truncate(kinds_at);
        self.words_into(line, Vocabulary::Log, Reading::Line, map, out)
    }

    /// Whether no part of an oslo.log line holds a piece of a secret
    /// ([`holds_no_secret_piece`]; found of the message before when it was shown
    /// before).
    pub(super) fn clean(&self, line: &str, message_at: usize) -> bool {
        let message = &line[message_at..];
        holds_no_secret_piece(&line[..message_at])
            && match self.judged.messages.get(
                message,
                crate::redact::fasthash::fold_hash(message.as_bytes()),
            ) {
                Some(shown) => shown.clean,
                None => holds_no_secret_piece(message),
            }
    }

    /// A message shown into `out`, as it was shown before when it was. `clean`: it is
    /// known to hold no piece of a secret (else that is found when it is remembered).
    fn message_into(
        &mut self,
        text: &str,
        clean: bool,
        map: &mut Asked<'_>,
        out: &mut String,
    ) -> Facts {
        if text.len() > LONGEST_MESSAGE {
            return self.words_into(text, Vocabulary::Log, Reading::Line, map, out);
        }
        let hash = crate::redact::fasthash::fold_hash(text.as_bytes());
        if let Some(shown) = self.judged.messages.get(text, hash) {
            out.push_str(&shown.shown);
            for &kind in &shown.kinds {
                map.counted(kind);
            }
            return shown.facts;
        }
        let (out_at, kinds_at) = (out.len(), map.kinds.len());
        let facts = self.words_into(text, Vocabulary::Log, Reading::Line, map, out);
        let shown = Shown {
            text: text.into(),
            shown: out[out_at..].into(),
            kinds: map.kinds[kinds_at..].into(),
            facts,
            clean: clean || holds_no_secret_piece(text),
        };
        self.judged.messages.put(hash, shown);
        facts
    }
}

/// Where the message of an oslo.log line starts: after `<date> <time> <pid> <LEVEL>
/// <logger> ` and the request context bracket when one follows. `None` for any other
/// line, and for a line with no message.
pub(super) fn message_start(line: &str) -> Option<usize> {
    let b = line.as_bytes();
    let digits =
        |r: std::ops::Range<usize>| b.get(r).is_some_and(|d| d.iter().all(u8::is_ascii_digit));
    let is = |at: usize, set: &[u8]| b.get(at).is_some_and(|c| set.contains(c));
    let timestamp = digits(0..4)
        && is(4, b"-")
        && digits(5..7)
        && is(7, b"-")
        && digits(8..10)
        && is(10, b" T")
        && digits(11..13)
        && is(13, b":")
        && digits(14..16)
        && is(16, b":")
        && digits(17..19);
    if !timestamp {
        return None;
    }
    let mut at = 19;
    if is(at, b".,") {
        at += 1;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
    }
    at = field(b, at, |c| c.is_ascii_digit())?;
    at = field(b, at, |c| c.is_ascii_uppercase())?;
    at = field(b, at, |c| {
        c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-')
    })?;
    if !is(at, b" ") {
        return None;
    }
    at += 1;
    if is(at, b"[") {
        at += line[at..].find("] ")? + 2;
    }
    (at < b.len()).then_some(at)
}

/// After blanks at `at`, a run of bytes `part` takes: where the run ends.
fn field(b: &[u8], at: usize, part: impl Fn(u8) -> bool) -> Option<usize> {
    let mut i = at;
    while b.get(i) == Some(&b' ') {
        i += 1;
    }
    let start = i;
    while b.get(i).is_some_and(|&c| part(c)) {
        i += 1;
    }
    (i > start && start > at).then_some(i)
}
