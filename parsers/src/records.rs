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

mod machine;
pub(crate) use machine::Machine;

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

/// How rsyslog escapes a newline inside a message.
pub(crate) const ESCAPED_NEWLINE: &str = "#012";

/// rsyslog writes a multi-line message on one line with each newline escaped as `#012`:
/// split such an oslo message back into its message, continuation and traceback lines.
fn split_escaped_newlines(record: &mut Record<'_>) {
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

#[cfg(test)]
mod tests;
