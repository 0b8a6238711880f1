//! The embedded store of `evacdoc serve`: analyses and their job queue, results and
//! findings, sessions and the audit log, and the data folder's layout. The only module
//! that knows SQL; the HTTP layer sees the [`Store`](crate::store::Store) trait, so another backend
//! (PostgreSQL) can be added beside [`SqliteStore`](crate::store::SqliteStore) without touching it.

mod case_map;
#[cfg(test)]
mod contract;
mod document;
mod error;
mod findings;
mod journal;
mod paths;
mod postgres;
mod sqlite;
pub mod throwaway;
mod token;
mod types;

pub use document::{read_document, write_document, write_document_with};
pub use error::StoreError;
pub use journal::{
    LeftLock, LeftMove, MoveRow, MoveStatus, MoveUpdate, RecoveryJournal, RecoveryRow,
    RecoveryStatus, final_status,
};
pub(crate) use paths::create_private_dir;
pub use paths::{DataPaths, validate_id};
pub use postgres::PgStore;
pub use sqlite::SqliteStore;
pub use token::{mark_token_used, read_token, token_used, write_token};
pub use types::{
    AnalysisRow, AuditEntry, IndexProgress, IndexState, Interrupted, JobStatus, NewAnalysis,
    NewShare, Progress, Session, ShareRow, StoredResult, UnknownStatus,
};

/// Everything the service keeps, behind methods that each do one whole thing. Synchronous:
/// the HTTP layer calls them through `tokio::task::spawn_blocking`. Analysis ids are
/// lowercase UUID strings made by the caller; any other id is refused with
/// [`StoreError::InvalidId`] before it reaches a query or a path.
pub trait Store: Send + Sync {
    /// The data folder's layout.
    fn paths(&self) -> &DataPaths;
    /// The object store of uploads, documents and indexes when they are not in the
    /// data folder (`--blobs s3://…` or `swift://…`): the data folder is then this
    /// process's own work folder and cache. `None`: the data folder holds them.
    fn remote_blobs(&self) -> Option<&std::sync::Arc<dyn crate::blobs::BlobStore>> {
        None
    }
    /// Records a received upload as a queued analysis.
    fn create_analysis(&self, new: &NewAnalysis) -> Result<AnalysisRow, StoreError>;
    /// The last `limit` analyses, newest first.
    fn list_analyses(&self, limit: usize) -> Result<Vec<AnalysisRow>, StoreError>;
    fn get_analysis(&self, id: &str) -> Result<Option<AnalysisRow>, StoreError>;
    /// Atomically takes the oldest queued analysis and marks it running (attempts += 1, started_at).
    fn claim_next(&self) -> Result<Option<AnalysisRow>, StoreError>;
    fn count_running(&self) -> Result<usize, StoreError>;
    fn set_progress(&self, id: &str, progress: &Progress) -> Result<(), StoreError>;
    fn set_index(&self, id: &str, index: &IndexProgress) -> Result<(), StoreError>;
    /// In one transaction: the result, its findings, status done, finished_at. Only a running
    /// analysis can finish ([`StoreError::InvalidTransition`] otherwise).
    fn finish_done(&self, id: &str, result: &StoredResult) -> Result<(), StoreError>;
    /// Status failed with the reason; from queued or running only.
    fn finish_failed(&self, id: &str, reason: &str) -> Result<(), StoreError>;
    /// Workers sharing the store (several processes): takes for `owner` the oldest queued
    /// analysis, or the oldest running one whose lease has expired (its worker died), and
    /// marks it running under a lease of `lease` (attempts += 1, as [`Store::claim_next`]).
    /// An expired job that has used `max_attempts` is failed ("interrupted {n} times")
    /// instead. The row's `attempts` is the claim's attempt.
    fn claim_leased(
        &self,
        owner: &str,
        lease: std::time::Duration,
        max_attempts: u32,
    ) -> Result<Option<AnalysisRow>, StoreError>;
    /// Extends `owner`'s lease on attempt `attempt` of `id` to `lease` from now;
    /// [`StoreError::Superseded`] once the job is no longer that claim's.
    fn renew_lease(
        &self,
        id: &str,
        owner: &str,
        attempt: u32,
        lease: std::time::Duration,
    ) -> Result<(), StoreError>;
    /// [`Store::finish_done`] keyed by analysis and attempt: a claim that was superseded
    /// gets [`StoreError::Superseded`] and nothing is written, so a job never finishes twice.
    fn finish_done_attempt(
        &self,
        id: &str,
        attempt: u32,
        result: &StoredResult,
    ) -> Result<(), StoreError>;
    /// [`Store::finish_failed`] keyed by analysis and attempt, as [`Store::finish_done_attempt`].
    fn finish_failed_attempt(&self, id: &str, attempt: u32, reason: &str)
    -> Result<(), StoreError>;
    /// Back to queued (graceful shutdown of a running job); the attempt does not count.
    fn requeue(&self, id: &str) -> Result<(), StoreError>;
    /// At start: every analysis left `running` by a crash goes back to queued if attempts <
    /// max_attempts, else failed with reason "interrupted {n} times"; the index of a job
    /// run again goes back to pending, the index of a done analysis that was being built
    /// is failed (nothing would build it again).
    fn recover_interrupted(&self, max_attempts: u32) -> Result<Interrupted, StoreError>;
    fn result_json(&self, id: &str) -> Result<Option<String>, StoreError>;
    /// The findings in the order they were stored, read back typed.
    fn findings(&self, id: &str) -> Result<Vec<crate::detect::Finding>, StoreError>;
    fn finding(
        &self,
        id: &str,
        finding_id: &str,
    ) -> Result<Option<crate::detect::Finding>, StoreError>;
    /// Removes the rows and the analysis's folder (upload, document, index). Ok(false) if unknown.
    fn delete_analysis(&self, id: &str) -> Result<bool, StoreError>;
    /// Stores a session (times in RFC 3339; `expires_at` is kept normalized to UTC seconds).
    fn create_session(&self, session: &Session) -> Result<(), StoreError>;
    /// The session, or None when unknown or expired.
    fn session(&self, id_hash: &str) -> Result<Option<Session>, StoreError>;
    fn delete_session(&self, id_hash: &str) -> Result<(), StoreError>;
    /// Appends to the audit log, timestamped now.
    fn audit(
        &self,
        actor: &str,
        action: &str,
        target: &str,
        detail: &str,
    ) -> Result<(), StoreError>;
    /// Counts one more `action` by `actor` from `client` in the current minute: one row per
    /// action, client and minute, its count incremented (an UPSERT), never one per call.
    fn audit_counted(
        &self,
        actor: &str,
        action: &str,
        client: &str,
        detail: &str,
    ) -> Result<(), StoreError>;
    /// The last `limit` audit entries, newest first.
    fn audit_log(&self, limit: usize) -> Result<Vec<AuditEntry>, StoreError>;
    /// Stores a share link; its analysis must exist.
    fn create_share(&self, share: &NewShare) -> Result<ShareRow, StoreError>;
    /// The share links of an analysis, newest first (revoked and expired ones included).
    fn shares(&self, analysis_id: &str) -> Result<Vec<ShareRow>, StoreError>;
    /// The share whose token hashes to `token_hash`, only while it is live: not revoked,
    /// not expired. Unknown, revoked and expired all answer `None`.
    fn live_share(&self, token_hash: &str) -> Result<Option<ShareRow>, StoreError>;
    /// Revokes share `share_id` of analysis `analysis_id`; Ok(false) if it has no such share.
    fn revoke_share(&self, analysis_id: &str, share_id: &str) -> Result<bool, StoreError>;
    /// The case map of analysis `id`'s share links (its pseudonyms), `None` before the
    /// first is stored; [`StoreError::NotFound`] when the analysis is unknown.
    fn case_map(&self, id: &str) -> Result<Option<crate::redact::PseudonymMap>, StoreError>;
    /// Adds the pairs of `map` to analysis `id`'s case map (stores `map` when it has
    /// none) and returns the map now stored. Several processes may merge at once: none
    /// loses a pair, and a value already stored keeps its pseudonym (the stored one wins,
    /// so what was redacted with `map` agrees with the result only when
    /// [`PseudonymMap::agrees_with`](crate::redact::PseudonymMap::agrees_with) says so).
    fn merge_case_map(
        &self,
        id: &str,
        map: &crate::redact::PseudonymMap,
    ) -> Result<crate::redact::PseudonymMap, StoreError>;
    /// Every status with its count (zeros included), for /metrics.
    fn counts_by_status(&self) -> Result<Vec<(JobStatus, u64)>, StoreError>;
}
