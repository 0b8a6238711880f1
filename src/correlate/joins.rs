//! Joining each Masakari call to Nova with the request Nova logged for it.
//!
//! The Apache access log has no request id, so the join is by what the call was: the
//! instance (or host) it names, the HTTP method and path it makes (reference §2.5), and a
//! time window. Zed+ request-log lines also carry Masakari's global request id, which
//! then must match.

use serde::{Deserialize, Serialize};

mod pairing;
mod slack;
use pairing::pair_in_order;
#[cfg(test)]
use pairing::pair_whole;
pub use slack::ClockSlack;

use crate::correlate::calls::{CallKind, PathShape};
use crate::model::{Event, EventId, EventKind, Project, Uuid};

/// A Masakari call and the Nova request that served it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Join {
    /// The `masakari.compute.nova` event (`Call evacuate command for instance ...`).
    #[serde(with = "crate::correlate::document::stable")]
    pub call: EventId,
    /// The Nova request event (access-log or request-log line).
    #[serde(with = "crate::correlate::document::stable")]
    pub request: EventId,
    /// The instance both name, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<Uuid>,
    /// Request time minus call time, in milliseconds (one-second stamps counted from the
    /// middle of their second; less the middle of the offset measured between the two
    /// hosts when it was not corrected, see [`ClockSlack`]).
    pub delay_ms: i64,
}

/// How far before the call a request may be logged (clock granularity) and how long
/// after it (a slow Keystone token request comes first).
const BEFORE_NS: i64 = 2_000_000_000;
const AFTER_NS: i64 = 15_000_000_000;

/// What request a Masakari call makes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Expected {
    method: &'static str,
    /// The request path must contain all of these.
    path_parts: Vec<String>,
    /// The path (before any query) must end with the first of `path_parts` (a plain
    /// `GET /servers/<id>`).
    exact_server: bool,
    instance: Option<Uuid>,
}

/// Path parts other than server ids that a call's request is filed under.
const LITERAL_PARTS: [&str; 4] = [
    "/servers/detail",
    "/os-services",
    "/os-aggregates",
    "/os-aggregates/",
];

fn expected_request(message: &str, instance: Option<Uuid>) -> Option<Expected> {
    let kind = CallKind::of(message)?;
    let expected = |path_parts: Vec<String>, exact_server: bool, instance: Option<Uuid>| Expected {
        method: kind.method,
        path_parts,
        exact_server,
        instance,
    };
    Some(match kind.path {
        PathShape::Server => {
            let i = instance?;
            expected(vec![format!("/servers/{i}")], true, Some(i))
        }
        PathShape::ServerAction => {
            let i = instance?;
            expected(vec![format!("/servers/{i}/action")], false, Some(i))
        }
        PathShape::ServersOnHost => {
            let host = message.strip_prefix(kind.prefix)?.trim();
            expected(
                vec!["/servers/detail".into(), format!("host={host}")],
                false,
                None,
            )
        }
        PathShape::Services => expected(vec!["/os-services".into()], false, None),
        PathShape::Aggregates => expected(vec!["/os-aggregates".into()], false, None),
        PathShape::AggregateAction => expected(
            vec!["/os-aggregates/".into(), "/action".into()],
            false,
            None,
        ),
    })
}

fn matches(expected: &Expected, request: &Event) -> bool {
    let Some(http) = request.http() else {
        return false;
    };
    if http.method != expected.method
        || !expected
            .path_parts
            .iter()
            .all(|p| http.path.contains(p.as_str()))
    {
        return false;
    }
    match expected.path_parts.first() {
        Some(suffix) if expected.exact_server => {
            let path = http.path.split('?').next().unwrap_or("");
            path.ends_with(suffix.as_str())
        }
        _ => true,
    }
}

impl Expected {
    /// What the Masakari `call` makes, `None` for a line that is no Nova call: worked
    /// out once per call by callers that test it against many requests.
    pub(crate) fn of(call: &Event) -> Option<Expected> {
        expected_request(&call.message(), call.instances.first().copied())
    }

    /// Whether `request` is the kind of request the call makes (as [`makes`]).
    pub(crate) fn made_by(&self, request: &Event) -> bool {
        matches(self, request)
    }

    /// The key of [`RequestIndex`] under which every request this call may make is
    /// filed (a superset: [`matches`] still decides). An instance call's request names
    /// the instance right after `/servers/`; any other is filed under its first
    /// literal part.
    fn index_key(&self) -> String {
        match (self.instance, self.path_parts.first()) {
            (Some(i), _) => format!("{} {i}", self.method),
            (None, Some(part)) => format!("{} {part}", self.method),
            (None, None) => self.method.to_string(),
        }
    }

    /// As [`call_key`].
    pub(crate) fn key(&self) -> String {
        format!("{} {}", self.method, self.path_parts.join(" "))
    }
}

/// Whether the message of a `masakari.compute.nova` line is a Nova call [`call_key`]
/// knows (without building what it makes): a call kind, naming its instance when the
/// path needs one.
pub(crate) fn is_call_line(call: &Event) -> bool {
    CallKind::of(&call.message()).is_some_and(|kind| {
        !matches!(kind.path, PathShape::Server | PathShape::ServerAction)
            || !call.instances.is_empty()
    })
}

/// Whether `request` is the kind of request the Masakari `call` makes (method, path,
/// instance), whatever their times and ids.
pub fn makes(call: &Event, request: &Event) -> bool {
    expected_request(&call.message(), call.instances.first().copied())
        .is_some_and(|expected| matches(&expected, request))
}

/// What a Masakari call makes (`POST /servers/<id>/action`), or `None` for a line that
/// is no Nova call.
pub fn call_key(call: &Event) -> Option<String> {
    Expected::of(call).map(|e| e.key())
}

/// The time of a request counted from the middle of its second when it has one-second
/// precision.
pub fn request_midpoint(event: &Event) -> i64 {
    if event.second_precision {
        event.time + 500_000_000
    } else {
        event.time
    }
}

/// A candidate and its log: 1 for an access line (one-second stamps), 0 for a
/// request-log line (see `Finder::candidates`).
pub type Paired = (Candidate, u32);

/// A Masakari call and a Nova request that could be its pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The call event.
    pub call: EventId,
    /// The request event.
    pub request: EventId,
    /// Request time minus call time in nanoseconds (midpoint for one-second stamps).
    pub delay: i64,
}

/// Masakari's calls by what they make, and Nova's requests filed for them: the
/// candidates of one kind of call are made when that kind is paired, not all at once
/// (1.24 M candidates, 30 MB, at 10 GiB).
struct Finder<'a> {
    events: &'a [Event],
    /// Nova's requests (event positions), in time order.
    requests: Vec<EventId>,
    index: RequestIndex,
    /// `(kind, call)`: each call that makes a request of a filed kind, numbered by
    /// what it makes (`POST /servers/<id>/action`); sorted, so one kind's calls are
    /// together in time order.
    calls: Vec<(u32, EventId)>,
}

impl<'a> Finder<'a> {
    fn new(events: &'a [Event], project_of: impl Fn(&Event) -> Project) -> Finder<'a> {
        let requests: Vec<EventId> = events
            .iter()
            .enumerate()
            .filter(|(_, e)| {
                e.kind == EventKind::Request && e.http().is_some() && project_of(e) == Project::Nova
            })
            .map(|(i, _)| EventId::at(i))
            .collect();
        let index = RequestIndex::new(events, &requests);
        // What each call makes, numbered as first met.
        let mut kinds: std::collections::HashMap<String, u32> = Default::default();
        let mut calls = Vec::new();
        for (position, call) in events.iter().enumerate() {
            let Some(expected) = Finder::expected(call) else {
                continue;
            };
            if !index.by_key.contains_key(expected.index_key().as_str()) {
                continue;
            }
            let next = kinds.len() as u32;
            let kind = *kinds.entry(expected.key()).or_insert(next);
            calls.push((kind, EventId::at(position)));
        }
        calls.sort_unstable();
        Finder {
            events,
            requests,
            index,
            calls,
        }
    }

    /// What a `masakari.compute.nova` line makes; `None` for any other line.
    fn expected(call: &Event) -> Option<Expected> {
        if call.logger() != Some("masakari.compute.nova") {
            return None;
        }
        expected_request(&call.message(), call.instances.first().copied())
    }

    /// The calls, one slice per kind.
    fn kinds(&self) -> impl Iterator<Item = &[(u32, EventId)]> + '_ {
        self.calls.chunk_by(|a, b| a.0 == b.0)
    }

    /// Every (call, request) pair of `calls` whose request is what the call makes,
    /// logged between `before` nanoseconds before the call and `after` nanoseconds
    /// after it, with its log (see [`Paired`]): candidates of one kind and one log
    /// compete for the same requests.
    ///
    /// On a host whose offset was measured and not corrected, the window is moved by the
    /// offset's interval and the delay counted from its middle (`slack`).
    fn candidates(
        &self,
        calls: &[(u32, EventId)],
        (before, after): (i64, i64),
        slack: &ClockSlack,
    ) -> Vec<Paired> {
        let mut out = Vec::new();
        for &(_, position) in calls {
            let call = &self.events[position.index()];
            let Some(expected) = Finder::expected(call) else {
                continue;
            };
            let Some(filed) = self.index.by_key.get(expected.index_key().as_str()) else {
                continue;
            };
            let (low, high) = slack.widest(call.host);
            let window = self
                .index
                .times
                .window(call.time - before + low, call.time + after + high);
            for &k in crate::correlate::window::within(filed, window) {
                let r = self.requests[k as usize];
                let request = &self.events[r.index()];
                if let (Some(g), Some(rg)) = (call.global_request_id, request.global_request_id)
                    && g != rg
                {
                    continue;
                }
                let (lo, hi) = slack.between(call.host, request.host);
                let delay = request.time - call.time;
                if delay < lo - before || delay > hi + after {
                    continue;
                }
                if matches(&expected, request) {
                    let candidate = Candidate {
                        call: position,
                        request: r,
                        delay: request_midpoint(request) - call.time - (lo + (hi - lo) / 2),
                    };
                    out.push((candidate, u32::from(request.second_precision)));
                }
            }
        }
        out
    }
}

/// Nova's requests filed by what a call could have made: method and the server id
/// after each `/servers/`, or method and each [`LITERAL_PARTS`] the path contains; so
/// a call looks only at the requests of its kind instead of every request around it.
struct RequestIndex {
    /// The requests' times, in their order.
    times: crate::correlate::window::Times,
    /// Index key → ascending positions in the request list.
    by_key: std::collections::HashMap<String, Vec<u32>>,
}

impl RequestIndex {
    fn new(events: &[Event], requests: &[EventId]) -> RequestIndex {
        let mut by_key: std::collections::HashMap<String, Vec<u32>> = Default::default();
        for (k, &r) in requests.iter().enumerate() {
            let Some(http) = events[r.index()].http() else {
                continue;
            };
            for key in request_keys(&http.method, &http.path) {
                by_key.entry(key).or_default().push(k as u32);
            }
        }
        let times = requests.iter().map(|&r| events[r.index()].time).collect();
        RequestIndex {
            times: crate::correlate::window::Times::new(times),
            by_key,
        }
    }
}

/// Every [`Expected::index_key`] a request with this method and path is filed under.
fn request_keys(method: &str, path: &str) -> Vec<String> {
    let mut keys: Vec<String> = LITERAL_PARTS
        .iter()
        .filter(|l| path.contains(**l))
        .map(|l| format!("{method} {l}"))
        .collect();
    for (at, tag) in path.match_indices("/servers/") {
        let rest = &path[at + tag.len()..];
        let id = rest.split(['/', '?']).next().unwrap_or("");
        if !id.is_empty() {
            keys.push(format!("{method} {id}"));
        }
    }
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// Joins Masakari calls with Nova requests. `project_of(event)` tells which project's
/// log an event comes from; `slack` the offsets measured and not corrected. Events must
/// be in time order.
///
/// Calls and requests of one kind (say every `POST /servers/<id>/action` of one
/// instance) are paired in order, the way they happened, choosing the pairing with the
/// most pairs and, among those, the smallest delays; so two requests stamped in the
/// same second go to the two calls in the order they were made. Access lines and
/// request-log lines are paired separately, since a request often appears in both.
pub fn join_calls(
    events: &[Event],
    project_of: impl Fn(&Event) -> Project,
    slack: &ClockSlack,
) -> Vec<Join> {
    use rayon::prelude::*;
    let finder = Finder::new(events, project_of);
    // Kinds of call are paired independently, side by side; each holds only its own
    // candidates (a few hundred at most), so two at a time cost no memory to speak of.
    let kinds: Vec<&[(u32, EventId)]> = finder.kinds().collect();
    let per_kind: Vec<(Vec<Join>, usize)> = kinds
        .par_iter()
        .map(|calls| {
            let mut kind = finder.candidates(calls, (BEFORE_NS, AFTER_NS), slack);
            kind.sort_unstable_by_key(|(c, log)| (*log, c.call, c.request));
            let mut joins = Vec::new();
            for group in kind.chunk_by(|a, b| a.1 == b.1) {
                let instance =
                    Expected::of(&events[group[0].0.call.index()]).and_then(|e| e.instance);
                joins.extend(pair_in_order(group, instance));
            }
            (joins, kind.len())
        })
        .collect();
    let candidates: usize = per_kind.iter().map(|(_, n)| n).sum();
    let largest = per_kind.iter().map(|(_, n)| *n).max().unwrap_or(0);
    let mut joins: Vec<Join> = per_kind.into_iter().flat_map(|(j, _)| j).collect();
    tracing::debug!(
        candidates,
        largest_kind = largest,
        rss_mb = crate::memory::rss_mb(),
        peak_rss_mb = crate::memory::peak_rss_mb(),
        "join candidates"
    );
    // A request-log line and an access line may be claimed by different calls of one
    // kind; that is fine. A request may not be claimed twice within its log, which
    // `pair_in_order` guarantees.
    joins.sort_by_key(|j| (j.call, j.request));
    joins
}

#[cfg(test)]
mod tests;
