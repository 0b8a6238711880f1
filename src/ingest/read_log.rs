//! Reading one log file: pieces of whole lines, records, the events worth keeping.

use std::collections::BTreeMap;

use evacdoc_parsers::sniff::{FileKind, sniff};
use evacdoc_parsers::utf8::decode;
use evacdoc_parsers::{Format, Records};

use crate::correlate::analysis::FileInfo;
use crate::correlate::extract::{RawEvent, Watched, event_of, keep, vote_offsets};
use crate::ingest::chunks::LineChunks;
use crate::ingest::place::Placed;
use crate::ingest::role::{Role, rotation};
use crate::ingest::timezone::OffsetVotes;
use crate::model::Service;

/// The most a single log file may decompress to.
pub(crate) const MAX_FILE_BYTES: u64 = 8 << 30;

/// What reading one log file gave.
pub(crate) struct FileOutcome {
    pub(crate) info: FileInfo,
    pub(crate) events: Vec<RawEvent>,
    pub(crate) votes: OffsetVotes,
    pub(crate) skipped: Option<String>,
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

/// Reads and parses one log file, keeping the events that matter.
pub(crate) fn read_log(p: &Placed<'_>, id: u32, watch: &Watched) -> FileOutcome {
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
    let mut outcome = FileOutcome {
        info,
        events: Vec::new(),
        votes: OffsetVotes::default(),
        skipped: None,
    };
    let mut chunks = match LineChunks::open(&p.file.abs, MAX_FILE_BYTES) {
        Ok(chunks) => chunks,
        Err(error) => {
            outcome.skipped = Some(error.to_string());
            return outcome;
        }
    };
    info = outcome.info;
    let mut formats: BTreeMap<Format, u64> = BTreeMap::new();
    let mut last_stamp = None;
    let mut first_reason = None;
    let mut first_piece = true;
    loop {
        let base = chunks.line_base;
        let Some((bytes, last)) = chunks.next_piece() else {
            break;
        };
        let decoded = decode(bytes);
        if std::mem::take(&mut first_piece) {
            if sniff(&p.inner, &decoded.text) == FileKind::Ini {
                outcome.info = info;
                outcome.skipped = Some("an INI file where a log was expected".into());
                return outcome;
            }
            // A name that says nothing: the loggers say which service wrote it.
            if !crate::ingest::role::is_canonical(&service)
                && let Some(found) = crate::ingest::role::service_from_loggers(&decoded.text)
            {
                service = found;
                info.service = service.clone();
            }
        }
        let mut records = Records::new(&decoded.text).peekable();
        let mut again = None;
        while let Some(record) = records.next() {
            // The piece's last record may go on in the next piece: read it again there
            // (unless it is the whole piece, a record longer than a piece).
            if !last && record.line > 1 && records.peek().is_none() {
                again = Some(record.line);
                break;
            }
            info.records += 1;
            *formats.entry(record.format()).or_default() += 1;
            if let Some(reason) = record.unparsed_reason() {
                info.unparsed += 1;
                if first_reason.is_none() && reason != evacdoc_parsers::Reason::BLANK {
                    first_reason = Some((base + record.line, reason));
                }
                continue;
            }
            vote_offsets(&record, &mut outcome.votes);
            if keep(&service, &record, watch) {
                let mut raw = event_of(&record, id, p.host);
                raw.event.line = raw.event.line.saturating_add(base as u32);
                if raw.stamp.is_none() {
                    raw.stamp = last_stamp;
                }
                outcome.events.push(raw);
            }
            if let Some(stamp) = record.timestamp() {
                last_stamp = Some(stamp);
            }
        }
        let read_again = again.unwrap_or(usize::MAX);
        info.invalid_utf8_lines += decoded
            .invalid_lines
            .iter()
            .filter(|l| **l < read_again)
            .count() as u64;
        drop(records);
        drop(decoded);
        chunks.consume(again);
    }
    info.bytes = chunks.total();
    if let Some(damage) = &chunks.damage {
        info.incomplete = Some(format!("read up to damage: {damage}"));
    }
    info.format = formats
        .iter()
        .filter(|(f, _)| **f != Format::Unparsed)
        .max_by_key(|(_, n)| **n)
        .map(|(f, _)| f.as_str().to_string())
        .unwrap_or_else(|| "unparsed".into());
    if info.records > 0 && info.unparsed == info.records {
        let reason = first_reason
            .map(|(line, reason)| format!("unknown format (line {line}: {reason})"))
            .unwrap_or_else(|| "unknown format".into());
        outcome.skipped = Some(reason);
    }
    outcome.info = info;
    outcome
}
