//! [`SqliteStore`]: the [`Store`] on one SQLite file in the data folder.
//!
//! One write connection behind a mutex (SQLite has one writer at a time anyway; taking
//! turns here spares the busy loop) and a few read connections that WAL lets run beside
//! it. Every write that reads before it writes runs in an immediate transaction, so it is
//! also safe against another process on the same folder.

mod analyses;
mod case_maps;
pub(super) mod clock;
mod convert;
mod leases;
pub(super) mod migrations;
mod recoveries;
mod sessions;
mod shares;

use std::path::Path;
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use rusqlite::Connection;

use super::Store;
use super::error::StoreError;
use super::journal::{LeftLock, LeftMove, MoveUpdate, RecoveryJournal, RecoveryRow};
use super::paths::{DataPaths, create_private_dir};
use super::types::{
    AnalysisRow, AuditEntry, IndexProgress, Interrupted, JobStatus, NewAnalysis, NewShare,
    Progress, Session, ShareRow, StoredResult,
};

/// How long a statement waits for another writer (another process) before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(10);
/// Idle read connections kept for reuse; more are opened when needed.
const IDLE_READERS: usize = 4;

#[derive(Debug)]
pub struct SqliteStore {
    paths: DataPaths,
    writer: Mutex<Connection>,
    readers: Mutex<Vec<Connection>>,
}

impl SqliteStore {
    /// Opens the store in `data_root`: creates the folders (mode 0700) and the database,
    /// and applies the migrations it lacks.
    pub fn open(data_root: &Path) -> Result<SqliteStore, StoreError> {
        let paths = DataPaths::new(data_root);
        create_private_dir(paths.root())?;
        create_private_dir(&paths.analyses_dir())?;
        let database = paths.db();
        let mut writer = open_connection(&database)?;
        migrations::migrate(&mut writer).map_err(|error| error.in_database(&database))?;
        Ok(SqliteStore {
            paths,
            writer: Mutex::new(writer),
            readers: Mutex::new(Vec::new()),
        })
    }

    /// Runs `work` on the write connection. A panic elsewhere cannot leave it mid-transaction
    /// (a dropped transaction rolls back), so a poisoned lock is taken as is.
    fn write<T>(
        &self,
        work: impl FnOnce(&mut Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let mut connection = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        work(&mut connection).map_err(|error| error.in_database(&self.paths.db()))
    }

    /// Runs `work` on an idle read connection, or a new one.
    fn read<T>(
        &self,
        work: impl FnOnce(&Connection) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        let database = self.paths.db();
        let idle = self
            .readers
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop();
        let connection = match idle {
            Some(connection) => connection,
            None => {
                let connection = open_connection(&database)?;
                connection
                    .execute_batch("PRAGMA query_only = ON")
                    .map_err(|error| StoreError::from(error).in_database(&database))?;
                connection
            }
        };
        let outcome = work(&connection).map_err(|error| error.in_database(&database));
        let mut readers = self.readers.lock().unwrap_or_else(PoisonError::into_inner);
        if readers.len() < IDLE_READERS {
            readers.push(connection);
        }
        outcome
    }
}

/// A connection with the settings every one needs: WAL, foreign keys, a busy timeout.
fn open_connection(database: &Path) -> Result<Connection, StoreError> {
    let setup = || -> Result<Connection, rusqlite::Error> {
        let connection = Connection::open(database)?;
        connection.busy_timeout(BUSY_TIMEOUT)?;
        let mode: String =
            connection.query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(rusqlite::Error::InvalidParameterName(format!(
                "journal mode is {mode}, wal could not be set"
            )));
        }
        // NORMAL is durable across application crashes in WAL mode; only a power loss can
        // lose the last transactions, never corrupt the file.
        connection.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;")?;
        Ok(connection)
    };
    setup().map_err(|error| StoreError::from(error).in_database(database))
}

impl Store for SqliteStore {
    fn paths(&self) -> &DataPaths {
        &self.paths
    }

    fn create_analysis(&self, new: &NewAnalysis) -> Result<AnalysisRow, StoreError> {
        self.write(|connection| analyses::create(connection, new))
    }

    fn list_analyses(&self, limit: usize) -> Result<Vec<AnalysisRow>, StoreError> {
        self.read(|connection| analyses::list(connection, limit))
    }

    fn get_analysis(&self, id: &str) -> Result<Option<AnalysisRow>, StoreError> {
        self.read(|connection| analyses::get(connection, id))
    }

    fn claim_next(&self) -> Result<Option<AnalysisRow>, StoreError> {
        self.write(analyses::claim_next)
    }

    fn count_running(&self) -> Result<usize, StoreError> {
        self.read(analyses::count_running)
    }

    fn set_progress(&self, id: &str, progress: &Progress) -> Result<(), StoreError> {
        self.write(|connection| analyses::set_progress(connection, id, progress))
    }

    fn set_index(&self, id: &str, index: &IndexProgress) -> Result<(), StoreError> {
        self.write(|connection| analyses::set_index(connection, id, index))
    }

    fn finish_done(&self, id: &str, result: &StoredResult) -> Result<(), StoreError> {
        self.write(|connection| analyses::finish_done(connection, id, None, result))
    }

    fn finish_failed(&self, id: &str, reason: &str) -> Result<(), StoreError> {
        self.write(|connection| analyses::finish_failed(connection, id, None, reason))
    }

    fn claim_leased(
        &self,
        owner: &str,
        lease: Duration,
        max_attempts: u32,
    ) -> Result<Option<AnalysisRow>, StoreError> {
        self.write(|connection| leases::claim(connection, owner, lease, max_attempts))
    }

    fn renew_lease(
        &self,
        id: &str,
        owner: &str,
        attempt: u32,
        lease: Duration,
    ) -> Result<(), StoreError> {
        self.write(|connection| leases::renew(connection, id, owner, attempt, lease))
    }

    fn finish_done_attempt(
        &self,
        id: &str,
        attempt: u32,
        result: &StoredResult,
    ) -> Result<(), StoreError> {
        self.write(|connection| analyses::finish_done(connection, id, Some(attempt), result))
    }

    fn finish_failed_attempt(
        &self,
        id: &str,
        attempt: u32,
        reason: &str,
    ) -> Result<(), StoreError> {
        self.write(|connection| analyses::finish_failed(connection, id, Some(attempt), reason))
    }

    fn requeue(&self, id: &str) -> Result<(), StoreError> {
        self.write(|connection| analyses::requeue(connection, id))
    }

    fn recover_interrupted(&self, max_attempts: u32) -> Result<Interrupted, StoreError> {
        self.write(|connection| analyses::recover_interrupted(connection, max_attempts))
    }

    fn result_json(&self, id: &str) -> Result<Option<String>, StoreError> {
        self.read(|connection| analyses::result_json(connection, id))
    }

    fn findings(&self, id: &str) -> Result<Vec<crate::detect::Finding>, StoreError> {
        self.read(|connection| analyses::findings(connection, id))
    }

    fn finding(
        &self,
        id: &str,
        finding_id: &str,
    ) -> Result<Option<crate::detect::Finding>, StoreError> {
        self.read(|connection| analyses::finding(connection, id, finding_id))
    }

    /// The rows go first, in one statement, then the folder: an analysis is never listed
    /// with its files half gone, and a failure to remove the folder names it.
    fn delete_analysis(&self, id: &str) -> Result<bool, StoreError> {
        let folder = self.paths.analysis_dir(id)?;
        if !self.write(|connection| analyses::delete_rows(connection, id))? {
            return Ok(false);
        }
        match std::fs::remove_dir_all(&folder) {
            Ok(()) => Ok(true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(true),
            Err(error) => Err(StoreError::io(folder, error)),
        }
    }

    fn create_session(&self, session: &Session) -> Result<(), StoreError> {
        self.write(|connection| sessions::create(connection, session))
    }

    fn session(&self, id_hash: &str) -> Result<Option<Session>, StoreError> {
        self.read(|connection| sessions::get(connection, id_hash))
    }

    fn delete_session(&self, id_hash: &str) -> Result<(), StoreError> {
        self.write(|connection| sessions::delete(connection, id_hash))
    }

    fn audit(
        &self,
        actor: &str,
        action: &str,
        target: &str,
        detail: &str,
    ) -> Result<(), StoreError> {
        self.write(|connection| sessions::audit(connection, actor, action, target, detail))
    }

    fn audit_counted(
        &self,
        actor: &str,
        action: &str,
        client: &str,
        detail: &str,
    ) -> Result<(), StoreError> {
        self.write(|connection| sessions::audit_counted(connection, actor, action, client, detail))
    }

    fn audit_log(&self, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
        self.read(|connection| sessions::audit_log(connection, limit))
    }

    fn create_share(&self, share: &NewShare) -> Result<ShareRow, StoreError> {
        self.write(|connection| shares::create(connection, share))
    }

    fn shares(&self, analysis_id: &str) -> Result<Vec<ShareRow>, StoreError> {
        self.read(|connection| shares::list(connection, analysis_id))
    }

    fn live_share(&self, token_hash: &str) -> Result<Option<ShareRow>, StoreError> {
        self.read(|connection| shares::live(connection, token_hash))
    }

    fn revoke_share(&self, analysis_id: &str, share_id: &str) -> Result<bool, StoreError> {
        self.write(|connection| shares::revoke(connection, analysis_id, share_id))
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
        self.read(analyses::counts_by_status)
    }
}

impl super::case_map::CaseMapRows for SqliteStore {
    fn read_row(&self, id: &str) -> Result<Option<super::case_map::CaseMapRow>, StoreError> {
        self.read(|connection| case_maps::read(connection, id))
    }

    fn swap_row(
        &self,
        id: &str,
        expected: Option<i64>,
        json: &str,
        now: &str,
    ) -> Result<bool, StoreError> {
        self.write(|connection| case_maps::swap(connection, id, expected, json, now))
    }
}

impl RecoveryJournal for SqliteStore {
    fn begin_recovery(
        &self,
        host: &str,
        source: &str,
        moves: &[(String, String)],
    ) -> Result<i64, StoreError> {
        self.write(|connection| recoveries::begin(connection, host, source, moves))
    }

    fn update_move(
        &self,
        recovery: i64,
        instance: &str,
        update: &MoveUpdate,
    ) -> Result<(), StoreError> {
        self.write(|connection| recoveries::update_move(connection, recovery, instance, update))
    }

    fn end_recovery(
        &self,
        recovery: i64,
        refused: bool,
        message: Option<&str>,
    ) -> Result<RecoveryRow, StoreError> {
        self.write(|connection| recoveries::end(connection, recovery, refused, message))
    }

    fn recovery(&self, recovery: i64) -> Result<Option<RecoveryRow>, StoreError> {
        self.read(|connection| recoveries::get(connection, recovery))
    }

    fn recoveries(&self, limit: usize) -> Result<Vec<RecoveryRow>, StoreError> {
        self.read(|connection| recoveries::list(connection, limit))
    }

    fn repair_interrupted_recoveries(&self) -> Result<Vec<i64>, StoreError> {
        self.write(recoveries::repair_interrupted)
    }

    fn left_locks(&self) -> Result<Vec<LeftMove>, StoreError> {
        self.read(recoveries::left_locks)
    }

    fn lock_looked_at(&self, left: &LeftMove, found: LeftLock) -> Result<(), StoreError> {
        self.write(|connection| recoveries::lock_looked_at(connection, left, found))
    }

    fn record_plan_failure(
        &self,
        host: &str,
        source: &str,
        message: &str,
    ) -> Result<i64, StoreError> {
        self.write(|connection| recoveries::plan_failed(connection, host, source, message))
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod recovery_tests;
