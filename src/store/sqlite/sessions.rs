//! Browser sessions and the audit log.

use rusqlite::{Connection, OptionalExtension, params};

use super::clock;
use super::convert::count;
use crate::store::error::StoreError;
use crate::store::types::{AuditEntry, Session};

/// Stores a session; its times must be RFC 3339. Expired sessions are swept on the way.
pub(super) fn create(connection: &Connection, session: &Session) -> Result<(), StoreError> {
    clock::parse(&session.created_at)?;
    let expires_at = clock::parse(&session.expires_at)?;
    // The sweep compares normalized UTC times, which sort as text.
    connection.execute(
        "DELETE FROM sessions WHERE expires_at <= ?1",
        [clock::rfc3339(clock::now())],
    )?;
    connection.execute(
        "INSERT INTO sessions (id_hash, csrf, created_at, expires_at) VALUES (?1, ?2, ?3, ?4)",
        params![
            session.id_hash,
            session.csrf,
            session.created_at,
            clock::rfc3339(expires_at)
        ],
    )?;
    Ok(())
}

/// The session, unless unknown or expired.
pub(super) fn get(connection: &Connection, id_hash: &str) -> Result<Option<Session>, StoreError> {
    let session = connection
        .query_row(
            "SELECT id_hash, csrf, created_at, expires_at FROM sessions WHERE id_hash = ?1",
            [id_hash],
            |row| {
                Ok(Session {
                    id_hash: row.get(0)?,
                    csrf: row.get(1)?,
                    created_at: row.get(2)?,
                    expires_at: row.get(3)?,
                })
            },
        )
        .optional()?;
    let Some(session) = session else {
        return Ok(None);
    };
    let expires_at = clock::parse(&session.expires_at)?;
    Ok((expires_at > clock::now()).then_some(session))
}

pub(super) fn delete(connection: &Connection, id_hash: &str) -> Result<(), StoreError> {
    connection.execute("DELETE FROM sessions WHERE id_hash = ?1", [id_hash])?;
    Ok(())
}

pub(super) fn audit(
    connection: &Connection,
    actor: &str,
    action: &str,
    target: &str,
    detail: &str,
) -> Result<(), StoreError> {
    connection.execute(
        "INSERT INTO audit_log (at, actor, action, target, detail) VALUES (?1, ?2, ?3, ?4, ?5)",
        params![clock::now_rfc3339(), actor, action, target, detail],
    )?;
    Ok(())
}

/// One row per action, client and minute (the minute of its first refusal, in `at`), its
/// count incremented by each call.
pub(super) fn audit_counted(
    connection: &Connection,
    actor: &str,
    action: &str,
    client: &str,
    detail: &str,
) -> Result<(), StoreError> {
    let at = clock::now_rfc3339();
    // "2026-12-05T13:07:41Z" -> "2026-12-05T13:07": the minute names the row.
    let minute = at.get(..16).unwrap_or(&at);
    let bucket = format!("{action}\u{1f}{client}\u{1f}{minute}");
    connection.execute(
        "INSERT INTO audit_log (at, actor, action, target, detail, count, bucket)
         VALUES (?1, ?2, ?3, ?4, ?5, 1, ?6)
         ON CONFLICT (bucket) WHERE bucket IS NOT NULL DO UPDATE SET count = count + 1",
        params![at, actor, action, client, detail, bucket],
    )?;
    Ok(())
}

/// The last `limit` entries, newest first.
pub(super) fn audit_log(
    connection: &Connection,
    limit: usize,
) -> Result<Vec<AuditEntry>, StoreError> {
    let mut statement = connection.prepare(
        "SELECT at, actor, action, target, detail, count FROM audit_log
         ORDER BY seq DESC LIMIT ?1",
    )?;
    let rows = statement.query_map([count(limit)], |row| {
        Ok(AuditEntry {
            at: row.get(0)?,
            actor: row.get(1)?,
            action: row.get(2)?,
            target: row.get(3)?,
            detail: row.get(4)?,
            count: row.get::<_, i64>(5)?.max(0).unsigned_abs(),
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}
