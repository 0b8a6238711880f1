//! Raw lines the spool refers to instead of holding them: a record read from a file the
//! analysis unpacked (its own copy, kept until the index is built: the indexer keeps the
//! work folder, `SinkFactory::keep_unpacked`), uncompressed, whose lines are the file's
//! bytes where its span says, is spooled as that place and a check of its bytes.
//!
//! Why: compressing the raw lines into the spool, and copying them there, was about a
//! tenth of the service's CPU from upload to findings (measured at 1 GiB: upload ->
//! findings 7.3 -> 6.7 s with no raw lines spooled at all). Reading them back costs a
//! read of the file, in the order it was written, and the check.
//!
//! The check makes it right whatever the reader did to the bytes: a record whose lines
//! were not the file's bytes as they are (a line the reader decoded, or a file changed
//! since) fails the build with the file named, it is never indexed with other text.

use std::collections::HashMap;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use crate::index::IndexError;
use crate::index::spool::{InFile, SpooledRecord};
use crate::redact::fasthash::fold_hash;

/// The check of a record's raw lines kept in the spool beside their place.
pub(crate) fn check_of(raw: &str) -> u32 {
    fold_hash(raw.as_bytes()) as u32
}

/// Bytes read from a file at a time when no frame said how far its records reach.
const WINDOW_BYTES: usize = 1 << 20;
/// At most this much is read at once for a frame (its records lie one after the other).
const MAX_WINDOW_BYTES: usize = 16 << 20;

/// A file the spool refers to: where it is, and its place in the bundle (what messages
/// call it, never the work folder).
#[derive(Clone, Debug)]
pub(crate) struct SpooledFile {
    pub abs: PathBuf,
    pub name: PathBuf,
}

/// The files the spool refers to, read back a window at a time.
#[derive(Debug, Default)]
pub(crate) struct FileWindows {
    paths: HashMap<u32, SpooledFile>,
    /// The file open now, by id.
    open: Option<(u32, File)>,
    /// How far the records of the frame being read reach in each file.
    reach: Vec<(u32, u64)>,
    /// Where in that file `bytes` starts.
    start: u64,
    bytes: Vec<u8>,
}

impl FileWindows {
    /// Windows on the files `paths` names by file id.
    pub fn new(paths: HashMap<u32, SpooledFile>) -> FileWindows {
        FileWindows {
            paths,
            ..FileWindows::default()
        }
    }

    /// Reads `frame`'s records (encoded) to know how far they reach in their files: a
    /// window is then read to there at once, not past it (frames of several files
    /// interleave: bytes read past a frame's records were read again).
    pub fn plan(&mut self, frame: &[u8]) {
        self.reach.clear();
        let mut at = 0;
        while let Some(record) = SpooledRecord::decode(frame, &mut at) {
            let Some(place) = record.in_file else {
                continue;
            };
            let end = place.offset.saturating_add(u64::from(place.len));
            match self.reach.iter_mut().find(|(file, _)| *file == record.file) {
                Some((_, reach)) => *reach = (*reach).max(end),
                None => self.reach.push((record.file, end)),
            }
        }
    }

    /// The raw lines of a record of `file` at `at`, checked.
    pub fn raw(&mut self, file: u32, at: InFile) -> Result<&str, IndexError> {
        let len = at.len as usize;
        let end = at.offset.saturating_add(u64::from(at.len));
        let held = self.open.as_ref().is_some_and(|(id, _)| *id == file)
            && at.offset >= self.start
            && end <= self.start + self.bytes.len() as u64;
        if !held {
            self.load(file, at.offset, len)?;
        }
        let from = (at.offset - self.start) as usize;
        let path = || {
            self.paths
                .get(&file)
                .map(|f| f.name.clone())
                .unwrap_or_default()
        };
        let bytes = self
            .bytes
            .get(from..from + len)
            .ok_or_else(|| IndexError::Writer {
                path: path(),
                reason: format!("the file is shorter than when it was read (to byte {end})"),
            })?;
        let changed = || IndexError::Writer {
            path: path(),
            reason: format!(
                "the file changed since it was read (bytes {}..{end})",
                at.offset
            ),
        };
        let raw = std::str::from_utf8(bytes).map_err(|_| changed())?;
        if check_of(raw) != at.check {
            return Err(changed());
        }
        Ok(raw)
    }

    /// Reads `file` from `offset`: at least `len` bytes when the file has them.
    fn load(&mut self, file: u32, offset: u64, len: usize) -> Result<(), IndexError> {
        let spooled = self.paths.get(&file).ok_or_else(|| IndexError::Writer {
            path: PathBuf::new(),
            reason: format!("damaged spool: file {file} has no path"),
        })?;
        let io = |source| IndexError::Io {
            path: spooled.name.clone(),
            source,
        };
        if self.open.as_ref().is_none_or(|(id, _)| *id != file) {
            self.open = Some((file, File::open(&spooled.abs).map_err(io)?));
        }
        let Some((_, opened)) = self.open.as_mut() else {
            return Ok(());
        };
        opened.seek(SeekFrom::Start(offset)).map_err(io)?;
        self.bytes.clear();
        let reach = self.reach.iter().find(|(id, _)| *id == file);
        let planned = reach.map_or(WINDOW_BYTES, |(_, end)| {
            end.saturating_sub(offset).min(MAX_WINDOW_BYTES as u64) as usize
        });
        let want = len.max(planned) as u64;
        opened.take(want).read_to_end(&mut self.bytes).map_err(io)?;
        self.start = offset;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(path: &std::path::Path) -> HashMap<u32, SpooledFile> {
        let name = PathBuf::from("cmp-01/var/log/nova/nova-compute.log");
        HashMap::from([(
            7,
            SpooledFile {
                abs: path.to_path_buf(),
                name,
            },
        )])
    }

    fn at(text: &str, whole: &str) -> InFile {
        InFile {
            offset: whole.find(text).unwrap() as u64,
            len: text.len() as u32,
            check: check_of(text),
        }
    }

    #[test]
    fn raw_lines_are_read_back_checked_and_a_changed_file_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nova-compute.log");
        let whole = "2026-03-02 11:10:01.100 41 INFO nova.compute.manager [-] one\n\
                     2026-03-02 11:10:02.100 41 ERROR nova.compute.manager [-] two\n";
        std::fs::write(&path, whole).unwrap();
        let lines: Vec<&str> = whole.lines().collect();
        let mut windows = FileWindows::new(files(&path));
        // Out of order too: a window is read again where it does not hold the record.
        for line in [lines[1], lines[0], lines[1]] {
            assert_eq!(windows.raw(7, at(line, whole)).unwrap(), line);
        }

        // The same length, other bytes: the check fails, naming the file.
        std::fs::write(&path, whole.replace("one", "six")).unwrap();
        let mut windows = FileWindows::new(files(&path));
        let error = windows.raw(7, at(lines[0], whole)).unwrap_err().to_string();
        // Named by its place in the bundle, not where it was unpacked.
        assert!(
            error.contains("cmp-01/var/log/nova/nova-compute.log"),
            "{error}"
        );
        assert!(
            !error.contains(&dir.path().display().to_string()),
            "{error}"
        );
        assert!(error.contains("changed since it was read"), "{error}");
        // Cut short: said so.
        std::fs::write(&path, &whole[..20]).unwrap();
        let mut windows = FileWindows::new(files(&path));
        let error = windows.raw(7, at(lines[1], whole)).unwrap_err().to_string();
        assert!(error.contains("shorter than when it was read"), "{error}");
        // A file the spool does not name, or gone: errors, not panics.
        assert!(windows.raw(8, at(lines[0], whole)).is_err());
        std::fs::remove_file(&path).unwrap();
        let mut windows = FileWindows::new(files(&path));
        assert!(windows.raw(7, at(lines[0], whole)).is_err());
    }
}
