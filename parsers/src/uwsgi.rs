//! uWSGI's built-in request-log lines (Kolla-Ansible 2025.1+ `nova-api-uwsgi.log`,
//! openstack-helm pod logs).
//!
//! uWSGI writes them with (`core/logging.c`, `uwsgi_logit_simple`):
//!
//! ```text
//! [pid: %d|app: %d|req: %d/%llu] %.*s (%.*s) {%d vars in %d bytes} [%.*s] %.*s %.*s
//!   => generated %llu bytes in %llu %s%s(%.*s %d) %d headers in %llu bytes
//!   (%d switches on core %d)
//! ```
//!
//! preceded by `<host> ` with `vhost = true` and by
//! `{address space usage: N bytes/NMB} {rss usage: N bytes/NMB} ` with `memory-report`.
//! The unit is `msecs`, or `micros` with `log-micros`; between it and `(` uWSGI writes
//! one space, or ` via sendfile() `, ` via route() `, ` via offload() `. The time is C
//! `ctime` (local time, no zone). `app` and the first request counter are `-1` when no
//! app served the request.

use memchr::{memchr, memmem};
use serde::Serialize;

use crate::error::{PResult, expected};
use crate::time::{DateTime, ctime, number};

/// The worker's memory, from the `memory-report` prefix.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct MemoryUsage {
    /// Address space (VSZ) in bytes.
    pub address_space_bytes: u64,
    /// Resident set size in bytes.
    pub rss_bytes: u64,
}

/// One uWSGI request-log line, text fields borrowed from the input.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct UwsgiLine<'a> {
    /// The virtual host, when uWSGI runs with `vhost = true`.
    pub vhost: Option<&'a str>,
    /// The `memory-report` prefix, when enabled.
    pub memory: Option<MemoryUsage>,
    /// Process id of the worker.
    pub pid: u32,
    /// The app id; `None` when uWSGI wrote `-1` (no app served the request).
    pub app: Option<u32>,
    /// The first `req:` counter: requests the app has served in this worker (uWSGI's
    /// `app_req`); `None` when uWSGI wrote `-1`.
    pub worker_requests: Option<u64>,
    /// The second `req:` counter: requests served by the whole uWSGI instance.
    pub total_requests: u64,
    /// `REMOTE_ADDR`, or the X-Forwarded-For value with `log-x-forwarded-for`; may be
    /// empty.
    pub client: &'a str,
    /// `REMOTE_USER`, when set.
    pub user: Option<&'a str>,
    /// Number of request variables.
    pub vars: u32,
    /// Size of the request variables packet in bytes.
    pub vars_bytes: u64,
    /// When the request started, local time as `ctime` wrote it (no zone).
    pub time: DateTime,
    /// `REQUEST_METHOD` (`-` in uWSGI's minimal fallback line).
    pub method: &'a str,
    /// `REQUEST_URI` (`-` in uWSGI's minimal fallback line).
    pub path: &'a str,
    /// Response body bytes.
    pub generated_bytes: u64,
    /// Response time in microseconds (`msecs` lines are converted, so they are
    /// multiples of 1000).
    pub duration_us: u64,
    /// How the body was sent when not by the app (`sendfile`, `route`, `offload`).
    pub via: Option<&'a str>,
    /// `SERVER_PROTOCOL`, e.g. `HTTP/1.1`.
    pub protocol: &'a str,
    /// The response status; old uWSGI wrote negative codes for routed and offloaded
    /// requests, read as 0.
    pub status: u16,
    /// Number of response headers.
    pub headers: u32,
    /// Size of the response headers in bytes.
    pub header_bytes: u64,
    /// Async switches during the request.
    pub switches: u64,
    /// The core (async id) that served the request.
    pub core: u32,
}

impl<'a> UwsgiLine<'a> {
    /// The instance UUID of a `/servers/<uuid>...` request path.
    pub fn instance(&self) -> Option<&'a str> {
        crate::text::server_uuid_in_path(self.path)
    }
}

/// Reads the literal `lit`.
fn tag<'a>(input: &'a str, lit: &'static str, what: &'static str) -> PResult<'a, ()> {
    match input.strip_prefix(lit) {
        Some(rest) => Ok((rest, ())),
        None => expected(input, what),
    }
}

/// A decimal that must fit in a `u32`.
fn small<'a>(input: &'a str, what: &'static str) -> PResult<'a, u32> {
    let (rest, n) = number(input, what)?;
    match u32::try_from(n) {
        Ok(n) => Ok((rest, n)),
        Err(_) => expected(input, what),
    }
}

/// A C `%d` that is a count or `-1` for "none": a negative number reads as `None`.
fn count_or_negative<'a>(input: &'a str, what: &'static str) -> PResult<'a, Option<u64>> {
    match input.strip_prefix('-') {
        Some(rest) => {
            let (rest, _) = number(rest, what)?;
            Ok((rest, None))
        }
        None => {
            let (rest, n) = number(input, what)?;
            Ok((rest, Some(n)))
        }
    }
}

/// `{address space usage: N bytes/NMB} {rss usage: N bytes/NMB} `
fn memory_usage(input: &str) -> PResult<'_, MemoryUsage> {
    let (i, _) = tag(input, "{address space usage: ", "memory report")?;
    let (i, address_space_bytes) = number(i, "address space bytes")?;
    let (i, _) = tag(i, " bytes/", "address space size")?;
    let (i, _) = number(i, "address space megabytes")?;
    let (i, _) = tag(i, "MB} {rss usage: ", "rss usage")?;
    let (i, rss_bytes) = number(i, "rss bytes")?;
    let (i, _) = tag(i, " bytes/", "rss size")?;
    let (i, _) = number(i, "rss megabytes")?;
    let (i, _) = tag(i, "MB} ", "end of memory report")?;
    Ok((
        i,
        MemoryUsage {
            address_space_bytes,
            rss_bytes,
        },
    ))
}

/// The counters bracket: pid, app, and the two request counters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Counters {
    pid: u32,
    app: Option<u32>,
    worker_requests: Option<u64>,
    total_requests: u64,
}

/// `[pid: 25|app: 0|req: 1/7] `
fn counters(input: &str) -> PResult<'_, Counters> {
    let (i, _) = tag(input, "[pid: ", "uwsgi request counters")?;
    let (i, pid) = small(i, "pid")?;
    let (i, _) = tag(i, "|app: ", "app id")?;
    let (i, app) = count_or_negative(i, "app id")?;
    let app = match app.map(u32::try_from) {
        None => None,
        Some(Ok(app)) => Some(app),
        Some(Err(_)) => return expected(i, "app id"),
    };
    let (i, _) = tag(i, "|req: ", "request counter")?;
    let (i, worker_requests) = count_or_negative(i, "request counter")?;
    let (i, _) = tag(i, "/", "request counter")?;
    let (i, total_requests) = number(i, "total request counter")?;
    let (i, _) = tag(i, "] ", "end of request counters")?;
    Ok((
        i,
        Counters {
            pid,
            app,
            worker_requests,
            total_requests,
        },
    ))
}

/// Finds the first `first` immediately followed by `second` (both ASCII).
fn find_pair(bytes: &[u8], first: u8, second: u8) -> Option<usize> {
    let mut from = 0;
    loop {
        let at = from + memchr(second, bytes.get(from..)?)?;
        if at > 0 && bytes.get(at - 1) == Some(&first) {
            return Some(at - 1);
        }
        from = at + 1;
    }
}

/// `%.*s (%.*s) `: the client address and the user, leaving `{`.
fn client_user(input: &str) -> PResult<'_, (&str, Option<&str>)> {
    let (client, after_open) = match input.strip_prefix('(') {
        // An empty REMOTE_ADDR.
        Some(rest) => ("", rest),
        None => {
            let Some(at) = find_pair(input.as_bytes(), b' ', b'(') else {
                return expected(input, "user parentheses");
            };
            match (input.get(..at), input.get(at + 2..)) {
                (Some(client), Some(rest)) => (client, rest),
                _ => return expected(input, "client address"),
            }
        }
    };
    let Some(close) = memmem::find(after_open.as_bytes(), b") {") else {
        return expected(after_open, "end of user");
    };
    match (after_open.get(..close), after_open.get(close + 2..)) {
        (Some(user), Some(rest)) => Ok((rest, (client, (!user.is_empty()).then_some(user)))),
        _ => expected(after_open, "end of user"),
    }
}

/// `{56 vars in 1063 bytes} `
fn vars(input: &str) -> PResult<'_, (u32, u64)> {
    let (i, _) = tag(input, "{", "request vars")?;
    let (i, count) = small(i, "vars count")?;
    let (i, _) = tag(i, " vars in ", "vars size")?;
    let (i, size) = number(i, "vars size")?;
    let (i, _) = tag(i, " bytes} ", "end of request vars")?;
    Ok((i, (count, size)))
}

/// `[Thu Aug  1 12:00:00 2025] `
fn request_time(input: &str) -> PResult<'_, DateTime> {
    let (i, _) = tag(input, "[", "request time")?;
    let (i, time) = ctime(i)?;
    let (i, _) = tag(i, "] ", "end of request time")?;
    Ok((i, time))
}

/// `POST /v2.1/servers/<uuid>/action => `, leaving `generated`. The URI of a request
/// uWSGI parsed has no space, so the first ` => generated ` ends it.
fn method_path(input: &str) -> PResult<'_, (&str, &str)> {
    let Some(at) = memmem::find(input.as_bytes(), b" => generated ") else {
        return expected(input, "generated bytes");
    };
    let (Some(request), Some(rest)) = (input.get(..at), input.get(at + " => ".len()..)) else {
        return expected(input, "request method");
    };
    match request.split_once(' ') {
        Some((method, path)) if !method.is_empty() => Ok((rest, (method, path))),
        _ => expected(input, "request method and path"),
    }
}

/// `generated 0 bytes in 512 msecs`: the body size and the duration in µs.
fn generated(input: &str) -> PResult<'_, (u64, u64)> {
    let (i, _) = tag(input, "generated ", "generated bytes")?;
    let (i, bytes) = number(i, "generated bytes")?;
    let (i, _) = tag(i, " bytes in ", "response time")?;
    let (i, time) = number(i, "response time")?;
    let (i, _) = tag(i, " ", "time unit")?;
    if let Some(rest) = i.strip_prefix("msecs") {
        Ok((rest, (bytes, time.saturating_mul(1000))))
    } else if let Some(rest) = i.strip_prefix("micros") {
        Ok((rest, (bytes, time)))
    } else {
        expected(i, "time unit")
    }
}

/// What uWSGI writes between the unit and `(`: ` ` or ` via sendfile() `. Leaves `(`.
fn via(input: &str) -> PResult<'_, Option<&str>> {
    if let Some(rest) = input.strip_prefix(' ')
        && rest.starts_with('(')
    {
        return Ok((rest, None));
    }
    let (i, _) = tag(input, " via ", "protocol and status")?;
    let Some(at) = memmem::find(i.as_bytes(), b"() ") else {
        return expected(i, "end of via");
    };
    match (i.get(..at), i.get(at + 3..)) {
        (Some(name), Some(rest)) if !name.is_empty() && !name.contains(' ') => {
            Ok((rest, Some(name)))
        }
        _ => expected(i, "via name"),
    }
}

/// `(HTTP/1.1 200) `
fn protocol_status(input: &str) -> PResult<'_, (&str, u16)> {
    let (i, _) = tag(input, "(", "protocol and status")?;
    let Some(space) = memchr(b' ', i.as_bytes()) else {
        return expected(i, "status");
    };
    let (Some(protocol), Some(i)) = (i.get(..space), i.get(space + 1..)) else {
        return expected(i, "protocol");
    };
    let (i, status) = count_or_negative(i, "status")?;
    let status = match status.map(u16::try_from) {
        None => 0,
        Some(Ok(status)) => status,
        Some(Err(_)) => return expected(i, "status"),
    };
    let (i, _) = tag(i, ") ", "end of status")?;
    Ok((i, (protocol, status)))
}

/// `7 headers in 283 bytes (1 switches on core 0)`
fn response_headers(input: &str) -> PResult<'_, (u32, u64, u64, u32)> {
    let (i, headers) = small(input, "header count")?;
    let (i, _) = tag(i, " headers in ", "header size")?;
    let (i, header_bytes) = number(i, "header size")?;
    let (i, _) = tag(i, " bytes (", "switches")?;
    let (i, switches) = number(i, "switches")?;
    let (i, _) = tag(i, " switches on core ", "core")?;
    let (i, core) = small(i, "core")?;
    let (i, _) = tag(i, ")", "end of line")?;
    Ok((i, (headers, header_bytes, switches, core)))
}

/// The optional `<host> ` (vhost) and `{address space usage: ...} ` prefixes.
fn prefixes(input: &str) -> PResult<'_, (Option<&str>, Option<MemoryUsage>)> {
    let (i, vhost) = match input.as_bytes().first() {
        Some(b'[' | b'{') | None => (input, None),
        Some(_) => {
            let Some(space) = memchr(b' ', input.as_bytes()) else {
                return expected(input, "uwsgi request counters");
            };
            match (input.get(..space), input.get(space + 1..)) {
                (Some(host), Some(rest)) => (rest, Some(host)),
                _ => return expected(input, "uwsgi request counters"),
            }
        }
    };
    if i.starts_with('{') {
        let (i, memory) = memory_usage(i)?;
        Ok((i, (vhost, Some(memory))))
    } else {
        Ok((i, (vhost, None)))
    }
}

/// Reads a uWSGI request-log line.
///
/// Trailing whitespace is consumed, so the rest is empty for a whole line.
///
/// ```
/// use evacdoc_parsers::uwsgi::parse_uwsgi_line;
/// let line = "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} \
///     [Thu Aug  1 12:00:00 2025] POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action \
///     => generated 0 bytes in 512 msecs (HTTP/1.1 200) 7 headers in 283 bytes \
///     (1 switches on core 0)";
/// let (rest, req) = parse_uwsgi_line(line).unwrap();
/// assert_eq!(rest, "");
/// assert_eq!((req.pid, req.client, req.method), (25, "10.0.0.5", "POST"));
/// assert_eq!((req.status, req.duration_us), (200, 512_000));
/// assert_eq!(req.time.to_string(), "2025-08-01T12:00:00.000");
/// assert_eq!(req.instance(), Some("56ce6206-3659-495e-a6ea-f4d3d578cc96"));
/// ```
pub fn parse_uwsgi_line(input: &str) -> PResult<'_, UwsgiLine<'_>> {
    let (i, (vhost, memory)) = prefixes(input)?;
    let (i, counters) = counters(i)?;
    let (i, (client, user)) = client_user(i)?;
    let (i, (vars, vars_bytes)) = vars(i)?;
    let (i, time) = request_time(i)?;
    let (i, (method, path)) = method_path(i)?;
    let (i, (generated_bytes, duration_us)) = generated(i)?;
    let (i, via) = via(i)?;
    let (i, (protocol, status)) = protocol_status(i)?;
    let (i, (headers, header_bytes, switches, core)) = response_headers(i)?;
    let i = i.trim_start_matches([' ', '\t', '\r', '\n']);
    Ok((
        i,
        UwsgiLine {
            vhost,
            memory,
            pid: counters.pid,
            app: counters.app,
            worker_requests: counters.worker_requests,
            total_requests: counters.total_requests,
            client,
            user,
            vars,
            vars_bytes,
            time,
            method,
            path,
            generated_bytes,
            duration_us,
            via,
            protocol,
            status,
            headers,
            header_bytes,
            switches,
            core,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const LINE: &str = "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} \
        [Thu Aug  1 12:00:00 2025] POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action \
        => generated 0 bytes in 512 msecs (HTTP/1.1 200) 7 headers in 283 bytes \
        (1 switches on core 0)";

    fn uwsgi(line: &str) -> UwsgiLine<'_> {
        let (rest, parsed) = parse_uwsgi_line(line).unwrap();
        assert_eq!(rest, "");
        parsed
    }

    #[test]
    fn memory_usage_prefix() {
        assert_eq!(
            memory_usage(
                "{address space usage: 123456789 bytes/117MB} {rss usage: 52428800 bytes/50MB} [pid"
            ),
            Ok((
                "[pid",
                MemoryUsage {
                    address_space_bytes: 123_456_789,
                    rss_bytes: 52_428_800,
                }
            ))
        );
        assert!(memory_usage("{address space usage: 1 bytes/0MB} [pid").is_err());
        assert!(memory_usage("[pid").is_err());
    }

    #[test]
    fn prefixes_read_vhost_and_memory() {
        assert_eq!(prefixes("[pid: 1"), Ok(("[pid: 1", (None, None))));
        assert_eq!(
            prefixes("nova.example.com [pid: 1"),
            Ok(("[pid: 1", (Some("nova.example.com"), None)))
        );
        let (rest, (vhost, memory)) =
            prefixes("api {address space usage: 10 bytes/0MB} {rss usage: 5 bytes/0MB} [pid: 1")
                .unwrap();
        assert_eq!((rest, vhost), ("[pid: 1", Some("api")));
        assert_eq!(memory.map(|m| m.rss_bytes), Some(5));
        assert!(prefixes("garbage").is_err());
        assert_eq!(prefixes(""), Ok(("", (None, None))));
    }

    #[test]
    fn counters_bracket() {
        assert_eq!(
            counters("[pid: 25|app: 0|req: 1/7] 10.0.0.5"),
            Ok((
                "10.0.0.5",
                Counters {
                    pid: 25,
                    app: Some(0),
                    worker_requests: Some(1),
                    total_requests: 7,
                }
            ))
        );
        assert_eq!(
            counters("[pid: 31|app: -1|req: -1/12] x"),
            Ok((
                "x",
                Counters {
                    pid: 31,
                    app: None,
                    worker_requests: None,
                    total_requests: 12,
                }
            ))
        );
        assert!(counters("[pid: 25|app: 0|req: 1] x").is_err());
        assert!(counters("[pid: x|app: 0|req: 1/7] x").is_err());
        assert!(counters("[pid: 99999999999|app: 0|req: 1/7] x").is_err());
        assert!(counters("[pid: 25|app: -|req: 1/7] x").is_err());
    }

    #[test]
    fn client_and_user() {
        assert_eq!(
            client_user("10.0.0.5 () {56 vars"),
            Ok(("{56 vars", ("10.0.0.5", None)))
        );
        assert_eq!(
            client_user("10.0.0.1, 10.0.0.2 (admin) {56 vars"),
            Ok(("{56 vars", ("10.0.0.1, 10.0.0.2", Some("admin"))))
        );
        assert_eq!(client_user("() {1 vars"), Ok(("{1 vars", ("", None))));
        assert!(client_user("10.0.0.5 {56 vars").is_err());
        assert!(client_user("10.0.0.5 (admin").is_err());
        assert!(client_user("").is_err());
    }

    #[test]
    fn vars_and_time() {
        assert_eq!(
            vars("{56 vars in 1063 bytes} [Thu"),
            Ok(("[Thu", (56, 1063)))
        );
        assert!(vars("{56 vars in 1063 bytes}").is_err());
        assert!(vars("{56 vars}").is_err());
        let (rest, t) = request_time("[Thu Aug  1 12:00:00 2025] POST /").unwrap();
        assert_eq!(rest, "POST /");
        assert_eq!(t, DateTime::new(2025, 8, 1, 12, 0, 0, 0).unwrap());
        let (_, t) = request_time("[Mon Dec 15 09:34:22 2025] GET /").unwrap();
        assert_eq!((t.day, t.hour), (15, 9));
        assert!(request_time("[Thu Aug  1 12:00:00 2025]").is_err());
        assert!(request_time("[Thu Aug  1 12:00").is_err());
    }

    #[test]
    fn method_and_path() {
        assert_eq!(
            method_path("GET /v2.1/servers/detail?all_tenants=1 => generated 5 bytes"),
            Ok((
                "generated 5 bytes",
                ("GET", "/v2.1/servers/detail?all_tenants=1")
            ))
        );
        assert_eq!(
            method_path("- - => generated 0"),
            Ok(("generated 0", ("-", "-")))
        );
        assert!(method_path("GET / generated 5 bytes").is_err());
        assert!(method_path("GET => generated 5 bytes").is_err());
        assert!(method_path(" / => generated 5 bytes").is_err());
    }

    #[test]
    fn generated_units() {
        assert_eq!(
            generated("generated 0 bytes in 512 msecs (HTTP/1.1 200)"),
            Ok((" (HTTP/1.1 200)", (0, 512_000)))
        );
        assert_eq!(
            generated("generated 1845 bytes in 8123 micros (HTTP"),
            Ok((" (HTTP", (1845, 8123)))
        );
        assert!(generated("generated 0 bytes in 512 secs (").is_err());
        assert!(generated("generated 0 bytes in 512").is_err());
    }

    #[test]
    fn via_variants() {
        assert_eq!(via(" (HTTP/1.1 200)"), Ok(("(HTTP/1.1 200)", None)));
        assert_eq!(
            via(" via sendfile() (HTTP/1.1 200)"),
            Ok(("(HTTP/1.1 200)", Some("sendfile")))
        );
        assert_eq!(
            via(" via offload() (HTTP/1.1 200)"),
            Ok(("(HTTP/1.1 200)", Some("offload")))
        );
        assert!(via(" via () (HTTP").is_err());
        assert!(via(" via sendfile").is_err());
        assert!(via("(HTTP/1.1 200)").is_err());
        assert!(via("").is_err());
    }

    #[test]
    fn protocol_and_status() {
        assert_eq!(
            protocol_status("(HTTP/1.1 200) 7 headers"),
            Ok(("7 headers", ("HTTP/1.1", 200)))
        );
        assert_eq!(
            protocol_status("(- 500) 0 headers"),
            Ok(("0 headers", ("-", 500)))
        );
        assert_eq!(
            protocol_status("(HTTP/1.0 -17) 0 h"),
            Ok(("0 h", ("HTTP/1.0", 0)))
        );
        assert!(protocol_status("(HTTP/1.1 99999) 7").is_err());
        assert!(protocol_status("(HTTP/1.1) 7").is_err());
        assert!(protocol_status("(HTTP/1.1 200").is_err());
    }

    #[test]
    fn headers_switches_core() {
        assert_eq!(
            response_headers("7 headers in 283 bytes (1 switches on core 0)\n"),
            Ok(("\n", (7, 283, 1, 0)))
        );
        assert!(response_headers("7 headers in 283 bytes (1 switches on core 0").is_err());
        assert!(response_headers("7 headers in 283 bytes").is_err());
    }

    #[test]
    fn kolla_example_line() {
        let line = uwsgi(LINE);
        assert_eq!(
            line,
            UwsgiLine {
                vhost: None,
                memory: None,
                pid: 25,
                app: Some(0),
                worker_requests: Some(1),
                total_requests: 7,
                client: "10.0.0.5",
                user: None,
                vars: 56,
                vars_bytes: 1063,
                time: DateTime::new(2025, 8, 1, 12, 0, 0, 0).unwrap(),
                method: "POST",
                path: "/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action",
                generated_bytes: 0,
                duration_us: 512_000,
                via: None,
                protocol: "HTTP/1.1",
                status: 200,
                headers: 7,
                header_bytes: 283,
                switches: 1,
                core: 0,
            }
        );
        assert_eq!(
            line.instance(),
            Some("56ce6206-3659-495e-a6ea-f4d3d578cc96")
        );
    }

    #[test]
    fn variants_micros_via_user_memory_and_trailing_newline() {
        let line = uwsgi(
            "{address space usage: 523763712 bytes/499MB} {rss usage: 104857600 bytes/100MB} \
             [pid: 40|app: 0|req: 12/300] 10.0.0.1, 172.16.0.3 (nova) {40 vars in 800 bytes} \
             [Mon Dec 15 09:34:22 2025] GET /v2.1/os-services => generated 2048 bytes in 3456 \
             micros via sendfile() (HTTP/1.1 503) 5 headers in 190 bytes (2 switches on core 1)\r\n",
        );
        assert_eq!(
            line.memory.map(|m| m.address_space_bytes),
            Some(523_763_712)
        );
        assert_eq!(line.client, "10.0.0.1, 172.16.0.3");
        assert_eq!(line.user, Some("nova"));
        assert_eq!(
            (line.duration_us, line.via, line.status),
            (3456, Some("sendfile"), 503)
        );
        assert_eq!((line.switches, line.core), (2, 1));
        assert_eq!(line.instance(), None);

        // uWSGI's minimal fallback line when the real one would not fit in 4 KiB.
        let line = uwsgi(
            "[pid: 40|app: -1|req: -1/301] 0.0.0.0 () {40 vars in 9000 bytes} [Mon Dec 15 \
             09:34:22 2025] - - => generated 0 bytes in 1 msecs (- 414) 0 headers in 0 bytes \
             (0 switches on core 0)",
        );
        assert_eq!((line.app, line.worker_requests), (None, None));
        assert_eq!(
            (line.method, line.path, line.protocol, line.status),
            ("-", "-", "-", 414)
        );
    }

    #[test]
    fn rejects_truncated_lines_and_garbage() {
        for end in 0..LINE.len() {
            assert!(
                parse_uwsgi_line(&LINE[..end]).is_err(),
                "{:?}",
                &LINE[..end]
            );
        }
        assert!(parse_uwsgi_line("").is_err());
        assert!(
            parse_uwsgi_line("*** Starting uWSGI 2.0.28 (64bit) on [Thu Aug  1 12:00:00 2025] ***")
                .is_err()
        );
        assert!(
            parse_uwsgi_line(
                "2025-08-01 12:00:00.123 25 INFO nova.api.openstack.requestlog [-] 10.0.0.5 \"GET /\""
            )
            .is_err()
        );
        let _ = parse_uwsgi_line("é [pid: 1|app: é");
        let _ = parse_uwsgi_line("[pid: 1|app: 0|req: 1/1] é (é) {1 vars in 1 bytes} [é");
    }
    const SAMPLES: [&str; 2] = [
        LINE,
        "h {address space usage: 1 bytes/0MB} {rss usage: 1 bytes/0MB} [pid: 40|app: -1|req: -1/12] a, b (u) {40 vars in 800 bytes} [Mon Dec 15 09:34:22 2025] GET / => generated 2 bytes in 3 micros via sendfile() (HTTP/1.1 503) 5 headers in 190 bytes (2 switches on core 1)",
    ];

    proptest::proptest! {
        #[test]
        fn never_panics_on_any_text(s in "\\PC*") {
            let _ = parse_uwsgi_line(&s);
        }

        #[test]
        fn never_panics_on_cut_and_spliced_lines(cut in 0usize..400, junk in "\\PC{0,8}", at in 0usize..400) {
            for sample in SAMPLES {
                let cut = sample.floor_char_boundary(cut.min(sample.len()));
                let at = sample.floor_char_boundary(at.min(sample.len()));
                let _ = parse_uwsgi_line(&sample[..cut]);
                let spliced = format!("{}{}{}", &sample[..at], junk, &sample[at..]);
                let _ = parse_uwsgi_line(&spliced);
            }
        }
    }
}
