//! Blobs as files under one folder (`file:///abs/dir`): a key is a relative path. Writes
//! go through a temporary file beside the target, renamed when whole.

use std::fs;
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use super::BlobStore;
use super::error::BlobError;
use super::key::{check_key, check_prefix};

/// The prefix of the temporary files of writes under way (never listed).
const TEMPORARY: &str = ".blob-";

#[derive(Debug, Clone)]
pub struct FileBlobs {
    root: PathBuf,
}

impl FileBlobs {
    pub fn new(root: impl Into<PathBuf>) -> FileBlobs {
        FileBlobs { root: root.into() }
    }

    fn path(&self, key: &str) -> Result<PathBuf, BlobError> {
        check_key(key)?;
        Ok(self.root.join(key))
    }
}

/// Copies `from` to `to` through a temporary file in `to`'s folder (made, private, when
/// missing), synced and renamed: a reader sees the old file or the new one.
pub(crate) fn copy_whole(from: &Path, to: &Path) -> Result<u64, BlobError> {
    let folder = to.parent().unwrap_or(Path::new("."));
    make_private_dir(folder)?;
    let mut source = fs::File::open(from).map_err(|e| BlobError::io(from, e))?;
    let mut temporary = tempfile::Builder::new()
        .prefix(TEMPORARY)
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(|e| BlobError::io(folder, e))?;
    let size = std::io::copy(&mut source, temporary.as_file_mut())
        .map_err(|e| BlobError::io(temporary.path(), e))?;
    temporary
        .as_file()
        .sync_all()
        .map_err(|e| BlobError::io(temporary.path(), e))?;
    temporary
        .persist(to)
        .map_err(|e| BlobError::io(to, e.error))?;
    Ok(size)
}

pub(crate) fn make_private_dir(path: &Path) -> Result<(), BlobError> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(path).map_err(|e| BlobError::io(path, e))
}

impl BlobStore for FileBlobs {
    fn describe(&self) -> String {
        format!("file://{}", self.root.display())
    }

    fn put_file(&self, key: &str, from: &Path) -> Result<u64, BlobError> {
        copy_whole(from, &self.path(key)?)
    }

    fn get_to_file(&self, key: &str, to: &Path) -> Result<Option<u64>, BlobError> {
        let path = self.path(key)?;
        match fs::metadata(&path) {
            Ok(meta) if meta.is_file() => copy_whole(&path, to).map(Some),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(BlobError::io(path, e)),
        }
    }

    fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        let path = self.path(key)?;
        match fs::metadata(&path) {
            Ok(meta) if meta.is_file() => Ok(Some(meta.len())),
            Ok(_) => Ok(None),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
            Err(e) => Err(BlobError::io(path, e)),
        }
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, BlobError> {
        check_prefix(prefix)?;
        // Walk from the folder the prefix is certainly inside.
        let start = match prefix.rfind('/') {
            Some(at) => &prefix[..at],
            None => "",
        };
        let mut keys = Vec::new();
        walk(&self.root.join(start), start, &mut keys)?;
        keys.retain(|k| k.starts_with(prefix));
        keys.sort();
        Ok(keys)
    }

    fn delete(&self, key: &str) -> Result<(), BlobError> {
        let path = self.path(key)?;
        match fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(e) => Err(BlobError::io(path, e)),
        }
    }

    fn delete_prefix(&self, prefix: &str) -> Result<usize, BlobError> {
        let keys = self.list(prefix)?;
        for key in &keys {
            self.delete(key)?;
        }
        // A whole folder's prefix: the folder goes too (temporary files and all).
        if let Some(folder) = prefix.strip_suffix('/') {
            let path = self.root.join(folder);
            match fs::remove_dir_all(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::NotFound => {}
                Err(e) => return Err(BlobError::io(path, e)),
            }
        }
        Ok(keys.len())
    }

    fn local_path(&self, key: &str) -> Option<PathBuf> {
        self.path(key).ok()
    }
}

/// The files under `dir` (named `key_prefix/…`), temporary files left out.
fn walk(dir: &Path, key_prefix: &str, keys: &mut Vec<String>) -> Result<(), BlobError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(BlobError::io(dir, e)),
    };
    for entry in entries {
        let entry = entry.map_err(|e| BlobError::io(dir, e))?;
        let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
            continue;
        };
        if name.starts_with(TEMPORARY) {
            continue;
        }
        let key = if key_prefix.is_empty() {
            name
        } else {
            format!("{key_prefix}/{name}")
        };
        let kind = entry
            .file_type()
            .map_err(|e| BlobError::io(entry.path(), e))?;
        if kind.is_dir() {
            walk(&entry.path(), &key, keys)?;
        } else if kind.is_file() {
            keys.push(key);
        }
    }
    Ok(())
}
