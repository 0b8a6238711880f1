//! Recognising tar and zip archives and extracting them safely into a work folder.
//!
//! Safety: no entry is written outside the destination (`..`, absolute and drive-letter
//! names are skipped), no symlink or hard link is created (symlinks are recorded in the
//! report for layout detection), no existing symlink in the destination is followed,
//! modes come from us (files 0644, folders 0755), and limits bound disk and time.
//!
//! Results: a hard limit (total bytes, entry count) or an unusable destination is an
//! `Err`; the files written so far stay in the destination for the caller to discard.
//! Damage is not an `Err`: a tar stream that breaks off keeps everything before the
//! break (including the start of the entry being read) and says where in
//! [`ExtractReport::damage`]; a damaged zip entry is skipped with its reason, since
//! the others can still be reached.

mod entry_name;
mod sink;
mod tar_entries;
mod zip_entries;

use std::io::{Read, Seek};
use std::path::{Path, PathBuf};

use super::IngestError;
use super::decompress::{Compression, open_decompressed, read_head};
use super::limits::{LimitKind, LimitUnit};
use sink::Sink;

/// The container format of an archive; its compression is separate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ArchiveKind {
    /// tar (ustar, GNU or pax).
    Tar,
    /// zip.
    Zip,
}

/// Bounds on one extraction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtractLimits {
    /// Uncompressed entry data gone through, written or read past: over it, the
    /// extraction stops with an error (a decompression bomb).
    pub max_total_bytes: u64,
    /// Entries of any kind: over it, the extraction stops with an error.
    pub max_entries: u64,
    /// One file: a larger entry is skipped with its reason, the rest goes on.
    pub max_entry_bytes: u64,
    /// The content may be this many times the archive's size (past `ratio_from`
    /// bytes); over it, the extraction stops. 0: no bound.
    pub max_ratio: u64,
    /// Content up to this size is never refused for its ratio.
    pub ratio_from: u64,
}

impl Default for ExtractLimits {
    fn default() -> Self {
        ExtractLimits {
            max_total_bytes: 64 << 30,
            max_entries: 1 << 20,
            max_entry_bytes: 16 << 30,
            max_ratio: 0,
            ratio_from: 0,
        }
    }
}

/// An entry that was not extracted.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct SkippedEntry {
    /// The entry name as the archive spells it (lossy UTF-8).
    pub path: String,
    /// Why it was skipped, lowercase.
    pub reason: String,
}

/// What an extraction did.
#[derive(Debug, Default)]
#[non_exhaustive]
pub struct ExtractReport {
    /// Regular files written.
    pub files: u64,
    /// Bytes written.
    pub bytes: u64,
    /// Symlink entries, not created: (entry path relative to the destination, target
    /// as written). Targets may be absolute or leave the bundle; resolve them with care.
    pub symlinks: Vec<(PathBuf, PathBuf)>,
    /// Entries left out, with reasons (the first 1,000).
    pub skipped: Vec<SkippedEntry>,
    /// Entries left out past those listed: counted only.
    pub skipped_more: u64,
    /// Set when the archive is truncated or corrupt: it names the archive, the entry
    /// and the reason. What came before is extracted.
    pub damage: Option<IngestError>,
    /// Set by [`extract_partial`] when a limit stopped the extraction: what came
    /// before is in the destination.
    pub stopped: Option<IngestError>,
    /// Entry data gone through, written or passed over (counts against the limits).
    pub consumed: u64,
    /// Entries gone through.
    pub entries: u64,
    /// Empty regular files, not written (nothing to read).
    pub empty_files: u64,
}

/// Says whether `path` is an archive, by content: `ustar` at offset 257 of the
/// decompressed stream for tar, `PK` headers for zip. A compressed log is not one.
pub fn detect_archive(path: &Path) -> Result<Option<(ArchiveKind, Compression)>, IngestError> {
    let (compression, mut reader) = open_decompressed(path)?;
    // A stream damaged after its first block is still an archive: extraction reports
    // the damage, so a read error here only shortens the head. One that gives not a
    // byte is no archive and no log either: say why rather than skip it unnamed.
    let head = match read_head(&mut reader, 512) {
        Ok(head) => head,
        Err(error) if compression != Compression::None => {
            return Err(IngestError::Damaged {
                path: path.to_path_buf(),
                reason: format!("{compression:?} stream unreadable from its start: {error}")
                    .to_lowercase(),
            });
        }
        Err(_) => Vec::new(),
    };
    Ok(archive_kind(&head).map(|kind| (kind, compression)))
}

fn archive_kind(head: &[u8]) -> Option<ArchiveKind> {
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Some(ArchiveKind::Zip)
    } else if head.get(257..262) == Some(b"ustar") {
        Some(ArchiveKind::Tar)
    } else {
        None
    }
}

/// Extracts the archive at `path` into `dest` (created if missing). See the module
/// documentation for what is an error and what is reported.
pub fn extract(
    path: &Path,
    dest: &Path,
    limits: &ExtractLimits,
) -> Result<ExtractReport, IngestError> {
    let mut report = extract_partial(path, dest, limits)?;
    match report.stopped.take() {
        Some(limit) => Err(limit),
        None => Ok(report),
    }
}

/// As [`extract`], but a limit that stops the extraction is reported in
/// [`ExtractReport::stopped`], with the counts of what came before it.
pub fn extract_partial(
    path: &Path,
    dest: &Path,
    limits: &ExtractLimits,
) -> Result<ExtractReport, IngestError> {
    let Some((kind, compression)) = detect_archive(path)? else {
        return Err(IngestError::NotAnArchive {
            path: path.to_path_buf(),
        });
    };
    let size = std::fs::metadata(path)
        .map_err(|source| IngestError::Io {
            path: path.to_path_buf(),
            source,
        })?
        .len();
    let by_ratio = super::limits::ratio_cap(limits.max_ratio, limits.ratio_from, size);
    let effective = ExtractLimits {
        max_total_bytes: limits.max_total_bytes.min(by_ratio),
        ..*limits
    };
    let mut sink = Sink::new(path, dest, &effective)?;
    let outcome = match kind {
        ArchiveKind::Tar => open_decompressed(path)
            .and_then(|(_, reader)| tar_entries::extract_tar(reader, &mut sink)),
        ArchiveKind::Zip => seekable(path, dest, compression, &effective)
            .and_then(|reader| zip_entries::extract_zip(reader, &mut sink))
            .map(|()| None),
    };
    match outcome {
        Ok(damage) => Ok(sink.finish(damage)),
        Err(IngestError::LimitExceeded {
            what: LimitKind::ArchiveContent,
            limit,
            ..
        }) if by_ratio < limits.max_total_bytes => {
            let mut report = sink.finish(None);
            report.stopped = Some(IngestError::RatioExceeded {
                path: path.to_path_buf(),
                ratio: limits.max_ratio,
                size,
                limit,
            });
            Ok(report)
        }
        Err(limit @ IngestError::LimitExceeded { .. }) => {
            let mut report = sink.finish(None);
            report.stopped = Some(limit);
            Ok(report)
        }
        Err(other) => Err(other),
    }
}

/// A zip needs seeking; a compressed one is first decompressed into an unnamed
/// temporary file in `dest`, within the total limit.
fn seekable(
    path: &Path,
    dest: &Path,
    compression: Compression,
    limits: &ExtractLimits,
) -> Result<Box<dyn ReadSeek>, IngestError> {
    let io = |at: &Path, source| IngestError::Io {
        path: at.to_path_buf(),
        source,
    };
    if compression == Compression::None {
        return Ok(Box::new(
            std::fs::File::open(path).map_err(|e| io(path, e))?,
        ));
    }
    let (_, reader) = open_decompressed(path)?;
    let mut spool = tempfile::tempfile_in(dest).map_err(|e| io(dest, e))?;
    let copied = std::io::copy(
        &mut reader.take(limits.max_total_bytes.saturating_add(1)),
        &mut spool,
    )
    .map_err(|err| super::decompress::damaged(path, None, &err))?;
    if copied > limits.max_total_bytes {
        return Err(IngestError::LimitExceeded {
            path: path.to_path_buf(),
            what: LimitKind::ArchiveContent,
            limit: limits.max_total_bytes,
            unit: LimitUnit::Bytes,
        });
    }
    spool
        .seek(std::io::SeekFrom::Start(0))
        .map_err(|e| io(dest, e))?;
    Ok(Box::new(spool))
}

trait ReadSeek: Read + Seek {}
impl<T: Read + Seek> ReadSeek for T {}

#[cfg(test)]
mod tests;
