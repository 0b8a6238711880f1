//! The data evacdoc reasons about: hosts, services, files, ids and events.
//!
//! Everything here is plain data that can be stored, indexed and redacted later. Ids are
//! kept as 128-bit numbers (a UUID, or the UUID of a `req-` id) so that indexes stay small.

use std::fmt;

use serde::{Serialize, Serializer};

/// Index of a host in [`crate::correlate::Analysis::hosts`].
pub type HostId = u32;
/// Index of a file in [`crate::correlate::Analysis::files`].
pub type FileId = u32;
/// Index of an event in [`crate::correlate::Analysis::events`].
pub type EventId = u32;

/// A UUID stored as a number; printed in the canonical 8-4-4-4-12 form.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Uuid(pub u128);

impl Uuid {
    /// Parses a canonical UUID (either case).
    pub fn parse(s: &str) -> Option<Uuid> {
        if !evacdoc_parsers::text::is_uuid(s) {
            return None;
        }
        let mut value = 0u128;
        for b in s.bytes().filter(|b| *b != b'-') {
            value = (value << 4) | u128::from(hex_digit(b)?);
        }
        Some(Uuid(value))
    }

    /// Parses an oslo request id (`req-<uuid>`).
    pub fn parse_request_id(s: &str) -> Option<Uuid> {
        Uuid::parse(s.strip_prefix("req-")?)
    }

    /// The `req-<uuid>` form of a request id.
    pub fn request_id(&self) -> String {
        format!("req-{self}")
    }
}

fn hex_digit(b: u8) -> Option<u8> {
    match b {
        b'0'..=b'9' => Some(b - b'0'),
        b'a'..=b'f' => Some(b - b'a' + 10),
        b'A'..=b'F' => Some(b - b'A' + 10),
        _ => None,
    }
}

impl fmt::Display for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = self.0;
        write!(
            f,
            "{:08x}-{:04x}-{:04x}-{:04x}-{:012x}",
            (v >> 96) as u32,
            (v >> 80) as u16,
            (v >> 64) as u16,
            (v >> 48) as u16,
            v & 0xffff_ffff_ffff
        )
    }
}

impl fmt::Debug for Uuid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl Serialize for Uuid {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// The project a service belongs to: how timelines group their lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Project {
    /// Masakari: engine, API, monitors.
    Masakari,
    /// Nova: API, conductor, scheduler, compute.
    Nova,
    /// Cinder.
    Cinder,
    /// Keystone.
    Keystone,
    /// Anything else (system logs, other services).
    Other,
}

impl Project {
    /// Capitalised name, as timeline headers print it.
    pub fn title(self) -> &'static str {
        match self {
            Project::Masakari => "Masakari",
            Project::Nova => "Nova",
            Project::Cinder => "Cinder",
            Project::Keystone => "Keystone",
            Project::Other => "Other",
        }
    }
}

/// A service whose log or config a file holds, e.g. `masakari-engine`, `nova-api-access`.
///
/// Kept as a name (the conventional binary or log name) rather than a closed enum:
/// deployments name things in many ways and an unknown service is still worth reading.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct Service(pub String);

impl Service {
    /// A service by name.
    pub fn new(name: impl Into<String>) -> Service {
        Service(name.into())
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The project the service belongs to, from its name.
    pub fn project(&self) -> Project {
        let name = self.0.as_str();
        if name.starts_with("masakari") {
            Project::Masakari
        } else if name.starts_with("nova") {
            Project::Nova
        } else if name.starts_with("cinder") {
            Project::Cinder
        } else if name.starts_with("keystone") {
            Project::Keystone
        } else {
            Project::Other
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The level of a log line, in five steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum LogLevel {
    /// DEBUG or TRACE.
    Debug,
    /// INFO, AUDIT or an unknown level.
    Info,
    /// WARNING.
    Warning,
    /// ERROR.
    Error,
    /// CRITICAL.
    Critical,
}

impl LogLevel {
    /// The level of an oslo.log level name.
    pub fn of(level: evacdoc_parsers::oslo::Level<'_>) -> LogLevel {
        use evacdoc_parsers::oslo::Level;
        match level {
            Level::Trace | Level::Debug => LogLevel::Debug,
            Level::Info | Level::Audit | Level::Other(_) => LogLevel::Info,
            Level::Warning => LogLevel::Warning,
            Level::Error => LogLevel::Error,
            Level::Critical => LogLevel::Critical,
        }
    }
}

/// An HTTP request line as an access log or Nova's request log recorded it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: String,
    /// The path with its query string.
    pub path: String,
    /// The response status.
    pub status: u16,
    /// The user agent, when the line has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<String>,
}

/// What kind of line an event came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventKind {
    /// An oslo.log record.
    Log,
    /// An HTTP request (access log, uWSGI or Nova request log).
    Request,
    /// A raw traceback printed to stderr.
    Traceback,
    /// Text inside a pebble or syslog wrapper.
    Text,
}

/// One retained log record, with the ids found in it.
///
/// Only records that can matter to a diagnosis are kept as events (see
/// `correlate::extract`); the rest are counted.
#[derive(Clone, Debug, Serialize)]
pub struct Event {
    /// UTC time in nanoseconds since the epoch, after time zone and clock-skew correction.
    pub time: i64,
    /// The file.
    pub file: FileId,
    /// 1-based line of the record's first line in the file.
    pub line: u32,
    /// The host the file belongs to.
    pub host: HostId,
    /// What kind of line.
    pub kind: EventKind,
    /// LogLevel, when the line gives one.
    pub level: Option<LogLevel>,
    /// The oslo logger, when there is one.
    pub logger: Option<String>,
    /// The process id of an oslo line (several workers write one file).
    pub pid: Option<u32>,
    /// The local request id.
    pub request_id: Option<Uuid>,
    /// The global request id.
    pub global_request_id: Option<Uuid>,
    /// Instance UUIDs the record names (`[instance: ]`, `/servers/<uuid>`, message text).
    pub instances: Vec<Uuid>,
    /// Notification UUIDs the record names.
    pub notifications: Vec<Uuid>,
    /// Volume UUIDs the record names.
    pub volumes: Vec<Uuid>,
    /// Host names the message mentions (as written).
    pub mentioned_hosts: Vec<String>,
    /// The HTTP request, for access and request-log lines.
    pub http: Option<HttpRequest>,
    /// The record's first line as written in the file.
    pub text: String,
    /// Byte offset of the message within `text` (0 when the line has no prefix).
    pub message_start: u32,
    /// Byte length of the message (colour residue after it excluded).
    pub message_len: u32,
    /// The record's further lines (continuation, then traceback), as written.
    pub more: Vec<String>,
    /// True when the time came from a line with one-second precision (Apache `%t`):
    /// the request happened somewhere in that second.
    pub second_precision: bool,
}

impl Event {
    /// The message part of the first line.
    pub fn message(&self) -> &str {
        let start = self.message_start as usize;
        self.text
            .get(start..start + self.message_len as usize)
            .unwrap_or(&self.text)
    }

    /// The key that orders events: time, with a one-second-precision stamp placed at the
    /// end of its second so that a request logged by Apache follows the client line that
    /// caused it within the same second.
    pub fn sort_key(&self) -> i64 {
        if self.second_precision {
            self.time + 999_999_999
        } else {
            self.time
        }
    }

    /// The record's first line as written in the file.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The record's further lines (continuation, then traceback), as written.
    pub fn more(&self) -> impl DoubleEndedIterator<Item = &str> + '_ {
        self.more.iter().map(String::as_str)
    }

    /// The oslo logger, when there is one.
    pub fn logger(&self) -> Option<&str> {
        self.logger.as_deref()
    }

    /// The HTTP request, for access and request-log lines.
    pub fn http(&self) -> Option<&HttpRequest> {
        self.http.as_ref()
    }

    /// Host names the message mentions (as written).
    pub fn mentioned_hosts(&self) -> impl Iterator<Item = &str> + '_ {
        self.mentioned_hosts.iter().map(String::as_str)
    }

    /// Every line of the record joined with newlines.
    pub fn full_text(&self) -> String {
        let mut out = self.text.clone();
        for line in &self.more {
            out.push('\n');
            out.push_str(line);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_round_trip() {
        let u = Uuid::parse("56CE6206-3659-495e-a6ea-f4d3d578cc96").unwrap();
        assert_eq!(u.to_string(), "56ce6206-3659-495e-a6ea-f4d3d578cc96");
        let r = Uuid::parse_request_id("req-de081ecf-4201-4542-b092-e21b2f5ce942").unwrap();
        assert_eq!(r.request_id(), "req-de081ecf-4201-4542-b092-e21b2f5ce942");
        assert_eq!(Uuid::parse("not-a-uuid"), None);
    }

    #[test]
    fn services_know_their_project() {
        assert_eq!(Service::new("masakari-engine").project(), Project::Masakari);
        assert_eq!(Service::new("nova-api-access").project(), Project::Nova);
        assert_eq!(Service::new("syslog").project(), Project::Other);
    }
}
