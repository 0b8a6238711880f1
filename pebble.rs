use crate::error::{PResult, expected};
use crate::time::{Timestamp, DateTime};
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct PebblePrefix<'a> { pub time: Timestamp, pub service: &'a str, pub apache_time: Option<DateTime> }
pub fn parse_pebble_prefix(input: &str) -> PResult<'_, PebblePrefix<'_>> {
    let (i, time) = crate::time::rfc3339(input)?;
    let Some(i) = i.strip_prefix(" [") else { return expected(i, "[") };
    let Some(end) = i.find("] ") else { return expected(i, "]") };
    let service = &i[..end]; let mut i = &i[end+2..];
    let mut apache_time = None;
    if let Ok((r, t)) = crate::time::space_timestamp(i) { if crate::time::space_timestamp(r.trim_start()).is_ok() { apache_time = Some(t); i = &r[1..]; } }
    Ok((i, PebblePrefix{time, service, apache_time}))
}
