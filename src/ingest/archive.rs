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

use std::fs::File;
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use super::decompress::{Compression, decompressing, detect_compression, open_file, read_head};
use super::limits::{LimitKind, LimitUnit};
use super::{IngestError, Named};
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
    /// Set by [`extract_opened`] when a limit stopped the extraction: what came
    /// before is in the destination.
    pub stopped: Option<IngestError>,
    /// Entry data gone through, written or passed over (counts against the limits).
    pub consumed: u64,
    /// Entries gone through.
    pub entries: u64,
    /// Empty regular files, not written (nothing to read).
    pub empty_files: u64,
}

/// An archive opened once and recognised by its first bytes, ready for
/// [`extract_opened`]: nothing opens or sniffs the file again.
pub struct OpenedArchive {
    /// The archive's name in messages.
    name: PathBuf,
    kind: ArchiveKind,
    compression: Compression,
    /// Size on disk, for the ratio bound.
    size: u64,
    content: Content,
}

/// What [`extract_opened`] reads: the file itself when it is not compressed (a zip
/// seeks in it), else the decompressed stream with the sniffed head put back in front.
enum Content {
    /// Rewound to its start.
    File(File),
    Stream(Box<dyn Read + Send>),
}

impl std::fmt::Debug for OpenedArchive {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenedArchive")
            .field("name", &self.name)
            .field("kind", &self.kind)
            .field("compression", &self.compression)
            .finish()
    }
}

impl OpenedArchive {
    /// The archive's name in messages.
    pub fn name(&self) -> &Path {
        &self.name
    }

    /// Its container format.
    pub fn kind(&self) -> ArchiveKind {
        self.kind
    }

    /// Its compression.
    pub fn compression(&self) -> Compression {
        self.compression
    }
}

/// Opens `path` and says whether it is an archive, by content: `ustar` at offset 257
/// of the decompressed stream for tar, `PK` headers for zip. A compressed log is not
/// one (`None`, and the file is closed again).
pub fn open_archive(archive: Named<'_>) -> Result<Option<OpenedArchive>, IngestError> {
    let (mut file, size) = open_file(archive)?;
    let io = |source| archive.io_error(source);
    let magic = read_head(&mut file, 6).map_err(io)?;
    let compression = detect_compression(&magic);
    let (head, content) = if compression == Compression::None {
        // A read error only shortens the head: such a file is no archive.
        let mut head = magic;
        if (&mut file).take(512 - 6).read_to_end(&mut head).is_err() {
            head.clear();
        }
        file.seek(SeekFrom::Start(0)).map_err(io)?;
        (head, Content::File(file))
    } else {
        let (_, mut reader) = decompressing(archive, size, magic, file)?;
        // A stream damaged after its first block is still an archive: extraction
        // reports the damage. One that gives not a byte is no archive and no log
        // either: say why rather than skip it unnamed.
        let head = read_head(&mut reader, 512).map_err(|error| IngestError::Damaged {
            path: archive.name.to_path_buf(),
            reason: format!("{compression:?} stream unreadable from its start: {error}")
                .to_lowercase(),
        })?;
        let stream = std::io::Cursor::new(head.clone()).chain(reader);
        (head, Content::Stream(Box::new(stream)))
    };
    Ok(archive_kind(&head).map(|kind| OpenedArchive {
        name: archive.name.to_path_buf(),
        kind,
        compression,
        size,
        content,
    }))
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

/// Opens and extracts the archive at `path` into `dest` (created if missing), both
/// named by their paths. See the module documentation for what is an error and what is
/// reported.
pub fn extract(
    path: &Path,
    dest: &Path,
    limits: &ExtractLimits,
) -> Result<ExtractReport, IngestError> {
    let Some(archive) = open_archive(Named::as_given(path))? else {
        return Err(IngestError::NotAnArchive {
            path: path.to_path_buf(),
        });
    };
    let mut report = extract_opened(archive, Named::as_given(dest), limits)?;
    match report.stopped.take() {
        Some(limit) => Err(limit),
        None => Ok(report),
    }
}

/// Extracts an archive [`open_archive`] opened into `dest`, a folder named in messages
/// by the archive's place in the bundle. A limit that stops the extraction is reported
/// in [`ExtractReport::stopped`], with the counts of what came before it.
pub fn extract_opened(
    archive: OpenedArchive,
    dest: Named<'_>,
    limits: &ExtractLimits,
) -> Result<ExtractReport, IngestError> {
    let OpenedArchive {
        name,
        kind,
        size,
        content,
        ..
    } = archive;
    let path = name.as_path();
    let by_ratio = super::limits::ratio_cap(limits.max_ratio, limits.ratio_from, size);
    let effective = ExtractLimits {
        max_total_bytes: limits.max_total_bytes.min(by_ratio),
        ..*limits
    };
    let mut sink = Sink::new(path, dest, &effective)?;
    let outcome = match (kind, content) {
        (ArchiveKind::Tar, Content::File(file)) => {
            tar_entries::extract_tar(BufReader::with_capacity(64 << 10, file), &mut sink)
        }
        (ArchiveKind::Tar, Content::Stream(stream)) => tar_entries::extract_tar(stream, &mut sink),
        (ArchiveKind::Zip, Content::File(file)) => {
            zip_entries::extract_zip(file, &mut sink).map(|()| None)
        }
        (ArchiveKind::Zip, Content::Stream(stream)) => spooled(path, stream, dest, &effective)
            .and_then(|spool| zip_entries::extract_zip(spool, &mut sink))
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
                path: name.clone(),
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

/// A zip needs seeking: a compressed one is decompressed into an unnamed temporary
/// file in `dest` first, within the total limit.
fn spooled(
    path: &Path,
    stream: Box<dyn Read + Send>,
    dest: Named<'_>,
    limits: &ExtractLimits,
) -> Result<File, IngestError> {
    let io = |source| dest.io_error(source);
    let mut spool = tempfile::tempfile_in(dest.path).map_err(io)?;
    let copied = std::io::copy(
        &mut stream.take(limits.max_total_bytes.saturating_add(1)),
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
    spool.seek(SeekFrom::Start(0)).map_err(io)?;
    Ok(spool)
}

#[cfg(test)]
mod tests;
