//! The spool's sink of one file (see `writer`): each record encoded into a buffer, the
//! buffer written to the spool a frame at a time.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use evacdoc_parsers::{Line, Record};

use super::Shared;
use crate::index::in_file::{SpooledFile, check_of};
use crate::index::spans::spans_of;
use crate::index::spool::{FRAME_BYTES, InFile, SpooledRecord};
use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan, record_of_line};
use crate::model::inventory::FileInfo;

/// The sink of one file: its records encoded into a buffer, written to the spool a
/// frame at a time.
pub(super) struct FileSink {
    shared: Arc<Shared>,
    /// The unpacked files stay until the index is built: records may be spooled by place.
    keeps_files: bool,
    /// The file's path is in `shared.paths`.
    told_path: bool,
    /// The raw time of the last record that had one, and whether it carried its offset.
    last_time: Option<(i64, bool)>,
    /// (min, max) raw time of the file's records.
    span: Option<(i64, i64)>,
    /// The text and raw lines of the record being spooled, reused.
    text: String,
    raw: String,
    pieces: Vec<&'static str>,
    lines: Vec<&'static str>,
    spans: Vec<u8>,
    buffer: Vec<u8>,
    /// Documents and bytes of log spooled since the last frame, told to `shared` with
    /// it (counters shared by every reading thread, bumped per record, cost a tenth of
    /// the pass on two cores).
    unflushed: (u64, u64),
}

impl FileSink {
    pub(super) fn new(shared: Arc<Shared>, keeps_files: bool) -> FileSink {
        FileSink {
            shared,
            keeps_files,
            told_path: false,
            last_time: None,
            span: None,
            text: String::new(),
            raw: String::new(),
            pieces: Vec::new(),
            lines: Vec::new(),
            spans: Vec::new(),
            buffer: Vec::new(),
            unflushed: (0, 0),
        }
    }

    fn spool(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        let own = record.timestamp().and_then(|t| match t.offset {
            Some(offset) => t.local.checked_unix_nanos(offset).map(|n| (n, true)),
            None => t.local.checked_unix_nanos(0).map(|n| (n, false)),
        });
        if let Some((raw, _)) = own {
            self.last_time = own;
            self.span = Some(match self.span {
                Some((lo, hi)) => (lo.min(raw), hi.max(raw)),
                None => (raw, raw),
            });
        }
        // The raw lines are kept once: the text is told as slices of them when it is.
        let mut pieces = reuse(std::mem::take(&mut self.pieces));
        let mut lines = reuse(std::mem::take(&mut self.lines));
        pieces.push(record.message());
        pieces.extend(record.continuation.iter().chain(record.traceback.iter()));
        lines.extend(record.raw_lines());
        let sliced = spans_of(&pieces, &lines, &mut self.spans);
        self.text.clear();
        if !sliced {
            join_lines(&mut self.text, &pieces);
        }
        let raw: &str = match lines.as_slice() {
            [one] => one,
            _ => {
                join_lines(&mut self.raw, &lines);
                &self.raw
            }
        };
        // Placed only when the files stay (the check hashes the lines: not for nothing).
        let in_file = self
            .keeps_files
            .then(|| place_in_file(file, raw, span))
            .flatten();
        if in_file.is_some() && !self.told_path {
            if let (Some(path), Ok(mut paths)) = (file.disk, self.shared.paths.lock()) {
                let name = PathBuf::from(file.path);
                let abs = path.to_path_buf();
                paths.insert(file.id, SpooledFile { abs, name });
            }
            self.told_path = true;
        }
        let mut spooled = SpooledRecord {
            file: file.id,
            line: span.first_line as u64,
            // A record without a time of its own sorts after the one before it.
            time: self.last_time,
            own_time: own.is_some(),
            raw,
            in_file,
            spans: &self.spans,
            own_text: &self.text,
            ..SpooledRecord::default()
        };
        if let Some(oslo) = record.oslo() {
            spooled.level = oslo.level.as_str();
            spooled.logger = oslo.logger;
            if let Some(context) = oslo.context() {
                spooled.request = context.request_id.unwrap_or_default();
                spooled.global = context.global_request_id.unwrap_or_default();
            }
            spooled.instance = oslo.instance.unwrap_or_default();
        }
        spooled.encode(lines.first().copied().unwrap_or(raw), &mut self.buffer);
        self.pieces = reuse(pieces);
        self.lines = reuse(lines);
    }

    fn flush(&mut self) {
        if let Err(reason) = self.shared.spool.write_frame(&mut self.buffer) {
            self.shared.fail(reason);
        }
        let (documents, bytes) = std::mem::take(&mut self.unflushed);
        self.shared
            .documents
            .fetch_add(documents, Ordering::Relaxed);
        self.shared.bytes.fetch_add(bytes, Ordering::Relaxed);
    }
}

impl RecordSink for FileSink {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        self.spool(file, record, span);
        self.unflushed.0 += 1;
        self.unflushed.1 += span.byte_end.saturating_sub(span.byte_start) + 1;
        if self.buffer.len() >= FRAME_BYTES {
            self.flush();
        }
    }

    // The spool takes every record, so it may let the reader pass over any record the
    // other sinks ignore: such a record is one line alone (an `Entry` without
    // continuation, traceback or cut, `RecordSink::ignores`), and the spool needs
    // nothing of it but that line. Without this the service's reading pass, which
    // feeds the spool beside the event keeper, built every record in full.
    fn skims(&self) -> bool {
        true
    }

    fn candidate(&self, _: &FileCtx<'_>, _: &str) -> bool {
        true
    }

    fn ignores(&self, _: &FileCtx<'_>, _: &Line<'_>) -> bool {
        true
    }

    /// Spools the record of `head` alone exactly as [`RecordSink::record`] would.
    fn skipped(&mut self, file: &FileCtx<'_>, head: &Line<'_>, span: RecordSpan) {
        self.record(file, &record_of_line(head, span), span);
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, _: &FileInfo) {
        self.flush();
        // The sinks of every file are dropped only after the last file is read: their
        // buffers (a frame each) are given back now, or a thousand files hold 1 GB.
        self.buffer = Vec::new();
        self.text = String::new();
        self.raw = String::new();
        self.spans = Vec::new();
        self.pieces = Vec::new();
        self.lines = Vec::new();
        let (Some((lo, hi)), Ok(mut spans)) = (self.span, self.shared.spans.lock()) else {
            return;
        };
        let entry = spans.entry(file.host).or_insert((lo, hi));
        *entry = (entry.0.min(lo), entry.1.max(hi));
    }
}

/// Where a record's raw lines are in its file, when they are its bytes there as they are:
/// the file is read uncompressed and its span is as long as the lines (valid UTF-8; the
/// check at build time makes sure of the rest).
fn place_in_file(file: &FileCtx<'_>, raw: &str, span: RecordSpan) -> Option<InFile> {
    file.disk.filter(|_| !span.invalid_utf8)?;
    let len = u32::try_from(raw.len()).ok()?;
    (span.byte_end.checked_sub(span.byte_start) == Some(u64::from(len))).then(|| InFile {
        offset: span.byte_start,
        len,
        check: check_of(raw),
    })
}

/// `lines` joined by `\n` into `out` (replacing what it held).
fn join_lines(out: &mut String, lines: &[&str]) {
    out.clear();
    for (i, line) in lines.iter().enumerate() {
        if i > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
}

/// An empty vector of slices of any lifetime that keeps the allocation of `v`: the
/// sink reuses its lists of a record's lines from one record to the next.
fn reuse<'b>(mut v: Vec<&str>) -> Vec<&'b str> {
    v.clear();
    v.into_iter().map(|_| "").collect()
}

impl Drop for FileSink {
    /// A file whose reading stopped without `finish_file` still gives its records.
    fn drop(&mut self) {
        self.flush();
    }
}
