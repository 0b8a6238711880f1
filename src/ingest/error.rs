//! Errors of the ingest stage; each names the file.

use std::path::PathBuf;

use super::limits::{LimitKind, LimitUnit};

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
    /// A compressed stream or archive ends early or does not decode; `reason` says
    /// which, with the decoder's words.
    #[error("{}: {reason}", path.display())]
    Damaged {
        /// The file.
        path: PathBuf,
        /// What is wrong, lowercase.
        reason: String,
    },
    /// The file was handed to the extractor but is neither tar nor zip.
    #[error("{}: not a tar or zip archive", path.display())]
    NotAnArchive {
        /// The file.
        path: PathBuf,
    },
    /// Decompressing or extracting went past a limit; usually a decompression bomb.
    #[error("{}: {} over the limit of {limit} {}", path.display(), what.what(), unit.as_str())]
    LimitExceeded {
        /// The file.
        path: PathBuf,
        /// What was counted.
        what: LimitKind,
        /// The limit.
        limit: u64,
        /// Its unit.
        unit: LimitUnit,
    },
    /// An archive expanded to more than the ratio allows over its own size.
    #[error(
        "{}: expands to over {ratio} times its {size} bytes (stopped at {limit} bytes; a decompression bomb?)",
        path.display()
    )]
    RatioExceeded {
        /// The archive.
        path: PathBuf,
        /// The ratio allowed.
        ratio: u64,
        /// Its size on disk.
        size: u64,
        /// Where extraction stopped.
        limit: u64,
    },
}
