//! A file as ingest reads it: where it is on disk, and the name messages give it.

use std::path::{Path, PathBuf};

use super::IngestError;

/// A file (or folder) and the name every message about it uses: the name the user
/// gave (a path on the command line, the upload's file name) or, for what an archive
/// held, its place in the bundle (`case-01/sosreport-cmp1/var/log/x.log`). The work
/// folder it was unpacked in is never named.
#[derive(Debug, Clone, Copy)]
pub struct Named<'a> {
    /// Where to read it.
    pub path: &'a Path,
    /// What messages call it.
    pub name: &'a Path,
}

impl<'a> Named<'a> {
    /// A file named by its own path (what the user gave).
    pub fn as_given(path: &'a Path) -> Named<'a> {
        Named { path, name: path }
    }

    /// `inputs`, each named by its name in `names` (same order) or else by its path.
    pub fn inputs(inputs: &'a [PathBuf], names: &'a [PathBuf]) -> Vec<Named<'a>> {
        inputs
            .iter()
            .enumerate()
            .map(|(i, path)| Named {
                path,
                name: names.get(i).unwrap_or(path),
            })
            .collect()
    }

    /// An I/O error about this file, naming it.
    pub(crate) fn io_error(&self, source: std::io::Error) -> IngestError {
        IngestError::Io {
            path: self.name.to_path_buf(),
            source,
        }
    }
}
