//! The record machine: parsed lines in, records out, with a look-ahead of the lines that
//! may still belong to the record being built (continuations, tracebacks).

use super::*;

/// The record assembler over any source of numbered, parsed lines: [`Records`] numbers
/// the lines of a text, the push [`Assembler`] the lines it holds.
#[derive(Debug)]
pub(crate) struct Machine<'a, S> {
    pub(crate) lines: S,
    pub(crate) peeked: VecDeque<(usize, Line<'a>)>,
    /// Set when the source ran out while a record was being read: the record may go on.
    pub(crate) hit_end: bool,
}

impl<'a, S: Iterator<Item = (usize, Line<'a>)>> Machine<'a, S> {
    pub(crate) fn new(lines: S) -> Machine<'a, S> {
        Machine {
            lines,
            peeked: VecDeque::new(),
            hit_end: false,
        }
    }

    pub(super) fn fill(&mut self, n: usize) -> bool {
        while self.peeked.len() < n {
            match self.lines.next() {
                Some(line) => self.peeked.push_back(line),
                None => {
                    self.hit_end = true;
                    return false;
                }
            }
        }
        true
    }

    pub(super) fn peek(&mut self, n: usize) -> Option<&Line<'a>> {
        if self.fill(n + 1) {
            self.peeked.get(n).map(|(_, line)| line)
        } else {
            None
        }
    }

    /// Drops the peeked line a record took, handing back its raw text.
    pub(super) fn pop_raw(&mut self) -> Option<&'a str> {
        self.peeked.pop_front().map(|(_, line)| line.raw)
    }

    pub(super) fn take(&mut self) -> Option<(usize, Line<'a>)> {
        self.fill(1);
        self.peeked.pop_front()
    }

    /// The text of the peeked line `n` if it is unprefixed text from `source`.
    pub(super) fn peek_text(
        &mut self,
        n: usize,
        source: Option<(&str, Option<u32>)>,
    ) -> Option<&'a str> {
        let line = self.peek(n)?;
        let same_source = line.wrapper.as_ref().map(|w| w.source()) == source;
        line.text().filter(|_| same_source)
    }

    /// How the next line belongs to a record of `head`, if it does.
    ///
    /// Lines of one record come from the same wrapper source. journalctl prints the
    /// further lines of a multi-line entry without a prefix, indented under the message,
    /// so those join a syslog-wrapped record too, with the indentation removed.
    pub(super) fn belonging(&mut self, head: &Head<'_>) -> Option<Belonging<'a>> {
        let next = self.peek(0)?;
        let source = next.wrapper.as_ref().map(|w| w.source());
        if source == head.source {
            // Read in place: a copy of the content (a few hundred bytes) per line of
            // every record was a tenth of the reading pass.
            belonging_of(&next.content, head)
        } else if head.is_syslog && next.wrapper.is_none() {
            let text = next.text().filter(|t| t.starts_with([' ', '\t']))?;
            belonging_of(&parse_content(text.trim_start()), head)
        } else {
            None
        }
    }

    /// Reads the lines that belong to the entry `record` starts (its head is set).
    pub(super) fn entry_into(&mut self, record: &mut Record<'a>) {
        record.kind = RecordKind::Entry;
        let key = Head::of(&record.head);
        if key.is_syslog {
            split_escaped_newlines(record);
        }
        let mut bytes = record.head.raw.len();
        while let Some(belonging) = self.belonging(&key) {
            let text = match belonging {
                Belonging::Traceback(text) => text,
                // oslo.log writes the message before the traceback, never after it.
                Belonging::Continuation(_) if !record.traceback.is_empty() => break,
                Belonging::Continuation(text) => text,
            };
            bytes += text.len();
            if record.lines >= MAX_RECORD_LINES || bytes > MAX_RECORD_BYTES {
                record.cut = Some(Cut::LongRecord);
                break;
            }
            match belonging {
                Belonging::Traceback(text) => record.traceback.push(text),
                Belonging::Continuation(text) => record.continuation.push(text),
            }
            record.lines += 1;
            if let Some(raw) = self.pop_raw() {
                record.raw_rest.push(raw);
            }
        }
    }

    /// Reads the lines of the raw traceback `record` starts (its head is set).
    pub(super) fn raw_traceback_into(&mut self, record: &mut Record<'a>) {
        let source = record.head.wrapper.as_ref().map(|w| w.source());
        let mut bytes = record.head.raw.len();
        let traceback = &mut record.traceback;
        let raw_rest = &mut record.raw_rest;
        let mut ended = false;
        let mut cut = None;
        while let Some(text) = self.peek_text(0, source) {
            // The chained case below takes up to three lines at once.
            bytes += text.len();
            if traceback.len() + 3 >= MAX_RECORD_LINES || bytes > MAX_RECORD_BYTES {
                cut = Some(Cut::LongRecord);
                break;
            }
            let indented = text.starts_with([' ', '\t']);
            if !ended && (indented || text.trim().is_empty()) {
                // Frames, source lines and `^^^` markers are indented.
            } else if !ended {
                ended = true; // the exception line
            } else if text.trim().is_empty()
                && self
                    .peek_text(1, source)
                    .is_some_and(|t| CHAINED.iter().any(|c| t.starts_with(c)))
            {
                // A chained exception: the blank line, the sentence, then another traceback.
                traceback.push(text);
                raw_rest.extend(self.pop_raw());
                let Some(sentence) = self.peek_text(0, source) else {
                    break;
                };
                traceback.push(sentence);
                raw_rest.extend(self.pop_raw());
                while let Some(t) = self.peek_text(0, source) {
                    if !(t.trim().is_empty() || t.starts_with(TRACEBACK_START)) {
                        break;
                    }
                    traceback.push(t);
                    raw_rest.extend(self.pop_raw());
                }
                ended = false;
                continue;
            } else {
                break;
            }
            traceback.push(text);
            raw_rest.extend(self.pop_raw());
        }
        record.kind = RecordKind::RawTraceback;
        record.lines = 1 + record.traceback.len();
        record.cut = cut;
    }
}

impl<'a, S: Iterator<Item = (usize, Line<'a>)>> Machine<'a, S> {
    /// The next record, or `None` when the source is done.
    pub(crate) fn next_record(&mut self) -> Option<Record<'a>> {
        let mut record = Record::blank();
        self.next_into(&mut record).then_some(record)
    }

    /// Reads the next record into `record` (whatever it held), in place: its head line
    /// is moved once, from the lines looked ahead at, and its lists keep their memory.
    /// A record is a few hundred bytes, and handing each back by value moved it several
    /// times (a seventh of reading a big log). False when the source is done.
    pub(crate) fn next_into(&mut self, record: &mut Record<'a>) -> bool {
        let Some((line, head)) = self.take() else {
            return false;
        };
        record.line = line;
        record.head = head;
        record.continuation.clear();
        record.traceback.clear();
        record.raw_rest.clear();
        record.lines = 1;
        record.cut = None;
        let (entry, traceback) = match &record.head.content {
            Content::Oslo(_) => (true, false),
            Content::Text { text, .. } if text.starts_with(TRACEBACK_START) => (false, true),
            Content::Text { .. } => (record.head.wrapper.is_some(), false),
            Content::Access(_) | Content::Uwsgi(_) => {
                record.kind = RecordKind::Entry;
                return true;
            }
        };
        if entry {
            self.entry_into(record);
        } else if traceback {
            self.raw_traceback_into(record);
        } else {
            record.kind = RecordKind::Unparsed;
        }
        true
    }
}
