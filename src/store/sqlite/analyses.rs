//! The analyses table and what hangs off it (results, findings): the job queue's SQL.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::clock;
use super::convert::{count, parsed, signed, unsigned, unsigned32};
use crate::detect::{Finding, Severity};
use crate::store::error::StoreError;
use crate::store::findings;
use crate::store::paths::validate_id;
use crate::store::types::{
    AnalysisRow, IndexProgress, Interrupted, JobStatus, NewAnalysis, Progress, StoredResult,
};

/// The columns [`analysis_from_row`] reads, in its order.
const COLUMNS: &str = "id, name, status, created_at, started_at, finished_at, size_bytes, sha256, \
     bytes_done, bytes_total, files_done, files_total, index_state, index_bytes_done, index_error, \
     error, attempts, finding_count, critical_count";

fn analysis_from_row(row: &Row<'_>) -> rusqlite::Result<AnalysisRow> {
    Ok(AnalysisRow {
        id: row.get(0)?,
        name: row.get(1)?,
        status: parsed(row, 2)?,
        created_at: row.get(3)?,
        started_at: row.get(4)?,
        finished_at: row.get(5)?,
        size_bytes: unsigned(row, 6)?,
        sha256: row.get(7)?,
        progress: Progress {
            bytes_done: unsigned(row, 8)?,
            bytes_total: unsigned(row, 9)?,
            files_done: unsigned(row, 10)?,
            files_total: unsigned(row, 11)?,
        },
        index: IndexProgress {
            state: parsed(row, 12)?,
            bytes_done: unsigned(row, 13)?,
            error: row.get(14)?,
        },
        error: row.get(15)?,
        attempts: unsigned32(row, 16)?,
        finding_count: unsigned32(row, 17)?,
        critical_count: unsigned32(row, 18)?,
    })
}

/// A stored finding read back typed.
fn finding_of(analysis: &str, finding_id: String, json: &str) -> Result<Finding, StoreError> {
    findings::from_json(json).map_err(|source| StoreError::Finding {
        analysis: analysis.to_owned(),
        finding: finding_id,
        source,
    })
}

pub(super) fn create(
    connection: &Connection,
    new: &NewAnalysis,
) -> Result<AnalysisRow, StoreError> {
    validate_id(&new.id)?;
    let inserted = connection.execute(
        "INSERT INTO analyses (id, name, status, created_at, size_bytes, sha256)
         VALUES (?1, ?2, 'queued', ?3, ?4, ?5)",
        params![
            new.id,
            new.name,
            clock::now_rfc3339(),
            signed(new.size_bytes),
            new.sha256
        ],
    );
    match inserted {
        Err(rusqlite::Error::SqliteFailure(failure, _))
            if failure.code == rusqlite::ErrorCode::ConstraintViolation =>
        {
            return Err(StoreError::AlreadyExists(new.id.clone()));
        }
        other => other?,
    };
    get(connection, &new.id)?.ok_or_else(|| StoreError::NotFound(new.id.clone()))
}

pub(super) fn list(connection: &Connection, limit: usize) -> Result<Vec<AnalysisRow>, StoreError> {
    let mut statement = connection.prepare(&format!(
        "SELECT {COLUMNS} FROM analyses ORDER BY seq DESC LIMIT ?1"
    ))?;
    let rows = statement.query_map([count(limit)], analysis_from_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn get(connection: &Connection, id: &str) -> Result<Option<AnalysisRow>, StoreError> {
    validate_id(id)?;
    Ok(connection
        .query_row(
            &format!("SELECT {COLUMNS} FROM analyses WHERE id = ?1"),
            [id],
            analysis_from_row,
        )
        .optional()?)
}

/// The oldest queued analysis becomes running, in one immediate transaction: no two
/// callers (threads or processes) ever take the same one.
pub(super) fn claim_next(connection: &mut Connection) -> Result<Option<AnalysisRow>, StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let oldest: Option<String> = transaction
        .query_row(
            "SELECT id FROM analyses WHERE status = 'queued' ORDER BY seq LIMIT 1",
            [],
            |row| row.get(0),
        )
        .optional()?;
    let Some(id) = oldest else {
        return Ok(None);
    };
    transaction.execute(
        "UPDATE analyses SET status = 'running', attempts = attempts + 1, started_at = ?2,
             finished_at = NULL, error = NULL, lease_owner = NULL, lease_expires = NULL,
             bytes_done = 0, bytes_total = 0, files_done = 0, files_total = 0
         WHERE id = ?1",
        params![id, clock::now_rfc3339()],
    )?;
    let claimed = get(&transaction, &id)?;
    transaction.commit()?;
    Ok(claimed)
}

pub(super) fn count_running(connection: &Connection) -> Result<usize, StoreError> {
    let running: i64 = connection.query_row(
        "SELECT COUNT(*) FROM analyses WHERE status = 'running'",
        [],
        |row| row.get(0),
    )?;
    Ok(usize::try_from(running).unwrap_or(0))
}

pub(super) fn set_progress(
    connection: &Connection,
    id: &str,
    progress: &Progress,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let changed = connection.execute(
        "UPDATE analyses SET bytes_done = ?2, bytes_total = ?3, files_done = ?4, files_total = ?5
         WHERE id = ?1",
        params![
            id,
            signed(progress.bytes_done),
            signed(progress.bytes_total),
            signed(progress.files_done),
            signed(progress.files_total)
        ],
    )?;
    found(changed, id)
}

pub(super) fn set_index(
    connection: &Connection,
    id: &str,
    index: &IndexProgress,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let changed = connection.execute(
        "UPDATE analyses SET index_state = ?2, index_bytes_done = ?3, index_error = ?4 WHERE id = ?1",
        params![id, index.state.as_str(), signed(index.bytes_done), index.error],
    )?;
    found(changed, id)
}

/// The result, its findings, the counts and the status, all in one transaction; with an
/// attempt, only while the job is still that attempt's.
pub(super) fn finish_done(
    connection: &mut Connection,
    id: &str,
    attempt: Option<u32>,
    result: &StoredResult,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    require_attempt(&transaction, id, attempt)?;
    require_status(&transaction, id, &[JobStatus::Running], JobStatus::Done)?;
    transaction.execute(
        "INSERT INTO results (analysis_id, report_json) VALUES (?1, ?2)",
        params![id, result.report_json],
    )?;
    {
        let mut insert = transaction.prepare(
            "INSERT INTO findings (analysis_id, finding_id, position, detector, severity, title, json)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
        )?;
        for (position, finding) in result.findings.iter().enumerate() {
            let json = findings::to_json(finding).map_err(|source| StoreError::Finding {
                analysis: id.to_owned(),
                finding: finding.id.to_string(),
                source,
            })?;
            insert.execute(params![
                id,
                finding.id.as_str(),
                count(position),
                finding.detector,
                finding.severity.as_str(),
                finding.title,
                json
            ])?;
        }
    }
    let critical = result
        .findings
        .iter()
        .filter(|finding| finding.severity == Severity::Critical)
        .count();
    transaction.execute(
        "UPDATE analyses SET status = 'done', finished_at = ?2, error = NULL,
             finding_count = ?3, critical_count = ?4
         WHERE id = ?1",
        params![
            id,
            clock::now_rfc3339(),
            count(result.findings.len()),
            count(critical)
        ],
    )?;
    transaction.commit()?;
    Ok(())
}

/// A queued analysis can fail too (its upload turned out unreadable before it ran).
pub(super) fn finish_failed(
    connection: &mut Connection,
    id: &str,
    attempt: Option<u32>,
    reason: &str,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    require_attempt(&transaction, id, attempt)?;
    require_status(
        &transaction,
        id,
        &[JobStatus::Queued, JobStatus::Running],
        JobStatus::Failed,
    )?;
    transaction.execute(
        // An index begun with the analysis cannot finish without it: failed too, never
        // left `running`.
        "UPDATE analyses SET status = 'failed', finished_at = ?2, error = ?3,
             index_error = CASE index_state WHEN 'running' THEN 'the analysis failed' ELSE index_error END,
             index_state = CASE index_state WHEN 'running' THEN 'failed' ELSE index_state END
         WHERE id = ?1",
        params![id, clock::now_rfc3339(), reason],
    )?;
    transaction.commit()?;
    Ok(())
}

/// A graceful stop is not the job's fault: the attempt it was given is handed back.
pub(super) fn requeue(connection: &mut Connection, id: &str) -> Result<(), StoreError> {
    validate_id(id)?;
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    require_status(&transaction, id, &[JobStatus::Running], JobStatus::Queued)?;
    transaction.execute(
        "UPDATE analyses SET status = 'queued', started_at = NULL,
             attempts = MAX(attempts - 1, 0),
             index_state = CASE index_state WHEN 'running' THEN 'pending' ELSE index_state END
         WHERE id = ?1",
        [id],
    )?;
    transaction.commit()?;
    Ok(())
}

/// After a crash: jobs left running are queued again until they have used `max_attempts`,
/// then failed; indexes left running go back to pending.
pub(super) fn recover_interrupted(
    connection: &mut Connection,
    max_attempts: u32,
) -> Result<Interrupted, StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let interrupted: Vec<(String, u32)> = {
        let mut statement = transaction
            .prepare("SELECT id, attempts FROM analyses WHERE status = 'running' ORDER BY seq")?;
        let rows = statement.query_map([], |row| Ok((row.get(0)?, unsigned32(row, 1)?)))?;
        rows.collect::<Result<_, _>>()?
    };
    let now = clock::now_rfc3339();
    let (mut requeued, mut failed) = (Vec::new(), Vec::new());
    for (id, attempts) in interrupted {
        if attempts < max_attempts {
            transaction.execute(
                "UPDATE analyses SET status = 'queued', started_at = NULL WHERE id = ?1",
                [&id],
            )?;
            requeued.push(id);
        } else {
            transaction.execute(
                "UPDATE analyses SET status = 'failed', finished_at = ?2, error = ?3 WHERE id = ?1",
                params![id, now, format!("interrupted {attempts} times")],
            )?;
            failed.push(id);
        }
    }
    let index_failed: Vec<String> = {
        let mut statement = transaction.prepare(
            "SELECT id FROM analyses WHERE status = 'done' AND index_state = 'running' ORDER BY seq",
        )?;
        let rows = statement.query_map([], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    transaction.execute(
        "UPDATE analyses SET index_state = 'failed', index_bytes_done = 0,
             index_error = 'interrupted by a stop before the index was finished'
         WHERE status = 'done' AND index_state = 'running'",
        [],
    )?;
    transaction.execute(
        "UPDATE analyses SET index_state = 'pending' WHERE index_state = 'running'",
        [],
    )?;
    transaction.commit()?;
    Ok(Interrupted {
        requeued,
        failed,
        index_failed,
    })
}

pub(super) fn result_json(connection: &Connection, id: &str) -> Result<Option<String>, StoreError> {
    validate_id(id)?;
    Ok(connection
        .query_row(
            "SELECT report_json FROM results WHERE analysis_id = ?1",
            [id],
            |row| row.get(0),
        )
        .optional()?)
}

pub(super) fn findings(connection: &Connection, id: &str) -> Result<Vec<Finding>, StoreError> {
    validate_id(id)?;
    let mut statement = connection.prepare(
        "SELECT finding_id, json FROM findings WHERE analysis_id = ?1 ORDER BY position",
    )?;
    let rows = statement.query_map([id], |row| Ok((row.get(0)?, row.get::<_, String>(1)?)))?;
    let mut out = Vec::new();
    for row in rows {
        let (finding_id, json) = row?;
        out.push(finding_of(id, finding_id, &json)?);
    }
    Ok(out)
}

pub(super) fn finding(
    connection: &Connection,
    id: &str,
    finding_id: &str,
) -> Result<Option<Finding>, StoreError> {
    validate_id(id)?;
    let json: Option<String> = connection
        .query_row(
            "SELECT json FROM findings WHERE analysis_id = ?1 AND finding_id = ?2",
            [id, finding_id],
            |row| row.get(0),
        )
        .optional()?;
    json.map(|json| finding_of(id, finding_id.to_owned(), &json))
        .transpose()
}

/// Removes the analysis's rows (results and findings follow by cascade); false if unknown.
pub(super) fn delete_rows(connection: &Connection, id: &str) -> Result<bool, StoreError> {
    validate_id(id)?;
    let deleted = connection.execute("DELETE FROM analyses WHERE id = ?1", [id])?;
    Ok(deleted > 0)
}

/// Every status with its count, zeros included, in [`JobStatus::ALL`] order.
pub(super) fn counts_by_status(
    connection: &Connection,
) -> Result<Vec<(JobStatus, u64)>, StoreError> {
    let mut statement =
        connection.prepare("SELECT status, COUNT(*) FROM analyses GROUP BY status")?;
    let rows = statement.query_map([], |row| {
        Ok((parsed::<JobStatus>(row, 0)?, unsigned(row, 1)?))
    })?;
    let counted: Vec<(JobStatus, u64)> = rows.collect::<Result<_, _>>()?;
    Ok(JobStatus::ALL
        .into_iter()
        .map(|status| {
            let n = counted
                .iter()
                .find(|(counted_status, _)| *counted_status == status)
                .map_or(0, |(_, n)| *n);
            (status, n)
        })
        .collect())
}

fn found(changed: usize, id: &str) -> Result<(), StoreError> {
    if changed == 0 {
        Err(StoreError::NotFound(id.to_owned()))
    } else {
        Ok(())
    }
}

/// A claim's writes are refused once the job is running another attempt, or no longer running.
fn require_attempt(
    connection: &Connection,
    id: &str,
    attempt: Option<u32>,
) -> Result<(), StoreError> {
    let Some(attempt) = attempt else {
        return Ok(());
    };
    let current: Option<(JobStatus, u32)> = connection
        .query_row(
            "SELECT status, attempts FROM analyses WHERE id = ?1",
            [id],
            |row| Ok((parsed(row, 0)?, unsigned32(row, 1)?)),
        )
        .optional()?;
    match current {
        None => Err(StoreError::NotFound(id.to_owned())),
        Some((JobStatus::Running, attempts)) if attempts == attempt => Ok(()),
        Some(_) => Err(StoreError::Superseded {
            id: id.to_owned(),
            attempt,
        }),
    }
}

fn require_status(
    connection: &Connection,
    id: &str,
    allowed: &[JobStatus],
    wanted: JobStatus,
) -> Result<(), StoreError> {
    let status: Option<JobStatus> = connection
        .query_row("SELECT status FROM analyses WHERE id = ?1", [id], |row| {
            parsed(row, 0)
        })
        .optional()?;
    match status {
        None => Err(StoreError::NotFound(id.to_owned())),
        Some(status) if allowed.contains(&status) => Ok(()),
        Some(status) => Err(StoreError::InvalidTransition {
            id: id.to_owned(),
            status,
            wanted,
        }),
    }
}
