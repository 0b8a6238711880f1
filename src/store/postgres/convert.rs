//! PostgreSQL's BIGINT and TEXT columns read as the store's unsigned counters and enums.

use std::str::FromStr;

use postgres::Row;

use crate::store::error::StoreError;
use crate::store::types::UnknownStatus;

pub(super) fn signed(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

pub(super) fn count(value: usize) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}

/// A counter; a negative one (never written) reads as 0 rather than failing the page.
pub(super) fn unsigned(row: &Row, index: usize) -> Result<u64, StoreError> {
    Ok(u64::try_from(row.try_get::<_, i64>(index)?).unwrap_or(0))
}

pub(super) fn unsigned32(row: &Row, index: usize) -> Result<u32, StoreError> {
    Ok(u32::try_from(row.try_get::<_, i64>(index)?).unwrap_or(u32::MAX))
}

/// A text column holding an enum's name.
pub(super) fn parsed<T>(row: &Row, index: usize) -> Result<T, StoreError>
where
    T: FromStr<Err = UnknownStatus>,
{
    let text: String = row.try_get(index)?;
    Ok(text.parse()?)
}
