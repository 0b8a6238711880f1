//! [`PgStore`]: the [`Store`] on PostgreSQL (issue 27), for API and worker processes that
//! share one database and one blob folder.
//!
//! The synchronous `postgres` client behind a small pool of connections. Each call runs on
//! a scoped thread of its own when it is made on a thread that belongs to a tokio runtime
//! (the client drives a runtime of its own, which tokio refuses to start inside another);
//! the callers already use `spawn_blocking` as for SQLite, so this costs one thread start.
//! No TLS: the database is reached over loopback or a private network.

mod analyses;
mod case_maps;
mod convert;
mod leases;
pub(super) mod migrate;
mod sessions;

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use postgres::{Client, Config, NoTls};

use super::Store;
use super::error::StoreError;
use super::paths::{DataPaths, create_private_dir};
use super::types::{
    AnalysisRow, AuditEntry, IndexProgress, Interrupted, JobStatus, NewAnalysis, NewShare,
    Progress, Session, ShareRow, StoredResult,
};

/// Idle connections kept for reuse; more are opened when needed.
const IDLE_CONNECTIONS: usize = 4;
/// How long a connection attempt may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// The PostgreSQL store; the analyses' files (uploads, documents, indexes) stay in a
/// folder every process shares (`--blobs file:///…`).
pub struct PgStore {
    paths: DataPaths,
    config: Config,
    /// `host:port/database`, for errors (never the password).
    target: String,
    idle: Mutex<Vec<Client>>,
    /// `--blobs s3://…` or `swift://…`: where the files are kept (`paths` is then this
    /// process's work folder and cache).
    remote: Option<Arc<dyn crate::blobs::BlobStore>>,
}

impl std::fmt::Debug for PgStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgStore")
            .field("target", &self.target)
            .field("paths", &self.paths)
            .finish_non_exhaustive()
    }
}

impl PgStore {
    /// Connects to `url` (`postgres://USER:PASS@HOST:PORT/DB`), applies the migrations it
    /// lacks, and keeps the analyses' files under `blobs` (created mode 0700).
    pub fn open(url: &str, blobs: &std::path::Path) -> Result<PgStore, StoreError> {
        let mut config: Config = url.parse().map_err(|source| StoreError::Postgres {
            target: redacted(url),
            source,
        })?;
        config.connect_timeout(CONNECT_TIMEOUT);
        config.application_name("evacdoc");
        let paths = DataPaths::new(blobs);
        create_private_dir(paths.root())?;
        create_private_dir(&paths.analyses_dir())?;
        let store = PgStore {
            paths,
            config,
            target: redacted(url),
            idle: Mutex::new(Vec::new()),
            remote: None,
        };
        store.with(migrate::migrate)?;
        Ok(store)
    }

    /// The store with its files kept in `remote` (an object store), `paths` only a
    /// local work folder and cache.
    pub fn with_remote_blobs(mut self, remote: Arc<dyn crate::blobs::BlobStore>) -> PgStore {
        self.remote = Some(remote);
        self
    }

    /// `host:port/database` of the store.
    pub fn target(&self) -> &str {
        &self.target
    }

    /// Runs `work` on a pooled connection (a new one when none is idle); the connection
    /// goes back to the pool unless it broke.
    pub(crate) fn with<T: Send>(
        &self,
        work: impl FnOnce(&mut Client) -> Result<T, StoreError> + Send,
    ) -> Result<T, StoreError> {
        let run = || {
            let idle = self
                .idle
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .pop();
            let mut client = match idle {
                Some(client) if !client.is_closed() => client,
                _ => self.config.connect(NoTls).map_err(|e| self.error(e))?,
            };
            let outcome = work(&mut client).map_err(|e| self.named(e));
            if !client.is_closed() {
                let mut idle = self.idle.lock().unwrap_or_else(PoisonError::into_inner);
                if idle.len() < IDLE_CONNECTIONS {
                    idle.push(client);
                }
            }
            outcome
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return run();
        }
        std::thread::scope(|scope| match scope.spawn(run).join() {
            Ok(outcome) => outcome,
            Err(panic) => std::panic::resume_unwind(panic),
        })
    }

    fn error(&self, source: postgres::Error) -> StoreError {
        StoreError::Postgres {
            target: self.target.clone(),
            source,
        }
    }

    /// Names the database in an error raised where it was not at hand.
    fn named(&self, error: StoreError) -> StoreError {
        match error {
            StoreError::Postgres { target, source } if target.is_empty() => StoreError::Postgres {
                target: self.target.clone(),
                source,
            },
            other => other,
        }
    }
}

/// `host:port/database` of a URL: what an error may show of it.
fn redacted(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(parsed) => format!(
            "postgres://{}:{}{}",
            parsed.host_str().unwrap_or(""),
            parsed.port().unwrap_or(5432),
            parsed.path()
        ),
        Err(_) => "(an unreadable postgres:// address)".to_owned(),
    }
}

impl From<postgres::Error> for StoreError {
    fn from(source: postgres::Error) -> Self {
        StoreError::Postgres {
            target: String::new(),
            source,
        }
    }
}

impl Store for PgStore {
    fn paths(&self) -> &DataPaths {
        &self.paths
    }

    fn remote_blobs(&self) -> Option<&Arc<dyn crate::blobs::BlobStore>> {
        self.remote.as_ref()
    }

    fn create_analysis(&self, new: &NewAnalysis) -> Result<AnalysisRow, StoreError> {
        self.with(|client| analyses::create(client, new))
    }

    fn list_analyses(&self, limit: usize) -> Result<Vec<AnalysisRow>, StoreError> {
        self.with(|client| analyses::list(client, limit))
    }

    fn get_analysis(&self, id: &str) -> Result<Option<AnalysisRow>, StoreError> {
        self.with(|client| analyses::get(client, id))
    }

    fn claim_next(&self) -> Result<Option<AnalysisRow>, StoreError> {
        self.with(|client| leases::claim(client, None, Duration::ZERO, u32::MAX))
    }

    fn claim_leased(
        &self,
        owner: &str,
        lease: Duration,
        max_attempts: u32,
    ) -> Result<Option<AnalysisRow>, StoreError> {
        self.with(|client| leases::claim(client, Some(owner), lease, max_attempts))
    }

    fn renew_lease(
        &self,
        id: &str,
        owner: &str,
        attempt: u32,
        lease: Duration,
    ) -> Result<(), StoreError> {
        self.with(|client| leases::renew(client, id, owner, attempt, lease))
    }

    fn count_running(&self) -> Result<usize, StoreError> {
        self.with(analyses::count_running)
    }

    fn set_progress(&self, id: &str, progress: &Progress) -> Result<(), StoreError> {
        self.with(|client| analyses::set_progress(client, id, progress))
    }

    fn set_index(&self, id: &str, index: &IndexProgress) -> Result<(), StoreError> {
        self.with(|client| analyses::set_index(client, id, index))
    }

    fn finish_done(&self, id: &str, result: &StoredResult) -> Result<(), StoreError> {
        self.with(|client| analyses::finish_done(client, id, None, result))
    }

    fn finish_done_attempt(
        &self,
        id: &str,
        attempt: u32,
        result: &StoredResult,
    ) -> Result<(), StoreError> {
        self.with(|client| analyses::finish_done(client, id, Some(attempt), result))
    }

    fn finish_failed(&self, id: &str, reason: &str) -> Result<(), StoreError> {
        self.with(|client| analyses::finish_failed(client, id, None, reason))
    }

    fn finish_failed_attempt(
        &self,
        id: &str,
        attempt: u32,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.with(|client| analyses::finish_failed(client, id, Some(attempt), reason))
    }

    fn requeue(&self, id: &str) -> Result<(), StoreError> {
        self.with(|client| analyses::requeue(client, id))
    }

    fn recover_interrupted(&self, max_attempts: u32) -> Result<Interrupted, StoreError> {
        self.with(|client| analyses::recover_interrupted(client, max_attempts))
    }

    fn result_json(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.with(|client| analyses::result_json(client, id))
    }

    fn findings(&self, id: &str) -> Result<Vec<crate::detect::Finding>, StoreError> {
        self.with(|client| analyses::findings(client, id))
    }

    fn finding(
        &self,
        id: &str,
        finding_id: &str,
    ) -> Result<Option<crate::detect::Finding>, StoreError> {
        self.with(|client| analyses::finding(client, id, finding_id))
    }

    /// The rows first, then the folder, as the SQLite store does.
    fn delete_analysis(&self, id: &str) -> Result<bool, StoreError> {
        let folder = self.paths.analysis_dir(id)?;
        if !self.with(|client| analyses::delete_rows(client, id))? {
            return Ok(false);
        }
        match std::fs::remove_dir_all(&folder) {
            Ok(()) => {}
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => {}
            Err(error) => return Err(StoreError::io(folder, error)),
        }
        // The object store's copies: upload, documents and indexes of every attempt.
        if let Some(remote) = &self.remote {
            remote.delete_prefix(&format!("analyses/{id}/"))?;
        }
        Ok(true)
    }

    fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        self.with(|client| sessions::create(client, session))
    }

    fn session(&self, id_hash: &str) -> Result<Option<Session>, StoreError> {
        self.with(|client| sessions::get(client, id_hash))
    }

    fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
        self.with(|client| sessions::delete(client, id_hash))
    }

    fn audit(
        &self,
        actor: &str,
        action: &str,
        target: &str,
        detail: &str,
    ) -> Result<(), StoreError> {
        self.with(|client| sessions::audit(client, actor, action, target, detail))
    }

    fn audit_counted(
        &self,
        actor: &str,
        action: &str,
        client_addr: &str,
        detail: &str,
    ) -> Result<(), StoreError> {
        self.with(|client| sessions::audit_counted(client, actor, action, client_addr, detail))
    }

    fn audit_log(&self, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
        self.with(|client| sessions::audit_log(client, limit))
    }

    fn create_share(&self, share: &NewShare) -> Result<ShareRow, StoreError> {
        self.with(|client| sessions::create_share(client, share))
    }

    fn shares(&self, analysis_id: &str) -> Result<Vec<ShareRow>, StoreError> {
        self.with(|client| sessions::shares(client, analysis_id))
    }

    fn live_share(&self, token_hash: &str) -> Result<Option<ShareRow>, StoreError> {
        self.with(|client| sessions::live_share(client, token_hash))
    }

    fn revoke_share(&self, analysis_id: &str, share_id: &str) -> Result<bool, StoreError> {
        self.with(|client| sessions::revoke_share(client, analysis_id, share_id))
    }

    fn case_map(&self, id: &str) -> Result<Option<crate::redact::PseudonymMap>, StoreError> {
        super::case_map::read(self, id)
    }

    fn merge_case_map(
        &self,
        id: &str,
        map: &crate::redact::PseudonymMap,
    ) -> Result<crate::redact::PseudonymMap, StoreError> {
        super::case_map::merge(self, id, map)
    }

    fn counts_by_status(&self) -> Result<Vec<(JobStatus, u64)>, StoreError> {
        self.with(analyses::counts_by_status)
    }
}

impl super::case_map::CaseMapRows for PgStore {
    fn read_row(&self, id: &str) -> Result<Option<super::case_map::CaseMapRow>, StoreError> {
        self.with(|client| case_maps::read(client, id))
    }

    fn swap_row(
        &self,
        id: &str,
        expected: Option<i64>,
        json: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        self.with(|client| case_maps::swap(client, id, expected, json, now))
    }
}

#[cfg(test)]
mod tests;
