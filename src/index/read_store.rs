//! The index folder as the search opens it: every file mapped as tantivy maps it, but
//! the doc stores (the records' stored lines, most of the index) read with `pread`.
//!
//! A search reading many hits (a literal narrowed by a common word reads up to
//! [`MAX_LITERAL_RECORDS`](super::MAX_LITERAL_RECORDS) records) touched most of a 1 GiB
//! bundle's doc stores through the map: 270 MB of clean file pages counted as the
//! server's resident memory for as long as the index stayed open (bench_serve: peak RSS
//! 717 MB, of it 300 MB anonymous). Read, a block is copied once into the memory its
//! reader decompresses it from (the reader keeps a few blocks per segment); the file's
//! pages stay in the kernel's cache, shared and dropped under pressure, not in the
//! server's footprint.

use std::fs::File;
use std::io;
use std::ops::Range;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tantivy::HasLen;
use tantivy::directory::error::{
    DeleteError, LockError, OpenDirectoryError, OpenReadError, OpenWriteError,
};
use tantivy::directory::{
    Directory, DirectoryLock, FileHandle, Lock, MmapDirectory, OwnedBytes, WatchCallback,
    WatchHandle, WritePtr,
};

/// The extension of a segment's doc store file.
const DOC_STORE: &str = "store";

/// An index folder whose doc stores are read, every other file mapped.
#[derive(Clone, Debug)]
pub(crate) struct ReadStores {
    root: PathBuf,
    mapped: MmapDirectory,
}

impl ReadStores {
    pub(crate) fn open(root: &Path) -> Result<ReadStores, OpenDirectoryError> {
        Ok(ReadStores {
            root: root.to_path_buf(),
            mapped: MmapDirectory::open(root)?,
        })
    }
}

impl Directory for ReadStores {
    fn get_file_handle(&self, path: &Path) -> Result<Arc<dyn FileHandle>, OpenReadError> {
        if path.extension().is_none_or(|e| e != DOC_STORE) {
            return self.mapped.get_file_handle(path);
        }
        let full = self.root.join(path);
        let failed = |e: io::Error| OpenReadError::wrap_io_error(e, full.clone());
        let file = File::open(&full).map_err(|e| match e.kind() {
            io::ErrorKind::NotFound => OpenReadError::FileDoesNotExist(path.to_path_buf()),
            _ => failed(e),
        })?;
        let len = file.metadata().map_err(failed)?.len();
        let len = usize::try_from(len).map_err(|_| failed(io::Error::other("too large")))?;
        Ok(Arc::new(ReadFile { file, len }))
    }

    fn delete(&self, path: &Path) -> Result<(), DeleteError> {
        self.mapped.delete(path)
    }

    fn exists(&self, path: &Path) -> Result<bool, OpenReadError> {
        self.mapped.exists(path)
    }

    fn open_write(&self, path: &Path) -> Result<WritePtr, OpenWriteError> {
        self.mapped.open_write(path)
    }

    fn atomic_read(&self, path: &Path) -> Result<Vec<u8>, OpenReadError> {
        self.mapped.atomic_read(path)
    }

    fn atomic_write(&self, path: &Path, data: &[u8]) -> io::Result<()> {
        self.mapped.atomic_write(path, data)
    }

    fn sync_directory(&self) -> io::Result<()> {
        self.mapped.sync_directory()
    }

    fn acquire_lock(&self, lock: &Lock) -> Result<DirectoryLock, LockError> {
        self.mapped.acquire_lock(lock)
    }

    fn watch(&self, callback: WatchCallback) -> tantivy::Result<WatchHandle> {
        self.mapped.watch(callback)
    }
}

/// A file read a range at a time.
#[derive(Debug)]
struct ReadFile {
    file: File,
    len: usize,
}

impl FileHandle for ReadFile {
    fn read_bytes(&self, range: Range<usize>) -> io::Result<OwnedBytes> {
        if range.start > range.end || range.end > self.len {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                format!("bytes {range:?} of a file of {}", self.len),
            ));
        }
        let mut bytes = vec![0; range.len()];
        self.file.read_exact_at(&mut bytes, range.start as u64)?;
        Ok(OwnedBytes::new(bytes))
    }
}

impl HasLen for ReadFile {
    fn len(&self) -> usize {
        self.len
    }
}
