//! Kubernetes CRI log lines, as the kubelet keeps them under `/var/log/pods/` (and links
//! from `/var/log/containers/`):
//!
//! ```text
//! 2024-05-01T12:00:00.123456789Z stderr F 2024-05-01 12:00:00.123 7 INFO nova.compute.manager [-] ...
//! ```
//!
//! The runtime (containerd, CRI-O) writes the time it read the line, the stream, and a tag:
//! `F` for a full line, `P` for a piece of a line longer than its buffer (16 KiB by
//! default), to be joined with the next lines of the same stream up to the next `F`.

use serde::Serialize;

use crate::error::{PResult, expected};
use crate::time::{Timestamp, byte, rfc3339};

/// The output stream a container wrote a line to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Stream {
    /// Standard output.
    Stdout,
    /// Standard error.
    Stderr,
}

impl Stream {
    /// `stdout` or `stderr`.
    pub fn as_str(self) -> &'static str {
        match self {
            Stream::Stdout => "stdout",
            Stream::Stderr => "stderr",
        }
    }

    /// Reads `stdout` or `stderr`.
    pub fn parse(name: &str) -> Option<Stream> {
        match name {
            "stdout" => Some(Stream::Stdout),
            "stderr" => Some(Stream::Stderr),
            _ => None,
        }
    }
}

/// The prefix the container runtime put before the line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct CriPrefix {
    /// When the runtime read the line (RFC 3339 with nanoseconds, `Z` or an offset).
    pub time: Timestamp,
    /// The stream the container wrote it to.
    pub stream: Stream,
    /// True for a `P` piece: the line goes on in the next line of the same stream.
    pub partial: bool,
}

/// Reads the CRI prefix `<time> <stream> <F|P> `; the rest is the payload the container
/// wrote (an oslo.log line, an access line, a pebble line, any text).
///
/// ```
/// use evacdoc_parsers::cri::{parse_cri_prefix, Stream};
/// let line = "2024-05-01T12:00:00.123456789Z stderr F 2024-05-01 12:00:00.123 7 INFO \
///     masakari.engine.manager [-] Starting masakari-engine (version 19.0.0)";
/// let (rest, p) = parse_cri_prefix(line).unwrap();
/// assert_eq!((p.stream, p.partial), (Stream::Stderr, false));
/// assert_eq!(p.time.to_string(), "2024-05-01T12:00:00.123456789Z");
/// assert!(rest.starts_with("2024-05-01 12:00:00.123 7 INFO masakari.engine.manager"));
/// ```
pub fn parse_cri_prefix(input: &str) -> PResult<'_, CriPrefix> {
    let (i, time) = rfc3339(input)?;
    if time.offset.is_none() {
        return expected(i, "utc offset");
    }
    let (i, _) = byte(i, b' ', "space after cri time")?;
    let stream = match i.get(..7) {
        Some("stdout ") => Stream::Stdout,
        Some("stderr ") => Stream::Stderr,
        _ => return expected(i, "cri stream"),
    };
    let i = &i[7..];
    let partial = match i.as_bytes().first() {
        Some(b'F') => false,
        Some(b'P') => true,
        _ => return expected(i, "cri tag"),
    };
    let i = &i[1..];
    // The runtime writes `<tag> <payload>`; an empty payload may lose the space.
    let i = match i.as_bytes().first() {
        Some(b' ') => &i[1..],
        None => i,
        // Tags may carry more flags after a `:` (none are defined yet).
        Some(b':') => match i.find(' ') {
            Some(at) => &i[at + 1..],
            None => "",
        },
        Some(_) => return expected(i, "space after cri tag"),
    };
    Ok((
        i,
        CriPrefix {
            time,
            stream,
            partial,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ENGINE: &str = "2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [None req-11111111-2222-3333-4444-555555555555 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10 of type: COMPUTE_HOST";

    #[test]
    fn reads_full_and_partial_lines() {
        let line = format!("2026-11-30T09:34:22.845912345Z stdout F {ENGINE}");
        let (rest, p) = parse_cri_prefix(&line).unwrap();
        assert_eq!(rest, ENGINE);
        assert_eq!((p.stream, p.partial), (Stream::Stdout, false));
        assert_eq!(p.time.offset, Some(0));
        assert_eq!(p.time.local.nanos, 845_912_345);

        let line = "2026-11-30T10:34:22.845912345+01:00 stderr P 2026-11-30 09:34";
        let (rest, p) = parse_cri_prefix(line).unwrap();
        assert_eq!(rest, "2026-11-30 09:34");
        assert_eq!((p.stream, p.partial), (Stream::Stderr, true));
        assert_eq!(p.time.offset, Some(3600));
    }

    #[test]
    fn empty_payload() {
        let (rest, p) = parse_cri_prefix("2026-11-30T09:34:22.845Z stdout F").unwrap();
        assert_eq!((rest, p.partial), ("", false));
        let (rest, _) = parse_cri_prefix("2026-11-30T09:34:22.845Z stdout F ").unwrap();
        assert_eq!(rest, "");
    }

    #[test]
    fn not_cri() {
        for line in [
            "2025-05-14T04:29:00.317Z [wsgi-nova-api] 10.1.0.50 - - x",
            "2026-12-01T16:36:28+0000 compute-1 nova-compute[2211]: x",
            "2026-11-30T09:34:22.845 stdout F no zone",
            "2026-11-30T09:34:22.845Z stdin F x",
            "2026-11-30T09:34:22.845Z stdout X x",
            "2026-11-30T09:34:22.845Z stdout Fx",
            "2026-11-30 09:34:22.845 7502 INFO a.b [-] x",
            "",
        ] {
            assert!(parse_cri_prefix(line).is_err(), "{line}");
        }
    }

    #[test]
    fn never_panics_on_truncations() {
        let line = "2026-11-30T09:34:22.845912345Z stderr F é 2026-11-30";
        for end in 0..=line.len() {
            if let Some(prefix) = line.get(..end) {
                let _ = parse_cri_prefix(prefix);
            }
        }
    }
}
