//! One spooled record, encoded and decoded.
//!
//! What the raw lines hold is not written twice: the logger and the ids (request, global
//! request, instance) that are slices of the record's first line are written as their
//! place in it, and the raw lines themselves as their place in their file when the file
//! stays until the index is built (`index::in_file`). On a DEBUG bundle the ids were most
//! of what the spool compressed once the raw lines were read back from the files.

/// One record as the index needs it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SpooledRecord<'a> {
    /// The file's id in the analysis.
    pub file: u32,
    /// 1-based number of its first line.
    pub line: u64,
    /// Raw time in ns (its own, or the one of the record before it) and whether it
    /// carried its offset.
    pub time: Option<(i64, bool)>,
    /// The record has a time of its own.
    pub own_time: bool,
    pub level: &'a str,
    pub logger: &'a str,
    pub request: &'a str,
    pub global: &'a str,
    pub instance: &'a str,
    /// The lines as the file holds them. Decoded: empty while [`SpooledRecord::in_file`]
    /// says where to read them ([`SpooledRecord::with_raw`] sets them).
    pub raw: &'a str,
    /// Where the raw lines lie in their file, when the spool refers to them there
    /// instead of holding them (`index::in_file`).
    pub in_file: Option<InFile>,
    /// Where the text (message, continuation and traceback lines) lies in `raw`
    /// (`index::spans`); empty when the text is `raw` or stands on its own.
    pub spans: &'a [u8],
    /// The text, when it is not made of slices of `raw` (else empty).
    pub own_text: &'a str,
    /// Decoded, until the raw lines are known: where the logger, request, global and
    /// instance lie in them (offset, length). Left `None` by whoever encodes: `encode`
    /// finds the places itself.
    pub in_raw: [Option<(u32, u32)>; 4],
}

/// Where a record's raw lines lie in its file, and a check of their bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct InFile {
    pub offset: u64,
    pub len: u32,
    /// [`crate::index::in_file::check_of`] the raw lines, as they were read.
    pub check: u32,
}

const HAS_TIME: u8 = 1;
const ZONED: u8 = 2;
const OWN_TIME: u8 = 4;
const RAW_IN_FILE: u8 = 8;
/// Set in a field's length: the field is its place in the raw lines (an offset follows).
const IN_RAW: u32 = 1 << 31;

impl<'a> SpooledRecord<'a> {
    /// Appends the record to `out`. Its fields that are slices of `first_line` (the text
    /// `raw` starts with, in the caller's memory) are written as their place in it.
    pub fn encode(&self, first_line: &str, out: &mut Vec<u8>) {
        out.extend_from_slice(&self.file.to_le_bytes());
        out.extend_from_slice(&self.line.to_le_bytes());
        let mut flags = if self.own_time { OWN_TIME } else { 0 };
        if let Some((_, zoned)) = self.time {
            flags |= HAS_TIME | if zoned { ZONED } else { 0 };
        }
        if self.in_file.is_some() {
            flags |= RAW_IN_FILE;
        }
        out.push(flags);
        if let Some((raw, _)) = self.time {
            out.extend_from_slice(&raw.to_le_bytes());
        }
        text(out, self.level);
        let first_line = Some(first_line).filter(|first| starts_with(self.raw, first));
        for field in [self.logger, self.request, self.global, self.instance] {
            match first_line.and_then(|first| place_in(first, field)) {
                Some((offset, len)) => {
                    out.extend_from_slice(&(len | IN_RAW).to_le_bytes());
                    out.extend_from_slice(&offset.to_le_bytes());
                }
                None => text(out, field),
            }
        }
        match self.in_file {
            Some(at) => {
                out.extend_from_slice(&at.offset.to_le_bytes());
                out.extend_from_slice(&at.len.to_le_bytes());
                out.extend_from_slice(&at.check.to_le_bytes());
            }
            None => text(out, self.raw),
        }
        text(out, self.own_text);
        out.extend_from_slice(&(self.spans.len() as u32).to_le_bytes());
        out.extend_from_slice(self.spans);
    }

    /// The record at `*at` in `buf`, moving `*at` past it; `None` at the end or on a
    /// damaged record. A record whose raw lines are in its file comes with no raw lines
    /// and none of the fields placed in them: [`SpooledRecord::with_raw`] gives them.
    pub fn decode(buf: &'a [u8], at: &mut usize) -> Option<SpooledRecord<'a>> {
        let mut cursor = Cursor { buf, at: *at };
        let file = u32::from_le_bytes(cursor.array()?);
        let line = u64::from_le_bytes(cursor.array()?);
        let [flags] = cursor.array()?;
        let time = if flags & HAS_TIME != 0 {
            Some((i64::from_le_bytes(cursor.array()?), flags & ZONED != 0))
        } else {
            None
        };
        let level = cursor.text()?;
        let mut fields = [""; 4];
        let mut in_raw = [None; 4];
        for (field, place) in fields.iter_mut().zip(&mut in_raw) {
            let len = u32::from_le_bytes(cursor.array()?);
            if len & IN_RAW != 0 {
                *place = Some((u32::from_le_bytes(cursor.array()?), len & !IN_RAW));
            } else {
                *field = std::str::from_utf8(cursor.bytes(len as usize)?).ok()?;
            }
        }
        let [logger, request, global, instance] = fields;
        let (raw, in_file) = if flags & RAW_IN_FILE != 0 {
            let at = InFile {
                offset: u64::from_le_bytes(cursor.array()?),
                len: u32::from_le_bytes(cursor.array()?),
                check: u32::from_le_bytes(cursor.array()?),
            };
            ("", Some(at))
        } else {
            (cursor.text()?, None)
        };
        let mut record = SpooledRecord {
            file,
            line,
            time,
            own_time: flags & OWN_TIME != 0,
            level,
            logger,
            request,
            global,
            instance,
            raw: "",
            in_file,
            own_text: cursor.text()?,
            spans: cursor.sized()?,
            in_raw,
        };
        if in_file.is_none() {
            record = record.with_raw(raw)?;
        }
        *at = cursor.at;
        Some(record)
    }

    /// The record with its raw lines, and the fields placed in them; `None` when a place
    /// is not in them (a damaged spool).
    pub fn with_raw<'r>(self, raw: &'r str) -> Option<SpooledRecord<'r>>
    where
        'a: 'r,
    {
        let mut record: SpooledRecord<'r> = self;
        record.raw = raw;
        let fields = [
            &mut record.logger,
            &mut record.request,
            &mut record.global,
            &mut record.instance,
        ];
        for (field, place) in fields.into_iter().zip(&mut record.in_raw) {
            if let Some((offset, len)) = place.take() {
                let start = offset as usize;
                *field = raw.get(start..start.checked_add(len as usize)?)?;
            }
        }
        Some(record)
    }
}

/// Appends `text` with its length.
fn text(out: &mut Vec<u8>, text: &str) {
    out.extend_from_slice(&(text.len() as u32).to_le_bytes());
    out.extend_from_slice(text.as_bytes());
}

/// Whether `raw` starts with `first` (most records are one line: the same slice).
fn starts_with(raw: &str, first: &str) -> bool {
    (std::ptr::eq(raw.as_ptr(), first.as_ptr()) && first.len() <= raw.len())
        || raw.starts_with(first)
}

/// Where `field` lies in `line` when it is a slice of it (the same memory, not equal
/// text elsewhere): (offset, length).
fn place_in(line: &str, field: &str) -> Option<(u32, u32)> {
    if field.is_empty() {
        return None;
    }
    let start = (field.as_ptr() as usize).checked_sub(line.as_ptr() as usize)?;
    let end = start.checked_add(field.len())?;
    if end > line.len() {
        return None;
    }
    let len = u32::try_from(field.len())
        .ok()
        .filter(|l| l & IN_RAW == 0)?;
    Some((u32::try_from(start).ok()?, len))
}

struct Cursor<'a> {
    buf: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn bytes(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.at.checked_add(n)?;
        let bytes = self.buf.get(self.at..end)?;
        self.at = end;
        Some(bytes)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.bytes(N)?.try_into().ok()
    }

    fn sized(&mut self) -> Option<&'a [u8]> {
        let len = u32::from_le_bytes(self.array()?) as usize;
        self.bytes(len)
    }

    fn text(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.sized()?).ok()
    }
}
