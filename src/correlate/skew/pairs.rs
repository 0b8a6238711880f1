//! Causal pairs: a client line, the server lines it caused, and the bound they put on
//! the server's clock offset.
//!
//! The server logs a request after the client logged the call and before the client
//! logs its next line of that call (the call is synchronous). With `c` and `n` the
//! client's two times and `s` a server time, the server's clock is ahead of the
//! client's by an offset `d` with `s - n <= d <= s - c` (`s + 1 s` for a stamp cut to
//! the second). A pair is only made where the two lines are known to be one request:
//! the same global request id, the `Request-ID` Nova returned and Masakari logged, a
//! join with a single candidate, or one request id on two Nova hosts.

use std::collections::{HashMap, HashSet};

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::correlate::groups::GroupIndex;
use crate::correlate::joins::{Expected, is_call_line};
use crate::correlate::skew::interval::{Interval, consensus};
use crate::correlate::window::{Times, within};
use crate::model::inventory::FileInfo;
use crate::model::{Event, EventId, HostId, Project, Uuid};

/// How a pair was recognised, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PairKind {
    /// Masakari logged the `Request-ID` Nova returned for the call.
    ReturnedRequestId,
    /// The Nova request carries the global request id of the Masakari call.
    GlobalRequestId,
    /// The only request the call could have made, and the only call for that request.
    Join,
    /// One Nova request id on nova-api and on a conductor or compute host (the API
    /// request starts before the work it casts; no upper bound).
    NovaRequest,
}

impl PairKind {
    /// A short reading for reports.
    pub fn as_str(self) -> &'static str {
        match self {
            PairKind::ReturnedRequestId => "returned Request-ID",
            PairKind::GlobalRequestId => "global request id",
            PairKind::Join => "single-candidate join",
            PairKind::NovaRequest => "nova request id",
        }
    }
}

/// What ties the two sides of a pair together: ids both sides log, or time alone. Two
/// pairs tied by ids that agree closely pin an offset; pairs tied by time need more
/// (see [`crate::correlate::skew::MIN_PAIRS`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tie {
    /// A request id, a global request id, or the instance a call names and the request's
    /// path names with the call's kind.
    Ids,
    /// Only the call's kind and a time window (a call that names no instance).
    Time,
}

impl Tie {
    /// How a pair of `kind` about a call naming an instance (or not) is tied.
    pub fn of(kind: PairKind, names_instance: bool) -> Tie {
        match kind {
            PairKind::Join if !names_instance => Tie::Time,
            _ => Tie::Ids,
        }
    }
}

/// One causal pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The host that served (its clock is bounded).
    pub server: HostId,
    /// The host that called.
    pub client: HostId,
    /// How it was recognised.
    pub kind: PairKind,
    /// What ties its two sides.
    pub tie: Tie,
    /// The client line that anchors the pair (the call, or nova-api's request line).
    pub anchor: EventId,
    /// The anchor's time when the pair was made (its host's clock).
    pub anchor_time: i64,
    /// When the client started the call (client clock, ns).
    pub start: i64,
    /// When the client had the answer (client clock, ns), if known.
    pub end: Option<i64>,
    /// The server line of the request whose true time is known to come first (least
    /// time plus [`precision`]) and the one logged last: the lines the bounds come
    /// from, all a check of the correction needs (a list of every line, a heap
    /// allocation per pair, cost 12 MB at 10 GiB).
    pub first_line: EventId,
    /// See `first_line`.
    pub last_line: EventId,
    /// Lowest server-minus-client offset the pair allows (ns); `None`: unbounded.
    pub lo: Option<i64>,
    /// Highest offset the pair allows (ns); `None`: unbounded.
    pub hi: Option<i64>,
}

/// How far a call and its request may be apart when they are joined by kind alone:
/// the largest offset measured this way (ten minutes) and latency.
const SEARCH_NS: i64 = 11 * 60 * 1_000_000_000;
/// How far back from a line with a `Request-ID` its call may be (novaclient's and
/// keystoneauth's time-outs are shorter).
const CALL_BACK_NS: i64 = 5 * 60 * 1_000_000_000;
const SECOND_NS: i64 = 1_000_000_000;

/// The true time of a server line lies in `[time, time + precision]`.
pub fn precision(event: &Event) -> i64 {
    if event.second_precision {
        SECOND_NS - 1
    } else {
        0
    }
}

mod context;
use context::*;

/// Every causal pair of the events (in time order, before any skew correction). Two
/// pairs about one call and one server host are merged: the stronger kind's bounds, or
/// the intersection of two of one kind.
pub fn causal_pairs(events: &[Event], files: &[FileInfo]) -> Vec<Pair> {
    let ctx = Ctx::new(events, files);
    step("context", 0);
    // The request-id families, then the joins they anchor, beside the Nova requests
    // (independent of the others): on two cores the serial part of a 10 GiB analysis
    // shrinks by a quarter. Each family's pairs are appended in the order the serial
    // version made them, so that `merge` sees the same list.
    let (mut pairs, nova) = rayon::join(
        || {
            let (mut pairs, global) = rayon::join(
                || {
                    let mut out = Vec::new();
                    returned_request_ids(&ctx, &mut out);
                    step("returned request ids", out.len());
                    out
                },
                || {
                    let mut out = Vec::new();
                    global_request_ids(&ctx, &mut out);
                    step("global request ids", out.len());
                    out
                },
            );
            pairs.extend(global);
            let proven = pairs.len();
            anchored_joins(&ctx, &mut pairs);
            let covered: HashSet<(EventId, HostId)> = pairs[proven..]
                .iter()
                .map(|p| (p.anchor, p.server))
                .collect();
            step("anchored joins", pairs.len());
            single_candidate_joins(&ctx, &covered, &mut pairs);
            step("single candidates", pairs.len());
            pairs
        },
        || {
            let mut out = Vec::new();
            nova_requests(&ctx, &mut out);
            step("nova requests", out.len());
            out
        },
    );
    pairs.extend(nova);
    merge(events, pairs)
}

/// Logs the memory after a family of pairs (debug level): the pairs' indexes are the
/// largest transient structure of the analysis.
fn step(what: &str, pairs: usize) {
    tracing::debug!(
        pairs,
        rss_mb = crate::memory::rss_mb(),
        peak_rss_mb = crate::memory::peak_rss_mb(),
        "skew pairs: {what}"
    );
}

/// Masakari lines that name the `Request-ID` of Nova's answer.
fn returned_request_ids(ctx: &Ctx<'_>, out: &mut Vec<Pair>) {
    for (pos, e) in ctx.events.iter().enumerate() {
        if ctx.project(e) != Project::Masakari {
            continue;
        }
        for r in returned_ids(&e.message()) {
            let Some(lines) = ctx.nova_by_request.get(&r) else {
                continue;
            };
            let mut hosts: Vec<HostId> = lines
                .iter()
                .map(|&p| &ctx.events[p.index()])
                .filter(|l| l.host != e.host && ctx.is_api(l))
                .map(|l| l.host)
                .collect();
            hosts.sort_unstable();
            hosts.dedup();
            for host in hosts {
                let api = ctx.api_lines(r, host);
                let Some(call) = call_of(ctx, pos, &api) else {
                    continue;
                };
                let end = match ctx.next_time(call) {
                    Some(n) => n.min(e.time),
                    None => e.time,
                };
                out.extend(ctx.pair(PairKind::ReturnedRequestId, call, Some(end), api));
            }
        }
    }
}

/// The call that made the Nova request of `lines`, answered by the Masakari line at
/// `answer`: the latest call before it of that kind (or about an instance the request
/// names), in the same global request.
fn call_of(ctx: &Ctx<'_>, answer: usize, lines: &[usize]) -> Option<usize> {
    let e = &ctx.events[answer];
    let calls = ctx.calls_by_host.get(&e.host)?;
    let http: Vec<&Event> = lines
        .iter()
        .map(|&p| &ctx.events[p])
        .filter(|l| l.http().is_some())
        .collect();
    let named: HashSet<Uuid> = lines
        .iter()
        .flat_map(|&p| ctx.events[p].instances.iter().copied())
        .collect();
    let end = calls.partition_point(|&p| p < answer);
    calls[..end]
        .iter()
        .rev()
        .take_while(|&&p| ctx.events[p].time >= e.time - CALL_BACK_NS)
        .copied()
        .find(|&p| {
            let call = &ctx.events[p];
            let same_request = match (call.global_request_id, e.global_request_id) {
                (Some(a), Some(b)) => a == b,
                _ => true,
            };
            same_request
                && if http.is_empty() {
                    call.instances.iter().any(|i| named.contains(i))
                } else {
                    call_expected(call).is_some_and(|x| http.iter().any(|h| x.made_by(h)))
                }
        })
}

/// Nova requests carrying the global request id of Masakari's calls: in one global
/// request, the calls of one kind and the requests they make are paired in order when
/// there are as many of each.
fn global_request_ids(ctx: &Ctx<'_>, out: &mut Vec<Pair>) {
    // Nova request lines (with a method and path) by global id and the instance their
    // path names: polls of a hundred instances stay a hundred small groups.
    let mut requests: HashMap<(Uuid, Option<Uuid>), Vec<usize>> = HashMap::new();
    for (pos, e) in ctx.events.iter().enumerate() {
        if let (Some(g), Some(_), Some(_)) = (e.global_request_id, e.request_id, e.http())
            && ctx.is_api(e)
            && Some(g) != e.request_id
        {
            let key = (g, e.instances.first().copied());
            requests.entry(key).or_default().push(pos);
        }
    }
    // Masakari's calls of one kind in one global request, in time order.
    // What each call makes is read from its text: the calls side by side, then grouped
    // in their order.
    let mut calls: HashMap<(Uuid, String, HostId), Vec<usize>> = HashMap::new();
    for list in ctx.calls_by_host.values() {
        let keyed: Vec<(Uuid, String, usize)> = list
            .par_iter()
            .filter_map(|&pos| {
                let call = &ctx.events[pos];
                let g = call.global_request_id?;
                Some((g, call_expected(call)?.key(), pos))
            })
            .collect();
        for (g, key, pos) in keyed {
            let host = ctx.events[pos].host;
            calls.entry((g, key, host)).or_default().push(pos);
        }
    }
    for ((g, _, client), calls) in calls {
        let first = &ctx.events[calls[0]];
        let Some(candidates) = requests.get(&(g, first.instances.first().copied())) else {
            continue;
        };
        let Some(expected) = call_expected(first) else {
            continue;
        };
        let mut by_server: HashMap<HostId, Vec<usize>> = HashMap::new();
        for &r in candidates {
            let request = &ctx.events[r];
            if request.host != client && expected.made_by(request) {
                by_server.entry(request.host).or_default().push(r);
            }
        }
        for (server, requests) in by_server {
            // As many requests as calls: each call made the one in its place.
            if requests.len() != calls.len() {
                continue;
            }
            for (&call, request) in calls.iter().zip(requests) {
                let Some(r) = ctx.events[request].request_id else {
                    continue;
                };
                let lines = ctx.api_lines(r, server);
                out.extend(ctx.pair(PairKind::GlobalRequestId, call, ctx.next_time(call), lines));
            }
        }
    }
}

/// How wide the interval of the id-joined pairs of two hosts may be for it to narrow
/// the search of their other calls.
const ANCHOR_WIDTH_NS: i64 = 30 * SECOND_NS;
/// How long after a call its request may come when the client logs no next line.
const LATENCY_NS: i64 = 15 * SECOND_NS;

/// Joins narrowed by the pairs that ids prove: where Masakari's lines and Nova's share
/// no global request id (before Zed), a `Request-ID` pair bounds the offset of the two
/// hosts; a call with a single request of its kind in the window that bound allows
/// (that request having no other such call) is their pair too.
///
/// The pairs `out` holds are the proven ones; the joins are added to them (not made in
/// a list of their own and appended: both lists were held at once, 19 MB at 10 GiB).
fn anchored_joins(ctx: &Ctx<'_>, out: &mut Vec<Pair>) {
    let mut bounds: HashMap<(HostId, HostId), Vec<Interval>> = HashMap::new();
    for p in out.iter() {
        bounds
            .entry((p.client, p.server))
            .or_default()
            .push(Interval { lo: p.lo, hi: p.hi });
    }
    // How many candidates each call has in each log (access or request log), and each
    // request: counters by event position (only "one" matters, so they saturate),
    // reset after each host pair; hash maps of a million candidates cost ten times more.
    let mut per_call: Vec<[u8; 2]> = vec![[0; 2]; ctx.events.len()];
    let mut per_request: Vec<u8> = vec![0; ctx.events.len()];
    for ((client, server), intervals) in bounds {
        let Some((_, members)) = consensus(&intervals) else {
            continue;
        };
        let agreed = members
            .iter()
            .fold(Interval::ALL, |acc, &m| acc.intersect(intervals[m]));
        let (Some(lo), Some(hi)) = (agreed.lo, agreed.hi) else {
            continue;
        };
        if hi < lo || hi - lo > ANCHOR_WIDTH_NS {
            continue;
        }
        let (Some(calls), true) = (
            ctx.calls_by_host.get(&client),
            ctx.requests_by_host.contains_key(&server),
        ) else {
            continue;
        };
        // (call, request) pairs the bound allows, as event positions (u32: a million
        // of them at 10 GiB; the call's next time is worked out again for the few
        // that are kept).
        // The calls are searched side by side, collected in their order.
        let mut found: Vec<(EventId, EventId)> = calls
            .par_iter()
            .flat_map_iter(|&call| {
                let c = &ctx.events[call];
                let next = ctx.next_time(call);
                let (from, to) = (
                    c.time + lo - SECOND_NS,
                    next.unwrap_or(c.time + LATENCY_NS) + hi,
                );
                let window = ctx.window_requests(server, c, from, to);
                let expected = window.first().and_then(|_| call_expected(c));
                window.into_iter().filter_map(move |r| {
                    let expected = expected.as_ref()?;
                    let e = &ctx.events[r];
                    let same_request = match (c.global_request_id, e.global_request_id) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    };
                    (same_request && e.time + precision(e) >= c.time + lo && expected.made_by(e))
                        .then_some((EventId::at(call), EventId::at(r)))
                })
            })
            .collect();
        for &(call, r) in &found {
            let (call, r) = (call.index(), r.index());
            let log = usize::from(ctx.events[r].second_precision);
            per_call[call][log] = per_call[call][log].saturating_add(1);
            per_request[r] = per_request[r].saturating_add(1);
        }
        // Only the single ones are kept, in place.
        found.retain(|&(call, r)| {
            let (call, r) = (call.index(), r.index());
            let log = usize::from(ctx.events[r].second_precision);
            per_call[call][log] == 1 && per_request[r] == 1
        });
        per_call.fill([0; 2]);
        per_request.fill(0);
        for (call, r) in found {
            let (call, r) = (call.index(), r.index());
            let e = &ctx.events[r];
            let next = ctx.next_time(call);
            let lines = match e.request_id {
                Some(id) => ctx.api_lines(id, server),
                None => vec![r],
            };
            if next.is_some() {
                out.extend(ctx.pair(PairKind::Join, call, next, lines));
            }
        }
    }
}

/// Calls with a single candidate request of one log (access or request log) within
/// the search window, that request having no other candidate call. A call whose kind
/// (`POST /servers/<id>/action`) Masakari makes again within twice the window is
/// ambiguous from the start, and not searched.
fn single_candidate_joins(
    ctx: &Ctx<'_>,
    covered: &HashSet<(EventId, HostId)>,
    out: &mut Vec<Pair>,
) {
    let mut found: Vec<(usize, usize)> = Vec::new();
    for calls in ctx.calls_by_host.values() {
        // What each call makes, numbered (a string a call cost 13 MB at 10 GiB).
        let mut numbers: HashMap<String, u32> = HashMap::new();
        let keys: Vec<Option<u32>> = calls
            .iter()
            .map(|&p| {
                let key = call_expected(&ctx.events[p])?.key();
                let next = numbers.len() as u32;
                Some(*numbers.entry(key).or_insert(next))
            })
            .collect();
        drop(numbers);
        let mut times: HashMap<u32, Vec<i64>> = HashMap::new();
        for (&p, key) in calls.iter().zip(&keys) {
            if let Some(key) = key {
                times.entry(*key).or_default().push(ctx.events[p].time);
            }
        }
        for (&pos, key) in calls.iter().zip(&keys) {
            let c = &ctx.events[pos];
            let Some(same) = key.and_then(|k| times.get(&k)) else {
                continue;
            };
            let (from, to) = (c.time - SEARCH_NS, c.time + SEARCH_NS);
            // A request in this call's window may be another call's of its kind whose
            // own window reaches it: one up to twice the search away (an evacuate
            // accepted 12 min late, found beside the unlock 13 min after it).
            let (near, far) = (c.time - 2 * SEARCH_NS, c.time + 2 * SEARCH_NS);
            if same.partition_point(|&t| t <= far) - same.partition_point(|&t| t < near) > 1 {
                continue;
            }
            let Some(expected) = call_expected(c) else {
                continue;
            };
            for &server in ctx.requests_by_host.keys() {
                if server == c.host {
                    continue;
                }
                for r in ctx.window_requests(server, c, from, to) {
                    let e = &ctx.events[r];
                    let same_request = match (c.global_request_id, e.global_request_id) {
                        (Some(a), Some(b)) => a == b,
                        _ => true,
                    };
                    if same_request && expected.made_by(e) {
                        found.push((pos, r));
                    }
                }
            }
        }
    }
    let mut per_call: HashMap<(usize, bool), usize> = HashMap::new();
    let mut per_request: HashMap<usize, usize> = HashMap::new();
    for &(call, r) in &found {
        let kind = ctx.events[r].second_precision;
        *per_call.entry((call, kind)).or_default() += 1;
        *per_request.entry(r).or_default() += 1;
    }
    for (call, r) in found {
        let request = &ctx.events[r];
        if per_call[&(call, request.second_precision)] != 1
            || per_request[&r] != 1
            || covered.contains(&(EventId::at(call), request.host))
        {
            continue;
        }
        let lines = match request.request_id {
            Some(id) => ctx.api_lines(id, request.host),
            None => vec![r],
        };
        // Without the client's next line a join bounds one side only, and a wrong one
        // would pass for a clock far behind: not used.
        if let Some(next) = ctx.next_time(call) {
            out.extend(ctx.pair(PairKind::Join, call, Some(next), lines));
        }
    }
}

/// One request id on nova-api and on other Nova hosts: the work nova-api casts is
/// logged after the API request started (its line's time minus the duration it states).
fn nova_requests(ctx: &Ctx<'_>, out: &mut Vec<Pair>) {
    for (_, lines) in ctx.nova_by_request.groups() {
        let Some((anchor, start)) = lines.iter().map(|&p| p.index()).find_map(|p| {
            let e = &ctx.events[p];
            (e.http().is_some() && ctx.is_api(e))
                .then(|| stated_duration(e).map(|d| (p, e.time - d)))
                .flatten()
        }) else {
            continue;
        };
        let api_host = ctx.events[anchor].host;
        let mut by_host: HashMap<HostId, Vec<usize>> = HashMap::new();
        for p in lines.iter().map(|&p| p.index()) {
            let e = &ctx.events[p];
            if e.host != api_host && !ctx.is_api(e) {
                by_host.entry(e.host).or_default().push(p);
            }
        }
        for (server, backend) in by_host {
            let hi = backend.iter().map(|&p| ctx.events[p].time - start).min();
            let Some((first_line, last_line)) = span(ctx.events, backend.iter().copied()) else {
                continue;
            };
            out.push(Pair {
                server,
                client: api_host,
                kind: PairKind::NovaRequest,
                tie: Tie::Ids,
                anchor: EventId::at(anchor),
                anchor_time: ctx.events[anchor].time,
                start,
                end: None,
                first_line,
                last_line,
                lo: None,
                hi,
            });
        }
    }
}

/// The first and the last of server `lines` (see [`Pair::first_line`]); `None` for none.
fn span(events: &[Event], lines: impl Iterator<Item = usize>) -> Option<(EventId, EventId)> {
    let mut span: Option<(usize, usize)> = None;
    for p in lines {
        let (first, last) = span.get_or_insert((p, p));
        *first = earlier(events, *first, p);
        *last = later(events, *last, p);
    }
    span.map(|(first, last)| (EventId::at(first), EventId::at(last)))
}

/// Of two server lines, the one whose true time surely comes first.
fn earlier(events: &[Event], a: usize, b: usize) -> usize {
    let at = |p: usize| events[p].time + precision(&events[p]);
    if at(b) < at(a) { b } else { a }
}

/// Of two server lines, the one logged last.
fn later(events: &[Event], a: usize, b: usize) -> usize {
    if events[b].time > events[a].time {
        b
    } else {
        a
    }
}

fn merge(events: &[Event], mut pairs: Vec<Pair>) -> Vec<Pair> {
    // In place: ordered by call and kind, each call's pairs of its best kind are folded
    // into the first (no map beside the list: 380 k pairs at 10 GiB).
    pairs.sort_unstable_by_key(|p| (p.client, p.server, p.anchor, p.kind));
    pairs.dedup_by(|p, kept| {
        if (kept.client, kept.server, kept.anchor) != (p.client, p.server, p.anchor) {
            return false;
        }
        if p.kind == kept.kind {
            kept.lo = max_opt(kept.lo, p.lo);
            kept.hi = min_opt(kept.hi, p.hi);
            kept.end = min_opt(kept.end, p.end);
            let (first, last) = (kept.first_line.index(), kept.last_line.index());
            kept.first_line = EventId::at(earlier(events, first, p.first_line.index()));
            kept.last_line = EventId::at(later(events, last, p.last_line.index()));
        }
        true
    });
    pairs.shrink_to_fit();
    pairs
}

fn max_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.max(b)),
        (a, b) => a.or(b),
    }
}

fn min_opt(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

#[cfg(test)]
mod tests;
