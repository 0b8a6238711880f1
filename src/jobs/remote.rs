//! The analyses' files in an object store (`--blobs s3://…` or `swift://…`, issue 27):
//! what each process copies there and back around its local data folder, which is then
//! its own work folder and cache.
//!
//! - An API process sends a received upload (`analyses/<id>/input/<name>`) before it
//!   queues the analysis, and drops its local copy.
//! - A worker fetches the upload, and sends the document and the index (a tar of its
//!   folder) under names of its attempt, `analyses/<id>/a<attempt>/…`: a worker that lost
//!   its lease writes beside the winner's files, never over them, and readers take the
//!   attempt the store recorded as done. Its local copies are removed when the job ends.
//! - Readers fetch the document, and an index into the local cache, which is kept under a
//!   byte budget by removing the least recently used indexes.

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use crate::blobs::BlobStore;
use crate::store::{AnalysisRow, DataPaths, Store, StoreError};

/// The local search-index cache of an API process, in bytes.
pub const INDEX_CACHE_BYTES: u64 = 4 << 30;

/// The marker whose modification time says when a cached index was last used.
const USED: &str = ".last-used";

pub fn input_key(id: &str, name: &str) -> String {
    format!("analyses/{id}/input/{name}")
}

pub fn document_key(id: &str, attempt: u32) -> String {
    format!("analyses/{id}/a{attempt}/document.json.zst")
}

pub fn index_key(id: &str, attempt: u32) -> String {
    format!("analyses/{id}/a{attempt}/index.tar")
}

/// Sends the received upload `name` of analysis `id` and removes the local copy.
pub fn send_upload(
    remote: &dyn BlobStore,
    paths: &DataPaths,
    id: &str,
    name: &str,
) -> Result<(), StoreError> {
    let local = super::input_dir(paths, id)?.join(name);
    remote.put_file(&input_key(id, name), &local)?;
    let folder = paths.analysis_dir(id)?;
    let _ = std::fs::remove_dir_all(folder);
    Ok(())
}

/// The upload of `row`, fetched into the local input folder unless already there.
pub fn fetch_upload(
    remote: &dyn BlobStore,
    paths: &DataPaths,
    row: &AnalysisRow,
) -> Result<(), StoreError> {
    let local = super::input_dir(paths, &row.id)?.join(&row.name);
    if local.is_file() {
        return Ok(());
    }
    match remote.get_to_file(&input_key(&row.id, &row.name), &local)? {
        Some(_) => Ok(()),
        None => Err(StoreError::NotFound(format!(
            "{} (its upload is not in {})",
            row.id,
            remote.describe()
        ))),
    }
}

/// Sends the document of attempt `attempt`.
pub fn send_document(
    remote: &dyn BlobStore,
    paths: &DataPaths,
    id: &str,
    attempt: u32,
) -> Result<(), StoreError> {
    remote.put_file(&document_key(id, attempt), &paths.document(id)?)?;
    Ok(())
}

/// Sends the index folder of `id` as one tar, built in the work folder.
pub fn send_index(
    remote: &dyn BlobStore,
    paths: &DataPaths,
    id: &str,
    attempt: u32,
) -> Result<(), StoreError> {
    let dir = paths.index_dir(id)?;
    let tmp = paths.tmp_dir();
    crate::blobs::check_key(&index_key(id, attempt))?;
    std::fs::create_dir_all(&tmp).map_err(|e| StoreError::io(&tmp, e))?;
    let tar_file = tempfile::Builder::new()
        .prefix("index-")
        .suffix(".tar")
        .tempfile_in(&tmp)
        .map_err(|e| StoreError::io(&tmp, e))?;
    {
        let mut builder = tar::Builder::new(tar_file.as_file());
        builder
            .append_dir_all(".", &dir)
            .and_then(|()| builder.finish())
            .map_err(|e| StoreError::io(&dir, e))?;
    }
    remote.put_file(&index_key(id, attempt), tar_file.path())?;
    Ok(())
}

/// The local document of `id`, fetched (the attempt the store recorded) when missing.
/// `false` when there is none (not done).
pub fn fetch_document(
    store: &dyn Store,
    remote: &dyn BlobStore,
    id: &str,
) -> Result<bool, StoreError> {
    let local = store.paths().document(id)?;
    if local.is_file() {
        return Ok(true);
    }
    let Some(row) = store.get_analysis(id)? else {
        return Ok(false);
    };
    Ok(remote
        .get_to_file(&document_key(id, row.attempts), &local)?
        .is_some())
}

/// The local index folder of `row`, fetched and unpacked when missing; the least
/// recently used cached indexes removed past `budget` bytes.
pub fn fetch_index(
    store: &dyn Store,
    remote: &dyn BlobStore,
    row: &AnalysisRow,
    budget: u64,
) -> Result<PathBuf, StoreError> {
    let paths = store.paths();
    let dir = paths.index_dir(&row.id)?;
    if dir.is_dir() {
        touch(&dir);
        return Ok(dir);
    }
    let tmp = paths.tmp_dir();
    std::fs::create_dir_all(&tmp).map_err(|e| StoreError::io(&tmp, e))?;
    let work = tempfile::Builder::new()
        .prefix("index-fetch-")
        .tempdir_in(&tmp)
        .map_err(|e| StoreError::io(&tmp, e))?;
    let tar_path = work.path().join("index.tar");
    if remote
        .get_to_file(&index_key(&row.id, row.attempts), &tar_path)?
        .is_none()
    {
        return Err(StoreError::NotFound(format!(
            "{} (its index is not in {})",
            row.id,
            remote.describe()
        )));
    }
    let unpacked = work.path().join("index");
    let file = std::fs::File::open(&tar_path).map_err(|e| StoreError::io(&tar_path, e))?;
    tar::Archive::new(file)
        .unpack(&unpacked)
        .map_err(|e| StoreError::io(&unpacked, e))?;
    if let Some(parent) = dir.parent() {
        std::fs::create_dir_all(parent).map_err(|e| StoreError::io(parent, e))?;
    }
    // Another request may have fetched it meanwhile: theirs is as good.
    if std::fs::rename(&unpacked, &dir).is_err() && !dir.is_dir() {
        return Err(StoreError::io(
            &dir,
            std::io::Error::other("cannot move the fetched index into place"),
        ));
    }
    touch(&dir);
    evict(paths, budget, &row.id);
    Ok(dir)
}

fn touch(dir: &Path) {
    let marker = dir.join(USED);
    let _ = std::fs::File::create(&marker).and_then(|f| f.set_modified(SystemTime::now()));
}

/// Removes the least recently used cached indexes (never `keep`) until the cache
/// holds at most `budget` bytes.
pub fn evict(paths: &DataPaths, budget: u64, keep: &str) {
    let Ok(entries) = std::fs::read_dir(paths.analyses_dir()) else {
        return;
    };
    let mut cached: Vec<(SystemTime, u64, PathBuf, String)> = entries
        .flatten()
        .filter_map(|entry| {
            let id = entry.file_name().to_str()?.to_owned();
            let dir = paths.index_dir(&id).ok()?;
            let used = std::fs::metadata(dir.join(USED))
                .and_then(|m| m.modified())
                .ok()?;
            Some((used, folder_bytes(&dir), dir, id))
        })
        .collect();
    let mut total: u64 = cached.iter().map(|c| c.1).sum();
    cached.sort_by_key(|c| c.0);
    for (_, bytes, dir, id) in cached {
        if total <= budget {
            break;
        }
        if id == keep {
            continue;
        }
        if std::fs::remove_dir_all(&dir).is_ok() {
            total = total.saturating_sub(bytes);
        }
    }
}

fn folder_bytes(dir: &Path) -> u64 {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return 0;
    };
    entries
        .flatten()
        .map(|e| match e.file_type() {
            Ok(kind) if kind.is_dir() => folder_bytes(&e.path()),
            _ => e.metadata().map_or(0, |m| m.len()),
        })
        .sum()
}

/// A worker's local copies of analysis `id` (upload, document, index), removed when its
/// job ends: the object store keeps them.
pub fn drop_local(paths: &DataPaths, id: &str) {
    if let Ok(folder) = paths.analysis_dir(id) {
        let _ = std::fs::remove_dir_all(folder);
    }
}

/// At a worker's start, with an object store: its own work folder and cache, emptied
/// (what a killed worker left: unpacked uploads, half-built indexes).
pub fn sweep_worker_folder(paths: &DataPaths) -> usize {
    let mut removed = 0;
    for folder in [paths.tmp_dir(), paths.analyses_dir()] {
        if let Ok(entries) = std::fs::read_dir(&folder) {
            for entry in entries.flatten() {
                let gone = match entry.file_type() {
                    Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(entry.path()),
                    _ => std::fs::remove_file(entry.path()),
                };
                removed += usize::from(gone.is_ok());
            }
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    const IDS: [&str; 3] = [
        "0b6f7d4c-2a1e-4c3b-9f8e-7d6c5b4a3f21",
        "1c7f8e5d-3b2f-4d4c-8a9f-8e7d6c5b4a32",
        "2d8a9f6e-4c3a-4e5d-9b0a-9f8e7d6c5b43",
    ];

    /// An index of `bytes` last used `age` ago.
    fn cached(paths: &DataPaths, id: &str, bytes: usize, age: u64) {
        let dir = paths.index_dir(id).unwrap();
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("segment"), vec![0u8; bytes]).unwrap();
        let used = std::fs::File::create(dir.join(USED)).unwrap();
        used.set_modified(SystemTime::now() - Duration::from_secs(age))
            .unwrap();
    }

    #[test]
    fn the_least_recently_used_indexes_go_first_and_the_one_just_fetched_stays() {
        let root = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(root.path());
        cached(&paths, IDS[0], 400, 300);
        cached(&paths, IDS[1], 400, 200);
        cached(&paths, IDS[2], 400, 100);
        evict(&paths, 900, IDS[2]);
        let left = |id: &str| paths.index_dir(id).unwrap().is_dir();
        assert!(!left(IDS[0]), "the oldest goes");
        assert!(left(IDS[1]) && left(IDS[2]), "800 bytes fit 900");

        // Over budget with only the kept one and another: the other goes, the kept stays
        // even alone over the budget.
        evict(&paths, 100, IDS[1]);
        assert!(left(IDS[1]));
        assert!(!left(IDS[2]));
    }

    #[test]
    fn blob_names_carry_the_attempt() {
        assert_eq!(
            document_key(IDS[0], 2),
            format!("analyses/{}/a2/document.json.zst", IDS[0])
        );
        assert_eq!(
            index_key(IDS[0], 1),
            format!("analyses/{}/a1/index.tar", IDS[0])
        );
        assert_eq!(
            input_key(IDS[0], "bundle.tar.xz"),
            format!("analyses/{}/input/bundle.tar.xz", IDS[0])
        );
    }
}
