//! Phase 1 of a push: the pushed bytes cut into logical lines (pieces of long lines,
//! invalid UTF-8 replaced, container lines decoded and their pieces joined).

use super::*;

/// What phase 1 of a push writes: the scratch text and the counters.
pub(super) struct Reader<'s> {
    pub(super) scratch: &'s mut String,
    pub(super) pieces: &'s mut [Option<Pieces>; 2],
    pub(super) lines: &'s mut usize,
    pub(super) invalid_utf8_lines: &'s mut u64,
}

pub(super) fn stream_index(stream: Stream) -> usize {
    match stream {
        Stream::Stdout => 0,
        Stream::Stderr => 1,
    }
}

/// Where to cut a line longer than the limit: at the limit, moved back to the start of a
/// UTF-8 character, so the pieces are the same whatever the pushes were.
pub(super) fn piece_end(bytes: &[u8]) -> usize {
    let mut cut = MAX_LINE_BYTES;
    while cut > MAX_LINE_BYTES - 3 && bytes.get(cut).is_some_and(|b| b & 0xc0 == 0x80) {
        cut -= 1;
    }
    cut
}

impl Reader<'_> {
    pub(super) fn scratch_push(&mut self, text: &str) -> Range<usize> {
        let start = self.scratch.len();
        self.scratch.push_str(text);
        start..self.scratch.len()
    }

    /// Reads the complete lines of `bytes`, which ends with a newline, found at `offset`.
    pub(super) fn lines<'x>(&mut self, bytes: &'x [u8], offset: u64, out: &mut Vec<Logical<'x>>) {
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
    pub(super) fn physical<'x>(
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
    pub(super) fn owned<'x>(&mut self, bytes: &[u8], origin: Origin, out: &mut Vec<Logical<'x>>) {
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
    pub(super) fn decode<'x>(
        &mut self,
        raw: Src<'x>,
        text: &str,
        origin: Origin,
        out: &mut Vec<Logical<'x>>,
    ) {
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
    pub(super) fn joined<'x>(
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
    pub(super) fn add_piece<'x>(
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
    pub(super) fn flush_pieces<'x>(&mut self, out: &mut Vec<Logical<'x>>) {
        let mut waiting: Vec<Pieces> = self.pieces.iter_mut().filter_map(Option::take).collect();
        waiting.sort_by_key(|p| p.origin.line);
        for p in waiting {
            // Still marked partial: the rest never came.
            self.joined(p.wrapper, &p.text, p.origin, true, out);
        }
    }
}

impl Reader<'_> {
    /// Reads the tail's line, now ended; `cut` when its first pieces were read already.
    pub(super) fn end_tail<'x>(
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
