//! The store's errors: what went wrong and where.

use std::path::PathBuf;

use super::types::JobStatus;

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// An id that is not a lowercase hyphenated UUID: refused before it reaches a path or a query.
    #[error("invalid analysis id {0:?}: expected a lowercase uuid")]
    InvalidId(String),
    #[error("analysis {0} already exists")]
    AlreadyExists(String),
    #[error("analysis {0} not found")]
    NotFound(String),
    /// A job asked to move where its status does not allow (finish a queued job, requeue a done one).
    #[error("analysis {id} is {status}, it cannot become {wanted}")]
    InvalidTransition {
        id: String,
        status: JobStatus,
        wanted: JobStatus,
    },
    #[error("database {}: {source}", path.display())]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
    /// A PostgreSQL store (`--store postgres://…`): `target` names the server and database,
    /// never the password.
    #[error("database {target}: {source}")]
    Postgres {
        target: String,
        #[source]
        source: postgres::Error,
    },
    /// A worker's claim on a job that another claim has replaced (its lease expired and
    /// another worker took the job, or the job ended): what it would write is refused.
    #[error("analysis {id}: attempt {attempt} was superseded, its result is not kept")]
    Superseded { id: String, attempt: u32 },
    #[error("database {} has schema version {found}, newer than the {known} this evacdoc knows", path.display())]
    SchemaTooNew {
        path: PathBuf,
        found: i64,
        known: i64,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The object store behind `--blobs` (uploads, documents, indexes).
    /// A stored case map that is not one.
    #[error("{0}")]
    CaseMap(String),
    /// A row changed by other writers as often as it was tried.
    #[error("{0}")]
    Contended(String),
    #[error("blob store: {0}")]
    Blob(#[from] crate::blobs::BlobError),
    #[error("invalid timestamp {value:?}: {reason}")]
    InvalidTime { value: String, reason: String },
    #[error("recovery {0} not found")]
    RecoveryNotFound(i64),
    /// A recovery that has ended (or a move that has) is not written again.
    #[error("recovery {recovery} has ended, it cannot change")]
    RecoveryEnded { recovery: i64 },
    #[error("recovery {recovery} has no move of instance {instance}")]
    MoveNotFound { recovery: i64, instance: String },
    #[error("the move of instance {instance} in recovery {recovery} has ended, it cannot change")]
    MoveEnded { recovery: i64, instance: String },
    /// A stored finding that does not read back as a finding.
    #[error("stored finding {finding} of analysis {analysis}: {source}")]
    Finding {
        analysis: String,
        finding: String,
        #[source]
        source: serde_json::Error,
    },
    /// A status read back from the database that this evacdoc does not know.
    #[error("database holds an unknown status: {0}")]
    UnknownStatus(#[from] super::types::UnknownStatus),
}

impl StoreError {
    pub(crate) fn io(path: impl Into<PathBuf>, source: std::io::Error) -> StoreError {
        StoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// Names the database file in an SQLite error raised where the path was not at hand.
    pub(crate) fn in_database(self, database: &std::path::Path) -> StoreError {
        match self {
            StoreError::Sqlite { path, source } if path.as_os_str().is_empty() => {
                StoreError::Sqlite {
                    path: database.to_path_buf(),
                    source,
                }
            }
            StoreError::SchemaTooNew { path, found, known } if path.as_os_str().is_empty() => {
                StoreError::SchemaTooNew {
                    path: database.to_path_buf(),
                    found,
                    known,
                }
            }
            other => other,
        }
    }
}

impl From<rusqlite::Error> for StoreError {
    fn from(source: rusqlite::Error) -> Self {
        StoreError::Sqlite {
            path: PathBuf::new(),
            source,
        }
    }
}
