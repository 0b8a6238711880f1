//! Sessions, the audit log and share links on PostgreSQL, as the SQLite store keeps them.

use postgres::{Client, Row};

use super::convert::count;
use crate::store::error::StoreError;
use crate::store::paths::validate_id;
use crate::store::sqlite::clock;
use crate::store::types::{AuditEntry, NewShare, Session, ShareRow};

pub(super) fn create(client: &mut Client, session: &Session) -> Result<(), StoreError> {
    clock::parse(&session.created_at)?;
    let expires_at = clock::parse(&session.expires_at)?;
    client.execute(
        "DELETE FROM sessions WHERE expires_at <= $1",
        &[&clock::rfc3339(clock::now())],
    )?;
    client.execute(
        "INSERT INTO sessions (id_hash, csrf, created_at, expires_at) VALUES ($1, $2, $3, $4)",
        &[
            &session.id_hash,
            &session.csrf,
            &session.created_at,
            &clock::rfc3339(expires_at),
        ],
    )?;
    Ok(())
}

pub(super) fn get(client: &mut Client, id_hash: &str) -> Result<Option<Session>, StoreError> {
    let Some(row) = client.query_opt(
        "SELECT id_hash, csrf, created_at, expires_at FROM sessions WHERE id_hash = $1",
        &[&id_hash],
    )?
    else {
        return Ok(None);
    };
    let session = Session {
        id_hash: row.try_get(0)?,
        csrf: row.try_get(1)?,
        created_at: row.try_get(2)?,
        expires_at: row.try_get(3)?,
    };
    let expires_at = clock::parse(&session.expires_at)?;
    Ok((expires_at > clock::now()).then_some(session))
}

pub(super) fn delete(client: &mut Client, id_hash: &str) -> Result<(), StoreError> {
    client.execute("DELETE FROM sessions WHERE id_hash = $1", &[&id_hash])?;
    Ok(())
}

pub(super) fn audit(
    client: &mut Client,
    actor: &str,
    action: &str,
    target: &str,
    detail: &str,
) -> Result<(), StoreError> {
    client.execute(
        "INSERT INTO audit_log (at, actor, action, target, detail) VALUES ($1, $2, $3, $4, $5)",
        &[&clock::now_rfc3339(), &actor, &action, &target, &detail],
    )?;
    Ok(())
}

pub(super) fn audit_counted(
    client: &mut Client,
    actor: &str,
    action: &str,
    client_addr: &str,
    detail: &str,
) -> Result<(), StoreError> {
    let at = clock::now_rfc3339();
    let minute = at.get(..16).unwrap_or(&at);
    let bucket = format!("{action}\u{1f}{client_addr}\u{1f}{minute}");
    client.execute(
        "INSERT INTO audit_log (at, actor, action, target, detail, count, bucket)
         VALUES ($1, $2, $3, $4, $5, 1, $6)
         ON CONFLICT (bucket) WHERE bucket IS NOT NULL
         DO UPDATE SET count = audit_log.count + 1",
        &[&at, &actor, &action, &client_addr, &detail, &bucket],
    )?;
    Ok(())
}

pub(super) fn audit_log(client: &mut Client, limit: usize) -> Result<Vec<AuditEntry>, StoreError> {
    client
        .query(
            "SELECT at, actor, action, target, detail, count FROM audit_log
             ORDER BY seq DESC LIMIT $1",
            &[&count(limit)],
        )?
        .iter()
        .map(|row| {
            Ok(AuditEntry {
                at: row.try_get(0)?,
                actor: row.try_get(1)?,
                action: row.try_get(2)?,
                target: row.try_get(3)?,
                detail: row.try_get(4)?,
                count: row.try_get::<_, i64>(5)?.max(0).unsigned_abs(),
            })
        })
        .collect()
}

const SHARE_COLUMNS: &str =
    "id, analysis_id, scope_kind, scope_json, note, created_at, expires_at, revoked_at";

fn share_row(row: &Row) -> Result<ShareRow, StoreError> {
    Ok(ShareRow {
        id: row.try_get(0)?,
        analysis_id: row.try_get(1)?,
        scope_kind: row.try_get(2)?,
        scope_json: row.try_get(3)?,
        note: row.try_get(4)?,
        created_at: row.try_get(5)?,
        expires_at: row.try_get(6)?,
        revoked_at: row.try_get(7)?,
    })
}

pub(super) fn create_share(client: &mut Client, share: &NewShare) -> Result<ShareRow, StoreError> {
    validate_id(&share.id)?;
    validate_id(&share.analysis_id)?;
    let expires_at = clock::rfc3339(clock::parse(&share.expires_at)?);
    let known = client
        .query_opt(
            "SELECT 1 FROM analyses WHERE id = $1",
            &[&share.analysis_id],
        )?
        .is_some();
    if !known {
        return Err(StoreError::NotFound(share.analysis_id.clone()));
    }
    let row = client.query_one(
        &format!(
            "INSERT INTO shares (id, token_hash, analysis_id, scope_kind, scope_json, note,
                                 created_at, expires_at)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
             RETURNING {SHARE_COLUMNS}"
        ),
        &[
            &share.id,
            &share.token_hash,
            &share.analysis_id,
            &share.scope_kind,
            &share.scope_json,
            &share.note,
            &clock::now_rfc3339(),
            &expires_at,
        ],
    )?;
    share_row(&row)
}

/// Newest first; links made within the same second by id (SQLite: by insertion, from its
/// rowid, which PostgreSQL has no stable counterpart of).
pub(super) fn shares(client: &mut Client, analysis_id: &str) -> Result<Vec<ShareRow>, StoreError> {
    validate_id(analysis_id)?;
    client
        .query(
            &format!(
                "SELECT {SHARE_COLUMNS} FROM shares WHERE analysis_id = $1
                 ORDER BY created_at DESC, id DESC"
            ),
            &[&analysis_id],
        )?
        .iter()
        .map(share_row)
        .collect()
}

pub(super) fn live_share(
    client: &mut Client,
    token_hash: &str,
) -> Result<Option<ShareRow>, StoreError> {
    client
        .query_opt(
            &format!(
                "SELECT {SHARE_COLUMNS} FROM shares
                 WHERE token_hash = $1 AND revoked_at IS NULL AND expires_at > $2"
            ),
            &[&token_hash, &clock::now_rfc3339()],
        )?
        .as_ref()
        .map(share_row)
        .transpose()
}

pub(super) fn revoke_share(
    client: &mut Client,
    analysis_id: &str,
    share_id: &str,
) -> Result<bool, StoreError> {
    validate_id(analysis_id)?;
    let known = client
        .query_opt(
            "SELECT 1 FROM shares WHERE id = $1 AND analysis_id = $2",
            &[&share_id, &analysis_id],
        )?
        .is_some();
    if known {
        client.execute(
            "UPDATE shares SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL",
            &[&clock::now_rfc3339(), &share_id],
        )?;
    }
    Ok(known)
}
