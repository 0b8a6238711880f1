//! Following one live log file as `tail -F` does: the bytes appended since the last
//! look, the file replaced under its name (rotation by rename: the old file is read to
//! its end first) or cut short (truncation: read again from the start).

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

/// What a look at the file found besides new bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The same file, maybe grown.
    Same,
    /// A new file under the name (the old one was read to its end): lines count from 1.
    Rotated,
    /// The file was cut short: it is read from the start again, lines count from 1.
    Truncated,
    /// Nothing under the name (the old file, if any, was read to its end).
    Missing,
}

/// Which file a handle or a name is (device and inode).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Identity {
    dev: u64,
    ino: u64,
}

fn identity(meta: &std::fs::Metadata) -> Identity {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        Identity {
            dev: meta.dev(),
            ino: meta.ino(),
        }
    }
    #[cfg(not(unix))]
    {
        // Without inodes, a rotation shows as a file that shrank.
        let _ = meta;
        Identity { dev: 0, ino: 0 }
    }
}

/// One followed file.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    open: Option<(File, Identity)>,
    /// Bytes of the open file read so far.
    offset: u64,
}

impl Follower {
    /// Follows `path`, starting at its end when `from_end` (lines already there are not
    /// read), at its start otherwise. A missing file is opened when it appears.
    pub fn new(path: &Path, from_end: bool) -> Follower {
        let mut follower = Follower {
            path: path.to_path_buf(),
            open: None,
            offset: 0,
        };
        if let Some((file, id, len)) = open(path) {
            follower.offset = if from_end { len } else { 0 };
            follower.open = Some((file, id));
        }
        follower
    }

    /// The followed path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes of the current file read so far.
    pub fn offset(&self) -> u64 {
        self.offset
    }

    /// Appends to `out` at most `max` bytes the file gained since the last call, and says
    /// whether the file was replaced or cut short first. After [`Change::Rotated`] and
    /// [`Change::Truncated`], `out` holds only bytes of the new file (what was left of
    /// the old one was handed out by the call before, which returned it with
    /// [`Change::Same`] and set the switch for this call).
    pub fn read_new(&mut self, out: &mut Vec<u8>, max: usize) -> std::io::Result<Change> {
        let named = std::fs::metadata(&self.path).ok();
        let Some((file, id)) = &mut self.open else {
            return match open(&self.path) {
                Some((file, id, _)) => {
                    self.open = Some((file, id));
                    self.offset = 0;
                    self.read_open(out, max)?;
                    Ok(Change::Rotated)
                }
                None => Ok(Change::Missing),
            };
        };
        let current = file.metadata()?;
        let replaced = named.as_ref().is_some_and(|m| identity(m) != *id);
        if current.len() < self.offset {
            self.offset = 0;
            file.seek(SeekFrom::Start(0))?;
            self.read_open(out, max)?;
            return Ok(Change::Truncated);
        }
        if current.len() > self.offset {
            // What the old file still holds goes first, whatever became of its name.
            self.read_open(out, max)?;
            return Ok(Change::Same);
        }
        if replaced || named.is_none() {
            self.open = None;
            self.offset = 0;
            if named.is_none() {
                return Ok(Change::Missing);
            }
            if let Some((file, id, _)) = open(&self.path) {
                self.open = Some((file, id));
                self.read_open(out, max)?;
            }
            return Ok(Change::Rotated);
        }
        Ok(Change::Same)
    }

    /// Reads up to `max` bytes of the open file from the current offset.
    fn read_open(&mut self, out: &mut Vec<u8>, max: usize) -> std::io::Result<()> {
        let Some((file, _)) = &mut self.open else {
            return Ok(());
        };
        file.seek(SeekFrom::Start(self.offset))?;
        let n = file.take(max as u64).read_to_end(out)?;
        self.offset += n as u64;
        Ok(())
    }
}

fn open(path: &Path) -> Option<(File, Identity, u64)> {
    let file = File::open(path).ok()?;
    let meta = file.metadata().ok()?;
    if !meta.is_file() {
        return None;
    }
    Some((file, identity(&meta), meta.len()))
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    fn append(path: &Path, text: &str) {
        let mut f = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .unwrap();
        f.write_all(text.as_bytes()).unwrap();
    }

    fn read(f: &mut Follower) -> (Change, String) {
        let mut out = Vec::new();
        let change = f.read_new(&mut out, 1 << 20).unwrap();
        (change, String::from_utf8(out).unwrap())
    }

    #[test]
    fn follows_appends_rotation_by_rename_and_truncation() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("nova-api.log");
        append(&log, "old 1\n");
        let mut f = Follower::new(&log, true);
        assert_eq!(read(&mut f), (Change::Same, String::new()));
        append(&log, "a\nb\n");
        assert_eq!(read(&mut f), (Change::Same, "a\nb\n".into()));

        // Written to the old file after the rename, then a new file under the name.
        append(&log, "c\n");
        std::fs::rename(&log, dir.path().join("nova-api.log.1")).unwrap();
        append(&dir.path().join("nova-api.log.1"), "d\n");
        append(&log, "new 1\n");
        assert_eq!(read(&mut f), (Change::Same, "c\nd\n".into()));
        assert_eq!(read(&mut f), (Change::Rotated, "new 1\n".into()));
        assert_eq!(read(&mut f), (Change::Same, String::new()));

        // copytruncate: cut to nothing, then written again.
        std::fs::write(&log, "").unwrap();
        append(&log, "x\n");
        assert_eq!(read(&mut f), (Change::Truncated, "x\n".into()));

        std::fs::remove_file(&log).unwrap();
        assert_eq!(read(&mut f).0, Change::Missing);
        append(&log, "back\n");
        assert_eq!(read(&mut f), (Change::Rotated, "back\n".into()));
    }

    #[test]
    fn a_missing_file_is_read_from_its_start_when_it_appears() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("masakari-engine.log");
        let mut f = Follower::new(&log, true);
        assert_eq!(read(&mut f).0, Change::Missing);
        append(&log, "first\n");
        assert_eq!(read(&mut f), (Change::Rotated, "first\n".into()));
        let mut big = Follower::new(&log, false);
        let mut out = Vec::new();
        assert_eq!(big.read_new(&mut out, 3).unwrap(), Change::Same);
        assert_eq!(out, b"fir");
        assert_eq!(read(&mut big), (Change::Same, "st\n".into()));
    }
}
