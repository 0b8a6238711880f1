//! The record assembler: joins each log record with the lines that belong to it.
//!
//! oslo.log never re-prefixes the lines of a multi-line message (taskflow failure trees,
//! embedded newlines), so they follow their record unprefixed. Traceback lines are
//! re-prefixed with `<time> <pid> ERROR <logger>` and no context bracket, even for a
//! WARNING record. And eventlet prints tracebacks of dying green threads raw to stderr,
//! where container and pod logs catch them. This iterator turns lines into records of
//! those three shapes, and leaves everything else one record per line.

use std::collections::VecDeque;

use serde::Serialize;

use crate::access::AccessLine;
use crate::error::Reason;
use crate::line::{Content, Format, Line, Wrapper, parse_content, parse_line};
use crate::nova_request::{NovaRequest, is_request_logger, parse_nova_request};
use crate::oslo::{
    ErrorSummary, Level, OsloLine, SourceLocation, parse_exception_line, split_debug_suffix,
    split_error_summary,
};
use crate::time::Timestamp;
use crate::uwsgi::UwsgiLine;

pub use crate::assembler::{Assembler, RecordSpan, Skim};

const TRACEBACK_START: &str = "Traceback (most recent call last):";
const CHAINED: [&str; 2] = [
    "During handling of the above exception, another exception occurred:",
    "The above exception was the direct cause of the following exception:",
];

/// What kind of record this is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum RecordKind {
    /// A line in a known format, with the lines that belong to it.
    Entry,
    /// A raw Python traceback with no prefix (eventlet stderr).
    RawTraceback,
    /// A line no format fits.
    Unparsed,
}

/// Why a record was cut short: the assembler bounds what it holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Cut {
    /// A line longer than [`MAX_LINE_BYTES`] was read in pieces; this record holds one.
    LongLine,
    /// The record reached [`MAX_RECORD_LINES`] lines or [`MAX_RECORD_BYTES`] bytes; the
    /// lines after it start a new record.
    LongRecord,
}

impl Cut {
    /// Why, in words.
    pub fn reason(self) -> &'static str {
        match self {
            Cut::LongLine => "line longer than the limit, read in pieces",
            Cut::LongRecord => "record longer than the limit, cut",
        }
    }
}

/// The longest line the push assembler reads whole ([`Assembler`]); longer ones are read in
/// pieces of this size.
pub const MAX_LINE_BYTES: usize = 1 << 20;
/// The most lines a record holds.
pub const MAX_RECORD_LINES: usize = 10_000;
/// The most bytes of text a record's lines hold.
pub const MAX_RECORD_BYTES: usize = 4 << 20;

/// What identifies the lines that may join a record.
struct Head<'h> {
    source: Option<(&'h str, Option<u32>)>,
    is_syslog: bool,
    is_oslo: bool,
    pid: u32,
    logger: &'h str,
}

impl<'h> Head<'h> {
    fn of(line: &Line<'h>) -> Head<'h> {
        let (is_oslo, pid, logger) = match &line.content {
            Content::Oslo(o) => (true, o.pid, o.logger),
            _ => (false, 0, ""),
        };
        Head {
            source: line.wrapper.as_ref().map(|w| w.source()),
            is_syslog: matches!(line.wrapper, Some(Wrapper::Syslog(_))),
            is_oslo,
            pid,
            logger,
        }
    }
}

/// How a line belongs to the record before it.
enum Belonging<'a> {
    Continuation(&'a str),
    Traceback(&'a str),
}

/// A log record: its first line, parsed, and the lines joined to it.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Record<'a> {
    /// 1-based number of the first line.
    pub line: usize,
    /// What kind of record.
    pub kind: RecordKind,
    /// The first line.
    pub head: Line<'a>,
    /// Unprefixed lines continuing the message (wrapper prefixes removed).
    pub continuation: Vec<&'a str>,
    /// Traceback lines, exception prefix removed; for a raw traceback, every line after
    /// `Traceback (most recent call last):`.
    pub traceback: Vec<&'a str>,
    /// The lines after the first as the file holds them (prefixes kept), for showing the
    /// record as written; empty for a one-line record. Not serialized: it repeats the
    /// lines the other fields hold.
    #[serde(skip)]
    pub raw_rest: Vec<&'a str>,
    /// How many input lines the record spans (rsyslog can put a whole multi-line
    /// message on one line, so this is not always 1 + continuation + traceback).
    pub lines: usize,
    /// Why the record was cut short, if it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cut: Option<Cut>,
}

impl<'a> Record<'a> {
    /// An empty record for `Machine::next_into` to fill.
    pub(crate) fn blank() -> Record<'a> {
        Record {
            line: 0,
            kind: RecordKind::Unparsed,
            head: Line {
                raw: "",
                wrapper: None,
                content: Content::Text {
                    text: "",
                    reason: Reason::BLANK,
                },
            },
            continuation: Vec::new(),
            traceback: Vec::new(),
            raw_rest: Vec::new(),
            lines: 1,
            cut: None,
        }
    }

    /// The outermost format: the wrapper's if there is one, else the content's.
    pub fn format(&self) -> Format {
        match self.kind {
            RecordKind::RawTraceback => Format::Traceback,
            RecordKind::Unparsed => Format::Unparsed,
            RecordKind::Entry => match &self.head.wrapper {
                Some(w) => w.format(),
                None => self.head.content.format(),
            },
        }
    }

    /// The format of the content inside any wrapper.
    pub fn inner_format(&self) -> Format {
        match self.kind {
            RecordKind::RawTraceback => Format::Traceback,
            _ => self.head.content.format(),
        }
    }

    /// How many input lines the record spans.
    pub fn line_count(&self) -> usize {
        self.lines
    }

    /// The time of the record (see [`Line::timestamp`]).
    pub fn timestamp(&self) -> Option<Timestamp> {
        self.head.timestamp()
    }

    /// The oslo.log line, if this is one.
    pub fn oslo(&self) -> Option<&OsloLine<'a>> {
        match &self.head.content {
            Content::Oslo(o) => Some(o),
            _ => None,
        }
    }

    /// The access line, if this is one.
    pub fn access(&self) -> Option<&AccessLine<'a>> {
        match &self.head.content {
            Content::Access(a) => Some(a.as_ref()),
            _ => None,
        }
    }

    /// The uWSGI line, if this is one.
    pub fn uwsgi(&self) -> Option<&UwsgiLine<'a>> {
        match &self.head.content {
            Content::Uwsgi(u) => Some(u.as_ref()),
            _ => None,
        }
    }

    /// The record's lines as the file holds them, prefixes and all.
    pub fn raw_lines(&self) -> impl Iterator<Item = &'a str> + '_ {
        std::iter::once(self.head.raw).chain(self.raw_rest.iter().copied())
    }

    /// The first line's message: the oslo message, or the text.
    pub fn message(&self) -> &'a str {
        match &self.head.content {
            Content::Oslo(o) => o.message,
            Content::Text { text, .. } => text,
            Content::Access(_) | Content::Uwsgi(_) => self.head.raw,
        }
    }

    /// The last line of the message, where oslo.log appends the error summary and the
    /// DEBUG suffix.
    fn last_message_line(&self) -> &'a str {
        self.continuation
            .last()
            .copied()
            .unwrap_or_else(|| self.message())
    }

    /// The exception this record reports: the error summary of a WARNING or higher
    /// oslo record, else the last line of its traceback.
    pub fn error_summary(&self) -> Option<ErrorSummary<'a>> {
        let from_message = self
            .oslo()
            .filter(|o| o.level.is_warning_or_above())
            .and_then(|_| split_error_summary(self.last_message_line()))
            .map(|(_, summary)| summary);
        from_message.or_else(|| {
            let last = self.traceback.iter().rev().find(|l| !l.trim().is_empty())?;
            parse_exception_line(last)
        })
    }

    /// Where a DEBUG record was logged.
    pub fn source_location(&self) -> Option<SourceLocation<'a>> {
        self.oslo()
            .filter(|o| o.level == Level::Debug)
            .and_then(|_| split_debug_suffix(self.last_message_line()))
            .map(|(_, location)| location)
    }

    /// The Nova API request of a `nova.api.openstack.requestlog` or
    /// `nova.osapi_compute.wsgi.server` record.
    pub fn nova_request(&self) -> Option<NovaRequest<'a>> {
        nova_request_of(&self.head)
    }

    /// Why the record is unparsed, if it is.
    pub fn unparsed_reason(&self) -> Option<Reason> {
        match (self.kind, &self.head.content) {
            (RecordKind::Unparsed, Content::Text { reason, .. }) => Some(*reason),
            _ => None,
        }
    }
}

/// The Nova API request a record whose first line is `head` logs (see
/// [`Record::nova_request`]): it depends on that line alone.
pub fn nova_request_of<'a>(head: &Line<'a>) -> Option<NovaRequest<'a>> {
    let oslo = match &head.content {
        Content::Oslo(o) if is_request_logger(o.logger) => o,
        _ => return None,
    };
    parse_nova_request(oslo.message).ok().map(|(_, r)| r)
}

/// rsyslog writes a multi-line message on one line with each newline escaped as `#012`:
/// split such an oslo message back into its message, continuation and traceback lines.
fn split_escaped_newlines(record: &mut Record<'_>) {
    const ESCAPED_NEWLINE: &str = "#012";
    let Content::Oslo(oslo) = &mut record.head.content else {
        return;
    };
    let Some((message, rest)) = oslo.message.split_once(ESCAPED_NEWLINE) else {
        return;
    };
    oslo.message = message;
    let (pid, logger) = (oslo.pid, oslo.logger);
    for piece in rest.split(ESCAPED_NEWLINE) {
        match parse_content(piece) {
            Content::Oslo(o) if o.is_exception_prefixed() && o.pid == pid && o.logger == logger => {
                record.traceback.push(o.message);
            }
            _ if record.traceback.is_empty() => record.continuation.push(piece),
            _ => record.traceback.push(piece),
        }
    }
}

/// Splits text into lines without their `\n`.
#[derive(Clone, Debug)]
struct LineSplitter<'a> {
    rest: &'a str,
}

impl<'a> Iterator for LineSplitter<'a> {
    type Item = &'a str;

    fn next(&mut self) -> Option<&'a str> {
        if self.rest.is_empty() {
            return None;
        }
        match memchr::memchr(b'\n', self.rest.as_bytes()) {
            Some(end) => {
                let (line, rest) = self.rest.split_at(end);
                self.rest = &rest[1..];
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
            None => {
                let line = std::mem::take(&mut self.rest);
                Some(line.strip_suffix('\r').unwrap_or(line))
            }
        }
    }
}

/// The record assembler over a whole text (an iterator adapter over its lines).
///
/// Records borrow from `text`, so container lines are read one physical line at a time:
/// a CRI `P` piece starts a record that the rest of its line continues, and a Docker `log`
/// value is read as written, escapes and all. The push [`Assembler`] joins pieces and
/// decodes escapes; on any other text both give the same records.
///
/// ```
/// use evacdoc_parsers::{Records, Format};
/// let log = "2026-11-30 09:34:57.028 9133 WARNING masakari.engine.drivers.taskflow.driver \
/// [None req-0b6f7a3e-0000-4000-8000-000000000001 - - - - - -] Task 'PrepareHAEnabledInstancesTask' \
/// (0b6f7a3e-0000-4000-8000-000000000002) transitioned into state 'FAILURE' from state 'RUNNING'
///
/// Failure: masakari.exception.SkipHostRecoveryException: Skipped host 'compute-1' recovery as no instances needs to be evacuated
/// Traceback (most recent call last):
///   File \"/usr/lib/python3/dist-packages/eventlet/greenpool.py\", line 87, in _spawn_n_impl
///     func(*args, **kwargs)
/// keystoneauth1.exceptions.http.Unauthorized: The request you have made requires authentication. (HTTP 401)
/// ";
/// let records: Vec<_> = Records::new(log).collect();
/// assert_eq!(records.len(), 2);
/// assert_eq!(records[0].continuation.len(), 2);
/// assert_eq!(records[1].format(), Format::Traceback);
/// assert_eq!(records[1].line, 4);
/// assert_eq!(records[1].error_summary().unwrap().class, "keystoneauth1.exceptions.http.Unauthorized");
/// ```
#[derive(Debug)]
pub struct Records<'a> {
    machine: Machine<'a, TextLines<'a>>,
}

impl<'a> Records<'a> {
    /// Records of `text`, first line numbered 1.
    pub fn new(text: &'a str) -> Records<'a> {
        Records {
            machine: Machine::new(TextLines {
                split: LineSplitter { rest: text },
                number: 0,
            }),
        }
    }
}

impl<'a> Iterator for Records<'a> {
    type Item = Record<'a>;

    fn next(&mut self) -> Option<Record<'a>> {
        self.machine.next_record()
    }
}

/// The lines of a text, numbered from 1 and parsed.
#[derive(Clone, Debug)]
struct TextLines<'a> {
    split: LineSplitter<'a>,
    number: usize,
}

impl<'a> Iterator for TextLines<'a> {
    type Item = (usize, Line<'a>);

    fn next(&mut self) -> Option<(usize, Line<'a>)> {
        let raw = self.split.next()?;
        self.number += 1;
        Some((self.number, parse_line(raw)))
    }
}

/// How a line whose content is `content` belongs to the record `head` starts, if it does.
fn belonging_of<'a>(content: &Content<'a>, head: &Head<'_>) -> Option<Belonging<'a>> {
    match content {
        Content::Oslo(o)
            if head.is_oslo
                && o.is_exception_prefixed()
                && o.pid == head.pid
                && o.logger == head.logger =>
        {
            Some(Belonging::Traceback(o.message))
        }
        Content::Text { text, .. } if text.starts_with(TRACEBACK_START) => None,
        // A line that a format read part of (a record cut short) stands alone, so
        // that it is reported; a wrapped message of its own continues only with
        // indented lines.
        Content::Text { text, reason }
            if (*reason == Reason::NO_FORMAT || *reason == Reason::BLANK)
                && (head.is_oslo || text.starts_with([' ', '\t']) || text.is_empty()) =>
        {
            Some(Belonging::Continuation(text))
        }
        _ => None,
    }
}

/// The record assembler over any source of numbered, parsed lines: [`Records`] numbers
/// the lines of a text, the push [`Assembler`] the lines it holds.
#[derive(Debug)]
pub(crate) struct Machine<'a, S> {
    pub(crate) lines: S,
    peeked: VecDeque<(usize, Line<'a>)>,
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

    fn fill(&mut self, n: usize) -> bool {
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

    fn peek(&mut self, n: usize) -> Option<&Line<'a>> {
        if self.fill(n + 1) {
            self.peeked.get(n).map(|(_, line)| line)
        } else {
            None
        }
    }

    /// Drops the peeked line a record took, handing back its raw text.
    fn pop_raw(&mut self) -> Option<&'a str> {
        self.peeked.pop_front().map(|(_, line)| line.raw)
    }

    fn take(&mut self) -> Option<(usize, Line<'a>)> {
        self.fill(1);
        self.peeked.pop_front()
    }

    /// The text of the peeked line `n` if it is unprefixed text from `source`.
    fn peek_text(&mut self, n: usize, source: Option<(&str, Option<u32>)>) -> Option<&'a str> {
        let line = self.peek(n)?;
        let same_source = line.wrapper.as_ref().map(|w| w.source()) == source;
        line.text().filter(|_| same_source)
    }

    /// How the next line belongs to a record of `head`, if it does.
    ///
    /// Lines of one record come from the same wrapper source. journalctl prints the
    /// further lines of a multi-line entry without a prefix, indented under the message,
    /// so those join a syslog-wrapped record too, with the indentation removed.
    fn belonging(&mut self, head: &Head<'_>) -> Option<Belonging<'a>> {
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
    fn entry_into(&mut self, record: &mut Record<'a>) {
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
    fn raw_traceback_into(&mut self, record: &mut Record<'a>) {
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

#[cfg(test)]
mod tests {
    use super::*;

    const WARNING_WITH_TRACEBACK: &str = "\
2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.driver [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Task 'EvacuateInstancesTask' (8a1b2c3d-0000-4000-8000-00000000000a) transitioned into state 'FAILURE' from state 'RUNNING'
1 predecessors (most recent first):
  Atom 'PrepareHAEnabledInstancesTask' {...}: masakari.exception.MasakariException: An unknown exception occurred.
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver   File \"/usr/lib/python3/dist-packages/demo.py\", line 49, in <module>
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver     raise MasakariException(\"An unknown exception occurred.\")
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver masakari.exception.MasakariException: An unknown exception occurred.
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver 
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.manager [None req-a49b59c8-ae66-4306-938a-49d97c4d3c44 - - - - - -] Periodic task 'process_unfinished_notifications': Notification c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10 exits with status: failed.
";

    #[test]
    fn joins_continuation_and_prefixed_traceback() {
        let records: Vec<_> = Records::new(WARNING_WITH_TRACEBACK).collect();
        assert_eq!(records.len(), 2);
        let first = &records[0];
        assert_eq!((first.line, first.line_count()), (1, 8));
        assert_eq!(first.continuation.len(), 2);
        assert_eq!(first.traceback.len(), 5);
        assert_eq!(first.traceback[0], "Traceback (most recent call last):");
        assert_eq!(first.traceback[4], "");
        assert_eq!(
            first.error_summary().map(|s| s.class),
            Some("masakari.exception.MasakariException")
        );
        assert_eq!(records[1].line, 9);
        assert_eq!(records[1].oslo().unwrap().logger, "masakari.engine.manager");
    }

    #[test]
    fn raw_lines_are_the_lines_as_written() {
        let records: Vec<_> = Records::new(WARNING_WITH_TRACEBACK).collect();
        let lines: Vec<&str> = WARNING_WITH_TRACEBACK.lines().collect();
        assert_eq!(records[0].raw_lines().collect::<Vec<_>>(), lines[..8]);
        assert_eq!(records[1].raw_lines().collect::<Vec<_>>(), lines[8..]);
    }

    #[test]
    fn prefixed_lines_of_another_logger_or_pid_do_not_join() {
        let text = "\
2026-11-30 09:34:22.846 7502 WARNING a.b [-] failed
2026-11-30 09:34:22.846 7503 ERROR a.b Traceback (most recent call last):
2026-11-30 09:34:22.846 7502 ERROR a.c Traceback (most recent call last):
";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 3);
        assert!(records.iter().all(|r| r.traceback.is_empty() || r.line > 1));
    }

    #[test]
    fn raw_traceback_between_records() {
        let text = "\
2026-03-02 11:10:01.100 41 INFO masakari.compute.nova [req-aaaaaaaa-2222-3333-4444-555555555555 req-bbbbbbbb-2222-3333-4444-555555555555 nova - - - - -] Call get server command for instance 7d1e5f0a-0000-4000-8000-000000000001
Traceback (most recent call last):
  File \"/usr/lib/python3/dist-packages/eventlet/greenpool.py\", line 87, in _spawn_n_impl
    func(*args, **kwargs)
  File \"/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/host_failure.py\", line 212, in _evacuate_and_confirm
novaclient.exceptions.ClientException: Service Unavailable (HTTP 503) (Request-ID: req-cccccccc-2222-3333-4444-555555555555)
2026-03-02 11:10:02.100 41 INFO masakari.engine.manager [req-aaaaaaaa-2222-3333-4444-555555555555 req-dddddddd-2222-3333-4444-555555555555 nova - - - - -] Notification 1b4fa1a6-0000-4000-8000-000000000009 exits with status: finished.
";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].continuation.len(), 0);
        assert_eq!(records[1].kind, RecordKind::RawTraceback);
        assert_eq!((records[1].line, records[1].line_count()), (2, 5));
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(records[1].raw_lines().collect::<Vec<_>>(), lines[1..6]);
        assert_eq!(
            records[1].error_summary().map(|s| s.class),
            Some("novaclient.exceptions.ClientException")
        );
        assert_eq!(records[2].line, 7);
    }

    #[test]
    fn chained_raw_traceback_stays_one_record() {
        let text = "\
Traceback (most recent call last):
  File \"a.py\", line 1, in f
KeyError: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File \"a.py\", line 3, in f
RuntimeError: boom
after
";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].line_count(), 9);
        assert_eq!(
            records[0].error_summary().map(|s| s.class),
            Some("RuntimeError")
        );
        assert_eq!(records[1].kind, RecordKind::Unparsed);
    }

    #[test]
    fn unparsed_and_blank_lines_are_kept() {
        let text = "garbage line\n\n2020-12-08 19:51:12.309 235 INFO a.b [-] x\n\n";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 3);
        assert_eq!(records[0].unparsed_reason(), Some(Reason::NO_FORMAT));
        assert_eq!(records[1].unparsed_reason(), Some(Reason::BLANK));
        // The blank line after an oslo record is part of its message.
        assert_eq!(records[2].continuation, vec![""]);
    }

    #[test]
    fn a_record_cut_short_is_not_a_continuation() {
        let text =
            "2020-12-08 19:51:15.122 235 INFO a.b [-] one\n2020-12-08 19:51:15.122 235 ERROR\n";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 2);
        assert_eq!(
            records[1].unparsed_reason().map(|r| r.expected),
            Some("space before logger")
        );
    }

    #[test]
    fn rsyslog_escaped_newlines_are_split() {
        let text = "Dec  1 16:37:15 compute-1 nova-compute[2211]: 2026-12-01 16:37:15.884 2211 ERROR \
            nova.servicegroup.drivers.db [-] Unexpected error#012more text#0122026-12-01 \
            16:37:15.884 2211 ERROR nova.servicegroup.drivers.db Traceback (most recent call last):\
            #0122026-12-01 16:37:15.884 2211 ERROR nova.servicegroup.drivers.db ValueError: x\n";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 1);
        assert_eq!(records[0].message(), "Unexpected error");
        assert_eq!(records[0].continuation, vec!["more text"]);
        assert_eq!(records[0].traceback.len(), 2);
        assert_eq!(records[0].line_count(), 1);
        assert_eq!(
            records[0].error_summary().map(|s| s.class),
            Some("ValueError")
        );
    }

    /// Each line of a CRI file, continuation and traceback lines too, has its own prefix.
    fn cri(text: &str) -> String {
        text.lines()
            .enumerate()
            .map(|(i, l)| format!("2026-11-30T09:34:22.{:09}Z stderr F {l}\n", 846_000_000 + i))
            .collect()
    }

    #[test]
    fn cri_lines_group_like_pebble_lines() {
        let text = cri(WARNING_WITH_TRACEBACK);
        let records: Vec<_> = Records::new(&text).collect();
        assert_eq!(records.len(), 2);
        let first = &records[0];
        assert_eq!(first.format(), Format::Cri);
        assert_eq!(first.inner_format(), Format::Oslo);
        assert_eq!((first.line, first.line_count()), (1, 8));
        assert_eq!(first.continuation.len(), 2);
        assert_eq!(first.traceback.len(), 5);
        assert_eq!(
            first.error_summary().map(|s| s.class),
            Some("masakari.exception.MasakariException")
        );
        assert_eq!(records[1].line, 9);

        // Another stream's line does not join the record.
        let text = "2026-11-30T09:34:22.846Z stdout F 2026-11-30 09:34:22.846 7502 WARNING a.b [-] failed\n\
                    2026-11-30T09:34:22.847Z stderr F   indented text on stderr\n";
        assert_eq!(Records::new(text).count(), 2);
    }

    #[test]
    fn crlf_and_no_final_newline() {
        let text = "2020-12-08 19:51:12.309 235 INFO a.b [-] one\r\n2020-12-08 19:51:13.309 235 INFO a.b [-] two";
        let records: Vec<_> = Records::new(text).collect();
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].message(), "one");
        assert_eq!(records[0].continuation.len(), 0);
        assert_eq!(records[1].message(), "two");
    }
}
