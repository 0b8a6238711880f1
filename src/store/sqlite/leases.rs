//! Leased claims (issue 27) on SQLite: what the PostgreSQL store does with
//! `FOR UPDATE SKIP LOCKED`, done here in one immediate transaction (SQLite has one
//! writer at a time). Lease times are Unix milliseconds of this machine's clock.

use std::time::Duration;

use rusqlite::{Connection, OptionalExtension, TransactionBehavior, params};

use super::analyses;
use super::clock;
use super::convert::unsigned32;
use crate::store::error::StoreError;
use crate::store::paths::validate_id;
use crate::store::types::AnalysisRow;

fn now_ms() -> i64 {
    clock::now().as_millisecond()
}

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

pub(super) fn claim(
    connection: &mut Connection,
    owner: &str,
    lease: Duration,
    max_attempts: u32,
) -> Result<Option<AnalysisRow>, StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let now = now_ms();
    // Expired claims that have had every attempt end failed, as a restart would fail them.
    transaction.execute(
        "UPDATE analyses SET status = 'failed', finished_at = ?2,
             error = 'interrupted ' || attempts || ' times',
             lease_owner = NULL, lease_expires = NULL,
             index_error = CASE index_state WHEN 'running' THEN 'the analysis failed' ELSE index_error END,
             index_state = CASE index_state WHEN 'running' THEN 'failed' ELSE index_state END
         WHERE status = 'running' AND lease_expires < ?1 AND attempts >= ?3",
        params![now, clock::now_rfc3339(), max_attempts],
    )?;
    let next: Option<String> = transaction
        .query_row(
            "SELECT id FROM analyses
             WHERE status = 'queued' OR (status = 'running' AND lease_expires < ?1)
             ORDER BY seq LIMIT 1",
            [now],
            |row| row.get(0),
        )
        .optional()?;
    let Some(id) = next else {
        transaction.commit()?;
        return Ok(None);
    };
    transaction.execute(
        "UPDATE analyses SET status = 'running', attempts = attempts + 1, started_at = ?2,
             finished_at = NULL, error = NULL, lease_owner = ?3, lease_expires = ?4,
             bytes_done = 0, bytes_total = 0, files_done = 0, files_total = 0,
             index_state = CASE index_state WHEN 'running' THEN 'pending' ELSE index_state END
         WHERE id = ?1",
        params![
            id,
            clock::now_rfc3339(),
            owner,
            now.saturating_add(lease_ms(lease))
        ],
    )?;
    let claimed = analyses::get(&transaction, &id)?;
    transaction.commit()?;
    Ok(claimed)
}

pub(super) fn renew(
    connection: &Connection,
    id: &str,
    owner: &str,
    attempt: u32,
    lease: Duration,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let changed = connection.execute(
        "UPDATE analyses SET lease_expires = ?4
         WHERE id = ?1 AND status = 'running' AND lease_owner = ?2 AND attempts = ?3",
        params![id, owner, attempt, now_ms().saturating_add(lease_ms(lease))],
    )?;
    if changed > 0 {
        return Ok(());
    }
    let known: Option<u32> = connection
        .query_row("SELECT attempts FROM analyses WHERE id = ?1", [id], |row| {
            unsigned32(row, 0)
        })
        .optional()?;
    match known {
        None => Err(StoreError::NotFound(id.to_owned())),
        Some(_) => Err(StoreError::Superseded {
            id: id.to_owned(),
            attempt,
        }),
    }
}
