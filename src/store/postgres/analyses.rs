//! The analyses table and what hangs off it, on PostgreSQL: the same statements as the
//! SQLite store's, with row locks (`FOR UPDATE`) where SQLite takes its one write lock.

use postgres::error::SqlState;
use postgres::{Client, GenericClient, Row};

use super::convert::{count, parsed, signed, unsigned, unsigned32};
use crate::detect::{Finding, Severity};
use crate::store::error::StoreError;
use crate::store::findings;
use crate::store::paths::validate_id;
use crate::store::sqlite::clock;
use crate::store::types::{
    AnalysisRow, IndexProgress, Interrupted, JobStatus, NewAnalysis, Progress, StoredResult,
};

/// The columns [`analysis_from_row`] reads, in its order.
pub(super) const COLUMNS: &str = "id, name, status, created_at, started_at, finished_at, \
     size_bytes, sha256, bytes_done, bytes_total, files_done, files_total, index_state, \
     index_bytes_done, index_error, error, attempts, finding_count, critical_count";

pub(super) fn analysis_from_row(row: &Row) -> Result<AnalysisRow, StoreError> {
    Ok(AnalysisRow {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        status: parsed(row, 2)?,
        created_at: row.try_get(3)?,
        started_at: row.try_get(4)?,
        finished_at: row.try_get(5)?,
        size_bytes: unsigned(row, 6)?,
        sha256: row.try_get(7)?,
        progress: Progress {
            bytes_done: unsigned(row, 8)?,
            bytes_total: unsigned(row, 9)?,
            files_done: unsigned(row, 10)?,
            files_total: unsigned(row, 11)?,
        },
        index: IndexProgress {
            state: parsed(row, 12)?,
            bytes_done: unsigned(row, 13)?,
            error: row.try_get(14)?,
        },
        error: row.try_get(15)?,
        attempts: unsigned32(row, 16)?,
        finding_count: unsigned32(row, 17)?,
        critical_count: unsigned32(row, 18)?,
    })
}

fn finding_of(analysis: &str, finding_id: String, json: &str) -> Result<Finding, StoreError> {
    findings::from_json(json).map_err(|source| StoreError::Finding {
        analysis: analysis.to_owned(),
        finding: finding_id,
        source,
    })
}

pub(super) fn create(client: &mut Client, new: &NewAnalysis) -> Result<AnalysisRow, StoreError> {
    validate_id(&new.id)?;
    let inserted = client.execute(
        "INSERT INTO analyses (id, name, status, created_at, size_bytes, sha256)
         VALUES ($1, $2, 'queued', $3, $4, $5)",
        &[
            &new.id,
            &new.name,
            &clock::now_rfc3339(),
            &signed(new.size_bytes),
            &new.sha256,
        ],
    );
    match inserted {
        Err(error) if error.code() == Some(&SqlState::UNIQUE_VIOLATION) => {
            return Err(StoreError::AlreadyExists(new.id.clone()));
        }
        other => other?,
    };
    get(client, &new.id)?.ok_or_else(|| StoreError::NotFound(new.id.clone()))
}

pub(super) fn list(client: &mut Client, limit: usize) -> Result<Vec<AnalysisRow>, StoreError> {
    client
        .query(
            &format!("SELECT {COLUMNS} FROM analyses ORDER BY seq DESC LIMIT $1"),
            &[&count(limit)],
        )?
        .iter()
        .map(analysis_from_row)
        .collect()
}

pub(super) fn get(
    client: &mut impl GenericClient,
    id: &str,
) -> Result<Option<AnalysisRow>, StoreError> {
    validate_id(id)?;
    client
        .query_opt(
            &format!("SELECT {COLUMNS} FROM analyses WHERE id = $1"),
            &[&id],
        )?
        .as_ref()
        .map(analysis_from_row)
        .transpose()
}

pub(super) fn count_running(client: &mut Client) -> Result<usize, StoreError> {
    let running: i64 = client
        .query_one(
            "SELECT COUNT(*) FROM analyses WHERE status = 'running'",
            &[],
        )?
        .try_get(0)?;
    Ok(usize::try_from(running).unwrap_or(0))
}

pub(super) fn set_progress(
    client: &mut Client,
    id: &str,
    progress: &Progress,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let changed = client.execute(
        "UPDATE analyses SET bytes_done = $2, bytes_total = $3, files_done = $4, files_total = $5
         WHERE id = $1",
        &[
            &id,
            &signed(progress.bytes_done),
            &signed(progress.bytes_total),
            &signed(progress.files_done),
            &signed(progress.files_total),
        ],
    )?;
    found(changed, id)
}

pub(super) fn set_index(
    client: &mut Client,
    id: &str,
    index: &IndexProgress,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let changed = client.execute(
        "UPDATE analyses SET index_state = $2, index_bytes_done = $3, index_error = $4
         WHERE id = $1",
        &[
            &id,
            &index.state.as_str(),
            &signed(index.bytes_done),
            &index.error,
        ],
    )?;
    found(changed, id)
}

/// The result, its findings, the counts and the status in one transaction, the row
/// locked first; with an attempt, only while the job is still that attempt's.
pub(super) fn finish_done(
    client: &mut Client,
    id: &str,
    attempt: Option<u32>,
    result: &StoredResult,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let mut transaction = client.transaction()?;
    require(
        &mut transaction,
        id,
        attempt,
        &[JobStatus::Running],
        JobStatus::Done,
    )?;
    transaction.execute(
        "INSERT INTO results (analysis_id, report_json) VALUES ($1, $2)",
        &[&id, &result.report_json],
    )?;
    let insert = transaction.prepare(
        "INSERT INTO findings (analysis_id, finding_id, position, detector, severity, title, json)
         VALUES ($1, $2, $3, $4, $5, $6, $7)",
    )?;
    for (position, finding) in result.findings.iter().enumerate() {
        let json = findings::to_json(finding).map_err(|source| StoreError::Finding {
            analysis: id.to_owned(),
            finding: finding.id.to_string(),
            source,
        })?;
        transaction.execute(
            &insert,
            &[
                &id,
                &finding.id.as_str(),
                &count(position),
                &finding.detector,
                &finding.severity.as_str(),
                &finding.title,
                &json,
            ],
        )?;
    }
    let critical = result
        .findings
        .iter()
        .filter(|finding| finding.severity == Severity::Critical)
        .count();
    transaction.execute(
        "UPDATE analyses SET status = 'done', finished_at = $2, error = NULL,
             finding_count = $3, critical_count = $4, lease_owner = NULL, lease_expires = NULL
         WHERE id = $1",
        &[
            &id,
            &clock::now_rfc3339(),
            &count(result.findings.len()),
            &count(critical),
        ],
    )?;
    transaction.commit()?;
    Ok(())
}

pub(super) fn finish_failed(
    client: &mut Client,
    id: &str,
    attempt: Option<u32>,
    reason: &str,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let mut transaction = client.transaction()?;
    require(
        &mut transaction,
        id,
        attempt,
        &[JobStatus::Queued, JobStatus::Running],
        JobStatus::Failed,
    )?;
    transaction.execute(
        "UPDATE analyses SET status = 'failed', finished_at = $2, error = $3,
             lease_owner = NULL, lease_expires = NULL,
             index_error = CASE index_state WHEN 'running' THEN 'the analysis failed' ELSE index_error END,
             index_state = CASE index_state WHEN 'running' THEN 'failed' ELSE index_state END
         WHERE id = $1",
        &[&id, &clock::now_rfc3339(), &reason],
    )?;
    transaction.commit()?;
    Ok(())
}

pub(super) fn requeue(client: &mut Client, id: &str) -> Result<(), StoreError> {
    validate_id(id)?;
    let mut transaction = client.transaction()?;
    require(
        &mut transaction,
        id,
        None,
        &[JobStatus::Running],
        JobStatus::Queued,
    )?;
    transaction.execute(
        "UPDATE analyses SET status = 'queued', started_at = NULL,
             attempts = GREATEST(attempts - 1, 0), lease_owner = NULL, lease_expires = NULL,
             index_state = CASE index_state WHEN 'running' THEN 'pending' ELSE index_state END
         WHERE id = $1",
        &[&id],
    )?;
    transaction.commit()?;
    Ok(())
}

/// As the SQLite store's: for a single process that restarts. Processes that share the
/// store use leases instead ([`super::leases`]), since a running job may be another's.
pub(super) fn recover_interrupted(
    client: &mut Client,
    max_attempts: u32,
) -> Result<Interrupted, StoreError> {
    let mut transaction = client.transaction()?;
    let interrupted: Vec<(String, u32)> = transaction
        .query(
            "SELECT id, attempts FROM analyses WHERE status = 'running' ORDER BY seq FOR UPDATE",
            &[],
        )?
        .iter()
        .map(|row| Ok((row.try_get(0)?, unsigned32(row, 1)?)))
        .collect::<Result<_, StoreError>>()?;
    let now = clock::now_rfc3339();
    let (mut requeued, mut failed) = (Vec::new(), Vec::new());
    for (id, attempts) in interrupted {
        if attempts < max_attempts {
            transaction.execute(
                "UPDATE analyses SET status = 'queued', started_at = NULL WHERE id = $1",
                &[&id],
            )?;
            requeued.push(id);
        } else {
            transaction.execute(
                "UPDATE analyses SET status = 'failed', finished_at = $2, error = $3 WHERE id = $1",
                &[&id, &now, &format!("interrupted {attempts} times")],
            )?;
            failed.push(id);
        }
    }
    let index_failed: Vec<String> = transaction
        .query(
            "SELECT id FROM analyses WHERE status = 'done' AND index_state = 'running' ORDER BY seq",
            &[],
        )?
        .iter()
        .map(|row| row.try_get(0))
        .collect::<Result<_, _>>()?;
    transaction.execute(
        "UPDATE analyses SET index_state = 'failed', index_bytes_done = 0,
             index_error = 'interrupted by a stop before the index was finished'
         WHERE status = 'done' AND index_state = 'running'",
        &[],
    )?;
    transaction.execute(
        "UPDATE analyses SET index_state = 'pending' WHERE index_state = 'running'",
        &[],
    )?;
    transaction.commit()?;
    Ok(Interrupted {
        requeued,
        failed,
        index_failed,
    })
}

pub(super) fn result_json(client: &mut Client, id: &str) -> Result<Option<String>, StoreError> {
    validate_id(id)?;
    Ok(client
        .query_opt(
            "SELECT report_json FROM results WHERE analysis_id = $1",
            &[&id],
        )?
        .map(|row| row.try_get(0))
        .transpose()?)
}

pub(super) fn findings(client: &mut Client, id: &str) -> Result<Vec<Finding>, StoreError> {
    validate_id(id)?;
    client
        .query(
            "SELECT finding_id, json FROM findings WHERE analysis_id = $1 ORDER BY position",
            &[&id],
        )?
        .iter()
        .map(|row| {
            let json: String = row.try_get(1)?;
            finding_of(id, row.try_get(0)?, &json)
        })
        .collect()
}

pub(super) fn finding(
    client: &mut Client,
    id: &str,
    finding_id: &str,
) -> Result<Option<Finding>, StoreError> {
    validate_id(id)?;
    let json: Option<String> = client
        .query_opt(
            "SELECT json FROM findings WHERE analysis_id = $1 AND finding_id = $2",
            &[&id, &finding_id],
        )?
        .map(|row| row.try_get(0))
        .transpose()?;
    json.map(|json| finding_of(id, finding_id.to_owned(), &json))
        .transpose()
}

pub(super) fn delete_rows(client: &mut Client, id: &str) -> Result<bool, StoreError> {
    validate_id(id)?;
    Ok(client.execute("DELETE FROM analyses WHERE id = $1", &[&id])? > 0)
}

pub(super) fn counts_by_status(client: &mut Client) -> Result<Vec<(JobStatus, u64)>, StoreError> {
    let counted: Vec<(JobStatus, u64)> = client
        .query("SELECT status, COUNT(*) FROM analyses GROUP BY status", &[])?
        .iter()
        .map(|row| Ok((parsed::<JobStatus>(row, 0)?, unsigned(row, 1)?)))
        .collect::<Result<_, StoreError>>()?;
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

fn found(changed: u64, id: &str) -> Result<(), StoreError> {
    if changed == 0 {
        Err(StoreError::NotFound(id.to_owned()))
    } else {
        Ok(())
    }
}

/// Locks the row and checks the move is allowed: the status (and, for a claim, that the
/// job is still running that attempt).
fn require(
    transaction: &mut postgres::Transaction<'_>,
    id: &str,
    attempt: Option<u32>,
    allowed: &[JobStatus],
    wanted: JobStatus,
) -> Result<(), StoreError> {
    let row = transaction.query_opt(
        "SELECT status, attempts FROM analyses WHERE id = $1 FOR UPDATE",
        &[&id],
    )?;
    let Some(row) = row else {
        return Err(StoreError::NotFound(id.to_owned()));
    };
    let status: JobStatus = parsed(&row, 0)?;
    if let Some(attempt) = attempt
        && (status != JobStatus::Running || unsigned32(&row, 1)? != attempt)
    {
        return Err(StoreError::Superseded {
            id: id.to_owned(),
            attempt,
        });
    }
    if allowed.contains(&status) {
        Ok(())
    } else {
        Err(StoreError::InvalidTransition {
            id: id.to_owned(),
            status,
            wanted,
        })
    }
}
