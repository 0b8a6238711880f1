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

use serde::{Deserialize, Serialize};

use crate::correlate::analysis::FileInfo;
use crate::correlate::groups::GroupIndex;
use crate::correlate::joins::{Expected, is_call_line};
use crate::correlate::skew::interval::{Interval, consensus};
use crate::correlate::window::{Times, within};
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

/// One causal pair.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair {
    /// The host that served (its clock is bounded).
    pub server: HostId,
    /// The host that called.
    pub client: HostId,
    /// How it was recognised.
    pub kind: PairKind,
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

struct Ctx<'a> {
    events: &'a [Event],
    /// Each file's project, and whether it is a nova-api log.
    kinds: Vec<(Project, bool)>,
    /// Masakari lines by (host, local request id).
    by_request: GroupIndex<(HostId, Uuid)>,
    /// Masakari lines by (host, instance named).
    by_instance: GroupIndex<(HostId, Uuid)>,
    /// Local request ids that Masakari lines about more than one instance share: they
    /// do not follow one green thread.
    shared: HashSet<(HostId, Uuid)>,
    /// Nova lines by local request id.
    nova_by_request: GroupIndex<Uuid>,
    /// Masakari's Nova calls, by host, in time order. What a call makes is worked out
    /// where it is needed ([`call_expected`]), not kept: a map of it cost 25 MB at
    /// 10 GiB (145 k calls, two strings each), at the skew stage's peak.
    calls_by_host: HashMap<HostId, Vec<usize>>,
    /// nova-api's request lines (access and request log), by host, in time order.
    requests_by_host: HashMap<HostId, Vec<usize>>,
    /// The times of each host's request lines, for windows over them.
    request_times: HashMap<HostId, Times>,
    /// Positions in `requests_by_host[host]` of the request lines naming an instance.
    requests_by_instance: HashMap<(HostId, Uuid), Vec<u32>>,
}

impl<'a> Ctx<'a> {
    fn new(events: &'a [Event], files: &'a [FileInfo]) -> Ctx<'a> {
        let kinds = files
            .iter()
            .map(|f| {
                let name = f.service.name();
                let project = f.service.project();
                // nova-api under its package, Kolla, helm and devstack unit names.
                let api = project == Project::Nova
                    && ["nova-api", "nova_api", "osapi", "n-api"]
                        .iter()
                        .any(|n| name.contains(n));
                (project, api)
            })
            .collect();
        let mut ctx = Ctx {
            events,
            kinds,
            by_request: GroupIndex::default(),
            by_instance: GroupIndex::default(),
            shared: HashSet::new(),
            nova_by_request: GroupIndex::default(),
            calls_by_host: HashMap::new(),
            requests_by_host: HashMap::new(),
            request_times: HashMap::new(),
            requests_by_instance: HashMap::new(),
        };
        // The instance each (host, request id) is about, `None` once it is about two.
        let mut instances_of: HashMap<(HostId, Uuid), Option<Uuid>> = HashMap::new();
        for (i, e) in events.iter().enumerate() {
            match ctx.project(e) {
                Project::Masakari => {
                    if let Some(r) = e.request_id {
                        for &u in &e.instances {
                            instances_of
                                .entry((e.host, r))
                                .and_modify(|one| {
                                    if *one != Some(u) {
                                        *one = None;
                                    }
                                })
                                .or_insert(Some(u));
                        }
                    }
                    if is_call(e) {
                        ctx.calls_by_host.entry(e.host).or_default().push(i);
                    }
                }
                Project::Nova if e.http().is_some() && ctx.is_api(e) => {
                    let list = ctx.requests_by_host.entry(e.host).or_default();
                    let k = list.len() as u32;
                    list.push(i);
                    for (n, &u) in e.instances.iter().enumerate() {
                        if e.instances[..n].contains(&u) {
                            continue;
                        }
                        ctx.requests_by_instance
                            .entry((e.host, u))
                            .or_default()
                            .push(k);
                    }
                }
                _ => {}
            }
        }
        // The lines of one project, with their positions.
        let of = |project: Project| {
            let kinds = &ctx.kinds;
            move || {
                events.iter().enumerate().filter(move |(_, e)| {
                    kinds.get(e.file as usize).map_or(Project::Other, |k| k.0) == project
                })
            }
        };
        let masakari = of(Project::Masakari);
        let nova = of(Project::Nova);
        // Three passes over every event, independent: two at a time.
        let (by_request, (by_instance, nova_by_request)) = rayon::join(
            || {
                GroupIndex::collect(|| {
                    masakari().filter_map(|(i, e)| e.request_id.map(|r| ((e.host, r), i as u32)))
                })
            },
            || {
                rayon::join(
                    || {
                        GroupIndex::collect(|| {
                            masakari().flat_map(|(i, e)| {
                                e.instances.iter().map(move |&u| ((e.host, u), i as u32))
                            })
                        })
                    },
                    || {
                        GroupIndex::collect(|| {
                            nova().filter_map(|(i, e)| e.request_id.map(|r| (r, i as u32)))
                        })
                    },
                )
            },
        );
        ctx.by_request = by_request;
        ctx.by_instance = by_instance;
        ctx.nova_by_request = nova_by_request;
        ctx.request_times = ctx
            .requests_by_host
            .iter()
            .map(|(&h, list)| {
                (
                    h,
                    Times::new(list.iter().map(|&p| events[p].time).collect()),
                )
            })
            .collect();
        ctx.shared = instances_of
            .into_iter()
            .filter(|(_, one)| one.is_none())
            .map(|(k, _)| k)
            .collect();
        ctx
    }

    fn project(&self, e: &Event) -> Project {
        self.kinds
            .get(e.file as usize)
            .map_or(Project::Other, |k| k.0)
    }

    /// The request lines of `server` a scan from the first not before `from` to the
    /// first after `to` visits that may be what `call` made (they name its instance,
    /// when it names one: [`may_make`]), in order.
    fn window_requests(&self, server: HostId, call: &Event, from: i64, to: i64) -> Vec<usize> {
        let (Some(requests), Some(times)) = (
            self.requests_by_host.get(&server),
            self.request_times.get(&server),
        ) else {
            return Vec::new();
        };
        let window = times.window(from, to);
        match call.instances.first() {
            Some(&i) => self
                .requests_by_instance
                .get(&(server, i))
                .map(|named| {
                    within(named, window)
                        .iter()
                        .map(|&k| requests[k as usize])
                        .collect()
                })
                .unwrap_or_default(),
            None => requests[window.0..window.1.max(window.0)].to_vec(),
        }
    }

    /// A line of the nova-api service (its log, access log or error log).
    fn is_api(&self, e: &Event) -> bool {
        self.kinds.get(e.file as usize).is_some_and(|k| k.1)
    }

    /// The time of the client's next line of the call at `pos`: the next line of its
    /// green thread (same local request id, the id not shared by several instances)
    /// or the next line about its instance in the same request, not counting the lines
    /// the HTTP client logs while the call is still out.
    fn next_time(&self, pos: usize) -> Option<i64> {
        let call = &self.events[pos];
        let after = |list: Option<&[u32]>, ok: &dyn Fn(&Event) -> bool| {
            list.and_then(|l| {
                let start = l.partition_point(|&p| p as usize <= pos);
                l[start..]
                    .iter()
                    .map(|&p| &self.events[p as usize])
                    .find(|e| !during_call(e) && ok(e))
                    .map(|e| e.time)
            })
        };
        let instance = call.instances.first().copied();
        let by_thread = call
            .request_id
            .filter(|r| !self.shared.contains(&(call.host, *r)))
            .and_then(|r| {
                after(self.by_request.get(&(call.host, r)), &|e: &Event| {
                    e.instances.is_empty() || instance.is_some_and(|i| e.instances.contains(&i))
                })
            });
        let by_instance = instance.and_then(|i| {
            after(self.by_instance.get(&(call.host, i)), &|e: &Event| {
                e.global_request_id == call.global_request_id
            })
        });
        match (by_thread, by_instance) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    /// The nova-api lines of request `r` on `host`.
    fn api_lines(&self, r: Uuid, host: HostId) -> Vec<usize> {
        self.nova_by_request
            .get(&r)
            .map(|l| {
                l.iter()
                    .map(|&p| p as usize)
                    .filter(|&p| self.events[p].host == host && self.is_api(&self.events[p]))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A pair of the client call at `call` and server `lines`, with the client's window.
    fn pair(
        &self,
        kind: PairKind,
        call: usize,
        end: Option<i64>,
        lines: Vec<usize>,
    ) -> Option<Pair> {
        let first = *lines.first()?;
        let c = &self.events[call];
        let server = self.events[first].host;
        if server == c.host {
            return None;
        }
        let hi = lines
            .iter()
            .map(|&p| self.events[p].time + precision(&self.events[p]) - c.time)
            .min();
        let lo = end.and_then(|n| lines.iter().map(|&p| self.events[p].time - n).max());
        let (first_line, last_line) = span(self.events, lines.iter().copied())?;
        Some(Pair {
            server,
            client: c.host,
            kind,
            anchor: call as EventId,
            anchor_time: c.time,
            start: c.time,
            end,
            first_line,
            last_line,
            lo,
            hi,
        })
    }
}

/// A cheap test before [`Ctx::makes`]: a request for an instance names it. The request
/// lists [`Ctx::window_requests`] gives hold only those.
#[cfg(test)]
fn may_make(call: &Event, request: &Event) -> bool {
    call.instances
        .first()
        .is_none_or(|i| request.instances.contains(i))
}

/// What a Masakari Nova call makes; `None` for any other line.
fn call_expected(e: &Event) -> Option<Expected> {
    if e.logger() != Some("masakari.compute.nova") {
        return None;
    }
    Expected::of(e)
}

/// A line the client may log before Nova has answered the call: at DEBUG, novaclient,
/// keystoneauth, urllib3 and requests log the session, the token request and the
/// request itself, and Masakari's Nova module logs the client it creates. Only its
/// next call line comes after the answer (the calls of a thread are sequential).
fn during_call(e: &Event) -> bool {
    let logger = e.logger().unwrap_or("");
    ["keystoneauth", "urllib3", "novaclient", "requests"]
        .iter()
        .any(|l| logger.starts_with(l))
        || (logger == "masakari.compute.nova" && !is_call(e))
}

fn is_call(e: &Event) -> bool {
    e.logger() == Some("masakari.compute.nova") && is_call_line(e)
}

/// Every request id of Nova's answer a message names: `Request-ID: req-…` (an error
/// novaclient raised) and `… used request id req-…` (novaclient's DEBUG line after
/// every answer).
fn returned_ids(message: &str) -> Vec<Uuid> {
    const TAGS: [&str; 2] = ["Request-ID: ", "used request id "];
    TAGS.iter()
        .flat_map(|tag| {
            message.match_indices(tag).filter_map(|(i, _)| {
                let start = i + tag.len();
                message
                    .get(start..start + 40)
                    .and_then(Uuid::parse_request_id)
            })
        })
        .collect()
}

/// The duration a Nova request line states (`time: 0.412345`), in ns.
fn stated_duration(e: &Event) -> Option<i64> {
    let message = e.message();
    let (_, rest) = message.rsplit_once("time: ")?;
    let secs: f64 = rest.split_whitespace().next()?.parse().ok()?;
    (secs.is_finite() && (0.0..3600.0).contains(&secs)).then_some((secs * 1e9) as i64)
}

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
                .map(|&p| &ctx.events[p as usize])
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
    let mut calls: HashMap<(Uuid, String, HostId), Vec<usize>> = HashMap::new();
    for list in ctx.calls_by_host.values() {
        for &pos in list {
            let call = &ctx.events[pos];
            if let (Some(g), Some(expected)) = (call.global_request_id, call_expected(call)) {
                calls
                    .entry((g, expected.key(), call.host))
                    .or_default()
                    .push(pos);
            }
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
        let mut found: Vec<(EventId, EventId)> = Vec::new();
        for &call in calls {
            let c = &ctx.events[call];
            let next = ctx.next_time(call);
            let (from, to) = (
                c.time + lo - SECOND_NS,
                next.unwrap_or(c.time + LATENCY_NS) + hi,
            );
            let window = ctx.window_requests(server, c, from, to);
            let Some(expected) = window.first().and_then(|_| call_expected(c)) else {
                continue;
            };
            for r in window {
                let e = &ctx.events[r];
                let same_request = match (c.global_request_id, e.global_request_id) {
                    (Some(a), Some(b)) => a == b,
                    _ => true,
                };
                if same_request && e.time + precision(e) >= c.time + lo && expected.made_by(e) {
                    found.push((call as EventId, r as EventId));
                }
            }
        }
        for &(call, r) in &found {
            let (call, r) = (call as usize, r as usize);
            let log = usize::from(ctx.events[r].second_precision);
            per_call[call][log] = per_call[call][log].saturating_add(1);
            per_request[r] = per_request[r].saturating_add(1);
        }
        // Only the single ones are kept, in place.
        found.retain(|&(call, r)| {
            let (call, r) = (call as usize, r as usize);
            let log = usize::from(ctx.events[r].second_precision);
            per_call[call][log] == 1 && per_request[r] == 1
        });
        per_call.fill([0; 2]);
        per_request.fill(0);
        for (call, r) in found {
            let (call, r) = (call as usize, r as usize);
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
/// (`POST /servers/<id>/action`) Masakari makes again within the window is ambiguous
/// from the start, and not searched.
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
            if same.partition_point(|&t| t <= to) - same.partition_point(|&t| t < from) > 1 {
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
            || covered.contains(&(call as EventId, request.host))
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
        let Some((anchor, start)) = lines.iter().map(|&p| p as usize).find_map(|p| {
            let e = &ctx.events[p];
            (e.http().is_some() && ctx.is_api(e))
                .then(|| stated_duration(e).map(|d| (p, e.time - d)))
                .flatten()
        }) else {
            continue;
        };
        let api_host = ctx.events[anchor].host;
        let mut by_host: HashMap<HostId, Vec<usize>> = HashMap::new();
        for p in lines.iter().map(|&p| p as usize) {
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
                anchor: anchor as EventId,
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
    span.map(|(first, last)| (first as EventId, last as EventId))
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
            let (first, last) = (kept.first_line as usize, kept.last_line as usize);
            kept.first_line = earlier(events, first, p.first_line as usize) as EventId;
            kept.last_line = later(events, last, p.last_line as usize) as EventId;
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
