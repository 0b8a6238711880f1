//! From a parsed record to an [`Event`], for the records that can matter to a diagnosis.
//!
//! A bundle holds millions of lines; the recovery story is told by a few thousand. Every
//! Masakari record is kept; of the others, those that carry the signs detectors and
//! timelines look for (API calls on servers and services, errors, evacuation and volume
//! attachment messages). The rest are counted, not stored.

use evacdoc_parsers::line::{Content, Line};
use evacdoc_parsers::oslo::Level;
use evacdoc_parsers::records::RecordKind;
use evacdoc_parsers::records::nova_request_of;
use evacdoc_parsers::{Record, Timestamp};
use memchr::memmem;
use memchr::memmem::Finder;
use std::sync::LazyLock;

use crate::correlate::ids::{UuidKind, classified_uuids, mentioned_hosts};
use crate::model::{
    Event, EventKind, FileId, HostId, HttpRequest, LogLevel, Project, Service, Uuid,
};

/// An event whose time is still the line's own (local, or with an offset).
#[derive(Clone, Debug)]
pub struct RawEvent {
    /// The event; `time` is filled once the host's zone is known.
    pub event: Event,
    /// The time as the line wrote it; `None` for lines without one (raw tracebacks),
    /// which take the time of the record before them.
    pub stamp: Option<Timestamp>,
}

/// Request paths of service and host management: changes always matter, reads when
/// they look up one host (Masakari's `?host=` lookups), not monitoring polls.
const MANAGEMENT_PATHS: [&str; 3] = ["/os-services", "/os-hypervisors", "/os-aggregates"];
/// Request paths whose changes matter (actions on servers, volumes, attachments).
const CHANGE_PATHS: [&str; 3] = ["/servers/", "/volumes/", "/attachments"];

/// Loggers whose messages matter without an `[instance: ]` prefix (API errors, service
/// liveness, volume attachments); elsewhere an evacuation message names its instance.
/// Only these and instance lines are searched, which spares most lines of a big log.
const MESSAGE_LOGGERS: [&str; 5] = [
    "nova.api",
    "nova.compute.api",
    "nova.servicegroup",
    "nova.conductor",
    "cinder",
];

/// Loggers of the rebuild on the destination whose lines, in some releases, carry no
/// `[instance: ]` tag but the request context of the evacuation: they are searched
/// when they have a request id (`correlate::request_instances` then names the instance).
const REQUEST_LOGGERS: [&str; 2] = ["nova.compute.manager", "nova.volume"];

fn untagged_in_request(o: &evacdoc_parsers::oslo::OsloLine<'_>) -> bool {
    REQUEST_LOGGERS.iter().any(|l| o.logger.starts_with(l)) && o.request_id().is_some()
}

/// Messages of Nova and Cinder that belong to an evacuation or a volume moving.
const INTERESTING_MESSAGES: [&str; 17] = [
    "vacuat",
    "spawned successfully",
    "ebuild",
    "Destroying instance",
    "Cleaning up allocations",
    "bringing vm",
    "disk on",
    "HTTP exception thrown",
    "Fault thrown",
    "still in use",
    "expected to be down",
    "Seems service",
    "Lost connection",
    "unable to report status",
    "ttach",
    "force_detach",
    "reset_status",
];

fn contains_any(text: &str, needles: &[&str]) -> bool {
    needles
        .iter()
        .any(|n| memmem::find(text.as_bytes(), n.as_bytes()).is_some())
}

/// Searchers built once: `memmem::find` builds one per call, which cost more than the
/// search itself on the short paths and messages of every line (6 % of an analysis).
fn finders<const N: usize>(needles: [&'static str; N]) -> [Finder<'static>; N] {
    needles.map(Finder::new)
}

fn found_any(text: &str, finders: &[Finder<'static>]) -> bool {
    finders.iter().any(|f| f.find(text.as_bytes()).is_some())
}

static MANAGEMENT_FINDERS: LazyLock<[Finder<'static>; 3]> =
    LazyLock::new(|| finders(MANAGEMENT_PATHS));
static CHANGE_FINDERS: LazyLock<[Finder<'static>; 3]> = LazyLock::new(|| finders(CHANGE_PATHS));
static USED_REQUEST_ID: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new(" used request id req-"));
static NOTIFICATION_WORDS: LazyLock<[Finder<'static>; 2]> =
    LazyLock::new(|| finders(["otification", "OTIFICATION"]));
/// The words of request paths and agents [`interesting_request`] looks for, searchers
/// built once (`str::contains` builds one per call: a few per line of an API log).
static HOST_EQ: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("host="));
static HYPERVISOR_HOSTNAME: LazyLock<Finder<'static>> =
    LazyLock::new(|| Finder::new("hypervisor_hostname"));
static SERVERS: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("/servers/"));
static SERVERS_DETAIL: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("/servers/detail"));
static NOVACLIENT: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("novaclient"));

/// `text.contains(word)` for the word `finder` looks for.
fn has(finder: &Finder<'static>, text: &str) -> bool {
    finder.find(text.as_bytes()).is_some()
}

/// One pass over a message for all of [`INTERESTING_MESSAGES`]: this runs on every
/// oslo line of every service.
fn interesting_message(message: &str) -> bool {
    static MATCHER: std::sync::LazyLock<Option<aho_corasick::AhoCorasick>> =
        std::sync::LazyLock::new(|| {
            aho_corasick::AhoCorasick::builder()
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(INTERESTING_MESSAGES)
                .ok()
        });
    match MATCHER.as_ref() {
        Some(matcher) => matcher.is_match(message),
        None => contains_any(message, &INTERESTING_MESSAGES),
    }
}

/// Whether an HTTP request can matter to a recovery story. An API serves far more reads
/// than a recovery makes, so reads of single servers are kept only when Masakari's client
/// could have made them (python-novaclient, or a request carrying a global request id),
/// and server requests only for the instances Masakari handled.
///
/// `masakari_like` is asked only when the answer depends on it (reading a line's
/// context costs more than the tests before it), and a path's UUIDs are classified
/// once, only for a read of a server that Masakari's client could have made: most lines
/// of a big API log are reads of servers by other clients.
fn interesting_request(
    method: &str,
    path: &str,
    status: u16,
    masakari_like: impl FnOnce() -> bool,
    watch: &Watched,
) -> bool {
    if status >= 500 || (status >= 400 && method != "GET") {
        return true;
    }
    if found_any(path, &*MANAGEMENT_FINDERS) {
        return method != "GET" || has(&HOST_EQ, path) || has(&HYPERVISOR_HOSTNAME, path);
    }
    let path_only = path.split('?').next().unwrap_or(path);
    if method != "GET" {
        return found_any(path_only, &*CHANGE_FINDERS)
            && (!has(&SERVERS, path_only) || watched(watch, path_only));
    }
    let host_listing = has(&SERVERS_DETAIL, path) && has(&HOST_EQ, path);
    if !host_listing && !has(&SERVERS, path_only) {
        // Neither a host's listing nor a read of one server.
        return false;
    }
    if !masakari_like() {
        return false;
    }
    if host_listing {
        return true;
    }
    let uuids = crate::correlate::ids::classified_uuids(path_only);
    uuids.len() == 1 && watched_among(watch, &uuids)
}

/// The instances Masakari's own lines and the captures name: Nova's reads and actions
/// on other servers are noise to a recovery story. `None` when the inputs have no
/// Masakari lines, so that nothing is known to narrow by.
pub type Watched = Option<std::collections::HashSet<Uuid>>;

fn watched(watch: &Watched, path: &str) -> bool {
    match watch {
        None => true,
        Some(_) => watched_among(watch, &crate::correlate::ids::classified_uuids(path)),
    }
}

/// [`watched`] of the classified UUIDs of a path.
fn watched_among(watch: &Watched, uuids: &[(UuidKind, Uuid)]) -> bool {
    match watch {
        None => true,
        Some(set) => uuids.iter().any(|(_, id)| set.contains(id)),
    }
}

/// Loggers of Masakari's own recovery code: their DEBUG lines tell the recovery (flow
/// and task transitions, Nova calls, status waits).
const MASAKARI_STORY_LOGGERS: [&str; 2] = ["masakari.engine", "masakari.compute"];

/// Whether a Masakari DEBUG line matters: it comes from the recovery code, names a
/// notification, or is novaclient's line naming the request id Nova answered a call
/// with (one per call; it pairs the call with Nova's request for the clock skew). The
/// rest (periodic tasks, locks, HTTP requests and bodies, libvirt and cluster polling
/// of the monitors) is what DEBUG adds by the million, and nothing reads it.
fn masakari_debug_matters(o: &evacdoc_parsers::oslo::OsloLine<'_>) -> bool {
    MASAKARI_STORY_LOGGERS
        .iter()
        .any(|l| o.logger.starts_with(l))
        || USED_REQUEST_ID.find(o.message.as_bytes()).is_some()
        || (names_notification(o.message)
            && classified_uuids(o.message)
                .iter()
                .any(|(kind, _)| *kind == UuidKind::Notification))
}

/// A cheap test before classifying the UUIDs of a line: the word that makes one a
/// notification's is there.
fn names_notification(message: &str) -> bool {
    found_any(message, &*NOTIFICATION_WORDS)
}

/// Whether a record of `service` is kept as an event.
pub fn keep(service: &Service, record: &Record<'_>, watch: &Watched) -> bool {
    keep_head(service, record.kind, &record.head, watch)
}

/// [`keep`] of a record of `kind` whose first line is `head`: the answer depends on
/// nothing else of the record (its further lines are kept with it, not asked).
pub fn keep_head(service: &Service, kind: RecordKind, head: &Line<'_>, watch: &Watched) -> bool {
    if kind == RecordKind::Unparsed {
        return false;
    }
    if kind == RecordKind::RawTraceback {
        return true;
    }
    if service.project() == Project::Masakari {
        // The engine's and monitors' lines but their routine DEBUG ones; of the API,
        // what is not routine (debug lines and monitors' successful reads are polling).
        if !service.name().starts_with("masakari-api") {
            return match &head.content {
                Content::Oslo(o) if o.level == Level::Debug => masakari_debug_matters(o),
                _ => true,
            };
        }
        return match &head.content {
            Content::Oslo(o) => o.level != evacdoc_parsers::oslo::Level::Debug,
            Content::Access(a) => a.method != Some("GET") || a.status >= 400,
            _ => true,
        };
    }
    if let Some(request) = nova_request_of(head) {
        let global = || match &head.content {
            Content::Oslo(o) => o.global_request_id().is_some(),
            _ => false,
        };
        return interesting_request(request.method, request.uri, request.status, global, watch);
    }
    match &head.content {
        Content::Access(a) => {
            let novaclient = || a.user_agent.is_some_and(|ua| has(&NOVACLIENT, ua));
            interesting_request(
                a.method.unwrap_or(""),
                a.path.unwrap_or(""),
                a.status,
                novaclient,
                watch,
            )
        }
        Content::Uwsgi(u) => interesting_request(u.method, u.path, u.status, || true, watch),
        Content::Oslo(o) => {
            let searched =
                o.instance.is_some() || MESSAGE_LOGGERS.iter().any(|l| o.logger.starts_with(l));
            // Errors always; warnings where a recovery shows (an instance, the API, the
            // service heartbeat, volumes, Keystone), not a compute host's routine ones.
            let error = matches!(o.level, Level::Error | Level::Critical);
            let warning =
                o.level == Level::Warning && (searched || service.project() != Project::Nova);
            error
                || warning
                || ((searched || untagged_in_request(o)) && interesting_message(o.message))
        }
        Content::Text { .. } => false,
    }
}

/// Where `inner` starts in `outer`, when it is a part of it: not so for the text a
/// container line's decoding wrote elsewhere (Docker's JSON `log`, CRI pieces), whose
/// distance from `outer` in memory means nothing (it differed from run to run).
fn offset_in(outer: &str, inner: &str) -> Option<u32> {
    let start = (inner.as_ptr() as usize).checked_sub(outer.as_ptr() as usize)?;
    if start + inner.len() > outer.len() {
        return None;
    }
    u32::try_from(start).ok()
}

/// Builds the event of a kept record.
pub fn event_of(record: &Record<'_>, file: FileId, host: HostId) -> RawEvent {
    let raw = record.head.raw;
    let mut event = Event::new(
        file,
        u32::try_from(record.line).unwrap_or(u32::MAX),
        host,
        EventKind::Text,
    );
    let more: Vec<&str> = record
        .continuation
        .iter()
        .chain(&record.traceback)
        .copied()
        .collect();
    event.set_text(raw, &more);
    let message;
    match &record.head.content {
        Content::Oslo(o) => {
            event.kind = EventKind::Log;
            event.level = Some(LogLevel::of(o.level));
            event.set_logger(o.logger);
            event.pid = Some(o.pid);
            event.request_id = o.request_id().and_then(Uuid::parse_request_id);
            event.global_request_id = o.global_request_id().and_then(Uuid::parse_request_id);
            if let Some(instance) = o.instance.and_then(Uuid::parse) {
                event.instances.push_unique(instance);
            }
            message = o.message;
            if let Some(request) = record.nova_request() {
                event.kind = EventKind::Request;
                event.set_http(HttpRequest {
                    method: request.method.into(),
                    path: request.uri.into(),
                    status: request.status,
                    user_agent: None,
                    duration_ns: None,
                });
            }
        }
        Content::Access(a) => {
            event.kind = EventKind::Request;
            event.second_precision = true;
            event.set_http(HttpRequest {
                method: a.method.unwrap_or("-").into(),
                path: a.path.unwrap_or(a.request).into(),
                status: a.status,
                user_agent: a.user_agent.map(Into::into),
                duration_ns: None,
            });
            // The request and what follows it (status, size, agent).
            message = offset_in(raw, a.request)
                .and_then(|at| raw.get(at as usize..))
                .unwrap_or(a.request);
        }
        Content::Uwsgi(u) => {
            event.kind = EventKind::Request;
            event.set_http(HttpRequest {
                method: u.method.into(),
                path: u.path.into(),
                status: u.status,
                user_agent: None,
                duration_ns: None,
            });
            message = u.path;
        }
        Content::Text { text, .. } => {
            message = text;
            if record.kind == RecordKind::RawTraceback {
                event.kind = EventKind::Traceback;
                event.level = Some(LogLevel::Error);
            }
        }
    }
    // A decoded line's message is not in its raw text: its start is the line's.
    event.message_start = offset_in(raw, message).unwrap_or(0);
    event.message_len = u32::try_from(message.len()).unwrap_or(0);
    if let Some(http) = event.http_mut() {
        http.duration_ns = stated_duration(message);
    }
    let texts = std::iter::once(message)
        .chain(record.continuation.iter().copied())
        .chain(record.traceback.iter().copied());
    for text in texts {
        for (kind, id) in classified_uuids(text) {
            match kind {
                UuidKind::Instance => event.instances.push_unique(id),
                UuidKind::Notification => event.notifications.push_unique(id),
                UuidKind::Volume => event.volumes.push_unique(id),
            }
        }
    }
    event.set_mentioned_hosts(mentioned_hosts(message));
    RawEvent {
        event,
        stamp: record.timestamp(),
    }
}

/// The duration a Nova request line states (`time: 0.412345`), in ns.
pub(crate) fn stated_duration(message: &str) -> Option<i64> {
    let (_, rest) = message.rsplit_once("time: ")?;
    let secs: f64 = rest.split_whitespace().next()?.parse().ok()?;
    (secs.is_finite() && (0.0..3600.0).contains(&secs)).then_some((secs * 1e9) as i64)
}

#[cfg(test)]
mod tests;

mod votes;
#[cfg(test)]
use votes::generated_time;
pub use votes::{vote_offsets, vote_own_offset, votes_nothing};
