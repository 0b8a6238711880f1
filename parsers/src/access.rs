//! Apache access-log lines in the three layouts OpenStack deployments write:
//!
//! | variant | `LogFormat` | where |
//! |---|---|---|
//! | [`AccessVariant::Combined`] | `%h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"` | Ubuntu `combined` (charms, Sunbeam) |
//! | [`AccessVariant::Kolla`] | `%{X-Forwarded-For}i %l %u %t "%r" %>s %b %D "%{Referer}i" "%{User-Agent}i"` | Kolla-Ansible `nova-api-access.log` (`%D` in µs) |
//! | [`AccessVariant::Common`] | `%h %l %u %t "%r" %>s %b` | Apache `common` (Kolla `apache-access.log`) |
//!
//! Apache escapes `"` and `\` inside `%r` and the headers as `\"` and `\\`, and
//! non-printable bytes as `\xhh`; the fields keep that escaped text as written.
//! A request that is not an HTTP request line (`-`, a TLS handshake sent to the plain
//! port, ...) is kept raw with no method, path or protocol.

use memchr::{memchr, memchr2};
use serde::Serialize;

use crate::error::{PResult, expected};
use crate::time::{Timestamp, byte, clf_time, fixed_digits, number};

/// Which `LogFormat` a line was written with.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AccessVariant {
    /// `combined`: the response size, then the quoted referer and user agent.
    Combined,
    /// Kolla: the response size, the duration in microseconds (`%D`), then the quoted
    /// referer and user agent.
    Kolla,
    /// `common`: the line ends after the response size.
    Common,
}

/// One access-log line, every text field borrowed from the input. Fields Apache writes
/// as `-` are `None`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct AccessLine<'a> {
    /// `%h`, or Kolla's `%{X-Forwarded-For}i`: one address, a `, `-separated list of
    /// them, or `-` when the header was absent.
    pub client: &'a str,
    /// `%l`, the identd name (practically always `-`).
    pub ident: Option<&'a str>,
    /// `%u`, the authenticated user.
    pub user: Option<&'a str>,
    /// `%t`, the time the request was received, with its offset.
    pub time: Timestamp,
    /// `%r` as written between the quotes (escapes kept).
    pub request: &'a str,
    /// The request method, when `%r` is an HTTP request line.
    pub method: Option<&'a str>,
    /// The request target (path and query), when `%r` is an HTTP request line.
    pub path: Option<&'a str>,
    /// `HTTP/1.1`, ...; `None` for an HTTP/0.9 request line or junk.
    pub protocol: Option<&'a str>,
    /// `%>s`, the final status.
    pub status: u16,
    /// `%O` (bytes sent, headers included) or `%b` (body bytes); `None` for `-`.
    pub bytes: Option<u64>,
    /// `%D`, the time taken in microseconds (Kolla only).
    pub duration_us: Option<u64>,
    /// The `Referer` header.
    pub referer: Option<&'a str>,
    /// The `User-Agent` header (`python-novaclient` for Masakari's calls).
    pub user_agent: Option<&'a str>,
    /// The layout of the line.
    pub variant: AccessVariant,
}

impl<'a> AccessLine<'a> {
    /// The instance UUID of a `/servers/<uuid>...` request path.
    pub fn instance(&self) -> Option<&'a str> {
        self.path.and_then(crate::text::server_uuid_in_path)
    }
}

/// `-` means "absent" in every Apache field.
fn dash_none(field: &str) -> Option<&str> {
    (field != "-").then_some(field)
}

/// Skips the whitespace a line may end with (spaces, tabs, CR, LF).
fn skip_ws(input: &str) -> &str {
    input.trim_start_matches([' ', '\t', '\r', '\n'])
}

/// `%h %l %u ` (or `%{X-Forwarded-For}i %l %u `): the client, ident and user before the
/// time bracket; the rest starts at `[`.
///
/// The time bracket is the first ` [` followed by a digit. The user is the last
/// space-separated word before it, the ident the one before that, and the client
/// everything earlier, so that an X-Forwarded-For list (`10.0.0.1, 192.168.1.5`) stays
/// whole. Inside the client a space is only accepted after a comma.
fn client_ident_user(input: &str) -> PResult<'_, (&str, Option<&str>, Option<&str>)> {
    let bytes = input.as_bytes();
    let mut from = 0;
    let open = loop {
        let Some(found) = bytes.get(from..).and_then(|rest| memchr(b'[', rest)) else {
            return expected(input, "time bracket");
        };
        let at = from + found;
        let spaced = at > 0 && bytes.get(at - 1) == Some(&b' ');
        if spaced && bytes.get(at + 1).is_some_and(u8::is_ascii_digit) {
            break at;
        }
        from = at + 1;
    };
    // `open - 1` is the ASCII space before `[`.
    let (Some(head), Some(rest)) = (input.get(..open - 1), input.get(open..)) else {
        return expected(input, "client address");
    };
    let Some((head, user)) = head.rsplit_once(' ') else {
        return expected(input, "remote user");
    };
    let Some((client, ident)) = head.rsplit_once(' ') else {
        return expected(input, "remote logname");
    };
    if user.is_empty() || ident.is_empty() {
        return expected(input, "remote user");
    }
    let client_ok = client.as_bytes().first().is_some_and(|b| *b != b' ')
        && client
            .as_bytes()
            .windows(2)
            .all(|w| w.get(1) != Some(&b' ') || w.first() == Some(&b','));
    if !client_ok {
        return expected(input, "client address");
    }
    Ok((rest, (client, dash_none(ident), dash_none(user))))
}

/// `[%t]`: `[27/Dec/2024:00:00:11 +0000]`.
fn bracketed_time(input: &str) -> PResult<'_, Timestamp> {
    let (i, _) = byte(input, b'[', "time bracket")?;
    let (i, time) = clf_time(i)?;
    let (i, _) = byte(i, b']', "end of time bracket")?;
    Ok((i, time))
}

/// A double-quoted field with Apache's backslash escapes. A `"` closes the field only
/// when `closes` accepts what follows it; otherwise it is taken as part of the text (a
/// quote an old or foreign writer left unescaped). Returns the text between the quotes,
/// escapes kept.
fn quoted<'a>(
    input: &'a str,
    what: &'static str,
    end: &'static str,
    closes: fn(&str) -> bool,
) -> PResult<'a, &'a str> {
    let Some(body) = input.strip_prefix('"') else {
        return expected(input, what);
    };
    let bytes = body.as_bytes();
    let mut pos = 0;
    while let Some(found) = bytes.get(pos..).and_then(|rest| memchr2(b'"', b'\\', rest)) {
        let at = pos + found;
        if bytes.get(at) == Some(&b'\\') {
            // An escape: skip the backslash and the byte it escapes.
            pos = at + 2;
            continue;
        }
        // `at` is an ASCII quote, so both positions are char boundaries.
        if let (Some(text), Some(rest)) = (body.get(..at), body.get(at + 1..))
            && closes(rest)
        {
            return Ok((rest, text));
        }
        pos = at + 1;
    }
    expected(body, end)
}

/// The request field ends at a quote followed by a space and the status digits.
fn closes_request(rest: &str) -> bool {
    let b = rest.as_bytes();
    b.first() == Some(&b' ') && b.get(1).is_some_and(u8::is_ascii_digit)
}

/// The referer ends at a quote followed by ` "` (the user agent).
fn closes_referer(rest: &str) -> bool {
    rest.starts_with(" \"")
}

/// The user agent ends at a quote at the end of the line or before whitespace.
fn closes_user_agent(rest: &str) -> bool {
    rest.as_bytes()
        .first()
        .is_none_or(|b| matches!(b, b' ' | b'\t' | b'\r' | b'\n'))
}

/// Splits `%r` into method, target and protocol when it is an HTTP request line
/// (`GET /path HTTP/1.1`, or HTTP/0.9 `GET /path`).
fn split_request(raw: &str) -> (Option<&str>, Option<&str>, Option<&str>) {
    let Some((method, target)) = raw.split_once(' ') else {
        return (None, None, None);
    };
    let method_ok = !method.is_empty()
        && method
            .bytes()
            .all(|b| b.is_ascii_uppercase() || b == b'-' || b == b'_');
    if !method_ok || target.is_empty() {
        return (None, None, None);
    }
    match target.rsplit_once(' ') {
        Some((path, protocol)) if protocol.starts_with("HTTP/") && !path.is_empty() => {
            (Some(method), Some(path), Some(protocol))
        }
        _ => (Some(method), Some(target), None),
    }
}

/// `%>s`: three digits.
fn status(input: &str) -> PResult<'_, u16> {
    let (rest, code) = fixed_digits(input, 3, "status code")?;
    if rest.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        return expected(input, "status code");
    }
    // Three digits fit in a u16.
    Ok((rest, code as u16))
}

/// A decimal count or `-`.
fn count_or_dash<'a>(input: &'a str, what: &'static str) -> PResult<'a, Option<u64>> {
    if let Some(rest) = input.strip_prefix('-') {
        return Ok((rest, None));
    }
    let (rest, n) = number(input, what)?;
    Ok((rest, Some(n)))
}

/// What follows the response size, decided by its first byte.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Tail<'a> {
    variant: AccessVariant,
    duration_us: Option<u64>,
    referer: Option<&'a str>,
    user_agent: Option<&'a str>,
}

/// After `%b`/`%O`: nothing (`common`), ` %D "referer" "agent"` (Kolla) or
/// ` "referer" "agent"` (`combined`). Trailing whitespace is consumed.
fn tail(input: &str) -> PResult<'_, Tail<'_>> {
    let trimmed = skip_ws(input);
    if trimmed.is_empty() {
        let tail = Tail {
            variant: AccessVariant::Common,
            duration_us: None,
            referer: None,
            user_agent: None,
        };
        return Ok((trimmed, tail));
    }
    let (i, _) = byte(input, b' ', "space after response size")?;
    let (i, duration_us, variant) = if i.as_bytes().first().is_some_and(u8::is_ascii_digit) {
        let (i, us) = number(i, "request duration")?;
        let (i, _) = byte(i, b' ', "space before referer")?;
        (i, Some(us), AccessVariant::Kolla)
    } else {
        (i, None, AccessVariant::Combined)
    };
    let (i, referer) = quoted(i, "referer", "end of referer", closes_referer)?;
    let (i, _) = byte(i, b' ', "space before user agent")?;
    let (i, user_agent) = quoted(i, "user agent", "end of user agent", closes_user_agent)?;
    let tail = Tail {
        variant,
        duration_us,
        referer: dash_none(referer),
        user_agent: dash_none(user_agent),
    };
    Ok((skip_ws(i), tail))
}

/// Reads an Apache access-log line (`combined`, Kolla or `common`).
///
/// Trailing whitespace is consumed; the rest is empty for the three known layouts, and
/// holds any further fields a custom `LogFormat` wrote after the user agent.
///
/// ```
/// use evacdoc_parsers::access::{parse_access_line, AccessVariant};
/// let line = "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \
///     \"GET /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1\" 200 3984 \
///     \"-\" \"python-novaclient\"";
/// let (rest, access) = parse_access_line(line).unwrap();
/// assert_eq!(rest, "");
/// assert_eq!(access.variant, AccessVariant::Combined);
/// assert_eq!(access.method, Some("GET"));
/// assert_eq!(access.status, 200);
/// assert_eq!(access.bytes, Some(3984));
/// assert_eq!(access.user_agent, Some("python-novaclient"));
/// assert_eq!(access.instance(), Some("cd3fb57b-9f28-422f-9a0c-d56dfb89ee94"));
/// assert_eq!(access.time.to_string(), "2024-12-27T00:00:11.000Z");
///
/// let kolla = "10.0.0.1, 192.168.1.5 - - [08/Dec/2020:19:51:12 +0000] \
///     \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 202 - 81234 \
///     \"-\" \"python-novaclient\"";
/// let (_, access) = parse_access_line(kolla).unwrap();
/// assert_eq!(access.variant, AccessVariant::Kolla);
/// assert_eq!(access.client, "10.0.0.1, 192.168.1.5");
/// assert_eq!((access.bytes, access.duration_us), (None, Some(81234)));
/// ```
pub fn parse_access_line(input: &str) -> PResult<'_, AccessLine<'_>> {
    let (i, (client, ident, user)) = client_ident_user(input)?;
    let (i, time) = bracketed_time(i)?;
    let (i, _) = byte(i, b' ', "space before request")?;
    let (i, request) = quoted(i, "request", "end of request", closes_request)?;
    let (i, _) = byte(i, b' ', "space before status")?;
    let (i, status) = status(i)?;
    let (i, _) = byte(i, b' ', "space before response size")?;
    let (i, bytes) = count_or_dash(i, "response size")?;
    let (i, tail) = tail(i)?;
    let (method, path, protocol) = split_request(request);
    Ok((
        i,
        AccessLine {
            client,
            ident,
            user,
            time,
            request,
            method,
            path,
            protocol,
            status,
            bytes,
            duration_us: tail.duration_us,
            referer: tail.referer,
            user_agent: tail.user_agent,
            variant: tail.variant,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::DateTime;

    fn access(line: &str) -> AccessLine<'_> {
        let (rest, parsed) = parse_access_line(line).unwrap();
        assert_eq!(rest, "");
        parsed
    }

    const UUID: &str = "cd3fb57b-9f28-422f-9a0c-d56dfb89ee94";

    #[test]
    fn client_ident_user_reads_the_three_words() {
        assert_eq!(
            client_ident_user("127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET"),
            Ok((
                "[27/Dec/2024:00:00:11 +0000] \"GET",
                ("127.0.0.1", None, None)
            ))
        );
        assert_eq!(
            client_ident_user("10.0.0.1, 192.168.1.5 - frank [08/Dec/2020"),
            Ok((
                "[08/Dec/2020",
                ("10.0.0.1, 192.168.1.5", None, Some("frank"))
            ))
        );
        assert_eq!(
            client_ident_user("::1 ident - [08/Dec"),
            Ok(("[08/Dec", ("::1", Some("ident"), None)))
        );
        // A `[` not followed by a digit is not the time bracket.
        assert_eq!(
            client_ident_user("- - [x] - - [08/"),
            Err(nom::Err::Error(crate::error::ParseError {
                input: "- - [x] - - [08/",
                kind: crate::error::ErrorKind::Expected("client address"),
            }))
        );
        assert!(client_ident_user("127.0.0.1 - - 27/Dec/2024").is_err());
        assert!(client_ident_user("- [08/Dec").is_err());
        assert!(client_ident_user("[08/Dec").is_err());
        assert!(client_ident_user("a  - [08/Dec").is_err());
        assert!(client_ident_user("").is_err());
    }

    #[test]
    fn bracketed_time_reads_clf_time() {
        let (rest, t) = bracketed_time("[27/Dec/2024:00:00:11 +0000] \"GET").unwrap();
        assert_eq!(rest, " \"GET");
        assert_eq!(
            t,
            Timestamp {
                local: DateTime::new(2024, 12, 27, 0, 0, 11, 0).unwrap(),
                offset: Some(0),
            }
        );
        let (_, t) = bracketed_time("[08/Dec/2020:19:51:12 -0500]").unwrap();
        assert_eq!(t.offset, Some(-5 * 3600));
        assert!(bracketed_time("[27/Dec/2024:00:00:11 +0000").is_err());
        assert!(bracketed_time("[27/Dec/2024:00:00").is_err());
        assert!(bracketed_time("27/Dec/2024:00:00:11 +0000]").is_err());
    }

    #[test]
    fn quoted_handles_escapes_and_stray_quotes() {
        assert_eq!(
            quoted("\"GET / HTTP/1.1\" 200 5", "request", "end", closes_request),
            Ok((" 200 5", "GET / HTTP/1.1"))
        );
        assert_eq!(
            quoted(
                r#""GET /a\"b HTTP/1.1" 200"#,
                "request",
                "end",
                closes_request
            ),
            Ok((" 200", r#"GET /a\"b HTTP/1.1"#))
        );
        // An unescaped quote not followed by ` <digit>` stays in the text.
        assert_eq!(
            quoted(
                r#""GET /"x" HTTP/1.0" 400"#,
                "request",
                "end",
                closes_request
            ),
            Ok((" 400", r#"GET /"x" HTTP/1.0"#))
        );
        assert_eq!(
            quoted(r#""a\\" "b""#, "referer", "end", closes_referer),
            Ok((r#" "b""#, r#"a\\"#))
        );
        assert_eq!(
            quoted(r#""curl \"7\"""#, "ua", "end", closes_user_agent),
            Ok(("", r#"curl \"7\""#))
        );
        assert_eq!(
            quoted("\"\"  ", "ua", "end", closes_user_agent),
            Ok(("  ", ""))
        );
        assert!(quoted("\"GET / HTTP/1.1", "request", "end", closes_request).is_err());
        assert!(quoted("\"ends in backslash\\", "ua", "end", closes_user_agent).is_err());
        assert!(quoted("\"ends in backslash\\\"", "ua", "end", closes_user_agent).is_err());
        assert!(quoted("GET", "request", "end", closes_request).is_err());
        assert!(quoted("", "request", "end", closes_request).is_err());
    }

    #[test]
    fn split_request_variants() {
        assert_eq!(
            split_request("GET /v2.1/servers HTTP/1.1"),
            (Some("GET"), Some("/v2.1/servers"), Some("HTTP/1.1"))
        );
        assert_eq!(split_request("GET /"), (Some("GET"), Some("/"), None));
        assert_eq!(split_request("-"), (None, None, None));
        assert_eq!(
            split_request(r"\x16\x03\x01\x02\x00\x01"),
            (None, None, None)
        );
        assert_eq!(split_request("get / HTTP/1.1"), (None, None, None));
        assert_eq!(split_request("GET "), (None, None, None));
        assert_eq!(
            split_request("VERSION-CONTROL /x HTTP/1.1"),
            (Some("VERSION-CONTROL"), Some("/x"), Some("HTTP/1.1"))
        );
    }

    #[test]
    fn status_and_counts() {
        assert_eq!(status("200 3984"), Ok((" 3984", 200)));
        assert!(status("20 3984").is_err());
        assert!(status("2000 3984").is_err());
        assert!(status("- 3984").is_err());
        assert_eq!(
            count_or_dash("3984 \"-\"", "size"),
            Ok((" \"-\"", Some(3984)))
        );
        assert_eq!(count_or_dash("- 5", "size"), Ok((" 5", None)));
        assert!(count_or_dash("x", "size").is_err());
        assert!(count_or_dash("", "size").is_err());
    }

    #[test]
    fn tail_decides_the_variant() {
        let common = Tail {
            variant: AccessVariant::Common,
            duration_us: None,
            referer: None,
            user_agent: None,
        };
        assert_eq!(tail(""), Ok(("", common)));
        assert_eq!(tail("  \r\n"), Ok(("", common)));
        assert_eq!(
            tail(" \"-\" \"goose (0.1.0)\" "),
            Ok((
                "",
                Tail {
                    variant: AccessVariant::Combined,
                    user_agent: Some("goose (0.1.0)"),
                    ..common
                }
            ))
        );
        assert_eq!(
            tail(" 1234 \"http://x/\" \"-\" extra"),
            Ok((
                "extra",
                Tail {
                    variant: AccessVariant::Kolla,
                    duration_us: Some(1234),
                    referer: Some("http://x/"),
                    ..common
                }
            ))
        );
        assert!(tail(" 1234").is_err());
        assert!(tail(" 1234 \"-\"").is_err());
        assert!(tail(" \"-\" \"python-nova").is_err());
        assert!(tail(" garbage").is_err());
        assert!(tail("x").is_err());
    }

    #[test]
    fn ubuntu_combined_lines() {
        let line = access(
            "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET \
             /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1\" 200 3984 \"-\" \
             \"python-novaclient\"",
        );
        assert_eq!(
            line,
            AccessLine {
                client: "127.0.0.1",
                ident: None,
                user: None,
                time: Timestamp {
                    local: DateTime::new(2024, 12, 27, 0, 0, 11, 0).unwrap(),
                    offset: Some(0),
                },
                request: "GET /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1",
                method: Some("GET"),
                path: Some("/v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94"),
                protocol: Some("HTTP/1.1"),
                status: 200,
                bytes: Some(3984),
                duration_us: None,
                referer: None,
                user_agent: Some("python-novaclient"),
                variant: AccessVariant::Combined,
            }
        );
        assert_eq!(line.instance(), Some(UUID));

        let line = access(
            "127.0.0.1 - - [27/Dec/2021:00:00:10 +0000] \"GET /v2.1/servers/detail?name=juju-.%2A \
             HTTP/1.1\" 200 40168 \"-\" \"goose (0.1.0)\"",
        );
        assert_eq!(line.path, Some("/v2.1/servers/detail?name=juju-.%2A"));
        assert_eq!(line.user_agent, Some("goose (0.1.0)"));
        assert_eq!(line.instance(), None);
    }

    #[test]
    fn sunbeam_access_line_after_pebble_prefix() {
        let line = access(
            "10.1.0.50 - - [14/May/2025:04:26:38 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \
             \"Go-http-client/1.1\"",
        );
        assert_eq!((line.status, line.bytes), (500, Some(840)));
        assert_eq!(line.variant, AccessVariant::Combined);
    }

    #[test]
    fn kolla_lines() {
        let line = access(
            "10.0.0.1, 192.168.1.5 - - [08/Dec/2020:19:51:12 +0000] \"POST \
             /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 202 - 81234 \
             \"-\" \"python-novaclient\"",
        );
        assert_eq!(line.variant, AccessVariant::Kolla);
        assert_eq!(line.client, "10.0.0.1, 192.168.1.5");
        assert_eq!(line.bytes, None);
        assert_eq!(line.duration_us, Some(81234));
        assert_eq!(
            line.instance(),
            Some("56ce6206-3659-495e-a6ea-f4d3d578cc96")
        );

        let line = access(
            "- - - [08/Dec/2020:19:51:12 +0000] \"GET /healthcheck HTTP/1.1\" 200 2 933 \"-\" \
             \"HAProxy\"",
        );
        assert_eq!(line.client, "-");
        assert_eq!((line.bytes, line.duration_us), (Some(2), Some(933)));
        assert_eq!(line.user_agent, Some("HAProxy"));
    }

    #[test]
    fn common_lines() {
        let line = access(
            "192.168.1.5 - admin [08/Dec/2020:19:51:12 +0100] \"DELETE /v2.1/servers/x HTTP/1.1\" 204 -",
        );
        assert_eq!(line.variant, AccessVariant::Common);
        assert_eq!(line.user, Some("admin"));
        assert_eq!(line.bytes, None);
        assert_eq!(
            (line.referer, line.user_agent, line.duration_us),
            (None, None, None)
        );
        assert_eq!(line.time.offset, Some(3600));
        let line = access("::1 - - [08/Dec/2020:19:51:12 +0000] \"OPTIONS * HTTP/1.0\" 200 126   ");
        assert_eq!(line.path, Some("*"));
        assert_eq!(line.bytes, Some(126));
    }

    #[test]
    fn junk_requests_and_escapes() {
        let line = access(
            r#"10.0.0.9 - - [08/Dec/2020:19:51:12 +0000] "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03" 400 483 "-" "-""#,
        );
        assert_eq!(line.status, 400);
        assert_eq!((line.method, line.path, line.protocol), (None, None, None));
        assert!(line.request.starts_with(r"\x16\x03"));
        assert_eq!(line.user_agent, None);

        let line = access("10.0.0.9 - - [08/Dec/2020:19:51:12 +0000] \"-\" 408 - \"-\" \"-\"");
        assert_eq!((line.request, line.method, line.status), ("-", None, 408));

        let line = access(
            r#"10.0.0.9 - - [08/Dec/2020:19:51:12 +0000] "GET /q?a=\"b\" HTTP/1.1" 200 5 "-" "Mozilla \"x\" (y)" "#,
        );
        assert_eq!(line.path, Some(r#"/q?a=\"b\""#));
        assert_eq!(line.user_agent, Some(r#"Mozilla \"x\" (y)"#));
    }

    #[test]
    fn rejects_truncated_and_foreign_lines() {
        let full = "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET /v2.1/servers HTTP/1.1\" \
                    200 3984 \"-\" \"python-novaclient\"";
        // Every strict prefix that is not a complete `common` line fails, none panics.
        for end in 0..full.len() {
            let prefix = &full[..end];
            let ok = parse_access_line(prefix).is_ok();
            // `... 200 3`, `... 200 39`, ... `... 200 3984 ` are complete `common` lines.
            let is_common_prefix = prefix
                .split_once("\" 200 ")
                .is_some_and(|(_, r)| !r.trim_end().is_empty() && "3984".starts_with(r.trim_end()));
            assert_eq!(ok, is_common_prefix, "{prefix:?}");
        }
        assert!(parse_access_line("").is_err());
        assert!(parse_access_line("garbage").is_err());
        assert!(
            parse_access_line(
                "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-x - - - - -] msg"
            )
            .is_err()
        );
        assert!(
            parse_access_line("127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET /\" 2x0 5")
                .is_err()
        );
        assert_eq!(
            parse_access_line("127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET /\"").map(|_| ()),
            Err(nom::Err::Error(crate::error::ParseError {
                input: "GET /\"",
                kind: crate::error::ErrorKind::Expected("end of request"),
            }))
        );
    }

    #[test]
    fn never_panics_on_odd_bytes() {
        let samples = [
            "é - - [27/Dec/2024:00:00:11 +0000] \"é\\é\" 200 1 \"é\" \"é\\",
            "\\ \\ \\ [1",
            " [1",
            "a b c [1",
            "a b c [27/Dec/2024:00:00:11 +0000] \"\\",
            "a b c [27/Dec/2024:00:00:11 +0000] \"x\" 200 1 \"\\\" \"",
            "a b c [27/Dec/2024:00:00:11 +0000] \"x\" 200 18446744073709551616999 \"-\" \"-\"",
        ];
        for s in samples {
            let _ = parse_access_line(s);
        }
        let (_, line) =
            parse_access_line("é - - [27/Dec/2024:00:00:11 +0000] \"é\\é\" 200 1 \"é\" \"é\"")
                .unwrap();
        assert_eq!((line.request, line.referer), ("é\\é", Some("é")));
        assert_eq!(line.client, "é");
    }
    const SAMPLES: [&str; 3] = [
        "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1\" 200 3984 \"-\" \"python-novaclient\"",
        "10.0.0.1, 192.168.1.5 - - [08/Dec/2020:19:51:12 +0000] \"POST /a\\\"b HTTP/1.1\" 202 - 81234 \"-\" \"x\"",
        "::1 - - [08/Dec/2020:19:51:12 +0000] \"-\" 408 -",
    ];

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(s in "\\PC*") {
            let _ = parse_access_line(&s);
        }

        #[test]
        fn never_panics_on_cut_and_spliced_lines(cut in 0usize..400, junk in "\\PC{0,8}", at in 0usize..400) {
            for sample in SAMPLES {
                let cut = sample.floor_char_boundary(cut.min(sample.len()));
                let at = sample.floor_char_boundary(at.min(sample.len()));
                let _ = parse_access_line(&sample[..cut]);
                let spliced = format!("{}{}{}", &sample[..at], junk, &sample[at..]);
                let _ = parse_access_line(&spliced);
            }
        }
    }
}
