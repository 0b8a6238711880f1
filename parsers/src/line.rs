//! One line, whatever its format: the wrapper a collector put around it (pebble, syslog,
//! a Kubernetes CRI or Docker `json-file` container log) and the content (oslo.log,
//! Apache access, uWSGI, or plain text).

use serde::Serialize;

use crate::access::{AccessLine, parse_access_line};
use crate::cri::CriPrefix;
use crate::docker::DockerPrefix;
use crate::error::Reason;
use crate::kubectl::KubectlPrefix;
use crate::layers::{MAX_LAYERS, peel_layers};
use crate::oslo::{OsloLine, parse_oslo_body, parse_oslo_line};
use crate::pebble::PebblePrefix;
use crate::syslog::{SyslogPrefix, SyslogTime};
use crate::time::{DateTime, Timestamp};
use crate::uwsgi::{UwsgiLine, parse_uwsgi_line};

/// The format of a line or record, as `evacdoc parse` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// An oslo.log line or record.
    Oslo,
    /// An Apache access line.
    Access,
    /// A uWSGI request line.
    Uwsgi,
    /// A line inside a pebble prefix (Sunbeam pod logs).
    Pebble,
    /// A line inside a syslog or journal prefix.
    Syslog,
    /// A line inside a Kubernetes CRI container-log prefix (`/var/log/pods/`).
    Cri,
    /// A line inside a Docker `json-file` object.
    Docker,
    /// A line inside `kubectl logs --prefix` / `--timestamps` prefixes.
    Kubectl,
    /// A raw Python traceback, printed to stderr without any prefix.
    Traceback,
    /// An oslo.config INI file.
    Ini,
    /// Plain text inside a wrapper (a pebble or systemd message of its own).
    Text,
    /// Text that fits no format.
    Unparsed,
}

impl Format {
    /// The lowercase name used in JSON and on the command line.
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Oslo => "oslo",
            Format::Access => "access",
            Format::Uwsgi => "uwsgi",
            Format::Pebble => "pebble",
            Format::Syslog => "syslog",
            Format::Cri => "cri",
            Format::Docker => "docker",
            Format::Kubectl => "kubectl",
            Format::Traceback => "traceback",
            Format::Ini => "ini",
            Format::Text => "text",
            Format::Unparsed => "unparsed",
        }
    }
}

/// The prefix a log collector wrapped around the original line.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Wrapper<'a> {
    /// Pebble (Sunbeam): `2025-05-14T04:29:00.317Z [wsgi-nova-api] `.
    Pebble(PebblePrefix<'a>),
    /// syslog or journalctl: `Dec  1 16:36:28 host prog[pid]: `.
    Syslog(SyslogPrefix<'a>),
    /// Kubernetes CRI: `2024-05-01T12:00:00.123456789Z stderr F `.
    Cri(CriPrefix),
    /// Docker `json-file`: `{"log":"…","stream":"stderr","time":"…"}`.
    Docker(DockerPrefix),
    /// `kubectl logs --prefix --timestamps`: `[pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z `.
    Kubectl(KubectlPrefix<'a>),
}

impl<'a> Wrapper<'a> {
    /// Who wrote the line: the pebble service, or the syslog program and pid. Lines
    /// of one record come from one source.
    pub fn source(&self) -> (&'a str, Option<u32>) {
        match self {
            Wrapper::Pebble(p) => (p.service, None),
            Wrapper::Syslog(s) => (s.program, s.pid),
            // A container log file holds one container: its two streams are the sources.
            Wrapper::Cri(c) => (c.stream.as_str(), None),
            Wrapper::Docker(d) => (d.stream.as_str(), None),
            Wrapper::Kubectl(k) => (k.container.unwrap_or(""), None),
        }
    }

    /// The time the collector read the line, when it says so in UTC terms (pebble, CRI,
    /// Docker): beside the content's local time it reveals the host's zone.
    pub fn collector_time(&self) -> Option<Timestamp> {
        match self {
            Wrapper::Pebble(p) => Some(p.time),
            Wrapper::Cri(c) => Some(c.time),
            Wrapper::Docker(d) => Some(d.time),
            Wrapper::Kubectl(k) => k.time,
            Wrapper::Syslog(_) => None,
        }
    }

    /// The wrapper's format.
    pub fn format(&self) -> Format {
        match self {
            Wrapper::Pebble(_) => Format::Pebble,
            Wrapper::Syslog(_) => Format::Syslog,
            Wrapper::Cri(_) => Format::Cri,
            Wrapper::Docker(_) => Format::Docker,
            Wrapper::Kubectl(_) => Format::Kubectl,
        }
    }
}

/// What a line says, once any wrapper is removed.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Content<'a> {
    /// An oslo.log line.
    Oslo(OsloLine<'a>),
    /// An Apache access line (boxed, as the uWSGI line: they are twice the size of an
    /// oslo line, and every line of a log is moved several times on its way to a record).
    Access(Box<AccessLine<'a>>),
    /// A uWSGI request line.
    Uwsgi(Box<UwsgiLine<'a>>),
    /// Text with no known prefix: a continuation line, a raw traceback line, or junk.
    Text {
        /// The text.
        text: &'a str,
        /// Why no format fitted, if the text stands on its own.
        reason: Reason,
    },
}

impl Content<'_> {
    /// The content's format.
    pub fn format(&self) -> Format {
        match self {
            Content::Oslo(_) => Format::Oslo,
            Content::Access(_) => Format::Access,
            Content::Uwsgi(_) => Format::Uwsgi,
            Content::Text { .. } => Format::Text,
        }
    }
}

/// One parsed line.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Line<'a> {
    /// The line as read (without its newline).
    pub raw: &'a str,
    /// The collector's prefix, if any.
    pub wrapper: Option<Wrapper<'a>>,
    /// What the line says.
    pub content: Content<'a>,
}

impl<'a> Line<'a> {
    /// The unprefixed text of a line that has no format of its own, if it is one.
    pub fn text(&self) -> Option<&'a str> {
        match self.content {
            Content::Text { text, .. } => Some(text),
            _ => None,
        }
    }

    /// The time the content gives, or the wrapper's when the content has none.
    pub fn timestamp(&self) -> Option<Timestamp> {
        let content = match &self.content {
            Content::Oslo(o) => Some(Timestamp {
                local: o.timestamp,
                offset: o.offset,
            }),
            Content::Access(a) => Some(a.time),
            Content::Uwsgi(u) => Some(Timestamp::local(u.time)),
            Content::Text { .. } => None,
        };
        content.or_else(|| match &self.wrapper {
            Some(Wrapper::Syslog(s)) => s.time.timestamp(),
            Some(w) => w.collector_time(),
            None => None,
        })
    }
}

fn is_digit_at(b: &[u8], i: usize) -> bool {
    b.get(i).is_some_and(u8::is_ascii_digit)
}

/// Reads the content of a line (after any wrapper).
pub fn parse_content(text: &str) -> Content<'_> {
    let b = text.as_bytes();
    let attempt = match b.first() {
        None => {
            return Content::Text {
                text,
                reason: Reason::BLANK,
            };
        }
        Some(b' ' | b'\t') if text.trim().is_empty() => {
            return Content::Text {
                text,
                reason: Reason::BLANK,
            };
        }
        // Indented text is a continuation or traceback line: no format starts so.
        Some(b' ' | b'\t') => {
            return Content::Text {
                text,
                reason: Reason::NO_FORMAT,
            };
        }
        // `YYYY-MM-DD ` starts an oslo.log line; any other digit, an access line's client.
        Some(c) if c.is_ascii_digit() && b.get(4) == Some(&b'-') && is_digit_at(b, 3) => {
            parse_oslo_line(text).map(|(_, o)| Content::Oslo(o))
        }
        Some(b'[' | b'{') if text.starts_with("[pid: ") || text.starts_with("{address space") => {
            parse_uwsgi_line(text).map(|(_, u)| Content::Uwsgi(Box::new(u)))
        }
        Some(_) => match parse_access_line(text) {
            Ok((_, a)) => Ok(Content::Access(Box::new(a))),
            // Without `] "` (the end of `%t` and the start of `%r`) the line was never
            // an access line: say so rather than name a missing access-log field.
            Err(_) if memchr::memmem::find(b, b"] \"").is_none() => {
                return Content::Text {
                    text,
                    reason: Reason::NO_FORMAT,
                };
            }
            Err(error) => Err(error),
        },
    };
    attempt.unwrap_or_else(|error| Content::Text {
        text,
        reason: Reason::from_error(text, error),
    })
}

/// Reads one line of any format: the prefixes collectors stacked before it, peeled
/// in any order (see [`crate::layers`]), then the content. Never fails: text that fits
/// nothing comes back as [`Content::Text`] with the reason.
///
/// ```
/// use evacdoc_parsers::{parse_line, Content, Wrapper};
/// let line = parse_line("2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 \
///     2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app [None \
///     req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data already \
///     initialized, not re-initializing.\\x1b[00m");
/// assert!(matches!(line.wrapper, Some(Wrapper::Pebble(_))));
/// let Content::Oslo(oslo) = &line.content else { panic!("not oslo") };
/// assert_eq!(oslo.message, "Global data already initialized, not re-initializing.");
/// ```
pub fn parse_line(raw: &str) -> Line<'_> {
    parse_line_written(raw, None)
}

/// [`parse_line`] of a line of a file last written at `written` (its modification time,
/// when known): the year a journal line without one was written in (see
/// `content_after`).
pub fn parse_line_written<'a>(raw: &'a str, written: Option<&DateTime>) -> Line<'a> {
    let (wrapper, rest) = peel_layers(None, raw, MAX_LAYERS);
    let content = content_after(wrapper.as_ref(), rest, written);
    Line {
        raw,
        wrapper,
        content,
    }
}

/// The content after `wrapper`: [`parse_content`], or, after a journal or syslog prefix,
/// DevStack's oslo.log format, whose time and pid are the prefix's
/// ([`parse_oslo_body`]). A prefix without a year (`short`, `short-precise`) takes the
/// year that puts it before `written`; without `written` such a line stays text.
fn content_after<'a>(
    wrapper: Option<&Wrapper<'a>>,
    text: &'a str,
    written: Option<&DateTime>,
) -> Content<'a> {
    // DevStack's lines start with their level, upper case, which no other format's
    // content does (oslo.log's starts with a digit, an access line with its client, a
    // uWSGI line with `[`): tried first, the other formats only when it is not one.
    if let Some(Wrapper::Syslog(s)) = wrapper
        && text.as_bytes().first().is_some_and(u8::is_ascii_uppercase)
    {
        let at = match s.time {
            SyslogTime::Yearless(t) => written
                .and_then(|w| t.written_before(w))
                .map(Timestamp::local),
            time => time.timestamp(),
        };
        if let Some(Ok((_, oslo))) = at.map(|at| parse_oslo_body(text, at, s.pid.unwrap_or(0))) {
            return Content::Oslo(oslo);
        }
    }
    parse_content(text)
}

/// A line a container runtime wrapped (`outer`, already peeled): `payload` is what the
/// container wrote, its own prefixes peeled as [`parse_line`] peels them (Sunbeam's
/// containers run pebble, whose prefix then names the service better than the
/// container stream: it becomes the wrapper).
pub fn parse_wrapped<'a>(raw: &'a str, outer: Wrapper<'a>, payload: &'a str) -> Line<'a> {
    parse_wrapped_written(raw, outer, payload, None)
}

/// [`parse_wrapped`] of a line of a file last written at `written` (see
/// [`parse_line_written`]).
pub fn parse_wrapped_written<'a>(
    raw: &'a str,
    outer: Wrapper<'a>,
    payload: &'a str,
    written: Option<&DateTime>,
) -> Line<'a> {
    let (wrapper, rest) = peel_layers(Some(outer), payload, MAX_LAYERS - 1);
    let content = content_after(wrapper.as_ref(), rest, written);
    Line {
        raw,
        wrapper,
        content,
    }
}

#[cfg(test)]
mod devstack_tests;

#[cfg(test)]
mod tests;
