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
mod tests;
