//! The case maps of share links: one row per analysis, written at a version (the SQL of
//! [`CaseMapRows`](crate::store::case_map::CaseMapRows)).

use rusqlite::{Connection, OptionalExtension, params};

use crate::store::case_map::CaseMapRow;
use crate::store::error::StoreError;

pub(super) fn read(connection: &Connection, id: &str) -> Result<Option<CaseMapRow>, StoreError> {
    let found = connection
        .query_row(
            "SELECT c.version, c.map_json FROM analyses a
             LEFT JOIN case_maps c ON c.analysis_id = a.id
             WHERE a.id = ?1",
            [id],
            |row| Ok((row.get(0)?, row.get(1)?)),
        )
        .optional()?;
    CaseMapRow::from_join(id, found)
}

pub(super) fn swap(
    connection: &Connection,
    id: &str,
    expected: Option<i64>,
    json: &str,
    now: &str,
) -> Result<bool, StoreError> {
    let changed = match expected {
        None => connection.execute(
            "INSERT INTO case_maps (analysis_id, version, map_json, updated_at)
             SELECT ?1, 1, ?2, ?3 WHERE EXISTS (SELECT 1 FROM analyses WHERE id = ?1)
             ON CONFLICT (analysis_id) DO NOTHING",
            params![id, json, now],
        )?,
        Some(version) => connection.execute(
            "UPDATE case_maps SET version = version + 1, map_json = ?3, updated_at = ?4
             WHERE analysis_id = ?1 AND version = ?2",
            params![id, version, json, now],
        )?,
    };
    Ok(changed > 0)
}
