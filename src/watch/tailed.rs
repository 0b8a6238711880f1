//! One followed log: its follower, the push-mode assembler of the current generation,
//! and the line and byte counts its records are shifted by when the assembler was
//! flushed (a record is handed out once the writer has been quiet for a look, so that
//! the last line of a recovery is not held until the next one is written).

use evacdoc_parsers::utf8::decode;
use evacdoc_parsers::{Assembler, Record, RecordSpan, Timestamp};

use crate::correlate::extract::{RawEvent, Watched};
use crate::correlate::keeper::EventKeeper;
use crate::ingest::follow::{Change, Follower};
use crate::ingest::live::LiveLog;
use crate::ingest::role::{is_canonical, service_from_loggers};
use crate::ingest::sink::{FileCtx, RecordSink};
use crate::model::Service;
use crate::watch::files::Registry;

/// Nova's request lines are all kept: what a live recovery will name is not known yet.
static ALL_INSTANCES: Watched = None;

/// A followed log.
#[derive(Debug)]
pub(crate) struct TailedLog {
    pub(crate) log: LiveLog,
    follower: Follower,
    /// The file id of the current generation.
    file: u32,
    host: u32,
    service: Service,
    assembler: Assembler,
    /// Lines and bytes of this generation before the assembler's.
    base_lines: usize,
    base_bytes: u64,
    /// Bytes were pushed since the last flush.
    pending: bool,
    /// The last byte pushed was a newline (a flush then cuts no line).
    at_line_end: bool,
    /// Nothing read yet of this generation (its loggers may name its service).
    fresh: bool,
    /// The time of the last record with one: what a raw traceback line takes.
    last_stamp: Option<Timestamp>,
    /// The format of the last record that had one.
    format: Option<&'static str>,
    buf: Vec<u8>,
}

/// What one look at a log gave.
#[derive(Debug, Default)]
pub(crate) struct Look {
    pub(crate) bytes: u64,
    pub(crate) records: u64,
    /// The file was missing.
    pub(crate) missing: bool,
    /// Pacemaker's fencing results read.
    pub(crate) fencing: usize,
}

impl TailedLog {
    pub(crate) fn new(log: LiveLog, host: u32, from_end: bool, files: &mut Registry) -> TailedLog {
        let follower = Follower::new(&log.abs, from_end);
        let file = files.open_file(&log.rel, host, &log.service);
        TailedLog {
            service: log.service.clone(),
            log,
            follower,
            file,
            host,
            assembler: Assembler::written_at(now()),
            base_lines: 0,
            base_bytes: 0,
            pending: false,
            at_line_end: true,
            fresh: true,
            last_stamp: None,
            format: None,
            buf: Vec::new(),
        }
    }

    /// Reads what the file gained, pushes its records through an event keeper, and adds
    /// the kept events to `out`.
    pub(crate) fn look(
        &mut self,
        max_read: usize,
        files: &mut Registry,
        out: &mut Vec<RawEvent>,
    ) -> std::io::Result<Look> {
        let mut look = Look::default();
        let mut keeper = EventKeeper::new(&ALL_INSTANCES);
        let mut records = 0u64;
        loop {
            self.buf.clear();
            let change = self.follower.read_new(&mut self.buf, max_read.max(1))?;
            match change {
                Change::Same => {}
                Change::Missing => look.missing = true,
                Change::Rotated | Change::Truncated => {
                    // The old generation ends here: what it held is complete.
                    self.flush(&mut keeper, &mut records);
                    look.fencing += self.end_generation(files, &mut keeper, records, out);
                    records = 0;
                    keeper = EventKeeper::new(&ALL_INSTANCES);
                    if let Some(slot) = files.file_mut(self.file) {
                        slot.open = false;
                    }
                    self.file = files.open_file(&self.log.rel, self.host, &self.service);
                    self.base_lines = 0;
                    self.base_bytes = 0;
                    self.fresh = true;
                }
            }
            if self.buf.is_empty() {
                break;
            }
            look.bytes += self.buf.len() as u64;
            let buf = std::mem::take(&mut self.buf);
            self.push(&buf, &mut keeper, &mut records);
            self.buf = buf;
            if look.bytes >= max_read as u64 {
                break;
            }
        }
        if look.bytes == 0 && self.pending && self.at_line_end {
            // Quiet for a look: the record held is complete.
            self.flush(&mut keeper, &mut records);
        }
        look.records = records;
        look.fencing += self.end_generation(files, &mut keeper, records, out);
        Ok(look)
    }

    fn ctx(&self) -> (u32, u32) {
        (self.file, self.host)
    }

    fn push(&mut self, bytes: &[u8], keeper: &mut EventKeeper<'static>, records: &mut u64) {
        if std::mem::take(&mut self.fresh)
            && !is_canonical(&self.service)
            && let Some(found) = service_from_loggers(&decode(bytes).text)
        {
            self.service = found;
        }
        self.feed(Some(bytes), keeper, records);
        self.pending = true;
        self.at_line_end = bytes.last() == Some(&b'\n');
    }

    /// Pushes `bytes` into the assembler (`None`: finishes it), its records to `keeper`
    /// with this file's context and lines and bytes shifted past the earlier assemblers.
    fn feed(&mut self, bytes: Option<&[u8]>, keeper: &mut EventKeeper<'static>, records: &mut u64) {
        let (file, host) = self.ctx();
        let path = self.log.rel.clone();
        let ctx = FileCtx {
            id: file,
            path: &path,
            host,
            service: &self.service,
            disk: None,
        };
        let mut sink = Shifted {
            keeper,
            lines: self.base_lines,
            bytes: self.base_bytes,
            records,
            format: &mut self.format,
        };
        let mut emit = |record: &Record<'_>, span: RecordSpan| sink.record(&ctx, record, span);
        match bytes {
            Some(bytes) => self.assembler.push(bytes, &mut emit),
            None => self.assembler.finish(&mut emit),
        }
    }

    /// Hands out the record the assembler holds; the next bytes go to a new assembler
    /// whose lines and bytes follow on.
    fn flush(&mut self, keeper: &mut EventKeeper<'static>, records: &mut u64) {
        if !self.pending {
            return;
        }
        self.feed(None, keeper, records);
        self.base_lines += self.assembler.lines();
        self.base_bytes += self.assembler.bytes();
        self.assembler = Assembler::written_at(now());
        self.pending = false;
    }

    /// Moves what `keeper` kept of the current generation to `out`, and its counts, zone
    /// evidence and Pacemaker's fencing results to the file's slot; the number of
    /// fencing results.
    fn end_generation(
        &mut self,
        files: &mut Registry,
        keeper: &mut EventKeeper<'static>,
        records: u64,
        out: &mut Vec<RawEvent>,
    ) -> usize {
        let keeper = std::mem::replace(keeper, EventKeeper::new(&ALL_INSTANCES));
        let Some(slot) = files.file_mut(self.file) else {
            return 0;
        };
        slot.info.service = self.service.clone();
        slot.info.records += records;
        slot.info.bytes = self.base_bytes + self.assembler.bytes();
        let mut outcome = keeper.into_outcome(slot.info.clone(), None);
        slot.votes.merge(&outcome.votes);
        let fencing = outcome.fencing.len();
        slot.add_fencing(std::mem::take(&mut outcome.fencing));
        if let Some(format) = self.format {
            slot.info.format = format.to_string();
        }
        for mut raw in outcome.events {
            // A raw traceback line first in a look takes the time of the record before.
            if raw.stamp.is_none() {
                raw.stamp = self.last_stamp;
            }
            if raw.stamp.is_some() {
                self.last_stamp = raw.stamp;
            }
            slot.held += 1;
            out.push(raw);
        }
        fencing
    }
}

/// Passes records to the keeper with their lines and bytes counted over the whole
/// generation, not the assembler's part of it.
struct Shifted<'k, 'w> {
    keeper: &'k mut EventKeeper<'w>,
    lines: usize,
    bytes: u64,
    records: &'k mut u64,
    format: &'k mut Option<&'static str>,
}

impl Shifted<'_, '_> {
    fn record(&mut self, ctx: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        *self.records += 1;
        if record.unparsed_reason().is_none() {
            *self.format = Some(record.format().as_str());
        }
        let span = RecordSpan {
            first_line: span.first_line + self.lines,
            byte_start: span.byte_start + self.bytes,
            byte_end: span.byte_end + self.bytes,
            invalid_utf8: span.invalid_utf8,
        };
        self.keeper.record(ctx, record, span);
    }
}

/// The time now: a log followed as it grows is written now, the year of its journal
/// lines that give none.
fn now() -> Option<evacdoc_parsers::DateTime> {
    crate::ingest::read_log::date_of(std::time::SystemTime::now())
}
