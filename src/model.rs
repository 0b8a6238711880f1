//! The data evacdoc reasons about: hosts, services, files, ids and events.
//!
//! Everything here is plain data that can be stored, indexed and redacted later. Ids are
//! kept as 128-bit numbers (a UUID, or the UUID of a `req-` id) so that indexes stay small.

pub mod identified;
pub mod inventory;
pub mod lines;
pub mod shared;

pub use shared::SharedStr;

mod ids;
mod service;
mod uuid;

pub use ids::{EventId, EventsById, FileId, FindingId, HostId};
pub use service::{LogLevel, Project, Service};
pub use uuid::Uuid;

use std::borrow::Cow;
use std::fmt;

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// An HTTP request line as an access log or Nova's request log recorded it. Its
/// strings are shared with the other requests that repeat them (methods, agents, the
/// path of a server polled once a second).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct HttpRequest {
    /// `GET`, `POST`, ...
    pub method: SharedStr,
    /// The path with its query string.
    pub path: SharedStr,
    /// The response status.
    pub status: u16,
    /// The user agent, when the line has one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub user_agent: Option<SharedStr>,
    /// How long the request took, as Nova's request log states it (`time: 0.412345`),
    /// in ns: read with the line, so that the clock-skew search does not read the
    /// text of every request line back.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub duration_ns: Option<i64>,
}

/// What kind of line an event came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
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

/// How many of its first further lines (continuation, traceback) an event keeps.
pub const MORE_HEAD: usize = 24;
/// How many of its last further lines an event keeps too: where a traceback names its
/// exception. The lines between are counted ([`Event::more_omitted`]).
pub const MORE_TAIL: usize = 8;
/// The most bytes of text an event keeps (a `RESP BODY` debug line can be megabytes).
pub const TEXT_MAX: usize = 16 * 1024;

/// One retained log record, with the ids found in it.
///
/// Only records that can matter to a diagnosis are kept as events (see
/// `correlate::extract`); the rest are counted. An event is compact (184 bytes and its
/// text): its lines in one allocation (long tracebacks cut to their head and tail), its
/// logger shared with the other events of that logger, ids as numbers in boxed slices,
/// so that what a bundle costs depends on how many events matter, not on their text.
/// Readers use the accessors ([`Event::text`], [`Event::more`], [`Event::logger`],
/// [`Event::http`], [`Event::mentioned_hosts`]), which stay when the storage changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
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
    /// The oslo logger, when there is one (shared: see [`Event::set_logger`]).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        serialize_with = "logger_name",
        deserialize_with = "shared_logger"
    )]
    logger: Option<Arc<str>>,
    /// The process id of an oslo line (several workers write one file).
    pub pid: Option<u32>,
    /// The local request id.
    pub request_id: Option<Uuid>,
    /// The global request id.
    pub global_request_id: Option<Uuid>,
    /// Instance UUIDs the record names (`[instance: ]`, `/servers/<uuid>`, message text).
    #[serde(default)]
    pub instances: Ids,
    /// Notification UUIDs the record names.
    #[serde(default)]
    pub notifications: Ids,
    /// Volume UUIDs the record names.
    #[serde(default)]
    pub volumes: Ids,
    /// What only some events have (an HTTP request, hosts named, lines not kept), in
    /// one box so that the others pay one pointer for it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    extra: Option<Box<Extra>>,
    /// The record's first line as written, then its kept further lines, joined by `\n`:
    /// the event's own until its keeper packs it into a compressed block
    /// ([`Event::pack_text`]).
    #[serde(serialize_with = "lines_text", deserialize_with = "plain_lines")]
    lines: lines::Lines,
    /// Byte length of the first line in `lines`.
    first_len: u32,
    /// Byte offset of the message within the first line (0 when the line has no prefix).
    pub message_start: u32,
    /// Byte length of the message (colour residue after it excluded).
    pub message_len: u32,
    /// True when the time came from a line with one-second precision (Apache `%t`):
    /// the request happened somewhere in that second.
    pub second_precision: bool,
}

fn lines_text<S: Serializer>(lines: &lines::Lines, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&lines.get())
}

fn plain_lines<'de, D: Deserializer<'de>>(d: D) -> Result<lines::Lines, D::Error> {
    let text = String::deserialize(d)?;
    Ok(lines::Lines::new(text.into_boxed_str()))
}

fn logger_name<S: Serializer>(logger: &Option<Arc<str>>, s: S) -> Result<S::Ok, S::Error> {
    logger.as_deref().serialize(s)
}

fn shared_logger<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Arc<str>>, D::Error> {
    let name = Option::<std::borrow::Cow<'de, str>>::deserialize(d)?;
    Ok(name.map(|n| intern_logger(&n)))
}

/// The shared copy of a logger name (one per thread and name).
fn intern_logger(logger: &str) -> Arc<str> {
    LOGGERS.with(|cell| {
        let mut set = cell.borrow_mut();
        if let Some(found) = set.get(logger) {
            return found.clone();
        }
        let new: Arc<str> = Arc::from(logger);
        set.insert(new.clone());
        new
    })
}

fn is_zero(n: &u32) -> bool {
    *n == 0
}

/// The parts of an [`Event`] that most events lack.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
struct Extra {
    /// The HTTP request, for access and request-log lines.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    http: Option<HttpRequest>,
    /// Host names the message mentions (as written).
    #[serde(default, skip_serializing_if = "<[Box<str>]>::is_empty")]
    mentioned_hosts: Box<[Box<str>]>,
    /// Further lines not kept (past [`MORE_HEAD`] + [`MORE_TAIL`] or [`TEXT_MAX`]).
    #[serde(default, skip_serializing_if = "is_zero")]
    more_omitted: u32,
}

/// The UUIDs of one kind an event names (usually none or one): a boxed slice, two
/// words, read as a `&[Uuid]`.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Ids(Box<[Uuid]>);

impl Ids {
    /// The ids as a slice.
    pub fn as_slice(&self) -> &[Uuid] {
        &self.0
    }

    /// Adds `id` (a boxed slice: one reallocation, fine for the one or two ids of an
    /// event).
    pub fn push(&mut self, id: Uuid) {
        let mut v = std::mem::take(&mut self.0).into_vec();
        v.push(id);
        self.0 = v.into_boxed_slice();
    }

    /// Adds `id` unless it is there.
    pub fn push_unique(&mut self, id: Uuid) {
        if !self.0.contains(&id) {
            let mut v = std::mem::take(&mut self.0).into_vec();
            v.push(id);
            self.0 = v.into_boxed_slice();
        }
    }
}

impl std::ops::Deref for Ids {
    type Target = [Uuid];
    fn deref(&self) -> &[Uuid] {
        &self.0
    }
}

impl fmt::Debug for Ids {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}

impl FromIterator<Uuid> for Ids {
    fn from_iter<I: IntoIterator<Item = Uuid>>(iter: I) -> Ids {
        Ids(iter.into_iter().collect())
    }
}

impl<const N: usize> PartialEq<[Uuid; N]> for Ids {
    fn eq(&self, other: &[Uuid; N]) -> bool {
        self.0[..] == other[..]
    }
}

impl From<Vec<Uuid>> for Ids {
    fn from(v: Vec<Uuid>) -> Ids {
        Ids(v.into_boxed_slice())
    }
}

impl<'a> IntoIterator for &'a Ids {
    type Item = &'a Uuid;
    type IntoIter = std::slice::Iter<'a, Uuid>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

/// The largest index `<= at` that is a char boundary of `s`.
fn floor_boundary(s: &str, at: usize) -> usize {
    let mut at = at.min(s.len());
    while !s.is_char_boundary(at) {
        at -= 1;
    }
    at
}

thread_local! {
    /// Loggers seen by this thread: events of one logger share its name.
    static LOGGERS: std::cell::RefCell<std::collections::HashSet<Arc<str>>> =
        std::cell::RefCell::default();
}

impl Event {
    /// An event of `kind` at `file`:`line` on `host`, with no text, ids or time yet.
    pub fn new(file: FileId, line: u32, host: HostId, kind: EventKind) -> Event {
        Event {
            time: 0,
            file,
            line,
            host,
            kind,
            level: None,
            logger: None,
            pid: None,
            request_id: None,
            global_request_id: None,
            instances: Ids::default(),
            notifications: Ids::default(),
            volumes: Ids::default(),
            extra: None,
            lines: lines::Lines::default(),
            first_len: 0,
            message_start: 0,
            message_len: 0,
            second_precision: false,
        }
    }

    /// Sets the record's lines: the first as written, then the further ones, of which
    /// the first [`MORE_HEAD`] and last [`MORE_TAIL`] are kept within [`TEXT_MAX`] bytes.
    pub fn set_text(&mut self, first: &str, more: &[&str]) {
        let first = &first[..floor_boundary(first, TEXT_MAX)];
        let mut lines = String::from(first);
        let kept: Vec<&str> = if more.len() > MORE_HEAD + MORE_TAIL {
            more[..MORE_HEAD]
                .iter()
                .chain(&more[more.len() - MORE_TAIL..])
                .copied()
                .collect()
        } else {
            more.to_vec()
        };
        let mut omitted = more.len() - kept.len();
        for line in kept {
            if lines.len() + 1 + line.len() > TEXT_MAX {
                omitted += 1;
                continue;
            }
            lines.push('\n');
            lines.push_str(line);
        }
        self.first_len = u32::try_from(first.len()).unwrap_or(0);
        if omitted > 0 || self.extra.is_some() {
            self.extra_mut().more_omitted = u32::try_from(omitted).unwrap_or(u32::MAX);
        }
        self.lines = lines::Lines::new(lines.into_boxed_str());
    }

    /// Sets the logger, shared with the other events of the same logger.
    pub fn set_logger(&mut self, logger: &str) {
        self.logger = Some(intern_logger(logger));
    }

    /// Sets the HTTP request of an access or request-log line.
    pub fn set_http(&mut self, http: HttpRequest) {
        self.extra_mut().http = Some(http);
    }

    /// The HTTP request of a request line, to complete it.
    pub(crate) fn http_mut(&mut self) -> Option<&mut HttpRequest> {
        self.extra.as_mut()?.http.as_mut()
    }

    fn extra_mut(&mut self) -> &mut Extra {
        self.extra.get_or_insert_with(Box::default)
    }

    /// Sets the host names the message mentions.
    pub fn set_mentioned_hosts<'a>(&mut self, hosts: impl IntoIterator<Item = &'a str>) {
        let mut list: Vec<Box<str>> = Vec::new();
        for h in hosts {
            if !list.iter().any(|l| &**l == h) {
                list.push(h.into());
            }
        }
        if !list.is_empty() || self.extra.is_some() {
            self.extra_mut().mentioned_hosts = list.into_boxed_slice();
        }
    }

    /// The message part of the first line.
    pub fn message(&self) -> Cow<'_, str> {
        let start = self.message_start as usize;
        let text = self.text();
        // A first line cut at TEXT_MAX keeps the start of its message.
        let end = (start + self.message_len as usize).min(text.len());
        match text {
            Cow::Borrowed(t) => Cow::Borrowed(t.get(start..end).unwrap_or(t)),
            Cow::Owned(t) => {
                Cow::Owned(t.get(start..end).map_or_else(|| t.clone(), str::to_string))
            }
        }
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
    pub fn text(&self) -> Cow<'_, str> {
        let first = self.first_len as usize;
        match self.lines.get() {
            Cow::Borrowed(all) => Cow::Borrowed(all.get(..first).unwrap_or(all)),
            Cow::Owned(mut all) => {
                if all.is_char_boundary(first) {
                    all.truncate(first);
                }
                Cow::Owned(all)
            }
        }
    }

    /// The record's further lines (continuation, then traceback), as written; of a long
    /// traceback the first and the last ones (see [`Event::more_omitted`]).
    pub fn more(&self) -> std::vec::IntoIter<String> {
        let all = self.lines.get();
        let rest = all
            .get(self.first_len as usize..)
            .and_then(|r| r.strip_prefix('\n'));
        rest.into_iter()
            .flat_map(|r| r.split('\n'))
            .map(str::to_string)
            .collect::<Vec<String>>()
            .into_iter()
    }

    /// Moves the text of `events` that is still their own into one compressed block
    /// shared by them (the accessors read it back).
    pub fn pack_text<'a>(events: impl IntoIterator<Item = &'a mut Event>) {
        lines::pack(events.into_iter().map(|e| &mut e.lines));
    }

    /// Byte length of the kept text (first line and further lines).
    pub fn text_len(&self) -> usize {
        self.lines.len()
    }

    /// How many further lines were not kept.
    pub fn more_omitted(&self) -> u32 {
        self.extra.as_ref().map_or(0, |x| x.more_omitted)
    }

    /// The oslo logger, when there is one.
    pub fn logger(&self) -> Option<&str> {
        self.logger.as_deref()
    }

    /// The HTTP request, for access and request-log lines.
    pub fn http(&self) -> Option<&HttpRequest> {
        self.extra.as_ref()?.http.as_ref()
    }

    /// Host names the message mentions (as written).
    pub fn mentioned_hosts(&self) -> impl Iterator<Item = &str> + '_ {
        self.extra
            .iter()
            .flat_map(|x| x.mentioned_hosts.iter())
            .map(|h| &**h)
    }

    /// Every kept line of the record joined with newlines.
    pub fn full_text(&self) -> String {
        self.lines.get().into_owned()
    }

    /// Rewrites every piece of text the event holds with `rewrite` (redaction): its
    /// lines one at a time, the prefix, message and rest of the first line apart so that
    /// the message keeps its bounds, the hosts it mentions, its HTTP path and agent.
    /// Ids, times and positions stay.
    pub fn rewrite_text(&mut self, rewrite: &mut dyn FnMut(&str) -> String) {
        let first = self.text().into_owned();
        let first = first.as_str();
        let start = floor_boundary(first, self.message_start as usize);
        let end = floor_boundary(first, start + self.message_len as usize).max(start);
        let prefix = rewrite(&first[..start]);
        let message = rewrite(&first[start..end]);
        let rest = rewrite(&first[end..]);
        let mut lines = format!("{prefix}{message}{rest}");
        let first_len = lines.len();
        let more: Vec<String> = self.more().map(|line| rewrite(&line)).collect();
        for line in &more {
            lines.push('\n');
            lines.push_str(line);
        }
        self.message_start = u32::try_from(prefix.len()).unwrap_or(0);
        self.message_len = u32::try_from(message.len()).unwrap_or(0);
        self.first_len = u32::try_from(first_len).unwrap_or(0);
        self.lines = lines::Lines::new(lines.into_boxed_str());
        if let Some(extra) = self.extra.as_mut() {
            for host in extra.mentioned_hosts.iter_mut() {
                *host = rewrite(host).into_boxed_str();
            }
            if let Some(http) = extra.http.as_mut() {
                http.path = rewrite(&http.path).into();
                http.user_agent = http
                    .user_agent
                    .as_deref()
                    .map(|agent| rewrite(agent).into());
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_stay_small() {
        // Kept by the hundred thousand: a regression here is a memory regression.
        assert!(
            std::mem::size_of::<Event>() <= 184,
            "{}",
            std::mem::size_of::<Event>()
        );
        assert_eq!(std::mem::size_of::<Option<Uuid>>(), 24);
    }

    #[test]
    fn uuid_round_trip() {
        let u = Uuid::parse("56CE6206-3659-495e-a6ea-f4d3d578cc96").unwrap();
        assert_eq!(u.to_string(), "56ce6206-3659-495e-a6ea-f4d3d578cc96");
        let r = Uuid::parse_request_id("req-de081ecf-4201-4542-b092-e21b2f5ce942").unwrap();
        assert_eq!(r.request_id(), "req-de081ecf-4201-4542-b092-e21b2f5ce942");
        assert_eq!(Uuid::parse("not-a-uuid"), None);
    }

    #[test]
    fn a_long_traceback_keeps_its_head_and_its_exception() {
        let frames: Vec<String> = (0..100)
            .map(|n| format!("  File \"x.py\", line {n}, in f"))
            .collect();
        let mut more: Vec<&str> = frames.iter().map(String::as_str).collect();
        more.push("keystoneauth1.exceptions.http.Unauthorized: (HTTP 401)");
        let mut e = Event::new(0, 7, 0, EventKind::Log);
        e.set_text("2024-05-21 10:02:47.600 41 ERROR m Failed", &more);
        assert_eq!(e.text(), "2024-05-21 10:02:47.600 41 ERROR m Failed");
        let kept: Vec<String> = e.more().collect();
        assert_eq!(kept.len(), MORE_HEAD + MORE_TAIL);
        assert_eq!(kept[0], more[0]);
        assert_eq!(e.more().next_back().as_deref(), more.last().copied());
        assert_eq!(e.more_omitted() as usize, more.len() - kept.len());
        let mut short = Event::new(0, 1, 0, EventKind::Log);
        short.set_text("one line", &[]);
        assert_eq!(short.more().count(), 0);
        assert_eq!(short.full_text(), "one line");
    }

    #[test]
    fn rewritten_text_keeps_the_message_bounds() {
        let mut e = Event::new(0, 1, 0, EventKind::Log);
        let first = "2024-05-21 10:02:47.600 41 INFO m [req-1 alice] Disable cmp1 now";
        e.set_text(first, &["  cmp1 again"]);
        e.message_start = first.find("Disable").unwrap() as u32;
        e.message_len = "Disable cmp1 now".len() as u32;
        e.set_mentioned_hosts(["cmp1"]);
        let mut rewrite = |s: &str| s.replace("cmp1", "host-abcdef").replace("alice", "u");
        e.rewrite_text(&mut rewrite);
        assert_eq!(e.message(), "Disable host-abcdef now");
        assert_eq!(
            e.text(),
            "2024-05-21 10:02:47.600 41 INFO m [req-1 u] Disable host-abcdef now"
        );
        assert_eq!(e.more().collect::<Vec<_>>(), vec!["  host-abcdef again"]);
        assert_eq!(e.mentioned_hosts().collect::<Vec<_>>(), vec!["host-abcdef"]);
    }

    #[test]
    fn an_event_round_trips_through_json() {
        let mut e = Event::new(3, 12, 1, EventKind::Request);
        e.set_text("GET /v2.1/servers 200", &["  more"]);
        e.set_logger("nova.api");
        e.set_mentioned_hosts(["cmp1", "cmp1", "cmp2"]);
        e.instances
            .push_unique(Uuid::parse("56ce6206-3659-495e-a6ea-f4d3d578cc96").unwrap());
        e.set_http(HttpRequest {
            method: "GET".into(),
            path: "/v2.1/servers".into(),
            status: 200,
            user_agent: None,
            duration_ns: None,
        });
        let json = serde_json::to_string(&e).unwrap();
        let back: Event = serde_json::from_str(&json).unwrap();
        assert_eq!(back, e);
        assert_eq!(back.mentioned_hosts().count(), 2);
    }

    #[test]
    fn services_know_their_project() {
        assert_eq!(Service::new("masakari-engine").project(), Project::Masakari);
        assert_eq!(Service::new("nova-api-access").project(), Project::Nova);
        assert_eq!(Service::new("syslog").project(), Project::Other);
    }
}
