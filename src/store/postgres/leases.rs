//! The job queue of several workers (issue 27): a claim takes the oldest queued job, or
//! the oldest whose lease has expired, with `FOR UPDATE SKIP LOCKED` (workers claiming at
//! once never wait on each other nor take the same job), and holds it under a lease its
//! worker renews while it works. Lease times are the database's clock in Unix
//! milliseconds, so the workers' clocks need not agree.

use std::time::Duration;

use postgres::Client;

use super::analyses::get;
use crate::store::error::StoreError;
use crate::store::paths::validate_id;
use crate::store::sqlite::clock;
use crate::store::types::AnalysisRow;

/// Now on the database's clock, in Unix milliseconds.
const NOW_MS: &str = "(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT";

fn lease_ms(lease: Duration) -> i64 {
    i64::try_from(lease.as_millis()).unwrap_or(i64::MAX)
}

/// With an owner, a leased claim (expired claims taken again); without, the single
/// process's claim of a queued job with no lease ([`crate::store::Store::claim_next`]).
pub(super) fn claim(
    client: &mut Client,
    owner: Option<&str>,
    lease: Duration,
    max_attempts: u32,
) -> Result<Option<AnalysisRow>, StoreError> {
    let mut transaction = client.transaction()?;
    if owner.is_some() {
        // Expired claims that have had every attempt end failed, as a restart would
        // fail them; rows another worker is claiming are left to it.
        transaction.execute(
            &format!(
                "UPDATE analyses SET status = 'failed', finished_at = $1,
                     error = 'interrupted ' || attempts || ' times',
                     lease_owner = NULL, lease_expires = NULL,
                     index_error = CASE index_state WHEN 'running' THEN 'the analysis failed' ELSE index_error END,
                     index_state = CASE index_state WHEN 'running' THEN 'failed' ELSE index_state END
                 WHERE seq IN (SELECT seq FROM analyses
                               WHERE status = 'running' AND lease_expires < {NOW_MS}
                                 AND attempts >= $2
                               FOR UPDATE SKIP LOCKED)"
            ),
            &[&clock::now_rfc3339(), &i64::from(max_attempts)],
        )?;
    }
    let expired = if owner.is_some() {
        format!(" OR (status = 'running' AND lease_expires < {NOW_MS})")
    } else {
        String::new()
    };
    let next = transaction.query_opt(
        &format!(
            "SELECT seq FROM analyses WHERE status = 'queued'{expired}
             ORDER BY seq LIMIT 1 FOR UPDATE SKIP LOCKED"
        ),
        &[],
    )?;
    let Some(next) = next else {
        transaction.commit()?;
        return Ok(None);
    };
    let seq: i64 = next.try_get(0)?;
    let expires = owner.map(|_| lease_ms(lease));
    let claimed = transaction.query_one(
        &format!(
            "UPDATE analyses SET status = 'running', attempts = attempts + 1, started_at = $2,
                 finished_at = NULL, error = NULL, lease_owner = $3,
                 lease_expires = {NOW_MS} + $4,
                 bytes_done = 0, bytes_total = 0, files_done = 0, files_total = 0,
                 index_state = CASE index_state WHEN 'running' THEN 'pending' ELSE index_state END
             WHERE seq = $1
             RETURNING id"
        ),
        &[&seq, &clock::now_rfc3339(), &owner, &expires],
    )?;
    let id: String = claimed.try_get(0)?;
    let row = get(&mut transaction, &id)?;
    transaction.commit()?;
    Ok(row)
}

pub(super) fn renew(
    client: &mut Client,
    id: &str,
    owner: &str,
    attempt: u32,
    lease: Duration,
) -> Result<(), StoreError> {
    validate_id(id)?;
    let changed = client.execute(
        &format!(
            "UPDATE analyses SET lease_expires = {NOW_MS} + $4
             WHERE id = $1 AND status = 'running' AND lease_owner = $2 AND attempts = $3"
        ),
        &[&id, &owner, &i64::from(attempt), &lease_ms(lease)],
    )?;
    if changed > 0 {
        return Ok(());
    }
    match client.query_opt("SELECT 1 FROM analyses WHERE id = $1", &[&id])? {
        None => Err(StoreError::NotFound(id.to_owned())),
        Some(_) => Err(StoreError::Superseded {
            id: id.to_owned(),
            attempt,
        }),
    }
}
