//! Errors of the ingest stage; each names the file.

use std::path::PathBuf;

/// An input that could not be read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IngestError {
    /// The file could not be opened or read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What the system said.
        #[source]
        source: std::io::Error,
    },
    /// The path is a directory where a file was expected.
    #[error("{}: is a directory, not a file", path.display())]
    IsDirectory {
        /// The path.
        path: PathBuf,
    },
    /// The file is larger than evacdoc will read into memory in one piece.
    #[error("{}: {size} bytes is over the {limit}-byte limit for a single file", path.display())]
    TooLarge {
        /// The file.
        path: PathBuf,
        /// Its size.
        size: u64,
        /// The limit.
        limit: u64,
    },
}
