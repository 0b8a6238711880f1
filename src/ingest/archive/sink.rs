//! Writing entries under the destination: nothing outside it, no link followed or
//! created, limits counted while the entries stream by.

use std::collections::{BTreeMap, HashSet};
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{ExtractLimits, ExtractReport, SkippedEntry};
use crate::ingest::limits::{LimitKind, LimitUnit};
use crate::ingest::{IngestError, Named};

/// What became of a regular-file entry.
#[derive(Debug)]
pub(super) enum Written {
    /// Written whole; the number of bytes.
    Done(u64),
    /// Not written; the reason is in the report.
    Skipped,
    /// Reading the entry failed: the part before the error is on disk.
    Failed {
        /// Bytes written.
        written: u64,
        /// The read error.
        error: std::io::Error,
    },
}

/// The destination of one extraction, with its counters and report.
#[derive(Debug)]
pub(super) struct Sink<'a> {
    /// The archive's name in messages.
    archive: &'a Path,
    dest: PathBuf,
    /// The destination's name in messages: the archive's place in the bundle.
    dest_name: PathBuf,
    limits: &'a ExtractLimits,
    entries: u64,
    /// Entry data gone through, written or read past: bounds disk and time.
    consumed: u64,
    /// Folders (relative) known to be real directories. Extraction never creates a
    /// symlink nor removes a directory, so once checked they stay safe.
    dirs: HashSet<PathBuf>,
    /// Folders the archive names but that hold no file yet: made only when a file goes
    /// in them (an empty folder has nothing to read, and a tar of 100,000 of them must
    /// not cost 100,000 folders made, walked and removed).
    declared: HashSet<PathBuf>,
    /// Empty regular files: not written (nothing to read), counted.
    empty: u64,
    /// Recorded symlinks by path, so a later entry with the same path replaces one.
    symlinks: BTreeMap<PathBuf, PathBuf>,
    files: u64,
    bytes: u64,
    skipped: Vec<SkippedEntry>,
    /// Entries skipped past the first [`MAX_SKIPPED_LISTED`]: counted, not listed.
    skipped_more: u64,
    buffer: Vec<u8>,
}

/// Skipped entries listed by name, per archive; the rest are counted. A tar of 100,000
/// refused names must not cost 100,000 names and reasons kept, stored and shown.
pub(super) const MAX_SKIPPED_LISTED: usize = 1000;

impl<'a> Sink<'a> {
    pub(super) fn new(
        archive: &'a Path,
        dest: Named<'_>,
        limits: &'a ExtractLimits,
    ) -> Result<Self, IngestError> {
        std::fs::create_dir_all(dest.path).map_err(|source| dest.io_error(source))?;
        Ok(Sink {
            archive,
            dest: dest.path.to_path_buf(),
            dest_name: dest.name.to_path_buf(),
            limits,
            entries: 0,
            consumed: 0,
            dirs: HashSet::new(),
            declared: HashSet::new(),
            empty: 0,
            symlinks: BTreeMap::new(),
            files: 0,
            bytes: 0,
            skipped: Vec::new(),
            skipped_more: 0,
            buffer: vec![0; 64 << 10],
        })
    }

    pub(super) fn archive(&self) -> &Path {
        self.archive
    }

    pub(super) fn limits(&self) -> &ExtractLimits {
        self.limits
    }

    /// Counts one more entry; past the limit the extraction stops.
    pub(super) fn entry(&mut self) -> Result<(), IngestError> {
        self.entries += 1;
        if self.entries > self.limits.max_entries {
            return Err(self.over(
                LimitKind::ArchiveEntries,
                self.limits.max_entries,
                LimitUnit::Entries,
            ));
        }
        Ok(())
    }

    /// Counts entry data that the archive reader goes through without writing it.
    pub(super) fn pass_over(&mut self, bytes: u64) -> Result<(), IngestError> {
        self.consumed = self.consumed.saturating_add(bytes);
        if self.consumed > self.limits.max_total_bytes {
            return Err(self.total_exceeded());
        }
        Ok(())
    }

    pub(super) fn skip(&mut self, name: &str, reason: impl Into<String>) {
        if self.skipped.len() >= MAX_SKIPPED_LISTED {
            self.skipped_more += 1;
            return;
        }
        self.skipped.push(SkippedEntry {
            path: name.to_owned(),
            reason: reason.into(),
        });
    }

    /// Notes a folder; it is made when a file goes in it.
    pub(super) fn directory(&mut self, name: &str, rel: &Path) -> Result<(), IngestError> {
        if let Some(reason) = self.too_long(rel) {
            self.skip(name, reason);
            return Ok(());
        }
        if !self.dirs.contains(rel) {
            self.declared.insert(rel.to_path_buf());
        }
        self.symlinks.remove(rel);
        Ok(())
    }

    /// Why the file system would refuse `rel` under the destination: the whole path
    /// over `PATH_MAX`. (A name over `NAME_MAX` is refused with the entry's name.)
    fn too_long(&self, rel: &Path) -> Option<String> {
        let bytes = self.dest.as_os_str().len() + 1 + rel.as_os_str().len();
        (bytes >= MAX_PATH_BYTES).then(|| {
            format!(
                "path of {} bytes, too long for the file system",
                rel.as_os_str().len()
            )
        })
    }

    /// An entry the file system refused by its name (`ENAMETOOLONG`, `EILSEQ` on some
    /// file systems): skipped with the reason; any other error stops the extraction.
    fn refused_name(
        &mut self,
        name: &str,
        error: std::io::Error,
        rel: &Path,
    ) -> Result<(), IngestError> {
        if refused_by_name(&error) {
            self.skip(name, format!("the file system refused the name: {error}"));
            Ok(())
        } else {
            Err(self.io_error(rel, error))
        }
    }

    /// Records a symlink without creating it; an earlier file at that path goes.
    pub(super) fn symlink(
        &mut self,
        name: &str,
        rel: PathBuf,
        target: PathBuf,
    ) -> Result<(), IngestError> {
        match self.clear(&rel)? {
            Some(reason) => self.skip(name, reason),
            None => {
                self.symlinks.insert(rel, target);
            }
        }
        Ok(())
    }

    /// An empty regular file: not written (nothing to read), so that a tar of many
    /// empty files costs no file made, walked, placed and removed; counted, and said
    /// once per archive.
    pub(super) fn empty_file(&mut self, rel: &Path) {
        self.empty += 1;
        self.symlinks.remove(rel);
    }

    /// Writes a regular file from `reader`, stopping at the per-entry and total limits;
    /// it keeps the entry's modification time `modified` (the year of its journal lines
    /// that give none: see `read_log::modified_at`).
    pub(super) fn file(
        &mut self,
        name: &str,
        rel: &Path,
        reader: &mut dyn Read,
        modified: Option<SystemTime>,
    ) -> Result<Written, IngestError> {
        if let Some(reason) = self.too_long(rel) {
            self.skip(name, reason);
            return Ok(Written::Skipped);
        }
        if let Some(reason) = self.clear(rel)? {
            self.skip(name, reason);
            return Ok(Written::Skipped);
        }
        let path = self.dest.join(rel);
        let mut out = match create_file(&path) {
            Ok(out) => out,
            Err(error) => {
                self.refused_name(name, error, rel)?;
                return Ok(Written::Skipped);
            }
        };
        self.symlinks.remove(rel);
        self.files += 1;
        let total_left = self.limits.max_total_bytes.saturating_sub(self.consumed);
        let cap = total_left.min(self.limits.max_entry_bytes);
        let mut written: u64 = 0;
        loop {
            let n = match reader.read(&mut self.buffer) {
                Ok(0) => break,
                Ok(n) => n,
                Err(err) if err.kind() == ErrorKind::Interrupted => continue,
                Err(error) => {
                    self.consumed += written;
                    self.bytes += written;
                    return Ok(Written::Failed { written, error });
                }
            };
            let chunk = self.buffer.get(..n).unwrap_or_default();
            let len = u64::try_from(n).unwrap_or(u64::MAX);
            if written.saturating_add(len) > cap {
                self.consumed += written;
                if cap == total_left {
                    self.bytes += written;
                    return Err(self.total_exceeded());
                }
                self.files -= 1;
                drop(out);
                std::fs::remove_file(&path).map_err(|source| self.io_error(rel, source))?;
                let limit = self.limits.max_entry_bytes;
                self.skip(name, format!("over the per-entry limit of {limit} bytes"));
                return Ok(Written::Skipped);
            }
            out.write_all(chunk)
                .map_err(|source| self.io_error(rel, source))?;
            written += len;
        }
        // A time the file system refuses costs only that year's guess: not an error.
        if let Some(modified) = modified {
            let _ = out.set_modified(modified);
        }
        self.consumed += written;
        self.bytes += written;
        Ok(Written::Done(written))
    }

    /// Removes a file written by [`Sink::file`] whose entry turned out damaged.
    pub(super) fn discard(
        &mut self,
        name: &str,
        rel: &Path,
        written: u64,
        reason: String,
    ) -> Result<(), IngestError> {
        let path = self.dest.join(rel);
        std::fs::remove_file(&path).map_err(|source| self.io_error(rel, source))?;
        self.files -= 1;
        self.bytes -= written;
        self.skip(name, reason);
        Ok(())
    }

    pub(super) fn finish(self, damage: Option<IngestError>) -> ExtractReport {
        ExtractReport {
            files: self.files,
            bytes: self.bytes,
            symlinks: self.symlinks.into_iter().collect(),
            skipped: self.skipped,
            skipped_more: self.skipped_more,
            damage,
            stopped: None,
            consumed: self.consumed,
            entries: self.entries,
            empty_files: self.empty,
        }
    }

    /// An I/O error about `rel` in the destination, named by its place in the bundle.
    fn io_error(&self, rel: &Path, source: std::io::Error) -> IngestError {
        IngestError::Io {
            path: self.dest_name.join(rel),
            source,
        }
    }

    fn over(&self, what: LimitKind, limit: u64, unit: LimitUnit) -> IngestError {
        IngestError::LimitExceeded {
            path: self.archive.to_path_buf(),
            what,
            limit,
            unit,
        }
    }

    fn total_exceeded(&self) -> IngestError {
        self.over(
            LimitKind::ArchiveContent,
            self.limits.max_total_bytes,
            LimitUnit::Bytes,
        )
    }

    /// Makes every folder of `rel` under the destination. Returns why not when one is
    /// a symlink or a file already there: following it could write outside.
    fn make_dirs(&mut self, rel: &Path) -> Result<Option<String>, IngestError> {
        let mut current = PathBuf::new();
        for part in rel.components() {
            current.push(part);
            if self.dirs.contains(&current) {
                continue;
            }
            let path = self.dest.join(&current);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => {
                    return Ok(Some(format!(
                        "{} is a symbolic link in the destination",
                        current.display()
                    )));
                }
                Ok(meta) if meta.is_dir() => {}
                Ok(_) => {
                    return Ok(Some(format!(
                        "{} is a file, not a folder",
                        current.display()
                    )));
                }
                Err(err) if err.kind() == ErrorKind::NotFound => match create_dir(&path) {
                    Ok(()) => {}
                    Err(error) if refused_by_name(&error) => {
                        return Ok(Some(format!("the file system refused the name: {error}")));
                    }
                    Err(source) => return Err(self.io_error(&current, source)),
                },
                Err(source) => return Err(self.io_error(&current, source)),
            }
            self.declared.remove(&current);
            self.dirs.insert(current.clone());
        }
        Ok(None)
    }

    /// Makes `rel`'s folders and removes what is at `rel` itself (a later entry wins);
    /// removing a symlink never touches its target. A folder there is kept.
    fn clear(&mut self, rel: &Path) -> Result<Option<String>, IngestError> {
        if let Some(parent) = rel.parent()
            && let Some(reason) = self.make_dirs(parent)?
        {
            return Ok(Some(reason));
        }
        let folder_there = || format!("{} is already a folder", rel.display());
        if self.dirs.contains(rel) || self.declared.contains(rel) {
            return Ok(Some(folder_there()));
        }
        let path = self.dest.join(rel);
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => Ok(Some(folder_there())),
            Ok(_) => {
                std::fs::remove_file(&path).map_err(|source| self.io_error(rel, source))?;
                Ok(None)
            }
            Err(err) if err.kind() == ErrorKind::NotFound => Ok(None),
            Err(source) => Err(self.io_error(rel, source)),
        }
    }
}

/// The longest path Linux takes (`PATH_MAX`, with its NUL).
const MAX_PATH_BYTES: usize = 4096;

/// An error that is about the name, not the disk: the entry is skipped, the rest goes on.
fn refused_by_name(error: &std::io::Error) -> bool {
    matches!(
        error.kind(),
        ErrorKind::InvalidFilename | ErrorKind::InvalidInput
    )
}

/// Creates a new file, 0644 whatever the archive says (no setuid, no exec). `create_new`
/// fails rather than follow a symlink that appeared after [`Sink::clear`].
fn create_file(path: &Path) -> std::io::Result<File> {
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o644);
    options.open(path)
}

/// Creates one folder, 0755 whatever the archive says.
fn create_dir(path: &Path) -> std::io::Result<()> {
    let mut builder = std::fs::DirBuilder::new();
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o755);
    builder.create(path)
}
