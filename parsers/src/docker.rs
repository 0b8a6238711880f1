//! Docker `json-file` log lines (`/var/lib/docker/containers/<id>/<id>-json.log`):
//!
//! ```text
//! {"log":"2024-05-01 12:00:00.123 7 INFO nova.compute.manager [-] Starting instance...\n","stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}
//! ```
//!
//! `log` is the JSON-escaped text the container wrote, with its newline; a `log` without
//! the final `\n` is a piece of a longer line (Docker cuts lines at 16 KiB) that goes on in
//! the next line of the same stream.

use serde::Serialize;

use crate::cri::Stream;
use crate::error::{PResult, expected};
use crate::time::{Timestamp, rfc3339};

/// The fields of a Docker line other than the text.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct DockerPrefix {
    /// When Docker read the line (`time`, UTC with nanoseconds).
    pub time: Timestamp,
    /// The stream the container wrote it to.
    pub stream: Stream,
    /// True when `log` has no final newline: the line goes on in the next one.
    pub partial: bool,
}

/// A Docker line: its fields, and the `log` value as written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DockerLine<'a> {
    /// Time, stream and whether the line is a piece.
    pub prefix: DockerPrefix,
    /// The `log` value between its quotes, still JSON-escaped, without the final `\n`.
    pub log: &'a str,
    /// True when `log` holds escapes to decode with [`unescape`] (else it is the text).
    pub escaped: bool,
}

/// A JSON string's body at the start of `input` (after its opening quote): the body, the
/// input after the closing quote, how many escapes it holds and where the last one starts.
fn string_body(input: &str) -> Option<(&str, &str, usize, usize)> {
    let b = input.as_bytes();
    let mut at = 0;
    let mut escapes = 0;
    let mut last_escape = usize::MAX;
    loop {
        at += memchr::memchr2(b'"', b'\\', b.get(at..)?)?;
        if b[at] == b'"' {
            // Both cut points are ASCII, so these are char boundaries.
            return Some((&input[..at], &input[at + 1..], escapes, last_escape));
        }
        escapes += 1;
        last_escape = at;
        at += 2;
    }
}

/// Skips a JSON value that is not a string (an object such as `attrs`, a number, ...):
/// up to the `,` or `}` that ends it at this depth.
fn skip_value(input: &str) -> Option<&str> {
    let b = input.as_bytes();
    let mut depth = 0usize;
    let mut at = 0;
    while let Some(&c) = b.get(at) {
        match c {
            b'"' => {
                let (_, rest, _, _) = string_body(&input[at + 1..])?;
                at = input.len() - rest.len();
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' if depth > 0 => depth -= 1,
            b',' | b'}' if depth == 0 => return Some(&input[at..]),
            _ => {}
        }
        at += 1;
    }
    None
}

/// Reads a Docker `json-file` line. The keys may come in any order and others (`attrs`)
/// may be present; `log` and `time` are required.
///
/// ```
/// use evacdoc_parsers::docker::{parse_docker_line, unescape};
/// let line = r#"{"log":"2024-05-01 12:00:00.120 7 INFO nova.osapi_compute.wsgi.server [-] 10.0.0.5 \"GET /v2.1 HTTP/1.1\" status: 200 len: 502 time: 0.0011\n","stream":"stderr","time":"2024-05-01T12:00:00.123456789Z"}"#;
/// let (_, d) = parse_docker_line(line).unwrap();
/// assert!(d.escaped && !d.prefix.partial);
/// let mut text = String::new();
/// unescape(d.log, &mut text);
/// assert!(text.ends_with("\"GET /v2.1 HTTP/1.1\" status: 200 len: 502 time: 0.0011"));
/// ```
pub fn parse_docker_line(input: &str) -> PResult<'_, DockerLine<'_>> {
    let Some(mut i) = input.strip_prefix('{') else {
        return expected(input, "docker json object");
    };
    let mut log = None;
    let mut stream = Stream::Stdout;
    let mut time = None;
    loop {
        i = i.trim_start();
        let Some((key, rest, _, _)) = i.strip_prefix('"').and_then(string_body) else {
            return expected(i, "docker json key");
        };
        let Some(rest) = rest.trim_start().strip_prefix(':') else {
            return expected(rest, "':' after docker json key");
        };
        let rest = rest.trim_start();
        i = match rest.strip_prefix('"').and_then(string_body) {
            Some((body, after, escapes, last_escape)) => {
                match key {
                    "log" => log = Some((body, escapes, last_escape)),
                    "stream" => match Stream::parse(body) {
                        Some(s) => stream = s,
                        None => return expected(rest, "docker stream"),
                    },
                    "time" => match rfc3339(body) {
                        Ok(("", t)) if t.offset.is_some() => time = Some(t),
                        _ => return expected(rest, "docker time"),
                    },
                    _ => {}
                }
                after
            }
            None if rest.starts_with('"') => return expected(rest, "end of docker json string"),
            None => match skip_value(rest) {
                Some(after) => after,
                None => return expected(rest, "docker json value"),
            },
        };
        i = i.trim_start();
        if let Some(rest) = i.strip_prefix(',') {
            i = rest;
        } else if let Some(rest) = i.strip_prefix('}') {
            i = rest;
            break;
        } else {
            return expected(i, "',' or '}' in docker json");
        }
    }
    let Some((body, escapes, last_escape)) = log else {
        return expected(input, "docker log field");
    };
    let Some(time) = time else {
        return expected(input, "docker time field");
    };
    // The final `\n` is an escape of its own; any other escape needs decoding.
    let newline = escapes > 0 && last_escape + 2 == body.len() && body.ends_with("\\n");
    let (log, escapes) = if newline {
        (&body[..body.len() - 2], escapes - 1)
    } else {
        (body, escapes)
    };
    Ok((
        i,
        DockerLine {
            prefix: DockerPrefix {
                time,
                stream,
                partial: !newline,
            },
            log,
            escaped: escapes > 0,
        },
    ))
}

/// Reads the 4 hex digits of a `\u` escape.
fn hex4(b: &[u8]) -> Option<u32> {
    let digits = b.get(..4)?;
    let mut value = 0;
    for &d in digits {
        value = value * 16 + char::from(d).to_digit(16)?;
    }
    Some(value)
}

/// Appends the text of a JSON string body to `out`: `\n`, `\"`, `\\`, `\t`, `\uXXXX`
/// (with surrogate pairs) and the rest. A broken escape becomes U+FFFD.
///
/// ```
/// let mut out = String::new();
/// evacdoc_parsers::docker::unescape(r#"a\"b\\c\td\u00e9\ud83d\ude00\u001b[00m\q"#, &mut out);
/// assert_eq!(out, "a\"b\\c\td\u{e9}\u{1f600}\u{1b}[00m\u{fffd}");
/// ```
pub fn unescape(body: &str, out: &mut String) {
    let b = body.as_bytes();
    let mut at = 0;
    while at < b.len() {
        let Some(found) = memchr::memchr(b'\\', &b[at..]) else {
            out.push_str(&body[at..]);
            return;
        };
        let slash = at + found;
        // Backslashes are ASCII: both ends are char boundaries.
        out.push_str(&body[at..slash]);
        let Some(&e) = b.get(slash + 1) else {
            out.push(char::REPLACEMENT_CHARACTER);
            return;
        };
        at = slash + 2;
        let c = match e {
            b'n' => '\n',
            b't' => '\t',
            b'r' => '\r',
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'u' => match hex4(&b[at..]) {
                Some(high @ 0xd800..=0xdbff) => {
                    let low = b
                        .get(at + 4..at + 6)
                        .filter(|p| *p == b"\\u")
                        .and_then(|_| hex4(&b[at + 6..]))
                        .filter(|low| (0xdc00..=0xdfff).contains(low));
                    match low {
                        Some(low) => {
                            at += 10;
                            let code = 0x10000 + ((high - 0xd800) << 10) + (low - 0xdc00);
                            char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
                        }
                        None => {
                            at += 4;
                            char::REPLACEMENT_CHARACTER
                        }
                    }
                }
                Some(code) => {
                    at += 4;
                    char::from_u32(code).unwrap_or(char::REPLACEMENT_CHARACTER)
                }
                None => char::REPLACEMENT_CHARACTER,
            },
            _ => char::REPLACEMENT_CHARACTER,
        };
        out.push(c);
        // A multi-byte character after the backslash: resume at its next char boundary.
        while at < b.len() && !body.is_char_boundary(at) {
            at += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decoded(d: &DockerLine<'_>) -> String {
        let mut out = String::new();
        unescape(d.log, &mut out);
        out
    }

    #[test]
    fn plain_line_borrows() {
        let line = r#"{"log":"2026-11-30 09:34:22.845 7502 INFO masakari.compute.nova [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Disable nova-compute on compute-1\n","stream":"stdout","time":"2026-11-30T09:34:22.845912345Z"}"#;
        let (rest, d) = parse_docker_line(line).unwrap();
        assert_eq!(rest, "");
        assert!(!d.escaped);
        assert!(!d.prefix.partial);
        assert_eq!(d.prefix.stream, Stream::Stdout);
        assert!(d.log.ends_with("Disable nova-compute on compute-1"));
        assert_eq!(d.prefix.time.to_string(), "2026-11-30T09:34:22.845912345Z");
    }

    #[test]
    fn escapes_partial_and_attrs() {
        let line = r#"{"log":"  File \"/usr/lib/python3/dist-packages/eventlet/greenpool.py\", line 87, in _spawn_n_impl\n","stream":"stderr","attrs":{"tag":"nova_compute","n":[1,{"x":"}"}]},"time":"2026-11-30T09:34:22.845Z"}"#;
        let (_, d) = parse_docker_line(line).unwrap();
        assert!(d.escaped);
        assert_eq!(
            decoded(&d),
            "  File \"/usr/lib/python3/dist-packages/eventlet/greenpool.py\", line 87, in _spawn_n_impl"
        );
        assert_eq!(d.prefix.stream, Stream::Stderr);

        let (_, d) =
            parse_docker_line(r#"{"time":"2026-11-30T09:34:22.845Z","log":"piece"}"#).unwrap();
        assert!(d.prefix.partial && !d.escaped);
        assert_eq!(d.log, "piece");

        // An escaped backslash before `n` is not a newline.
        let (_, d) =
            parse_docker_line(r#"{"log":"C:\\n","stream":"stdout","time":"2026-11-30T09:34:22Z"}"#)
                .unwrap();
        assert!(d.prefix.partial && d.escaped);
        assert_eq!(decoded(&d), "C:\\n");
    }

    #[test]
    fn not_docker() {
        for line in [
            "",
            "{",
            r#"{"log":"x\n","stream":"stdout"}"#,
            r#"{"stream":"stdout","time":"2026-11-30T09:34:22Z"}"#,
            r#"{"log":"x\n","stream":"stdin","time":"2026-11-30T09:34:22Z"}"#,
            r#"{"log":"x\n","time":"2026-11-30 09:34:22"}"#,
            r#"{"log":"x\n,"time":"2026-11-30T09:34:22Z"}"#,
            r#"{"log":"unterminated"#,
            r#"{"log":"x" "time":"2026-11-30T09:34:22Z"}"#,
            "2026-11-30 09:34:22.845 7502 INFO a.b [-] x",
        ] {
            assert!(parse_docker_line(line).is_err(), "{line}");
        }
    }

    #[test]
    fn broken_escapes_never_panic() {
        for body in [r"\", r"\u12", r"\ud800", r"\ud800\u0041", "\\é", r"\u00zz"] {
            let mut out = String::new();
            unescape(body, &mut out);
            assert!(out.contains('\u{fffd}'), "{body}: {out}");
        }
    }
}
