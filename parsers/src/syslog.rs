//! syslog and journalctl prefixes in front of a message (often an oslo.log line), as
//! OpenStack-Ansible, snap deployments (`snap.openstack-hypervisor.nova-compute`) and
//! `journalctl` dumps in sosreports write them.
//!
//! | form | example |
//! |---|---|
//! | syslog / journalctl `short` | `Dec  1 16:36:28 host prog[1234]: ` |
//! | `short-precise` | `Dec 01 16:36:28.123456 host prog[1234]: ` |
//! | `short-iso`, rsyslog RFC 3339 | `2026-12-01T16:36:28+0000 host prog[1234]: ` |
//! | `short-iso-precise` | `2026-12-01T16:36:28.123456+00:00 host prog[1234]: ` |
//! | `short-full` | `Mon 2026-12-01 16:36:28 UTC host prog[1234]: ` |
//! | `short-unix` | `1764606988.123456 host prog[1234]: ` |
//!
//! The `[pid]` is optional (`kernel: `).

use serde::Serialize;

use crate::error::{PResult, expected};
use crate::time::{
    DateTime, Offset, Timestamp, YearlessTime, byte, oslo_timestamp, rfc3339, syslog_time,
    utc_offset, weekday_name,
};

/// The time of a syslog or journal prefix, in the precision the form gives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", content = "time", rename_all = "lowercase")]
pub enum SyslogTime {
    /// `Dec  1 16:36:28`: no year, no zone (`short`, `short-precise`, classic syslog).
    Yearless(YearlessTime),
    /// A full date, with its offset when the line gives one (`short-iso`,
    /// `short-iso-precise`, `short-full`, rsyslog RFC 3339).
    Full(Timestamp),
    /// `short-unix`: nanoseconds since the Unix epoch.
    Unix {
        /// Nanoseconds since 1970-01-01T00:00:00Z.
        nanos: i64,
    },
}

impl SyslogTime {
    /// The time as a [`Timestamp`], when the line gives a year (`Full`, and `Unix` as UTC).
    ///
    /// ```
    /// use evacdoc_parsers::syslog::parse_syslog_prefix;
    /// let (_, p) = parse_syslog_prefix("1764606988.123456 compute-1 nova-compute[2211]: x").unwrap();
    /// assert_eq!(p.time.timestamp().unwrap().to_string(), "2025-12-01T16:36:28.123456Z");
    /// let (_, p) = parse_syslog_prefix("Dec  1 16:36:28 compute-1 nova-compute[2211]: x").unwrap();
    /// assert_eq!(p.time.timestamp(), None);
    /// ```
    pub fn timestamp(&self) -> Option<Timestamp> {
        match *self {
            SyslogTime::Yearless(_) => None,
            SyslogTime::Full(t) => Some(t),
            SyslogTime::Unix { nanos } => DateTime::from_unix_nanos(nanos).map(|local| Timestamp {
                local,
                offset: Some(0),
            }),
        }
    }
}

/// A syslog or journal prefix: time, host, program and pid.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SyslogPrefix<'a> {
    /// The time.
    pub time: SyslogTime,
    /// The host name (or address) that logged the line.
    pub host: &'a str,
    /// The program or syslog tag (`nova-compute`, `snap.openstack-hypervisor.nova-compute`).
    pub program: &'a str,
    /// The process id in brackets, when there is one.
    pub pid: Option<u32>,
}

/// The byte count of the leading run of `input` whose bytes satisfy `accept`.
fn run_len(input: &str, accept: impl Fn(u8) -> bool) -> usize {
    input.bytes().take_while(|b| accept(*b)).count()
}

/// Reads a fraction `.d+` (up to nine digits kept), or nothing.
fn fraction_nanos(input: &str) -> PResult<'_, u32> {
    let Some(rest) = input.strip_prefix('.') else {
        return Ok((input, 0));
    };
    let len = run_len(rest, |b| b.is_ascii_digit());
    if len == 0 {
        return expected(rest, "fraction digits");
    }
    let mut nanos = 0u32;
    for (i, b) in rest.bytes().take(len).enumerate() {
        if i < 9 {
            nanos = nanos * 10 + u32::from(b - b'0');
        }
    }
    for _ in len..9 {
        nanos *= 10;
    }
    // `len` ASCII digits, so a char boundary.
    Ok((rest.get(len..).unwrap_or(""), nanos))
}

/// journalctl `short-unix`: `1764606988.123456` (9 or 10 digits of seconds).
fn unix_time(input: &str) -> PResult<'_, SyslogTime> {
    let len = run_len(input, |b| b.is_ascii_digit());
    if !(9..=10).contains(&len) {
        return expected(input, "unix time");
    }
    let secs = input
        .bytes()
        .take(len)
        .fold(0i64, |acc, b| acc * 10 + i64::from(b - b'0'));
    let (i, sub) = fraction_nanos(input.get(len..).unwrap_or(""))?;
    match secs
        .checked_mul(1_000_000_000)
        .and_then(|n| n.checked_add(i64::from(sub)))
    {
        Some(nanos) => Ok((i, SyslogTime::Unix { nanos })),
        None => expected(input, "unix time"),
    }
}

/// The zone of `short-full`: an abbreviation (`UTC`, `GMT`, `CET`) or a numeric offset
/// (`+03`, `-0530`). Only UTC, GMT, Z and numeric offsets give an offset.
fn zone(input: &str) -> PResult<'_, Option<Offset>> {
    let len = run_len(input, |b| {
        b.is_ascii_alphanumeric() || b == b'+' || b == b'-' || b == b':'
    });
    if len == 0 {
        return expected(input, "time zone");
    }
    let (name, rest) = input.split_at(len);
    let offset = match name {
        "UTC" | "GMT" | "Z" | "UCT" => Some(0),
        _ => match utc_offset(name) {
            Ok(("", offset)) => Some(offset),
            _ => None,
        },
    };
    Ok((rest, offset))
}

/// journalctl `short-full`: `Mon 2026-12-01 16:36:28 UTC`.
fn full_time(input: &str) -> PResult<'_, SyslogTime> {
    let (i, _) = weekday_name(input)?;
    let (i, _) = byte(i, b' ', "space after weekday")?;
    let (i, local) = oslo_timestamp(i)?;
    let (i, _) = byte(i, b' ', "space before time zone")?;
    let (i, offset) = zone(i)?;
    Ok((i, SyslogTime::Full(Timestamp { local, offset })))
}

/// The time at the start of a prefix, in whichever form the first bytes announce.
pub(crate) fn prefix_time(input: &str) -> PResult<'_, SyslogTime> {
    let b = input.as_bytes();
    match b.first() {
        Some(c) if c.is_ascii_digit() && b.get(4) == Some(&b'-') => {
            let (i, t) = rfc3339(input)?;
            Ok((i, SyslogTime::Full(t)))
        }
        Some(c) if c.is_ascii_digit() => unix_time(input),
        Some(c) if c.is_ascii_uppercase() => {
            // Weekday names (`Mon`) and month names (`Mar`, `May`) never collide.
            if weekday_name(input).is_ok() {
                full_time(input)
            } else {
                let (i, t) = syslog_time(input)?;
                Ok((i, SyslogTime::Yearless(t)))
            }
        }
        _ => expected(input, "syslog time"),
    }
}

/// A host name, IPv4 or IPv6 address.
fn host(input: &str) -> PResult<'_, &str> {
    let len = run_len(input, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b':' | b'%')
    });
    if len == 0 || input.as_bytes().get(len) != Some(&b' ') {
        return expected(input, "host name");
    }
    let (name, rest) = input.split_at(len);
    Ok((rest, name))
}

/// A program name or syslog tag: up to `[` or `:`.
fn program(input: &str) -> PResult<'_, &str> {
    let len = run_len(input, |b| {
        b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'_' | b'@' | b'/' | b'+')
    });
    if len == 0 {
        return expected(input, "program name");
    }
    let (name, rest) = input.split_at(len);
    Ok((rest, name))
}

/// `[<pid>]`, or nothing.
fn pid(input: &str) -> PResult<'_, Option<u32>> {
    let Some(inner) = input.strip_prefix('[') else {
        return Ok((input, None));
    };
    let len = run_len(inner, |b| b.is_ascii_digit());
    let Some(rest) = inner.get(len..).and_then(|r| r.strip_prefix(']')) else {
        return expected(inner, "process id");
    };
    let pid = inner.bytes().take(len).try_fold(0u32, |acc, b| {
        acc.checked_mul(10)?.checked_add(u32::from(b - b'0'))
    });
    match pid {
        Some(pid) if len > 0 => Ok((rest, Some(pid))),
        _ => expected(inner, "process id"),
    }
}

/// Reads a syslog or journal prefix: `<time> <host> <program>[<pid>]: `. The rest is the
/// message, often an oslo.log line.
///
/// ```
/// use evacdoc_parsers::syslog::{parse_syslog_prefix, SyslogTime};
/// let line = "Dec  1 16:36:28 compute-1 snap.openstack-hypervisor.nova-compute[2211]: \
///     2026-12-01 16:36:28.512 2211 INFO nova.compute.manager [-] Starting instance...";
/// let (rest, p) = parse_syslog_prefix(line).unwrap();
/// assert_eq!(p.host, "compute-1");
/// assert_eq!(p.program, "snap.openstack-hypervisor.nova-compute");
/// assert_eq!(p.pid, Some(2211));
/// assert!(matches!(p.time, SyslogTime::Yearless(t) if (t.month, t.day) == (12, 1)));
/// assert!(rest.starts_with("2026-12-01 16:36:28.512 2211 INFO"));
///
/// let (rest, p) = parse_syslog_prefix("2026-12-01T16:36:28.123456+00:00 compute-1 \
///     nova-compute[2211]: message").unwrap();
/// assert_eq!(p.time.timestamp().unwrap().to_string(), "2026-12-01T16:36:28.123456Z");
/// assert_eq!(rest, "message");
/// ```
pub fn parse_syslog_prefix(input: &str) -> PResult<'_, SyslogPrefix<'_>> {
    let (i, time) = prefix_time(input)?;
    let (i, _) = byte(i, b' ', "space before host name")?;
    let (i, host) = host(i)?;
    let (i, _) = byte(i, b' ', "space before program name")?;
    let (i, program) = program(i)?;
    let (i, pid) = pid(i)?;
    let (i, _) = byte(i, b':', "':' after program name")?;
    let i = match i.strip_prefix(' ') {
        Some(rest) => rest,
        None if i.is_empty() => i,
        None => return expected(i, "space after program name"),
    };
    Ok((
        i,
        SyslogPrefix {
            time,
            host,
            program,
            pid,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const OSLO: &str = "2026-12-01 16:36:28.512 2211 INFO nova.compute.manager [-] Starting";

    fn yearless(month: u8, day: u8, h: u8, m: u8, s: u8, nanos: u32) -> SyslogTime {
        SyslogTime::Yearless(YearlessTime {
            month,
            day,
            hour: h,
            minute: m,
            second: s,
            nanos,
        })
    }

    fn full(s: &str, offset: Option<Offset>) -> SyslogTime {
        SyslogTime::Full(Timestamp {
            local: oslo_timestamp(s).unwrap().1,
            offset,
        })
    }

    fn parse(line: &str) -> (&str, SyslogPrefix<'_>) {
        parse_syslog_prefix(line).unwrap()
    }

    #[test]
    fn classic_short() {
        let line = format!("Dec  1 16:36:28 compute-1 nova-compute[2211]: {OSLO}");
        let (rest, p) = parse(&line);
        assert_eq!(rest, OSLO);
        assert_eq!(
            p,
            SyslogPrefix {
                time: yearless(12, 1, 16, 36, 28, 0),
                host: "compute-1",
                program: "nova-compute",
                pid: Some(2211),
            }
        );
    }

    #[test]
    fn short_without_pid() {
        let (rest, p) = parse("Dec 11 06:00:01 node1 kernel: [  12.3] eth0: link up");
        assert_eq!(rest, "[  12.3] eth0: link up");
        assert_eq!((p.host, p.program, p.pid), ("node1", "kernel", None));
        assert_eq!(p.time, yearless(12, 11, 6, 0, 1, 0));
    }

    #[test]
    fn short_precise() {
        let line = format!(
            "Dec 01 16:36:28.123456 compute-1 snap.openstack-hypervisor.nova-compute[77]: {OSLO}"
        );
        let (rest, p) = parse(&line);
        assert_eq!(rest, OSLO);
        assert_eq!(p.time, yearless(12, 1, 16, 36, 28, 123_456_000));
        assert_eq!(p.program, "snap.openstack-hypervisor.nova-compute");
        assert_eq!(p.pid, Some(77));
    }

    #[test]
    fn short_iso_and_iso_precise() {
        let (rest, p) = parse("2026-12-01T16:36:28+0000 ctl-1 python3[1234]: hello");
        assert_eq!(rest, "hello");
        assert_eq!(p.time, full("2026-12-01 16:36:28", Some(0)));
        assert_eq!((p.host, p.program, p.pid), ("ctl-1", "python3", Some(1234)));

        let (rest, p) = parse("2026-12-01T16:36:28.123456+01:00 ctl-1 masakari-engine[9]: x");
        assert_eq!(rest, "x");
        assert_eq!(p.time, full("2026-12-01 16:36:28.123456", Some(3600)));
        assert_eq!(
            p.time.timestamp().unwrap().to_utc().unwrap().to_string(),
            "2026-12-01T15:36:28.123456Z"
        );
    }

    #[test]
    fn short_full() {
        let (rest, p) = parse("Mon 2026-12-01 16:36:28 UTC compute-1 nova-compute[2211]: m");
        assert_eq!(rest, "m");
        assert_eq!(p.time, full("2026-12-01 16:36:28", Some(0)));
        let (_, p) = parse("Tue 2026-12-01 16:36:28.5 CET compute-1 nova-compute[2211]: m");
        assert_eq!(p.time, full("2026-12-01 16:36:28.5", None));
        let (_, p) = parse("Tue 2026-12-01 16:36:28 +03 compute-1 nova-compute[2211]: m");
        assert_eq!(p.time, full("2026-12-01 16:36:28", Some(3 * 3600)));
        let (_, p) = parse("Tue 2026-12-01 16:36:28 GMT compute-1 nova-compute: m");
        assert_eq!(
            (p.time, p.pid),
            (full("2026-12-01 16:36:28", Some(0)), None)
        );
    }

    #[test]
    fn short_unix() {
        let (rest, p) = parse("1764606988.123456 compute-1 nova-compute[2211]: m");
        assert_eq!(rest, "m");
        assert_eq!(
            p.time,
            SyslogTime::Unix {
                nanos: 1_764_606_988_123_456_000
            }
        );
        assert_eq!(
            p.time.timestamp().unwrap().to_string(),
            "2025-12-01T16:36:28.123456Z"
        );
        let (_, p) = parse("1764606988 compute-1 nova-compute[2211]: m");
        assert_eq!(
            p.time,
            SyslogTime::Unix {
                nanos: 1_764_606_988_000_000_000
            }
        );
        // Too large for i64 nanoseconds.
        assert!(parse_syslog_prefix("9999999999.1 h p: m").is_err());
    }

    #[test]
    fn program_names() {
        for prog in [
            "snap.openstack-hypervisor.nova-compute",
            "nova-compute",
            "python3",
            "systemd",
            "user@1000.service",
            "/usr/bin/nova-compute",
        ] {
            let line = format!("Dec  1 16:36:28 h {prog}[1]: m");
            let (rest, p) = parse(&line);
            assert_eq!((rest, p.program), ("m", prog));
        }
    }

    #[test]
    fn empty_message() {
        let (rest, p) = parse("Dec  1 16:36:28 h nova-compute[1]:");
        assert_eq!((rest, p.pid), ("", Some(1)));
        let (rest, _) = parse("Dec  1 16:36:28 h nova-compute[1]: ");
        assert_eq!(rest, "");
    }

    #[test]
    fn productions() {
        assert_eq!(pid("[2211]: x"), Ok((": x", Some(2211))));
        assert_eq!(pid(": x"), Ok((": x", None)));
        assert!(pid("[]: x").is_err());
        assert!(pid("[12a]: x").is_err());
        assert!(pid("[99999999999]: x").is_err());
        assert_eq!(host("compute-1 x"), Ok((" x", "compute-1")));
        assert_eq!(host("fe80::1 x"), Ok((" x", "fe80::1")));
        assert!(host("[svc] x").is_err());
        assert!(host("compute-1").is_err());
        assert_eq!(program("nova-compute[1]:"), Ok(("[1]:", "nova-compute")));
        assert!(program("[1]:").is_err());
        assert_eq!(zone("UTC h"), Ok((" h", Some(0))));
        assert_eq!(zone("-0530 h"), Ok((" h", Some(-(5 * 3600 + 30 * 60)))));
        assert_eq!(zone("EST h"), Ok((" h", None)));
        assert_eq!(fraction_nanos(".5 x"), Ok((" x", 500_000_000)));
        assert_eq!(fraction_nanos(".1234567891 x"), Ok((" x", 123_456_789)));
        assert_eq!(fraction_nanos(" x"), Ok((" x", 0)));
        assert!(fraction_nanos(". x").is_err());
    }

    #[test]
    fn other_formats_are_not_syslog() {
        // oslo.log
        assert!(parse_syslog_prefix(OSLO).is_err());
        // Apache access, with an address and a host name
        assert!(
            parse_syslog_prefix(
                "10.1.0.50 - - [14/May/2025:04:26:38 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \"Go\""
            )
            .is_err()
        );
        assert!(
            parse_syslog_prefix("127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET / HTTP/1.1\"")
                .is_err()
        );
        assert!(parse_syslog_prefix("Dell - - [27/Dec/2024:00:00:11 +0000] \"GET /\"").is_err());
        // pebble
        assert!(
            parse_syslog_prefix(
                "2025-05-14T04:29:00.317Z [wsgi-nova-api] 10.1.0.50 - - [14/May/2025:04:26:38 \
                 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \"Go-http-client/1.1\""
            )
            .is_err()
        );
        assert!(
            parse_syslog_prefix(
                "2025-05-14T07:10:35.743Z [nova-conductor] 2025-05-14 07:10:35.742 17 ERROR \
                 nova.conductor.manager [-] x"
            )
            .is_err()
        );
        // uWSGI, traceback text, plain English
        assert!(parse_syslog_prefix("[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars").is_err());
        assert!(parse_syslog_prefix("Traceback (most recent call last):").is_err());
        assert!(parse_syslog_prefix("May the force: be with you").is_err());
        // A syslog line without a tag.
        assert!(parse_syslog_prefix("Dec  1 16:36:28 host last message repeated 3 times").is_err());
        assert!(parse_syslog_prefix("Dec  1 16:36:28 host prog[1]:x").is_err());
        assert!(parse_syslog_prefix("").is_err());
    }

    #[test]
    fn serializes() {
        let (_, p) = parse("Mon 2026-12-01 16:36:28 UTC compute-1 nova-compute[2211]: m");
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"time":{"kind":"full","time":"2026-12-01T16:36:28.000Z"},"host":"compute-1","program":"nova-compute","pid":2211}"#
        );
        let (_, p) = parse("1764606988.5 h p: m");
        assert_eq!(
            serde_json::to_string(&p.time).unwrap(),
            r#"{"kind":"unix","time":{"nanos":1764606988500000000}}"#
        );
        let (_, p) = parse("Dec  1 16:36:28 h p: m");
        assert!(
            serde_json::to_string(&p.time)
                .unwrap()
                .starts_with(r#"{"kind":"yearless","time":{"month":12,"day":1,"#)
        );
    }

    #[test]
    fn never_panics_on_truncations() {
        for line in [
            "Dec  1 16:36:28.5 compute-1 nova-compute[2211]: é",
            "Mon 2026-12-01 16:36:28 UTC compute-1 nova-compute[2211]: é",
            "1764606988.123456 compute-1 nova-compute[2211]: é",
            "2026-12-01T16:36:28.123456+00:00 compute-1 nova-compute[2211]: é",
        ] {
            for end in 0..=line.len() {
                if let Some(prefix) = line.get(..end) {
                    let _ = parse_syslog_prefix(prefix);
                }
            }
        }
    }
}
