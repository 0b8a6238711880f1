//! Why indexing or searching failed.

use std::path::PathBuf;

use crate::index::QueryLimit;

/// Why the index could not be built, opened or searched.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum IndexError {
    /// The index folder or its meta file could not be written or read.
    #[error("{path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The reason.
        source: std::io::Error,
    },
    /// The meta file beside the index does not parse.
    #[error("{path}: not an evacdoc index meta file: {reason}")]
    Meta {
        /// The meta file.
        path: PathBuf,
        /// The reason.
        reason: String,
    },
    /// tantivy failed (a damaged or foreign index, a full disk).
    #[error("search index {path}: {reason}")]
    Tantivy {
        /// The index folder.
        path: PathBuf,
        /// The reason.
        reason: String,
    },
    /// The query does not parse.
    #[error("bad query: {0}")]
    Query(String),
    /// The query's text is past a bound (nesting, length, terms): refused before it is
    /// parsed.
    #[error("{0}")]
    QueryLimit(#[from] QueryLimit),
    /// A bad request beside the query (page numbers, time range).
    #[error("bad search request: {0}")]
    Request(String),
    /// The indexer was finished twice, or a record could not be added.
    #[error("search index {path}: {reason}")]
    Writer {
        /// The index folder.
        path: PathBuf,
        /// The reason.
        reason: String,
    },
}

impl IndexError {
    pub(crate) fn tantivy(path: &std::path::Path, error: impl std::fmt::Display) -> IndexError {
        IndexError::Tantivy {
            path: path.to_path_buf(),
            reason: error.to_string(),
        }
    }

    /// True when the query (or the request around it) was at fault, not the index.
    pub fn is_bad_request(&self) -> bool {
        matches!(
            self,
            IndexError::Query(_) | IndexError::QueryLimit(_) | IndexError::Request(_)
        )
    }
}
