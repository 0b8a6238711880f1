//! Passing over one-line records a reader has no use for ([`Skim`]): the lines of a push
//! parsed as the record machine asks for them, and the records handed out up to a line
//! that is passed over.

use super::*;
use crate::records::ESCAPED_NEWLINE;

/// The searcher of [`ESCAPED_NEWLINE`], built once (`str::contains` builds one a call).
static ESCAPED: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new(ESCAPED_NEWLINE));

/// A reader that needs nothing of some one-line records but to know they were there:
/// the assembler passes over them without building them ([`Assembler::push_skimming`]).
///
/// A log at DEBUG level is mostly lines that start a record of one line and that no
/// consumer keeps (periodic tasks, locks, polling); building each as a [`Record`] (the
/// look-ahead queue, the record's fields, the consumers' tests) cost more than reading it.
///
/// What the assembler guarantees (see `Assembler::run`): a line is handed to
/// [`Skim::skipped`] only when [`Skim::ignorable`] said so of it and of the line after it
/// in the same push, both lines whole (not pieces of a long line, not joined or decoded
/// container lines), both read as the record machine reads them (`parse_line_written`)
/// as oslo.log lines with a context bracket, without a wrapper or under a journal or
/// syslog prefix whose message holds no rsyslog `#012` (which the machine splits into
/// more lines of the record). Such a line starts a record (no record takes a line with a
/// context bracket as its continuation or traceback, and a prefixed line is never an
/// unprefixed journal continuation) and so does the next one: the record the line starts
/// is that line alone, a [`RecordKind::Entry`](crate::records::RecordKind) with no
/// continuation, traceback or cut, exactly what [`Assembler::push`] would have handed
/// out, in the same place of the order of records.
pub trait Skim {
    /// A cheap look at a line's text: false when the line cannot be ignorable (it is then
    /// not parsed to ask [`Skim::ignorable`]).
    fn candidate(&self, raw: &str) -> bool;
    /// Whether the one-line record of `line` (oslo.log with a context bracket, plain or
    /// under a journal prefix) matters to the reader only through [`Skim::skipped`].
    fn ignorable(&self, line: &Line<'_>) -> bool;
    /// A record passed over: its only line and where it lies.
    fn skipped(&mut self, line: &Line<'_>, span: RecordSpan);
}

/// The lines of one push, parsed as the record machine asks for them, up to `end`
/// (moved on when records are passed over).
pub(super) struct Parsed<'l, 'x> {
    pub(super) logical: &'l [Logical<'x>],
    pub(super) scratch: &'x str,
    pub(super) written: Option<&'x DateTime>,
    pub(super) next: usize,
    pub(super) end: usize,
}

impl<'x> Iterator for Parsed<'_, 'x> {
    type Item = (usize, Line<'x>);

    fn next(&mut self) -> Option<(usize, Line<'x>)> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        self.logical
            .get(i)
            .map(|l| (i, l.line(self.scratch, self.written)))
    }
}

/// The line `l`, parsed, when the assembler may pass over the record it starts (given
/// that the next line may be passed over too): see [`Skim`].
pub(super) fn skimmable<'x>(
    l: &Logical<'x>,
    scratch: &'x str,
    written: Option<&DateTime>,
    skim: &dyn Skim,
) -> Option<Line<'x>> {
    if l.wrapped.is_some() || l.origin.piece || l.origin.ends != 1 {
        return None;
    }
    let raw = l.raw.get(scratch);
    if !skim.candidate(raw) {
        return None;
    }
    let line = parse_line_written(raw, written);
    let Content::Oslo(o) = &line.content else {
        return None;
    };
    // A journal's line is alone unless rsyslog escaped newlines in it (`#012`: the
    // machine splits them into more lines).
    let alone = match &line.wrapper {
        None => true,
        Some(Wrapper::Syslog(_)) => ESCAPED.find(o.message.as_bytes()).is_none(),
        Some(_) => false,
    };
    let starts_a_record = alone && o.context_raw.is_some();
    (starts_a_record && skim.ignorable(&line)).then_some(line)
}

/// Hands out the records of the machine's lines up to `end`. `last`: `end` is the end
/// of the push, where the last record may go on (unless `finish`): the index of its
/// first line is returned, and it is not handed out. Otherwise the line at `end` starts
/// a record (see [`Skim`]), so every record before it is complete.
#[allow(clippy::too_many_arguments)]
pub(super) fn drain<'x>(
    machine: &mut Machine<'x, Parsed<'_, 'x>>,
    record: &mut Record<'x>,
    logical: &[Logical<'x>],
    end: usize,
    last: bool,
    finish: bool,
    out: &mut dyn FnMut(&Record<'_>, RecordSpan),
) -> Option<usize> {
    machine.lines.end = end;
    loop {
        machine.hit_end = false;
        if !machine.next_into(record) {
            return None;
        }
        if last && machine.hit_end && !finish {
            return Some(record.line);
        }
        let used = logical
            .get(record.line..record.line + record.lines.max(1))
            .unwrap_or_default();
        let Some(origin) = used.iter().map(|l| l.origin).reduce(Origin::join) else {
            continue;
        };
        record.line = origin.line;
        record.lines = origin.ends.max(1);
        if origin.piece {
            record.cut.get_or_insert(Cut::LongLine);
        }
        out(
            record,
            RecordSpan {
                first_line: origin.line,
                byte_start: origin.start,
                byte_end: origin.end,
                invalid_utf8: origin.invalid_utf8,
            },
        );
    }
}
