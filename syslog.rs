use crate::error::{PResult, expected};
use crate::time::{Timestamp, YearlessTime};
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub enum SyslogTime { Yearless(YearlessTime), Full(Timestamp), Unix { nanos: i64 } }
impl SyslogTime { pub fn timestamp(&self) -> Option<Timestamp> { match self { SyslogTime::Full(t) => Some(*t), _ => None } } }
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SyslogPrefix<'a> { pub time: SyslogTime, pub host: &'a str, pub program: &'a str, pub pid: Option<u32> }
pub fn parse_syslog_prefix(input: &str) -> PResult<'_, SyslogPrefix<'_>> {
    let (i, t) = crate::time::syslog_time(input)?;
    let i = &i[1..]; let sp = i.find(' ').unwrap_or(0); let host = &i[..sp]; let i = &i[sp+1..];
    let Some(c) = i.find(": ") else { return expected(i, "prog") };
    let prog = &i[..c]; let (program, pid) = match prog.find('[') { Some(b) => (&prog[..b], prog[b+1..prog.len()-1].parse().ok()), None => (prog, None) };
    Ok((&i[c+2..], SyslogPrefix{ time: SyslogTime::Yearless(t), host, program, pid }))
}
