//! Reading one log file: pieces of whole lines, records pushed into sinks.

use std::cell::RefCell;

use evacdoc_parsers::sniff::{FileKind, sniff};
use evacdoc_parsers::utf8::decode;
use evacdoc_parsers::{Assembler, Format, Line, Record, RecordSpan, Skim};

use crate::ingest::chunks::LineChunks;
use crate::ingest::place::Placed;
use crate::ingest::role::{Role, rotation};
use crate::ingest::sink::{FileCtx, RecordSink};
use crate::ingest::split_sources::PartLines;
use crate::model::Service;
use crate::model::inventory::FileInfo;

/// What the reader says of one log file.
#[derive(Debug)]
pub struct FileRead {
    /// The file: its host, service, format and counts.
    pub info: FileInfo,
    /// Why the file was not read, or not as a log.
    pub skipped: Option<String>,
}

pub(crate) fn progress_bar(enabled: bool, total: u64) -> indicatif::ProgressBar {
    if !enabled {
        return indicatif::ProgressBar::hidden();
    }
    // Drawn only when stderr is a terminal: indicatif hides it otherwise.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} reading logs {bytes}/{total_bytes} {wide_bar} {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// Rough cost of reading a file: compressed logs expand about tenfold.
pub(crate) fn read_cost(p: &Placed<'_>) -> u64 {
    let compressed = [".gz", ".xz", ".zst", ".bz2"]
        .iter()
        .any(|ext| p.file.rel.ends_with(ext));
    if compressed {
        p.file.size.saturating_mul(10)
    } else {
        p.file.size
    }
}

pub(crate) fn is_masakari(p: &Placed<'_>) -> bool {
    matches!(&p.role, Role::Log(s) if s.project() == crate::model::Project::Masakari)
}

/// The context sinks are made with: the service the file's name says.
pub(crate) fn placed_ctx<'a>(p: &'a Placed<'_>, id: u32, unknown: &'a Service) -> FileCtx<'a> {
    FileCtx {
        id,
        path: &p.file.rel,
        host: p.host,
        service: match &p.role {
            Role::Log(service) => service,
            _ => unknown,
        },
        disk: None,
    }
}

/// Reads `logs` in parallel, `logs[i]` being file `first_id + i`, each into the sink
/// `make` gives for it; the sinks come back with their files, in order.
pub(crate) fn read_logs<S, F>(
    logs: &[Placed<'_>],
    first_id: u32,
    make: F,
    progress: &indicatif::ProgressBar,
    limits: &crate::ingest::IngestLimits,
) -> Vec<(FileRead, S)>
where
    S: RecordSink + Send,
    F: Fn(&FileCtx<'_>) -> S + Sync,
{
    use rayon::prelude::*;
    let unknown = Service::new("unknown");
    logs.par_iter()
        .enumerate()
        .map(|(i, p)| {
            let id = first_id + i as u32;
            let mut sink = make(&placed_ctx(p, id, &unknown));
            let read = read_log_within(p, id, &mut sink, limits);
            progress.inc(p.file.size);
            (read, sink)
        })
        .collect()
}

/// Reads and parses one log file, pushing every record into `sink`, then telling it
/// the file ended.
#[cfg(test)]
pub(crate) fn read_log<S: RecordSink + ?Sized>(p: &Placed<'_>, id: u32, sink: &mut S) -> FileRead {
    read_log_within(p, id, sink, &crate::ingest::IngestLimits::default())
}

/// [`read_log`], reading at most what `limits` allow of the file decompressed.
pub(crate) fn read_log_within<S: RecordSink + ?Sized>(
    p: &Placed<'_>,
    id: u32,
    sink: &mut S,
    limits: &crate::ingest::IngestLimits,
) -> FileRead {
    let read = read_records(p, id, sink, limits.log_bytes(p.file.size));
    let ctx = FileCtx {
        id,
        path: &read.info.path,
        host: read.info.host,
        service: &read.info.service,
        disk: None,
    };
    sink.finish_file(&ctx, &read.info);
    read
}

/// Every format, in their order.
const FORMATS: [Format; 12] = [
    Format::Oslo,
    Format::Access,
    Format::Uwsgi,
    Format::Pebble,
    Format::Syslog,
    Format::Cri,
    Format::Docker,
    Format::Kubectl,
    Format::Traceback,
    Format::Ini,
    Format::Text,
    Format::Unparsed,
];

/// Where a format is counted in [`Counts::formats`]: its place in [`FORMATS`] (a match,
/// so that a new format cannot be left out).
fn format_slot(format: Format) -> usize {
    match format {
        Format::Oslo => 0,
        Format::Access => 1,
        Format::Uwsgi => 2,
        Format::Pebble => 3,
        Format::Syslog => 4,
        Format::Cri => 5,
        Format::Docker => 6,
        Format::Kubectl => 7,
        Format::Traceback => 8,
        Format::Ini => 9,
        Format::Text => 10,
        Format::Unparsed => 11,
    }
}

/// What the reader counts of a file's records.
#[derive(Default)]
struct Counts {
    records: u64,
    unparsed: u64,
    /// Records per format, by [`format_slot`] (a map entry per record was a
    /// noticeable share of reading a big log).
    formats: [u64; FORMATS.len()],
    /// The first line no format fitted (blank lines aside), and why.
    first_reason: Option<(usize, evacdoc_parsers::Reason)>,
}

impl Counts {
    /// Counts a record passed over: the record of `head` alone, an `Entry` (see
    /// [`evacdoc_parsers::Skim`]), counted as [`Counts::count`] counts it.
    fn count_skipped(&mut self, head: &Line<'_>) {
        self.records += 1;
        let format = match &head.wrapper {
            Some(w) => w.format(),
            None => head.content.format(),
        };
        if let Some(n) = self.formats.get_mut(format_slot(format)) {
            *n += 1;
        }
    }

    fn count(&mut self, record: &Record<'_>, span: RecordSpan) {
        self.records += 1;
        if let Some(n) = self.formats.get_mut(format_slot(record.format())) {
            *n += 1;
        }
        if let Some(reason) = record.unparsed_reason() {
            self.unparsed += 1;
            if self.first_reason.is_none() && reason != evacdoc_parsers::Reason::BLANK {
                self.first_reason = Some((span.first_line, reason));
            }
        }
    }
}

fn read_records<S: RecordSink + ?Sized>(
    p: &Placed<'_>,
    id: u32,
    sink: &mut S,
    max_bytes: u64,
) -> FileRead {
    let mut service = match &p.role {
        Role::Log(service) => service.clone(),
        _ => Service::new("unknown"),
    };
    let name = p.file.rel.rsplit('/').next().unwrap_or(&p.file.rel);
    let (base, rotation_number) = rotation(name);
    let dir = p
        .file
        .rel
        .rsplit_once('/')
        .map(|(d, _)| format!("{d}/"))
        .unwrap_or_default();
    let mut info = FileInfo {
        path: p.file.rel.clone(),
        host: p.host,
        service: service.clone(),
        format: "unparsed".into(),
        records: 0,
        unparsed: 0,
        invalid_utf8_lines: 0,
        bytes: 0,
        log: format!("{dir}{base}"),
        rotation: rotation_number,
        incomplete: p.incomplete.clone(),
    };
    let mut chunks = match LineChunks::open(p.file.named(), max_bytes) {
        Ok(chunks) => chunks,
        Err(error) => {
            return FileRead {
                info,
                skipped: Some(error.to_string()),
            };
        }
    };
    // The bytes read are the file's own when it is not compressed.
    let disk = (p.file.unpacked && chunks.plain()).then_some(p.file.abs.as_path());
    let lines = p.part_lines.as_deref();
    let mut counts = Counts::default();
    let mut assembler = Assembler::written_at(modified_at(&p.file.abs));
    // Records the sinks all ignore are passed over, not built (DEBUG logs are mostly
    // such records); counted all the same.
    let skims = sink.skims();
    let mut first_piece = true;
    // Pieces end at a line; the assembler keeps a record that may go on in the next.
    while let Some((bytes, _)) = chunks.next_piece() {
        if std::mem::take(&mut first_piece) {
            if let Some(encoding) = utf16(bytes) {
                return FileRead {
                    info,
                    skipped: Some(format!(
                        "{encoding} text, not read (logs are read as UTF-8: iconv -f {encoding} -t UTF-8)"
                    )),
                };
            }
            let decoded = decode(bytes);
            if sniff(&p.inner, &decoded.text) == FileKind::Ini {
                return FileRead {
                    info,
                    skipped: Some("an INI file where a log was expected".into()),
                };
            }
            // A name that says nothing: the loggers say which service wrote it.
            if !crate::ingest::role::is_canonical(&service)
                && let Some(found) = crate::ingest::role::service_from_loggers(&decoded.text)
            {
                service = found;
                info.service = service.clone();
            }
        }
        let ctx = FileCtx {
            id,
            path: &p.file.rel,
            host: p.host,
            service: &service,
            disk,
        };
        if skims {
            let feed = RefCell::new((&mut *sink, &mut counts));
            let mut skim = SinkSkim {
                ctx: &ctx,
                feed: &feed,
                lines,
            };
            assembler.push_skimming(bytes, &mut skim, &mut |record, span| {
                let span = in_file(lines, span);
                let (sink, counts) = &mut *feed.borrow_mut();
                counts.count(record, span);
                sink.record(&ctx, record, span);
            });
        } else {
            assembler.push(bytes, &mut |record, span| {
                let span = in_file(lines, span);
                counts.count(record, span);
                sink.record(&ctx, record, span);
            });
        }
        chunks.consume();
    }
    let ctx = FileCtx {
        id,
        path: &p.file.rel,
        host: p.host,
        service: &service,
        disk,
    };
    if skims {
        let feed = RefCell::new((&mut *sink, &mut counts));
        let mut skim = SinkSkim {
            ctx: &ctx,
            feed: &feed,
            lines,
        };
        assembler.finish_skimming(&mut skim, &mut |record, span| {
            let span = in_file(lines, span);
            let (sink, counts) = &mut *feed.borrow_mut();
            counts.count(record, span);
            sink.record(&ctx, record, span);
        });
    } else {
        assembler.finish(&mut |record, span| {
            let span = in_file(lines, span);
            counts.count(record, span);
            sink.record(&ctx, record, span);
        });
    }
    info.records = counts.records;
    info.unparsed = counts.unparsed;
    info.invalid_utf8_lines = assembler.invalid_utf8_lines();
    info.bytes = chunks.total();
    // A log cut short (damage, a limit) is read up to there, and listed as skipped
    // from there on; named by its place in the bundle, not the work folder.
    let mut cut = None;
    if let Some(damage) = &chunks.damage {
        let reason = format!("read up to damage: {damage}");
        info.incomplete = Some(reason.clone());
        cut = Some(reason);
    }
    // In the formats' order, as a map by format would give them (the last of equal
    // counts wins).
    info.format = FORMATS
        .iter()
        .zip(counts.formats)
        .filter(|(f, n)| **f != Format::Unparsed && *n > 0)
        .max_by_key(|(_, n)| *n)
        .map(|(f, _)| f.as_str().to_string())
        .unwrap_or_else(|| "unparsed".into());
    let mut skipped = None;
    if info.records > 0 && info.unparsed == info.records {
        let reason = counts
            .first_reason
            .map(|(line, reason)| format!("unknown format (line {line}: {reason})"))
            .unwrap_or_else(|| "unknown format".into());
        skipped = Some(reason);
    }
    if let Some(cut) = cut {
        skipped = Some(match skipped {
            Some(reason) => format!("{reason}; {cut}"),
            None => cut,
        });
    }
    FileRead { info, skipped }
}

/// When the file at `path` was last written (UTC), if its system says: the year of
/// journal lines that give none (DevStack's `screen-*.txt`, sos's `journalctl` output).
pub(crate) fn modified_at(path: &std::path::Path) -> Option<evacdoc_parsers::DateTime> {
    date_of(std::fs::metadata(path).and_then(|m| m.modified()).ok()?)
}

/// `time` as a UTC date-time.
pub(crate) fn date_of(time: std::time::SystemTime) -> Option<evacdoc_parsers::DateTime> {
    let nanos = time.duration_since(std::time::UNIX_EPOCH).ok()?.as_nanos();
    evacdoc_parsers::DateTime::from_unix_nanos(i64::try_from(nanos).ok()?)
}

/// The sink of a file as the assembler's [`Skim`]: it asks the sink which records it
/// ignores, and counts those passed over as the records handed out are counted.
struct SinkSkim<'c, 'f, S: RecordSink + ?Sized> {
    ctx: &'c FileCtx<'c>,
    feed: &'f RefCell<(&'f mut S, &'f mut Counts)>,
    /// A part's lines in the file it was cut from.
    lines: Option<&'c PartLines>,
}

impl<S: RecordSink + ?Sized> Skim for SinkSkim<'_, '_, S> {
    fn candidate(&self, raw: &str) -> bool {
        self.feed.borrow().0.candidate(self.ctx, raw)
    }

    fn ignorable(&self, line: &Line<'_>) -> bool {
        self.feed.borrow().0.ignores(self.ctx, line)
    }

    fn skipped(&mut self, line: &Line<'_>, span: RecordSpan) {
        let span = in_file(self.lines, span);
        let (sink, counts) = &mut *self.feed.borrow_mut();
        counts.count_skipped(line);
        sink.skipped(self.ctx, line, span);
    }
}

/// `span` as the file holds it: a part's lines are numbered as in the file it was cut
/// from.
fn in_file(lines: Option<&PartLines>, span: RecordSpan) -> RecordSpan {
    lines.map_or(span, |lines| lines.in_file(span))
}

/// Says whether a file is UTF-16, by its byte-order mark or by NULs in every other
/// byte of its start (ASCII text written as UTF-16).
fn utf16(head: &[u8]) -> Option<&'static str> {
    match head {
        [0xff, 0xfe, ..] => return Some("UTF-16LE"),
        [0xfe, 0xff, ..] => return Some("UTF-16BE"),
        _ => {}
    }
    let sample = &head[..head.len().min(64) & !1];
    if sample.len() < 16 {
        return None;
    }
    let pairs = sample.chunks_exact(2);
    if pairs.clone().all(|p| p[1] == 0 && p[0] != 0) {
        Some("UTF-16LE")
    } else if pairs.clone().all(|p| p[0] == 0 && p[1] != 0) {
        Some("UTF-16BE")
    } else {
        None
    }
}

#[cfg(test)]
mod tests;
