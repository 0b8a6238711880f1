//! The case maps of share links: one row per analysis, written at a version.

use rusqlite::{Connection, OptionalExtension, params};

use super::clock;
use crate::store::case_map::CaseMapRow;
use crate::store::error::StoreError;
use crate::store::paths::validate_id;

pub(super) fn read(connection: &Connection, id: &str) -> Result<Option<CaseMapRow>, StoreError> {
    validate_id(id)?;
    let found = connection
        .query_row(
            "SELECT c.version, c.map_json FROM analyses a
             LEFT JOIN case_maps c ON c.analysis_id = a.id
             WHERE a.id = ?1",
            [id],
            |row| {
                Ok(match (row.get::<_, Option<i64>>(0)?, row.get(1)?) {
                    (Some(version), Some(json)) => Some(CaseMapRow { version, json }),
                    _ => None,
                })
            },
        )
        .optional()?;
    found.ok_or_else(|| StoreError::NotFound(id.to_owned()))
}

pub(super) fn swap(
    connection: &Connection,
    id: &str,
    expected: Option<i64>,
    json: &str,
) -> Result<bool, StoreError> {
    validate_id(id)?;
    let now = clock::now_rfc3339();
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
