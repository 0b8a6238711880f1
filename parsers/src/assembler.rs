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
use crate::line::{Content, Line, Wrapper, parse_line, parse_wrapped};
use crate::records::{Cut, MAX_LINE_BYTES, MAX_RECORD_LINES, Machine, Record};

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
    fn line(&self, scratch: &'x str) -> Line<'x> {
        let raw = self.raw.get(scratch);
        match &self.wrapped {
            None => parse_line(raw),
            Some((wrapper, payload)) => parse_wrapped(raw, wrapper.clone(), payload.get(scratch)),
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
/// container lines), both read by [`parse_line`] as oslo.log lines with a context bracket
/// and no wrapper. Such a line starts a record (no record takes a line with a context
/// bracket as its continuation or traceback) and so does the next one: the record the
/// line starts is that line alone, a [`RecordKind::Entry`](crate::records::RecordKind)
/// with no continuation, traceback or cut, exactly what [`Assembler::push`] would have
/// handed out, in the same place of the order of records.
pub trait Skim {
    /// A cheap look at a line's text: false when the line cannot be ignorable (it is then
    /// not parsed to ask [`Skim::ignorable`]).
    fn candidate(&self, raw: &str) -> bool;
    /// Whether the one-line record of `line` (plain oslo.log, with a context bracket)
    /// matters to the reader only through [`Skim::skipped`].
    fn ignorable(&self, line: &Line<'_>) -> bool;
    /// A record passed over: its only line and where it lies.
    fn skipped(&mut self, line: &Line<'_>, span: RecordSpan);
}

/// The lines of one push, parsed as the record machine asks for them, up to `end`
/// (moved on when records are passed over).
struct Parsed<'l, 'x> {
    logical: &'l [Logical<'x>],
    scratch: &'x str,
    next: usize,
    end: usize,
}

impl<'x> Iterator for Parsed<'_, 'x> {
    type Item = (usize, Line<'x>);

    fn next(&mut self) -> Option<(usize, Line<'x>)> {
        if self.next >= self.end {
            return None;
        }
        let i = self.next;
        self.next += 1;
        self.logical.get(i).map(|l| (i, l.line(self.scratch)))
    }
}

/// The line `l`, parsed, when the assembler may pass over the record it starts (given
/// that the next line may be passed over too): see [`Skim`].
fn skimmable<'x>(l: &Logical<'x>, scratch: &'x str, skim: &dyn Skim) -> Option<Line<'x>> {
    if l.wrapped.is_some() || l.origin.piece || l.origin.ends != 1 {
        return None;
    }
    let raw = l.raw.get(scratch);
    if !skim.candidate(raw) {
        return None;
    }
    let line = parse_line(raw);
    let starts_a_record = line.wrapper.is_none()
        && matches!(&line.content, Content::Oslo(o) if o.context_raw.is_some());
    (starts_a_record && skim.ignorable(&line)).then_some(line)
}

/// Hands out the records of the machine's lines up to `end`. `last`: `end` is the end
/// of the push, where the last record may go on (unless `finish`): the index of its
/// first line is returned, and it is not handed out. Otherwise the line at `end` starts
/// a record (see [`Skim`]), so every record before it is complete.
#[allow(clippy::too_many_arguments)]
fn drain<'x>(
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
}

/// What phase 1 of a push writes: the scratch text and the counters.
struct Reader<'s> {
    scratch: &'s mut String,
    pieces: &'s mut [Option<Pieces>; 2],
    lines: &'s mut usize,
    invalid_utf8_lines: &'s mut u64,
}

fn stream_index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

/// Where to cut a line longer than the limit: at the limit, moved back to the start of a
/// UTF-8 character, so the pieces are the same whatever the pushes were.
fn piece_end(bytes: &[u8]) -> usize {
    let mut cut = MAX_LINE_BYTES;
    while cut > MAX_LINE_BYTES - 3 && bytes.get(cut).is_some_and(|b| b & 0xc0 == 0x80) {
        cut -= 1;
    }
    cut
}

impl Reader<'_> {
    fn scratch_push(&mut self, text: &str) -> Range<usize> {
        let start = self.scratch.len();
        self.scratch.push_str(text);
        start..self.scratch.len()
    }

    /// Reads the complete lines of `bytes`, which ends with a newline, found at `offset`.
    fn lines<'x>(&mut self, bytes: &'x [u8], offset: u64, out: &mut Vec<Logical<'x>>) {
        // One check of the whole piece (nearly always valid UTF-8) costs less than one
        // per line; the lines of a valid piece are then sliced from it (at newlines:
        // character boundaries).
        let valid = std::str::from_utf8(bytes).ok();
        let mut start = 0;
        for end in memchr::memchr_iter(b'\n', bytes) {
            *self.lines += 1;
            let line = *self.lines;
            let mut piece = &bytes[start..end];
            let mut at = offset + start as u64;
            let cut = piece.len() > MAX_LINE_BYTES;
            if !cut && let Some(text) = valid.and_then(|v| v.get(start..end)) {
                let text = text.strip_suffix('\r').unwrap_or(text);
                let origin = Origin {
                    line,
                    start: at,
                    end: at + text.len() as u64,
                    invalid_utf8: false,
                    piece: false,
                    ends: 1,
                };
                self.decode(Src::Str(text), text, origin, out);
                start = end + 1;
                continue;
            }
            while piece.len() > MAX_LINE_BYTES {
                let (now, later) = piece.split_at(piece_end(piece));
                self.physical(now, (line, 0), at, true, out);
                at += now.len() as u64;
                piece = later;
            }
            self.physical(piece, (line, 1), at, cut, out);
            start = end + 1;
        }
    }

    /// Reads one physical line (or piece), borrowed when it is valid UTF-8.
    fn physical<'x>(
        &mut self,
        bytes: &'x [u8],
        (line, ends): (usize, usize),
        start: u64,
        piece: bool,
        out: &mut Vec<Logical<'x>>,
    ) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let origin = Origin {
            line,
            start,
            end: start + bytes.len() as u64,
            invalid_utf8: false,
            piece,
            ends,
        };
        match std::str::from_utf8(bytes) {
            Ok(text) => self.decode(Src::Str(text), text, origin, out),
            Err(_) => self.owned(bytes, origin, out),
        }
    }

    /// Reads a line from a copy (the tail, or a line with invalid UTF-8).
    fn owned<'x>(&mut self, bytes: &[u8], origin: Origin, out: &mut Vec<Logical<'x>>) {
        let bytes = bytes.strip_suffix(b"\r").unwrap_or(bytes);
        let decoded = String::from_utf8_lossy(bytes);
        let invalid_utf8 = matches!(decoded, std::borrow::Cow::Owned(_));
        let text = decoded.into_owned();
        if invalid_utf8 {
            *self.invalid_utf8_lines += 1;
        }
        let origin = Origin {
            end: origin.start + bytes.len() as u64,
            invalid_utf8,
            ..origin
        };
        let range = self.scratch_push(&text);
        self.decode(Src::Scratch(range), &text, origin, out);
    }

    /// Decodes a container line (`text` is the text of `raw`); any other line is read as
    /// it is.
    fn decode<'x>(&mut self, raw: Src<'x>, text: &str, origin: Origin, out: &mut Vec<Logical<'x>>) {
        let b = text.as_bytes();
        let plain = Logical {
            raw: raw.clone(),
            wrapped: None,
            origin,
        };
        if b.first().is_some_and(u8::is_ascii_digit) && b.get(10) == Some(&b'T') {
            let Ok((payload, prefix)) = parse_cri_prefix(text) else {
                return out.push(plain);
            };
            let slot = stream_index(prefix.stream);
            if prefix.partial {
                return self.add_piece(slot, Wrapper::Cri(prefix), payload, origin, out);
            }
            match self.pieces[slot].take() {
                Some(pieces) => {
                    let mut joined = pieces.text;
                    joined.push_str(payload);
                    self.joined(
                        pieces.wrapper,
                        &joined,
                        pieces.origin.join(origin),
                        false,
                        out,
                    );
                }
                None => out.push(plain),
            }
            return;
        }
        if b.first() == Some(&b'{') && b.get(1) == Some(&b'"') {
            let Ok((_, line)) = parse_docker_line(text) else {
                return out.push(plain);
            };
            let slot = stream_index(line.prefix.stream);
            let pending = self.pieces[slot].is_some();
            if !line.prefix.partial && !pending && !line.escaped {
                // Nothing to decode: read as `parse_line` reads it.
                return out.push(plain);
            }
            let mut log = String::new();
            unescape(line.log, &mut log);
            let wrapper = Wrapper::Docker(line.prefix);
            if line.prefix.partial {
                return self.add_piece(slot, wrapper, &log, origin, out);
            }
            match self.pieces[slot].take() {
                Some(pieces) => {
                    let mut joined = pieces.text;
                    joined.push_str(&log);
                    self.joined(
                        pieces.wrapper,
                        &joined,
                        pieces.origin.join(origin),
                        false,
                        out,
                    );
                }
                None => {
                    let payload = self.scratch_push(&log);
                    out.push(Logical {
                        raw,
                        wrapped: Some((wrapper, Src::Scratch(payload))),
                        origin,
                    });
                }
            }
            return;
        }
        out.push(plain);
    }

    /// A line joined from pieces: its text is both the raw line and the payload.
    fn joined<'x>(
        &mut self,
        wrapper: Wrapper<'static>,
        text: &str,
        origin: Origin,
        partial: bool,
        out: &mut Vec<Logical<'x>>,
    ) {
        let range = self.scratch_push(text);
        let wrapper = match wrapper {
            Wrapper::Cri(mut p) => {
                p.partial = partial;
                Wrapper::Cri(p)
            }
            Wrapper::Docker(mut d) => {
                d.partial = partial;
                Wrapper::Docker(d)
            }
            other => other,
        };
        out.push(Logical {
            raw: Src::Scratch(range.clone()),
            wrapped: Some((wrapper, Src::Scratch(range))),
            origin,
        });
    }

    /// Adds a piece to its stream's line; a line grown past the limit is let out as it is.
    fn add_piece<'x>(
        &mut self,
        slot: usize,
        wrapper: Wrapper<'static>,
        text: &str,
        origin: Origin,
        out: &mut Vec<Logical<'x>>,
    ) {
        let pieces = match &mut self.pieces[slot] {
            Some(pieces) => {
                pieces.origin = pieces.origin.join(origin);
                pieces
            }
            empty => empty.insert(Pieces {
                wrapper,
                text: String::new(),
                origin,
            }),
        };
        pieces.text.push_str(text);
        if pieces.text.len() >= MAX_LINE_BYTES
            && let Some(full) = self.pieces[slot].take()
        {
            let origin = Origin {
                piece: true,
                ..full.origin
            };
            self.joined(full.wrapper, &full.text, origin, false, out);
        }
    }

    /// Lets out the pieces still waiting: the input ended inside a container line.
    fn flush_pieces<'x>(&mut self, out: &mut Vec<Logical<'x>>) {
        let mut waiting: Vec<Pieces> = self.pieces.iter_mut().filter_map(Option::take).collect();
        waiting.sort_by_key(|p| p.origin.line);
        for p in waiting {
            // Still marked partial: the rest never came.
            self.joined(p.wrapper, &p.text, p.origin, true, out);
        }
    }
}

impl Assembler {
    /// An assembler at the start of an input.
    pub fn new() -> Assembler {
        Assembler::default()
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
                let Some(line) = skimmable(l, scratch, &*skim) else {
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

impl Reader<'_> {
    /// Reads the tail's line, now ended; `cut` when its first pieces were read already.
    fn end_tail<'x>(
        &mut self,
        tail: &mut Vec<u8>,
        offset: u64,
        cut: bool,
        out: &mut Vec<Logical<'x>>,
    ) {
        *self.lines += 1;
        let line = std::mem::take(tail);
        let mut rest: &[u8] = &line;
        let mut origin = Origin {
            line: *self.lines,
            start: offset,
            end: offset,
            invalid_utf8: false,
            piece: cut || line.len() > MAX_LINE_BYTES,
            ends: 0,
        };
        while rest.len() > MAX_LINE_BYTES {
            let (now, later) = rest.split_at(piece_end(rest));
            self.owned(now, origin, out);
            origin.start += now.len() as u64;
            rest = later;
        }
        if !(rest.is_empty() && cut) {
            origin.ends = 1;
            self.owned(rest, origin, out);
        }
        // Keep the allocation for the next tail.
        *tail = line;
        tail.clear();
    }
}

#[cfg(test)]
mod tests;
