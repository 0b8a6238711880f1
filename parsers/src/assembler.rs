//! The record assembler in push mode: bytes in, in pieces of any size, records out.
//!
//! Chunked reading, the live watcher and tests that feed a whole `&str` share it. Complete
//! lines are read straight from the pushed bytes; only what cannot be finished yet is
//! copied and kept: the unended last line, the lines of a record that may go on (its end
//! is known only when a line that does not belong to it comes), and the pieces of a
//! container line (CRI `P`, Docker `log` without `\n`) waiting for the rest.
//!
//! Container lines are decoded here: pieces are joined, Docker's JSON escapes decoded, and
//! the text the container wrote is read like pebble's inner text. Memory is bounded: a line
//! longer than [`crate::records::MAX_LINE_BYTES`] is read in pieces, a record stops at
//! [`crate::records::MAX_RECORD_LINES`] lines or [`crate::records::MAX_RECORD_BYTES`]
//! bytes ([`crate::records::Record::cut`] says so).

use std::ops::Range;

use crate::cri::{Stream, parse_cri_prefix};
use crate::docker::{parse_docker_line, unescape};
use crate::line::{Content, Line, Wrapper, parse_line_written, parse_wrapped_written};
use crate::records::{Cut, MAX_LINE_BYTES, MAX_RECORD_LINES, Machine, Record};
use crate::time::DateTime;

mod reader;
mod skim;
use reader::{Reader, piece_end};
pub use skim::Skim;
use skim::{Parsed, drain, skimmable};

/// Where a record lies in the whole input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RecordSpan {
    /// 1-based number of the record's first line, counted over everything pushed.
    pub first_line: usize,
    /// Offset of the record's first byte in the whole input.
    pub byte_start: u64,
    /// Offset just past its last line (without that line's newline).
    pub byte_end: u64,
    /// True when one of its lines held invalid UTF-8 (replaced by U+FFFD).
    pub invalid_utf8: bool,
}

/// Where a logical line came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Origin {
    /// 1-based number of its (first) physical line.
    line: usize,
    start: u64,
    end: u64,
    invalid_utf8: bool,
    /// A piece of a line longer than [`MAX_LINE_BYTES`].
    piece: bool,
    /// How many physical lines it ends (0 for a piece before the end of its line, more
    /// for a line joined from container-line pieces).
    ends: usize,
}

impl Origin {
    fn join(self, next: Origin) -> Origin {
        Origin {
            line: self.line,
            start: self.start.min(next.start),
            end: self.end.max(next.end),
            invalid_utf8: self.invalid_utf8 || next.invalid_utf8,
            piece: self.piece || next.piece,
            ends: self.ends + next.ends,
        }
    }
}

/// Text of a logical line: borrowed from the input or the held lines, or in the scratch
/// buffer of the current push.
#[derive(Clone, Debug)]
enum Src<'x> {
    Str(&'x str),
    Scratch(Range<usize>),
}

impl<'x> Src<'x> {
    fn get(&self, scratch: &'x str) -> &'x str {
        match self {
            Src::Str(s) => s,
            Src::Scratch(r) => scratch.get(r.clone()).unwrap_or(""),
        }
    }
}

/// One logical line: the raw text, and for a decoded container line its wrapper and the
/// text the container wrote.
#[derive(Clone, Debug)]
struct Logical<'x> {
    raw: Src<'x>,
    wrapped: Option<(Wrapper<'static>, Src<'x>)>,
    origin: Origin,
}

impl<'x> Logical<'x> {
    fn line(&self, scratch: &'x str, written: Option<&DateTime>) -> Line<'x> {
        let raw = self.raw.get(scratch);
        match &self.wrapped {
            None => parse_line_written(raw, written),
            Some((wrapper, payload)) => {
                parse_wrapped_written(raw, wrapper.clone(), payload.get(scratch), written)
            }
        }
    }
}

/// Where logical line `i` came from.
fn l_origin(logical: &[Logical<'_>], i: usize) -> Origin {
    logical.get(i).map_or(
        Origin {
            line: 0,
            start: 0,
            end: 0,
            invalid_utf8: false,
            piece: false,
            ends: 1,
        },
        |l| l.origin,
    )
}

/// A logical line kept for the next push, its text in [`Assembler::held_text`].
#[derive(Clone, Debug)]
struct HeldLine {
    raw: Range<usize>,
    wrapped: Option<(Wrapper<'static>, Range<usize>)>,
    origin: Origin,
}

/// Pieces of a container line waiting for the rest.
#[derive(Clone, Debug)]
struct Pieces {
    wrapper: Wrapper<'static>,
    text: String,
    origin: Origin,
}

/// The resumable, push-mode record assembler.
///
/// ```
/// use evacdoc_parsers::{Assembler, Records};
/// let log = "2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.driver [-] Task failed
/// 2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):
/// 2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver ValueError: x
/// 2026-11-30 09:34:23.001 7502 INFO masakari.engine.manager [-] next
/// ";
/// let mut seen = Vec::new();
/// let mut a = Assembler::new();
/// for piece in log.as_bytes().chunks(7) {
///     a.push(piece, &mut |r, span| seen.push((span.first_line, r.traceback.len(), span.byte_start)));
/// }
/// assert_eq!(seen, [(1, 2, 0)]); // the last record may go on
/// a.finish(&mut |r, span| seen.push((span.first_line, r.traceback.len(), span.byte_start)));
/// assert_eq!(seen[1], (4, 0, log.find("2026-11-30 09:34:23").unwrap() as u64));
/// assert_eq!((a.lines(), a.bytes()), (4, log.len() as u64));
/// ```
#[derive(Debug, Default)]
pub struct Assembler {
    /// Bytes after the last newline pushed (less the pieces already read of a long line).
    tail: Vec<u8>,
    /// Offset of the tail's first byte.
    tail_offset: u64,
    /// True when pieces of the tail's line were read already.
    tail_cut: bool,
    /// Lines of the record that may go on, read again at the next push.
    held: Vec<HeldLine>,
    held_text: String,
    /// Container-line pieces, by stream.
    pieces: [Option<Pieces>; 2],
    /// Decoded text of the current push (lossy lines, joined and unescaped lines).
    scratch: String,
    lines: usize,
    bytes: u64,
    invalid_utf8_lines: u64,
    /// When the input was last written, if known: the year of journal lines without one.
    written: Option<DateTime>,
}

impl Assembler {
    /// An assembler at the start of an input.
    pub fn new() -> Assembler {
        Assembler::default()
    }

    /// An assembler at the start of an input last written at `written` (a file's
    /// modification time): journal lines that give no year take the one before it (see
    /// [`crate::line::parse_line_written`]).
    pub fn written_at(written: Option<DateTime>) -> Assembler {
        Assembler {
            written,
            ..Assembler::default()
        }
    }

    /// Physical lines read so far (a last line without a newline counts once finished).
    pub fn lines(&self) -> usize {
        self.lines
    }

    /// Bytes pushed so far.
    pub fn bytes(&self) -> u64 {
        self.bytes
    }

    /// Lines (or pieces of lines longer than the limit) that held invalid UTF-8.
    pub fn invalid_utf8_lines(&self) -> u64 {
        self.invalid_utf8_lines
    }

    /// Feeds the next bytes (any split: mid-line, mid-UTF-8 character, mid-record); calls
    /// `out` for every record that is complete. The last, possibly unfinished record is
    /// kept inside until more bytes come or [`Assembler::finish`] is called.
    pub fn push(&mut self, bytes: &[u8], out: &mut dyn FnMut(&Record<'_>, RecordSpan)) {
        self.run(bytes, false, None, out);
    }

    /// [`Assembler::push`], passing over the records `skim` has no use for (see
    /// [`Skim`]): they go to [`Skim::skipped`] instead of `out`, in their place.
    pub fn push_skimming(
        &mut self,
        bytes: &[u8],
        skim: &mut dyn Skim,
        out: &mut dyn FnMut(&Record<'_>, RecordSpan),
    ) {
        self.run(bytes, false, Some(skim), out);
    }

    /// [`Assembler::finish`] of an input pushed with [`Assembler::push_skimming`].
    pub fn finish_skimming(
        &mut self,
        skim: &mut dyn Skim,
        out: &mut dyn FnMut(&Record<'_>, RecordSpan),
    ) {
        self.run(&[], true, Some(skim), out);
        debug_assert!(self.tail.is_empty() && self.held.is_empty());
        debug_assert!(self.pieces.iter().all(Option::is_none));
        self.scratch = String::new();
    }

    /// Ends the input: what is held is complete now. The counters stay readable; another
    /// input takes a new assembler (line numbers and offsets would go on from this one).
    pub fn finish(&mut self, out: &mut dyn FnMut(&Record<'_>, RecordSpan)) {
        self.run(&[], true, None, out);
        debug_assert!(self.tail.is_empty() && self.held.is_empty());
        debug_assert!(self.pieces.iter().all(Option::is_none));
        self.scratch = String::new();
    }

    fn run(
        &mut self,
        bytes: &[u8],
        finish: bool,
        skim: Option<&mut dyn Skim>,
        out: &mut dyn FnMut(&Record<'_>, RecordSpan),
    ) {
        let base = self.bytes;
        self.bytes += bytes.len() as u64;
        let Assembler {
            tail,
            tail_offset,
            tail_cut,
            held,
            held_text,
            pieces,
            scratch,
            lines,
            invalid_utf8_lines,
            written,
            ..
        } = self;
        scratch.clear();
        let mut reader = Reader {
            scratch,
            pieces,
            lines,
            invalid_utf8_lines,
        };

        // Phase 1: the logical lines, from the held ones on.
        let mut logical: Vec<Logical<'_>> =
            held.iter()
                .map(|h| Logical {
                    raw: Src::Str(held_text.get(h.raw.clone()).unwrap_or("")),
                    wrapped: h.wrapped.as_ref().map(|(w, r)| {
                        (w.clone(), Src::Str(held_text.get(r.clone()).unwrap_or("")))
                    }),
                    origin: h.origin,
                })
                .collect();
        let mut rest = bytes;
        let mut rest_offset = base;
        if !tail.is_empty() || *tail_cut {
            match memchr::memchr(b'\n', bytes) {
                Some(nl) => {
                    // The unended line ends in these bytes: finish it from a copy.
                    tail.extend_from_slice(&bytes[..nl]);
                    reader.end_tail(tail, *tail_offset, *tail_cut, &mut logical);
                    *tail_cut = false;
                    rest = &bytes[nl + 1..];
                    rest_offset = base + nl as u64 + 1;
                }
                None => {
                    tail.extend_from_slice(bytes);
                    rest = &[];
                }
            }
        }
        match memchr::memrchr(b'\n', rest) {
            Some(nl) => {
                let (complete, unended) = rest.split_at(nl + 1);
                reader.lines(complete, rest_offset, &mut logical);
                tail.extend_from_slice(unended);
                *tail_offset = rest_offset + complete.len() as u64;
            }
            None => {
                if tail.is_empty() {
                    *tail_offset = rest_offset;
                }
                tail.extend_from_slice(rest);
            }
        }
        // An unended line longer than the limit is read in pieces as it grows.
        while tail.len() > MAX_LINE_BYTES {
            let cut = piece_end(tail);
            let origin = Origin {
                line: *reader.lines + 1,
                start: *tail_offset,
                end: *tail_offset,
                invalid_utf8: false,
                piece: true,
                ends: 0,
            };
            reader.owned(&tail[..cut], origin, &mut logical);
            tail.drain(..cut);
            *tail_offset += cut as u64;
            *tail_cut = true;
        }
        if finish {
            if !tail.is_empty() || *tail_cut {
                reader.end_tail(tail, *tail_offset, *tail_cut, &mut logical);
            }
            reader.flush_pieces(&mut logical);
        }

        // No new line: nothing can end (a push inside a line costs no parsing).
        if logical.len() == held.len() && !finish {
            return;
        }

        // Phase 2: records, until one may go on.
        let scratch: &str = reader.scratch;
        let n = logical.len();
        let mut machine = Machine::new(Parsed {
            logical: &logical,
            scratch,
            written: written.as_ref(),
            next: 0,
            end: 0,
        });
        // One record, filled in place again and again (see `Machine::next_into`).
        let mut record = Record::blank();
        if let Some(skim) = skim {
            // A line that may be passed over, waiting to know whether the next one may
            // be too (then its record is itself alone).
            let mut waiting: Option<(usize, Line<'_>)> = None;
            for (k, l) in logical.iter().enumerate() {
                let Some(line) = skimmable(l, scratch, written.as_ref(), &*skim) else {
                    waiting = None;
                    continue;
                };
                if let Some((i, head)) = waiting.take() {
                    // The records before line `i` are complete: `i` starts one.
                    drain(&mut machine, &mut record, &logical, i, false, finish, out);
                    let origin = l_origin(&logical, i);
                    skim.skipped(
                        &head,
                        RecordSpan {
                            first_line: origin.line,
                            byte_start: origin.start,
                            byte_end: origin.end,
                            invalid_utf8: origin.invalid_utf8,
                        },
                    );
                    machine.lines.next = i + 1;
                }
                waiting = Some((k, line));
            }
        }
        let keep_from =
            drain(&mut machine, &mut record, &logical, n, true, finish, out).unwrap_or(n);
        drop(record);
        drop(machine);

        // Keep the lines of the record that may go on, copied.
        let mut text = String::new();
        let mut kept = Vec::new();
        for l in logical.get(keep_from..).unwrap_or_default() {
            let mut copy = |s: &Src<'_>| {
                let start = text.len();
                text.push_str(s.get(scratch));
                start..text.len()
            };
            let raw = copy(&l.raw);
            let wrapped = l.wrapped.as_ref().map(|(w, p)| (w.clone(), copy(p)));
            kept.push(HeldLine {
                raw,
                wrapped,
                origin: l.origin,
            });
        }
        drop(logical);
        *held = kept;
        *held_text = text;
        debug_assert!(held.len() <= MAX_RECORD_LINES + 3);
    }
}

#[cfg(test)]
mod tests;
