//! What the pair families search in: the events of each project indexed by request,
//! instance and host, and the small readings of a line they share.

use std::collections::{HashMap, HashSet};

use super::*;

pub(super) struct Ctx<'a> {
    pub(super) events: &'a [Event],
    /// Each file's project, and whether it is a nova-api log.
    pub(super) kinds: Vec<(Project, bool)>,
    /// Masakari lines by (host, local request id).
    pub(super) by_request: GroupIndex<(HostId, Uuid)>,
    /// Masakari lines by (host, instance named).
    pub(super) by_instance: GroupIndex<(HostId, Uuid)>,
    /// Local request ids that Masakari lines about more than one instance share: they
    /// do not follow one green thread.
    pub(super) shared: HashSet<(HostId, Uuid)>,
    /// Nova lines by local request id.
    pub(super) nova_by_request: GroupIndex<Uuid>,
    /// Masakari's Nova calls, by host, in time order. What a call makes is worked out
    /// where it is needed ([`call_expected`]), not kept: a map of it cost 25 MB at
    /// 10 GiB (145 k calls, two strings each), at the skew stage's peak.
    pub(super) calls_by_host: HashMap<HostId, Vec<usize>>,
    /// [`Ctx::next_time`] of each call of `calls_by_host`, in the same places: every
    /// family asks it of the calls, the anchored joins once per server.
    call_next_times: HashMap<HostId, Vec<Option<i64>>>,
    /// nova-api's request lines (access and request log), by host, in time order.
    pub(super) requests_by_host: HashMap<HostId, Vec<usize>>,
    /// The times of each host's request lines, for windows over them.
    pub(super) request_times: HashMap<HostId, Times>,
    /// Positions in `requests_by_host[host]` of the request lines naming an instance.
    pub(super) requests_by_instance: HashMap<(HostId, Uuid), Vec<u32>>,
}

impl<'a> Ctx<'a> {
    pub(super) fn new(events: &'a [Event], files: &'a [FileInfo]) -> Ctx<'a> {
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
            call_next_times: HashMap::new(),
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
                    masakari()
                        .filter_map(|(i, e)| e.request_id.map(|r| ((e.host, r), EventId::at(i))))
                })
            },
            || {
                rayon::join(
                    || {
                        GroupIndex::collect(|| {
                            masakari().flat_map(|(i, e)| {
                                e.instances
                                    .iter()
                                    .map(move |&u| ((e.host, u), EventId::at(i)))
                            })
                        })
                    },
                    || {
                        GroupIndex::collect(|| {
                            nova().filter_map(|(i, e)| e.request_id.map(|r| (r, EventId::at(i))))
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
        ctx.call_next_times = {
            use rayon::prelude::*;
            let ctx = &ctx;
            ctx.calls_by_host
                .par_iter()
                .map(|(&host, calls)| {
                    (host, calls.iter().map(|&p| ctx.find_next_time(p)).collect())
                })
                .collect()
        };
        ctx
    }

    pub(super) fn project(&self, e: &Event) -> Project {
        self.kinds
            .get(e.file as usize)
            .map_or(Project::Other, |k| k.0)
    }

    /// The request lines of `server` a scan from the first not before `from` to the
    /// first after `to` visits that may be what `call` made (they name its instance,
    /// when it names one: [`may_make`]), in order.
    pub(super) fn window_requests(
        &self,
        server: HostId,
        call: &Event,
        from: i64,
        to: i64,
    ) -> Vec<usize> {
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
    pub(super) fn is_api(&self, e: &Event) -> bool {
        self.kinds.get(e.file as usize).is_some_and(|k| k.1)
    }

    /// The time of the client's next line of the call at `pos`: the next line of its
    /// green thread (same local request id, the id not shared by several instances)
    /// or the next line about its instance in the same request, not counting the lines
    /// the HTTP client logs while the call is still out.
    pub(super) fn next_time(&self, pos: usize) -> Option<i64> {
        let host = self.events[pos].host;
        if let (Some(calls), Some(times)) = (
            self.calls_by_host.get(&host),
            self.call_next_times.get(&host),
        ) && let Ok(k) = calls.binary_search(&pos)
        {
            return times[k];
        }
        self.find_next_time(pos)
    }

    /// [`Ctx::next_time`], worked out.
    fn find_next_time(&self, pos: usize) -> Option<i64> {
        let call = &self.events[pos];
        let after = |list: Option<&[EventId]>, ok: &dyn Fn(&Event) -> bool| {
            list.and_then(|l| {
                let start = l.partition_point(|&p| p.index() <= pos);
                l[start..]
                    .iter()
                    .map(|&p| &self.events[p.index()])
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
    pub(super) fn api_lines(&self, r: Uuid, host: HostId) -> Vec<usize> {
        self.nova_by_request
            .get(&r)
            .map(|l| {
                l.iter()
                    .map(|&p| p.index())
                    .filter(|&p| self.events[p].host == host && self.is_api(&self.events[p]))
                    .collect()
            })
            .unwrap_or_default()
    }

    /// A pair of the client call at `call` and server `lines`, with the client's window.
    pub(super) fn pair(
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
            tie: Tie::of(kind, !c.instances.is_empty()),
            anchor: EventId::at(call),
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
pub(super) fn may_make(call: &Event, request: &Event) -> bool {
    call.instances
        .first()
        .is_none_or(|i| request.instances.contains(i))
}

/// What a Masakari Nova call makes; `None` for any other line.
pub(super) fn call_expected(e: &Event) -> Option<Expected> {
    if e.logger() != Some("masakari.compute.nova") {
        return None;
    }
    Expected::of(e)
}

/// A line the client may log before Nova has answered the call: at DEBUG, novaclient,
/// keystoneauth, urllib3 and requests log the session, the token request and the
/// request itself, and Masakari's Nova module logs the client it creates. Only its
/// next call line comes after the answer (the calls of a thread are sequential).
pub(super) fn during_call(e: &Event) -> bool {
    let logger = e.logger().unwrap_or("");
    ["keystoneauth", "urllib3", "novaclient", "requests"]
        .iter()
        .any(|l| logger.starts_with(l))
        || (logger == "masakari.compute.nova" && !is_call(e))
}

pub(super) fn is_call(e: &Event) -> bool {
    e.logger() == Some("masakari.compute.nova") && is_call_line(e)
}

/// Every request id of Nova's answer a message names: `Request-ID: req-…` (an error
/// novaclient raised) and `… used request id req-…` (novaclient's DEBUG line after
/// every answer).
pub(super) fn returned_ids(message: &str) -> Vec<Uuid> {
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

/// The duration a Nova request line states (`time: 0.412345`), in ns, as read with
/// the line.
pub(super) fn stated_duration(e: &Event) -> Option<i64> {
    e.http()?.duration_ns
}
