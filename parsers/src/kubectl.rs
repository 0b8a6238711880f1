//! The prefixes `kubectl logs` puts before a container's own lines:
//!
//! ```text
//! [pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z 2024-09-18 07:53:42.784 31 INFO ...
//! ```
//!
//! `--prefix` names the pod and container (`[pod/<name>/<container>] `), `--timestamps`
//! gives the time the runtime read the line (RFC 3339, nanoseconds, UTC). Either may come
//! alone; together the name comes first.

use serde::Serialize;

use crate::error::{PResult, expected};
use crate::time::{Timestamp, byte, rfc3339};

/// What `kubectl logs` put before a line (the fields of the prefixes it had).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct KubectlPrefix<'a> {
    /// The pod (`--prefix`).
    pub pod: Option<&'a str>,
    /// The container (`--prefix`).
    pub container: Option<&'a str>,
    /// When the runtime read the line (`--timestamps`).
    pub time: Option<Timestamp>,
}

/// True for a byte of a Kubernetes object name (DNS labels; `_` seen in static pods).
fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_')
}

fn name<'a>(input: &'a str, what: &'static str) -> PResult<'a, &'a str> {
    let end = input
        .bytes()
        .position(|b| !is_name_byte(b))
        .unwrap_or(input.len());
    if end == 0 {
        return expected(input, what);
    }
    Ok((&input[end..], &input[..end]))
}

/// Reads `[pod/<name>/<container>] ` (`kubectl logs --prefix`); returns the pod and the
/// container.
///
/// ```
/// use evacdoc_parsers::kubectl::parse_kubectl_name;
/// let (rest, (pod, container)) =
///     parse_kubectl_name("[pod/masakari-0/masakari-engine] 2024-09-18 07:53:42.784 7 INFO x [-] y").unwrap();
/// assert_eq!((pod, container), ("masakari-0", "masakari-engine"));
/// assert!(rest.starts_with("2024-09-18 07:53:42.784"));
/// ```
pub fn parse_kubectl_name(input: &str) -> PResult<'_, (&str, &str)> {
    let Some(i) = input.strip_prefix("[pod/") else {
        return expected(input, "[pod/");
    };
    let (i, pod) = name(i, "pod name")?;
    let (i, _) = byte(i, b'/', "'/' after pod name")?;
    let (i, container) = name(i, "container name")?;
    let (i, _) = byte(i, b']', "']' after container name")?;
    let i = match i.as_bytes().first() {
        Some(b' ') => &i[1..],
        None => i,
        Some(_) => return expected(i, "space after kubectl prefix"),
    };
    Ok((i, (pod, container)))
}

/// Reads `<RFC 3339 time with a zone> ` (`kubectl logs --timestamps`); the rest is the
/// container's line, whatever its format.
///
/// ```
/// use evacdoc_parsers::kubectl::parse_kubectl_time;
/// let (rest, t) = parse_kubectl_time("2024-09-18T07:53:42.784913042Z 127.0.0.1 - - x").unwrap();
/// assert_eq!(t.to_string(), "2024-09-18T07:53:42.784913042Z");
/// assert_eq!(rest, "127.0.0.1 - - x");
/// ```
pub fn parse_kubectl_time(input: &str) -> PResult<'_, Timestamp> {
    let (i, time) = rfc3339(input)?;
    if time.offset.is_none() {
        return expected(i, "utc offset");
    }
    let i = match i.as_bytes().first() {
        Some(b' ') => &i[1..],
        None => i,
        Some(_) => return expected(i, "space after kubectl time"),
    };
    Ok((i, time))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_need_both_parts_and_the_closing_bracket() {
        for bad in [
            "[pod/nova-0] x",
            "[pod//nova-api] x",
            "[pod/nova-0/nova-api]x",
            "[pid: 25|app: 0] x",
            "[pod/nova 0/nova-api] x",
            "",
        ] {
            assert!(parse_kubectl_name(bad).is_err(), "{bad}");
        }
        assert_eq!(
            parse_kubectl_name("[pod/nova-0/nova-api]").unwrap().1,
            ("nova-0", "nova-api")
        );
    }

    #[test]
    fn times_need_a_zone() {
        assert!(parse_kubectl_time("2024-09-18T07:53:42.784913042 x").is_err());
        assert!(parse_kubectl_time("2024-09-18 07:53:42.784 x").is_err());
        let (rest, t) = parse_kubectl_time("2024-09-18T09:53:42.5+02:00 x").unwrap();
        assert_eq!(rest, "x");
        assert_eq!(
            t.to_utc().map(|t| t.to_string()).as_deref(),
            Some("2024-09-18T07:53:42.500Z")
        );
    }
}
