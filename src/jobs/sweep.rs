//! At start, what a crash left on disk: the folders of uploads that were still being
//! received (an analysis folder with no row: the row is made only once the upload is
//! whole), the half-built indexes that nothing will finish, and the work folders of
//! analyses that were running (`tmp/`).

use std::path::PathBuf;

use crate::store::{Interrupted, Store, StoreError, validate_id};

/// Removes what a crash left; the folders removed. Runs before the service answers, so
/// no upload is in flight. Folders whose name is not an analysis id are not ours: kept.
pub fn sweep_after_crash(
    store: &dyn Store,
    interrupted: &Interrupted,
) -> Result<Vec<PathBuf>, StoreError> {
    let paths = store.paths();
    let mut removed = Vec::new();
    let tmp = paths.tmp_dir();
    if let Ok(entries) = std::fs::read_dir(&tmp) {
        for entry in entries.flatten() {
            let path = entry.path();
            let gone = match entry.file_type() {
                Ok(kind) if kind.is_dir() => std::fs::remove_dir_all(&path),
                _ => std::fs::remove_file(&path),
            };
            if gone.is_ok() {
                removed.push(path);
            }
        }
    }
    for id in &interrupted.index_failed {
        let dir = paths.index_dir(id)?;
        if std::fs::remove_dir_all(&dir).is_ok() {
            removed.push(dir);
        }
    }
    let entries = match std::fs::read_dir(paths.analyses_dir()) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(removed),
        Err(source) => return Err(StoreError::io(paths.analyses_dir(), source)),
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(id) = name.to_str().filter(|id| validate_id(id).is_ok()) else {
            continue;
        };
        if store.get_analysis(id)?.is_none() {
            let dir = entry.path();
            if std::fs::remove_dir_all(&dir).is_ok() {
                removed.push(dir);
            }
        }
    }
    Ok(removed)
}
