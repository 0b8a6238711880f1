//! The case map of an analysis's share links kept in the store (issue 27): every API
//! process reads and extends the same map, so a value has one pseudonym whichever process
//! serves a link. The backends keep a row per analysis with a version; [`merge`] reads
//! it, merges in Rust ([`PseudonymMap::merge`]) and writes it back only at the version it
//! read, again from the start when another writer came first.

use super::error::StoreError;
use super::paths::validate_id;
use super::sqlite::clock;
use crate::redact::PseudonymMap;

/// Rounds of read-merge-write before giving up (each lost round means another writer
/// stored its pairs meanwhile).
const ROUNDS: usize = 64;

/// The stored row of a case map.
#[derive(Debug, Clone)]
pub(crate) struct CaseMapRow {
    pub version: i64,
    pub json: String,
}

impl CaseMapRow {
    /// What both backends' `analyses LEFT JOIN case_maps` gives for analysis `id`: no row
    /// (an unknown analysis: `NotFound`), or the map's version and JSON (both null: no
    /// map yet).
    pub(crate) fn from_join(
        id: &str,
        found: Option<(Option<i64>, Option<String>)>,
    ) -> Result<Option<CaseMapRow>, StoreError> {
        match found.ok_or_else(|| StoreError::NotFound(id.to_owned()))? {
            (Some(version), Some(json)) => Ok(Some(CaseMapRow { version, json })),
            _ => Ok(None),
        }
    }
}

/// What a backend does for [`merge`]: read the row, and write it at a version (its SQL;
/// `id` is checked before either is called).
pub(crate) trait CaseMapRows {
    /// `Err(NotFound)` when the analysis is unknown; `Ok(None)` when it has no map yet
    /// ([`CaseMapRow::from_join`]).
    fn read_row(&self, id: &str) -> Result<Option<CaseMapRow>, StoreError>;
    /// Inserts the row at version 1 when `expected` is `None`, else replaces the row
    /// whose version is `expected` with version `expected + 1`; `now` is its
    /// `updated_at`. `false`: another writer came first (nothing written).
    fn swap_row(
        &self,
        id: &str,
        expected: Option<i64>,
        json: &str,
        now: &str,
    ) -> Result<bool, StoreError>;
}

/// The map of analysis `id` as stored.
pub(crate) fn read(rows: &dyn CaseMapRows, id: &str) -> Result<Option<PseudonymMap>, StoreError> {
    validate_id(id)?;
    rows.read_row(id)?
        .map(|row| parse(id, &row.json))
        .transpose()
}

/// Merges `map` into the stored map of analysis `id` (stored as is when there is none);
/// the map now stored.
pub(crate) fn merge(
    rows: &dyn CaseMapRows,
    id: &str,
    map: &PseudonymMap,
) -> Result<PseudonymMap, StoreError> {
    validate_id(id)?;
    for _ in 0..ROUNDS {
        let stored = rows.read_row(id)?;
        let (merged, expected) = match &stored {
            None => (map.clone(), None),
            Some(row) => {
                let mut merged = parse(id, &row.json)?;
                if merged.merge(map) == 0 {
                    return Ok(merged);
                }
                (merged, Some(row.version))
            }
        };
        if rows.swap_row(id, expected, &merged.to_json(), &clock::now_rfc3339())? {
            return Ok(merged);
        }
    }
    Err(StoreError::Contended(format!(
        "the case map of analysis {id} changed {ROUNDS} times while it was merged"
    )))
}

fn parse(id: &str, json: &str) -> Result<PseudonymMap, StoreError> {
    PseudonymMap::from_json(json, &format!("case map of analysis {id}"))
        .map_err(|e| StoreError::CaseMap(e.to_string()))
}
