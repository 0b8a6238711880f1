use crate::error::{PResult, expected};
use crate::time::DateTime;
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct UwsgiLine<'a> { pub time: DateTime, pub path: &'a str }
pub fn parse_uwsgi_line(input: &str) -> PResult<'_, UwsgiLine<'_>> {
    if let Some(at) = input.find("] [") { if let Ok((_, t)) = crate::time::ctime(&input[at+3..]) { return Ok(("", UwsgiLine{time: t, path: ""})); } }
    expected(input, "uwsgi")
}
