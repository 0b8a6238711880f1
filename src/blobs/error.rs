//! Why a blob operation failed.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum BlobError {
    /// The `--blobs` URL (or the cloud it names) is not usable.
    #[error("{0}")]
    Config(String),
    /// A key a blob may not have (empty, `..`, a control character…).
    #[error("blob key {0:?} is not allowed")]
    InvalidKey(String),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// No answer (refused, reset, timed out).
    #[error("{method} {url}: {message}")]
    Connection {
        method: String,
        url: String,
        message: String,
    },
    /// An answer that is not a success.
    #[error("{method} {url} answered {status}: {message}")]
    Status {
        method: String,
        url: String,
        status: u16,
        message: String,
    },
    /// Signing in to the object store failed.
    #[error("signing in to {store}: {message}")]
    Auth { store: String, message: String },
}

impl BlobError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> BlobError {
        BlobError::Io {
            path: path.into(),
            source,
        }
    }

    pub(crate) fn connection(method: &str, url: &str, error: &reqwest::Error) -> BlobError {
        BlobError::Connection {
            method: method.to_owned(),
            url: url.to_owned(),
            message: crate::openstack::call::error_chain(error),
        }
    }
}
