//! The prefix Pebble writes in front of every line of a Sunbeam pod log:
//! `<RFC 3339 UTC time with ms>Z [<service>] `.
//!
//! Sunbeam's Apache writes its error log to stdout with `ErrorLogFormat "%{cu}t %M"`, so
//! an oslo.log line that went through mod_wsgi carries a second, Apache time in compact
//! ISO form with microseconds and no zone (`2025-05-14 04:29:00.319135 `) before the
//! oslo.log line's own timestamp. Access lines and other services' lines have none.
//!
//! ```text
//! 2025-05-14T04:29:00.317Z [wsgi-nova-api] 10.1.0.50 - - [14/May/2025:04:26:38 +0000] "GET / HTTP/1.1" 500 840 "-" "Go-http-client/1.1"
//! 2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app [None req-...] Global data ...
//! 2025-05-14T07:10:35.743Z [nova-conductor] 2025-05-14 07:10:35.742 17 ERROR nova.conductor.manager [-] ... (HTTP 503)[00m
//! ```

use serde::Serialize;

use crate::error::{PResult, expected};
use crate::oslo::level;
use crate::time::{DateTime, Timestamp, byte, oslo_timestamp, rfc3339, space_timestamp};

/// The pebble prefix of a pod-log line, and the Apache error-log time when there is one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct PebblePrefix<'a> {
    /// When pebble read the line (UTC, millisecond precision).
    pub time: Timestamp,
    /// The pebble service that wrote it (`wsgi-nova-api`, `nova-conductor`, ...).
    pub service: &'a str,
    /// Apache's `%{cu}t` error-log time (local wall clock, microseconds, no zone), present
    /// on lines Apache's error log wrapped (the oslo.log output of a mod_wsgi app).
    pub apache_time: Option<DateTime>,
}

/// True for a byte allowed in a pebble service name (a layer's service key).
fn is_service_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'@' | b':' | b'/')
}

/// `[<service>]`, followed by a space or the end of the line. Returns the input after
/// the space.
fn service(input: &str) -> PResult<'_, &str> {
    let Some(inner) = input.strip_prefix('[') else {
        return expected(input, "pebble service");
    };
    let len = inner.bytes().take_while(|b| is_service_byte(*b)).count();
    if len == 0 {
        return expected(inner, "pebble service");
    }
    // `len` ASCII bytes were counted, so this is a char boundary.
    let (name, rest) = inner.split_at(len);
    let Some(rest) = rest.strip_prefix(']') else {
        return expected(rest, "']' after pebble service");
    };
    match rest.strip_prefix(' ') {
        Some(rest) => Ok((rest, name)),
        None if rest.is_empty() => Ok((rest, name)),
        None => expected(rest, "space after pebble service"),
    }
}

/// True when `input` starts like the rest of an oslo.log line after its timestamp:
/// ` <pid> <LEVEL> ` (or the level at the end of the line).
fn starts_with_pid_and_level(input: &str) -> bool {
    let Some(i) = input.strip_prefix(' ') else {
        return false;
    };
    let digits = i.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    // `digits` ASCII bytes, so the slice is on a char boundary.
    let Some(i) = i.get(digits..).and_then(|i| i.strip_prefix(' ')) else {
        return false;
    };
    match level(i) {
        Ok((rest, _)) => rest.is_empty() || rest.starts_with(' '),
        Err(_) => false,
    }
}

/// Apache's `%{cu}t` at the start of the inner text, when it is one: a space-separated
/// date-time followed by a space and either another date-time (the oslo.log line it
/// wraps), or, when it has exactly six fraction digits, anything that is not the rest of
/// an oslo.log line (` <pid> <LEVEL> `). Returns the text after the time and its space.
fn apache_time(input: &str) -> Option<(&str, DateTime)> {
    let (after, time) = space_timestamp(input).ok()?;
    let consumed = input.len() - after.len();
    let next = match after.strip_prefix(' ') {
        Some(next) => next,
        // `%{cu}t %M` with an empty message, trimmed by the collector.
        None if after.is_empty() => after,
        None => return None,
    };
    if oslo_timestamp(next).is_ok() {
        return Some((next, time));
    }
    // `YYYY-MM-DD HH:MM:SS` is 19 bytes; then `.` and the fraction.
    let six_digits = consumed == 26 && input.as_bytes().get(19) == Some(&b'.');
    (six_digits && !starts_with_pid_and_level(after)).then_some((next, time))
}

/// Reads the pebble prefix and, when present, the Apache `%{cu}t` time after it; the rest
/// is the inner line (an oslo.log line, an access line, or any text).
///
/// ```
/// use evacdoc_parsers::pebble::parse_pebble_prefix;
/// let line = "2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 \
///     2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app \
///     [None req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data already \
///     initialized, not re-initializing.\\x1b[00m";
/// let (rest, p) = parse_pebble_prefix(line).unwrap();
/// assert_eq!(p.service, "wsgi-nova-api");
/// assert_eq!(p.time.to_string(), "2025-05-14T04:29:00.319Z");
/// assert_eq!(p.apache_time.unwrap().to_string(), "2025-05-14T04:29:00.319135");
/// assert!(rest.starts_with("2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app"));
///
/// let (rest, p) = parse_pebble_prefix("2025-05-14T07:10:35.743Z [nova-conductor] \
///     2025-05-14 07:10:35.742 17 ERROR nova.conductor.manager [-] Failed (HTTP 503)[00m").unwrap();
/// assert_eq!((p.service, p.apache_time), ("nova-conductor", None));
/// assert!(rest.starts_with("2025-05-14 07:10:35.742 17 ERROR"));
/// ```
pub fn parse_pebble_prefix(input: &str) -> PResult<'_, PebblePrefix<'_>> {
    let (i, time) = rfc3339(input)?;
    if time.offset.is_none() {
        return expected(i, "utc offset");
    }
    let (i, _) = byte(i, b' ', "space after pebble time")?;
    let (i, service) = service(i)?;
    let (i, apache_time) = match apache_time(i) {
        Some((rest, t)) => (rest, Some(t)),
        None => (i, None),
    };
    Ok((
        i,
        PebblePrefix {
            time,
            service,
            apache_time,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dt(s: &str) -> DateTime {
        oslo_timestamp(s).unwrap().1
    }

    #[test]
    fn service_reads_name_and_space() {
        assert_eq!(
            service("[wsgi-nova-api] 10.1.0.50"),
            Ok(("10.1.0.50", "wsgi-nova-api"))
        );
        assert_eq!(service("[nova-conductor]"), Ok(("", "nova-conductor")));
        assert!(service("[] x").is_err());
        assert!(service("[wsgi nova] x").is_err());
        assert!(service("[wsgi-nova-api]x").is_err());
        assert!(service("[wsgi-nova-api x").is_err());
        assert!(service("wsgi-nova-api] x").is_err());
    }

    #[test]
    fn access_line_has_no_apache_time() {
        let line = "2025-05-14T04:29:00.317Z [wsgi-nova-api] 10.1.0.50 - - \
                    [14/May/2025:04:26:38 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \
                    \"Go-http-client/1.1\"";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(
            rest,
            "10.1.0.50 - - [14/May/2025:04:26:38 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \
             \"Go-http-client/1.1\""
        );
        assert_eq!(
            p,
            PebblePrefix {
                time: Timestamp {
                    local: dt("2025-05-14 04:29:00.317"),
                    offset: Some(0),
                },
                service: "wsgi-nova-api",
                apache_time: None,
            }
        );
    }

    #[test]
    fn apache_time_before_an_oslo_line() {
        let line = "2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 \
                    2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app [None \
                    req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data already \
                    initialized, not re-initializing.\\x1b[00m";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(
            rest,
            "2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app [None \
             req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data already \
             initialized, not re-initializing.\\x1b[00m"
        );
        assert_eq!(p.service, "wsgi-nova-api");
        assert_eq!(p.time.local, dt("2025-05-14 04:29:00.319"));
        assert_eq!(p.apache_time, Some(dt("2025-05-14 04:29:00.319135")));
    }

    #[test]
    fn oslo_line_without_apache_time() {
        let line = "2025-05-14T07:10:35.743Z [nova-conductor] 2025-05-14 07:10:35.742 17 ERROR \
                    nova.conductor.manager [-] Failed (HTTP 503)[00m";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(
            rest,
            "2025-05-14 07:10:35.742 17 ERROR nova.conductor.manager [-] Failed (HTTP 503)[00m"
        );
        assert_eq!(p.service, "nova-conductor");
        assert_eq!(p.apache_time, None);
    }

    #[test]
    fn oslo_line_with_microsecond_format_is_not_an_apache_time() {
        // A custom log_date_format with six digits: ` <pid> <LEVEL> ` follows.
        let line = "2025-05-14T07:10:35.743Z [masakari-engine] 2025-05-14 07:10:35.742123 17 \
                    WARNING masakari.engine.manager [-] x";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(p.apache_time, None);
        assert_eq!(
            rest,
            "2025-05-14 07:10:35.742123 17 WARNING masakari.engine.manager [-] x"
        );
    }

    #[test]
    fn apache_time_before_plain_text() {
        // A traceback line or a mod_wsgi message in Apache's error log.
        let line = "2025-05-14T04:29:00.320Z [wsgi-nova-api] 2025-05-14 04:29:00.320011 \
                    Traceback (most recent call last):";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(rest, "Traceback (most recent call last):");
        assert_eq!(p.apache_time, Some(dt("2025-05-14 04:29:00.320011")));

        // Empty `%M`, trailing space trimmed.
        let line = "2025-05-14T04:29:00.320Z [wsgi-nova-api] 2025-05-14 04:29:00.320011";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(rest, "");
        assert_eq!(p.apache_time, Some(dt("2025-05-14 04:29:00.320011")));
    }

    #[test]
    fn three_digit_time_before_text_is_not_apache() {
        let line = "2025-05-14T04:29:00.320Z [svc] 2025-05-14 04:29:00.320 started";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(
            (rest, p.apache_time),
            ("2025-05-14 04:29:00.320 started", None)
        );
        // Six digits glued to text: not a time token.
        let line = "2025-05-14T04:29:00.320Z [svc] 2025-05-14 04:29:00.320011x";
        let (rest, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!((rest, p.apache_time), ("2025-05-14 04:29:00.320011x", None));
    }

    #[test]
    fn empty_inner_line() {
        let (rest, p) = parse_pebble_prefix("2025-05-14T04:29:00.317Z [nova-api] ").unwrap();
        assert_eq!((rest, p.service, p.apache_time), ("", "nova-api", None));
    }

    #[test]
    fn not_pebble() {
        // oslo.log, access, syslog and journal short-iso lines.
        assert!(parse_pebble_prefix("2025-05-14 04:29:00.318 31 INFO nova.x [-] m").is_err());
        assert!(parse_pebble_prefix("10.1.0.50 - - [14/May/2025:04:26:38 +0000] \"GET").is_err());
        assert!(parse_pebble_prefix("Dec  1 16:36:28 host nova-compute[1]: x").is_err());
        assert!(parse_pebble_prefix("2026-12-01T16:36:28+0000 host prog[1234]: x").is_err());
        // No zone, no space, no service.
        assert!(parse_pebble_prefix("2025-05-14T04:29:00.317 [svc] x").is_err());
        assert!(parse_pebble_prefix("2025-05-14T04:29:00.317Z[svc] x").is_err());
        assert!(parse_pebble_prefix("2025-05-14T04:29:00.317Z x").is_err());
        assert!(parse_pebble_prefix("").is_err());
        assert!(parse_pebble_prefix("2025-05-14T04:29:00.317Z [é] x").is_err());
    }

    #[test]
    fn serializes() {
        let line = "2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 text";
        let (_, p) = parse_pebble_prefix(line).unwrap();
        assert_eq!(
            serde_json::to_string(&p).unwrap(),
            r#"{"time":"2025-05-14T04:29:00.319Z","service":"wsgi-nova-api","apache_time":"2025-05-14T04:29:00.319135"}"#
        );
    }

    #[test]
    fn never_panics_on_truncations() {
        let line = "2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 \
                    2025-05-14 04:29:00.318 31 INFO n [-] é";
        for end in 0..=line.len() {
            if let Some(prefix) = line.get(..end) {
                let _ = parse_pebble_prefix(prefix);
            }
        }
    }
}
