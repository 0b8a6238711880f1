//! Times as the store writes them: RFC 3339 in UTC, to the second.

use jiff::Timestamp;

use crate::store::error::StoreError;

pub(in crate::store) fn now() -> Timestamp {
    Timestamp::now()
}

pub(in crate::store) fn now_rfc3339() -> String {
    rfc3339(now())
}

pub(in crate::store) fn rfc3339(at: Timestamp) -> String {
    at.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Reads a time given by a caller (any RFC 3339 offset or precision).
pub(in crate::store) fn parse(value: &str) -> Result<Timestamp, StoreError> {
    value
        .parse::<Timestamp>()
        .map_err(|error| StoreError::InvalidTime {
            value: value.to_owned(),
            reason: error.to_string(),
        })
}
