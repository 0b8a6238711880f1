//! The Nova API request lines that are the *message* of an oslo.log record.
//!
//! Two mutually exclusive loggers write them:
//!
//! | logger | server | message format |
//! |---|---|---|
//! | `nova.api.openstack.requestlog` | mod_wsgi / uWSGI | `%(REMOTE_ADDR)s "%(REQUEST_METHOD)s %(REQUEST_URI)s" status: %(status)s len: %(len)s microversion: %(microversion)s time: %(time).6f` |
//! | `nova.osapi_compute.wsgi.server` | eventlet (gone in 2025.2) | `%(client_ip)s "%(request_line)s" status: %(status_code)s len: %(body_length)s time: %(wall_seconds).7f` |
//!
//! The request log has no HTTP version and writes `microversion: -` when the request
//! had none; its `len` is WebOb's `content_length`, which is `None` for a response
//! without a length. Neither logger escapes the request, so the quoted part ends at the
//! `" status: ` that follows it.

use memchr::{memchr, memmem};
use serde::Serialize;

use crate::error::{PResult, expected};
use crate::time::number;

/// The logger of the WSGI request-log middleware (`nova/api/openstack/requestlog.py`).
pub const REQUESTLOG_LOGGER: &str = "nova.api.openstack.requestlog";
/// The logger of the eventlet WSGI server of `nova-api` / `nova-api-os-compute`.
pub const EVENTLET_LOGGER: &str = "nova.osapi_compute.wsgi.server";

/// True for the two loggers whose messages are Nova API request lines.
///
/// ```
/// use evacdoc_parsers::nova_request::is_request_logger;
/// assert!(is_request_logger("nova.api.openstack.requestlog"));
/// assert!(is_request_logger("nova.osapi_compute.wsgi.server"));
/// assert!(!is_request_logger("nova.api.openstack.wsgi"));
/// ```
pub fn is_request_logger(logger: &str) -> bool {
    logger == REQUESTLOG_LOGGER || logger == EVENTLET_LOGGER
}

/// One Nova API request line, text fields borrowed from the message.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct NovaRequest<'a> {
    /// The client address: `REMOTE_ADDR` (`-` when unknown), or for eventlet the peer,
    /// after the X-Forwarded-For addresses when that header was set (`a,b,peer`).
    pub client: &'a str,
    /// The request method.
    pub method: &'a str,
    /// The request URI (path and query).
    pub uri: &'a str,
    /// `HTTP/1.1` on eventlet lines; the request log writes none.
    pub protocol: Option<&'a str>,
    /// The response status.
    pub status: u16,
    /// The response body length; `None` when Nova wrote `None` (no Content-Length) or
    /// `-`.
    pub len: Option<u64>,
    /// The API microversion (`2.53`); `None` for `-` or on eventlet lines.
    pub microversion: Option<&'a str>,
    /// The time taken, in microseconds (rounded to the nearest from the seconds
    /// written, without going through floating point).
    pub time_us: u64,
    /// The instance UUID of a `/servers/<uuid>...` URI.
    pub instance: Option<&'a str>,
}

/// Reads the literal `lit`.
fn tag<'a>(input: &'a str, lit: &'static str, what: &'static str) -> PResult<'a, ()> {
    match input.strip_prefix(lit) {
        Some(rest) => Ok((rest, ())),
        None => expected(input, what),
    }
}

/// The client address before ` "`. A space inside it is only accepted after a comma.
fn client(input: &str) -> PResult<'_, &str> {
    let bytes = input.as_bytes();
    let Some(quote) = memchr(b'"', bytes) else {
        return expected(input, "quoted request");
    };
    if quote < 2 || bytes.get(quote - 1) != Some(&b' ') {
        return expected(input, "client address");
    }
    let (Some(client), Some(rest)) = (input.get(..quote - 1), input.get(quote..)) else {
        return expected(input, "client address");
    };
    let ok = client.as_bytes().first().is_some_and(|b| *b != b' ')
        && client
            .as_bytes()
            .windows(2)
            .all(|w| w.get(1) != Some(&b' ') || w.first() == Some(&b','));
    if !ok {
        return expected(input, "client address");
    }
    Ok((rest, client))
}

/// The method, URI and optional protocol of the quoted request.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct RequestLine<'a> {
    method: &'a str,
    uri: &'a str,
    protocol: Option<&'a str>,
}

/// `"GET /v2.1/servers/sixthVM HTTP/1.1"` or `"OPTIONS /"`, leaving ` status: `.
fn request_line(input: &str) -> PResult<'_, RequestLine<'_>> {
    let Some(body) = input.strip_prefix('"') else {
        return expected(input, "quoted request");
    };
    let Some(end) = memmem::find(body.as_bytes(), b"\" status: ") else {
        return expected(body, "end of request");
    };
    let (Some(request), Some(rest)) = (body.get(..end), body.get(end + 1..)) else {
        return expected(body, "end of request");
    };
    let Some((method, target)) = request.split_once(' ') else {
        return expected(body, "request method and uri");
    };
    if method.is_empty() || target.is_empty() {
        return expected(body, "request method and uri");
    }
    let (uri, protocol) = match target.rsplit_once(' ') {
        Some((uri, protocol)) if protocol.starts_with("HTTP/") && !uri.is_empty() => {
            (uri, Some(protocol))
        }
        _ => (target, None),
    };
    Ok((
        rest,
        RequestLine {
            method,
            uri,
            protocol,
        },
    ))
}

/// ` status: 200`
fn status(input: &str) -> PResult<'_, u16> {
    let (i, _) = tag(input, " status: ", "status")?;
    let (rest, code) = number(i, "status")?;
    match u16::try_from(code) {
        Ok(code) => Ok((rest, code)),
        Err(_) => expected(i, "status"),
    }
}

/// ` len: 405`, ` len: None` or ` len: -`
fn len(input: &str) -> PResult<'_, Option<u64>> {
    let (i, _) = tag(input, " len: ", "len")?;
    if let Some(rest) = i.strip_prefix("None").or_else(|| i.strip_prefix('-')) {
        return Ok((rest, None));
    }
    let (rest, n) = number(i, "len")?;
    Ok((rest, Some(n)))
}

/// ` microversion: 2.53` or ` microversion: -`; absent on eventlet lines.
fn microversion(input: &str) -> PResult<'_, Option<&str>> {
    let Some(i) = input.strip_prefix(" microversion: ") else {
        return Ok((input, None));
    };
    let end = memchr(b' ', i.as_bytes()).unwrap_or(i.len());
    let (Some(value), Some(rest)) = (i.get(..end), i.get(end..)) else {
        return expected(i, "microversion");
    };
    if value.is_empty() {
        return expected(i, "microversion");
    }
    Ok((rest, (value != "-").then_some(value)))
}

/// Seconds written as `0.2916870`, read as microseconds rounded half up, from the digits.
fn seconds_as_micros(input: &str) -> PResult<'_, u64> {
    let (i, whole) = number(input, "seconds")?;
    let Some(frac) = i.strip_prefix('.') else {
        return Ok((i, whole.saturating_mul(1_000_000)));
    };
    let len = frac.bytes().take_while(u8::is_ascii_digit).count();
    let (digits, rest) = frac.split_at(len);
    let mut micros = 0u64;
    for b in digits.bytes().take(6) {
        micros = micros * 10 + u64::from(b - b'0');
    }
    for _ in len..6 {
        micros *= 10;
    }
    let round_up = digits.as_bytes().get(6).is_some_and(|b| *b >= b'5');
    let total = whole
        .saturating_mul(1_000_000)
        .saturating_add(micros)
        .saturating_add(u64::from(round_up));
    Ok((rest, total))
}

/// ` time: 0.001091`
fn time(input: &str) -> PResult<'_, u64> {
    let (i, _) = tag(input, " time: ", "time")?;
    seconds_as_micros(i)
}

/// Reads the message of a `nova.api.openstack.requestlog` or
/// `nova.osapi_compute.wsgi.server` record.
///
/// Trailing whitespace is consumed, so the rest is empty for a whole message.
///
/// ```
/// use evacdoc_parsers::nova_request::parse_nova_request;
/// let msg = "10.0.0.5 \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action\" \
///     status: 400 len: 540 microversion: 2.53 time: 0.081234";
/// let (rest, req) = parse_nova_request(msg).unwrap();
/// assert_eq!(rest, "");
/// assert_eq!((req.method, req.status, req.len), ("POST", 400, Some(540)));
/// assert_eq!((req.microversion, req.time_us), (Some("2.53"), 81_234));
/// assert_eq!(req.instance, Some("56ce6206-3659-495e-a6ea-f4d3d578cc96"));
///
/// let eventlet = "192.168.112.146 \"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404 \
///     len: 517 time: 0.2916870";
/// let (_, req) = parse_nova_request(eventlet).unwrap();
/// assert_eq!((req.uri, req.protocol), ("/v2.1/servers/sixthVM", Some("HTTP/1.1")));
/// assert_eq!((req.microversion, req.time_us, req.instance), (None, 291_687, None));
/// ```
pub fn parse_nova_request(message: &str) -> PResult<'_, NovaRequest<'_>> {
    let (i, client) = client(message)?;
    let (i, request) = request_line(i)?;
    let (i, status) = status(i)?;
    let (i, len) = len(i)?;
    let (i, microversion) = microversion(i)?;
    let (i, time_us) = time(i)?;
    let i = i.trim_start_matches([' ', '\t', '\r', '\n']);
    Ok((
        i,
        NovaRequest {
            client,
            method: request.method,
            uri: request.uri,
            protocol: request.protocol,
            status,
            len,
            microversion,
            time_us,
            instance: crate::text::server_uuid_in_path(request.uri),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn nova(message: &str) -> NovaRequest<'_> {
        let (rest, parsed) = parse_nova_request(message).unwrap();
        assert_eq!(rest, "");
        parsed
    }

    #[test]
    fn loggers() {
        assert!(is_request_logger("nova.api.openstack.requestlog"));
        assert!(is_request_logger("nova.osapi_compute.wsgi.server"));
        assert!(!is_request_logger("nova.metadata.wsgi.server"));
        assert!(!is_request_logger("nova.api.openstack.requestlog.x"));
        assert!(!is_request_logger(""));
    }

    #[test]
    fn client_address() {
        assert_eq!(
            client("192.168.24.1 \"OPTIONS /\""),
            Ok(("\"OPTIONS /\"", "192.168.24.1"))
        );
        assert_eq!(
            client("10.0.0.1,10.0.0.2 \"GET"),
            Ok(("\"GET", "10.0.0.1,10.0.0.2"))
        );
        assert_eq!(
            client("10.0.0.1, 10.0.0.2 \"GET"),
            Ok(("\"GET", "10.0.0.1, 10.0.0.2"))
        );
        assert_eq!(client("- \"GET"), Ok(("\"GET", "-")));
        assert!(client("\"GET").is_err());
        assert!(client(" \"GET").is_err());
        assert!(client("a b \"GET").is_err());
        assert!(client("10.0.0.1\"GET").is_err());
        assert!(client("10.0.0.1").is_err());
    }

    #[test]
    fn request_lines() {
        assert_eq!(
            request_line("\"OPTIONS /\" status: 200"),
            Ok((
                " status: 200",
                RequestLine {
                    method: "OPTIONS",
                    uri: "/",
                    protocol: None
                }
            ))
        );
        assert_eq!(
            request_line("\"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404"),
            Ok((
                " status: 404",
                RequestLine {
                    method: "GET",
                    uri: "/v2.1/servers/sixthVM",
                    protocol: Some("HTTP/1.1")
                }
            ))
        );
        // An unescaped quote in the URI stays in it.
        assert_eq!(
            request_line("\"GET /x?q=\"a\"\" status: 400").map(|(r, l)| (r, l.uri)),
            Ok((" status: 400", "/x?q=\"a\""))
        );
        assert!(request_line("\"GET /\" 200").is_err());
        assert!(request_line("\"GET\" status: 200").is_err());
        assert!(request_line("\" /\" status: 200").is_err());
        assert!(request_line("GET / status: 200").is_err());
    }

    #[test]
    fn status_len_microversion_time() {
        assert_eq!(status(" status: 200 len: 1"), Ok((" len: 1", 200)));
        assert!(status(" status: abc").is_err());
        assert!(status(" status: 70000").is_err());
        assert_eq!(len(" len: 405 micro"), Ok((" micro", Some(405))));
        assert_eq!(len(" len: None time"), Ok((" time", None)));
        assert_eq!(len(" len: - time"), Ok((" time", None)));
        assert!(len(" len: x").is_err());
        assert_eq!(microversion(" microversion: - time"), Ok((" time", None)));
        assert_eq!(
            microversion(" microversion: 2.53 time"),
            Ok((" time", Some("2.53")))
        );
        assert_eq!(microversion(" time: 1"), Ok((" time: 1", None)));
        assert!(microversion(" microversion:  time").is_err());
        assert_eq!(time(" time: 0.001091"), Ok(("", 1091)));
        assert!(time(" time: x").is_err());
        assert!(time(" 0.1").is_err());
    }

    #[test]
    fn seconds_are_read_from_digits() {
        assert_eq!(seconds_as_micros("0.2916870"), Ok(("", 291_687)));
        assert_eq!(seconds_as_micros("0.2916875"), Ok(("", 291_688)));
        assert_eq!(seconds_as_micros("0.0100830 x"), Ok((" x", 10_083)));
        assert_eq!(seconds_as_micros("12.5"), Ok(("", 12_500_000)));
        assert_eq!(seconds_as_micros("3"), Ok(("", 3_000_000)));
        assert_eq!(seconds_as_micros("3."), Ok(("", 3_000_000)));
        assert_eq!(seconds_as_micros("1.9999995"), Ok(("", 2_000_000)));
        assert_eq!(seconds_as_micros("0.123456789"), Ok(("", 123_457)));
        assert!(seconds_as_micros(".5").is_err());
    }

    #[test]
    fn requestlog_lines() {
        let req =
            nova("192.168.24.1 \"OPTIONS /\" status: 200 len: 405 microversion: - time: 0.001091");
        assert_eq!(
            req,
            NovaRequest {
                client: "192.168.24.1",
                method: "OPTIONS",
                uri: "/",
                protocol: None,
                status: 200,
                len: Some(405),
                microversion: None,
                time_us: 1091,
                instance: None,
            }
        );
        let req = nova(
            "10.0.0.5 \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action\" \
             status: 400 len: 540 microversion: 2.53 time: 0.081234",
        );
        assert_eq!(req.instance, Some("56ce6206-3659-495e-a6ea-f4d3d578cc96"));
        assert_eq!(
            (req.status, req.microversion, req.time_us),
            (400, Some("2.53"), 81_234)
        );
        let req = nova(
            "10.0.0.5 \"GET /v2.1/servers/detail?all_tenants=True&host=compute-1\" status: 500 \
             len: 0 microversion: 2.95 time: 30.000412 ",
        );
        assert_eq!(
            (req.status, req.len, req.time_us),
            (500, Some(0), 30_000_412)
        );
    }

    #[test]
    fn eventlet_lines() {
        let req = nova(
            "192.168.112.146 \"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404 len: 517 \
             time: 0.2916870",
        );
        assert_eq!(
            req,
            NovaRequest {
                client: "192.168.112.146",
                method: "GET",
                uri: "/v2.1/servers/sixthVM",
                protocol: Some("HTTP/1.1"),
                status: 404,
                len: Some(517),
                microversion: None,
                time_us: 291_687,
                instance: None,
            }
        );
        let req = nova(
            "192.168.137.11 \"GET /v2.1/os-services HTTP/1.1\" status: 503 len: 498 time: 0.0100830",
        );
        assert_eq!((req.status, req.time_us), (503, 10_083));
    }

    #[test]
    fn rejects_truncated_messages_and_others() {
        let full = "192.168.24.1 \"OPTIONS /\" status: 200 len: 405 microversion: - time: 0.001091";
        let time_at = full.len() - "0.001091".len();
        for end in 0..full.len() {
            // Cut inside the seconds, the message is still a valid (shorter) time.
            assert_eq!(
                parse_nova_request(&full[..end]).is_ok(),
                end > time_at,
                "{end}"
            );
        }
        assert!(parse_nova_request("").is_err());
        assert!(parse_nova_request("HTTP exception thrown: Compute service is in use.").is_err());
        assert!(parse_nova_request("Returning 400 to user: Invalid input \"x\" for body").is_err());
        let _ = parse_nova_request("é \"é é\" status: 1 len: é");
        let _ = parse_nova_request("é \"é é\" status: 1 len: 2 microversion: é");
    }
    const SAMPLES: [&str; 2] = [
        "192.168.24.1 \"OPTIONS /\" status: 200 len: 405 microversion: - time: 0.001091",
        "192.168.112.146 \"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404 len: None time: 0.2916870",
    ];

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(s in "\\PC*") {
            let _ = parse_nova_request(&s);
        }

        #[test]
        fn never_panics_on_cut_and_spliced_lines(cut in 0usize..400, junk in "\\PC{0,8}", at in 0usize..400) {
            for sample in SAMPLES {
                let cut = sample.floor_char_boundary(cut.min(sample.len()));
                let at = sample.floor_char_boundary(at.min(sample.len()));
                let _ = parse_nova_request(&sample[..cut]);
                let spliced = format!("{}{}{}", &sample[..at], junk, &sample[at..]);
                let _ = parse_nova_request(&spliced);
            }
        }
    }
}
