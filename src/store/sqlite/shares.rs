//! Public share links: stored by the hash of their token, looked up only while live.

use rusqlite::{Connection, OptionalExtension, Row, params};

use super::clock;
use crate::store::error::StoreError;
use crate::store::paths::validate_id;
use crate::store::types::{NewShare, ShareRow};

const COLUMNS: &str =
    "id, analysis_id, scope_kind, scope_json, note, created_at, expires_at, revoked_at";

fn share_row(row: &Row<'_>) -> rusqlite::Result<ShareRow> {
    Ok(ShareRow {
        id: row.get(0)?,
        analysis_id: row.get(1)?,
        scope_kind: row.get(2)?,
        scope_json: row.get(3)?,
        note: row.get(4)?,
        created_at: row.get(5)?,
        expires_at: row.get(6)?,
        revoked_at: row.get(7)?,
    })
}

pub(super) fn create(connection: &Connection, share: &NewShare) -> Result<ShareRow, StoreError> {
    validate_id(&share.id)?;
    validate_id(&share.analysis_id)?;
    let expires_at = clock::rfc3339(clock::parse(&share.expires_at)?);
    let known = connection
        .query_row(
            "SELECT 1 FROM analyses WHERE id = ?1",
            [&share.analysis_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if !known {
        return Err(StoreError::NotFound(share.analysis_id.clone()));
    }
    connection.execute(
        "INSERT INTO shares (id, token_hash, analysis_id, scope_kind, scope_json, note,
                             created_at, expires_at)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
        params![
            share.id,
            share.token_hash,
            share.analysis_id,
            share.scope_kind,
            share.scope_json,
            share.note,
            clock::now_rfc3339(),
            expires_at
        ],
    )?;
    let row = connection.query_row(
        &format!("SELECT {COLUMNS} FROM shares WHERE id = ?1"),
        [&share.id],
        share_row,
    )?;
    Ok(row)
}

pub(super) fn list(
    connection: &Connection,
    analysis_id: &str,
) -> Result<Vec<ShareRow>, StoreError> {
    validate_id(analysis_id)?;
    let mut statement = connection.prepare(&format!(
        "SELECT {COLUMNS} FROM shares WHERE analysis_id = ?1 ORDER BY created_at DESC, rowid DESC"
    ))?;
    let rows = statement.query_map([analysis_id], share_row)?;
    Ok(rows.collect::<Result<_, _>>()?)
}

/// Times are normalized UTC seconds, which sort as text.
pub(super) fn live(
    connection: &Connection,
    token_hash: &str,
) -> Result<Option<ShareRow>, StoreError> {
    let row = connection
        .query_row(
            &format!(
                "SELECT {COLUMNS} FROM shares
                 WHERE token_hash = ?1 AND revoked_at IS NULL AND expires_at > ?2"
            ),
            params![token_hash, clock::now_rfc3339()],
            share_row,
        )
        .optional()?;
    Ok(row)
}

pub(super) fn revoke(
    connection: &Connection,
    analysis_id: &str,
    share_id: &str,
) -> Result<bool, StoreError> {
    validate_id(analysis_id)?;
    let known = connection
        .query_row(
            "SELECT 1 FROM shares WHERE id = ?1 AND analysis_id = ?2",
            params![share_id, analysis_id],
            |_| Ok(()),
        )
        .optional()?
        .is_some();
    if known {
        connection.execute(
            "UPDATE shares SET revoked_at = ?1 WHERE id = ?2 AND revoked_at IS NULL",
            params![clock::now_rfc3339(), share_id],
        )?;
    }
    Ok(known)
}
