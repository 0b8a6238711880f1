//! Which host each clock is measured against, along which path, and whether it is
//! corrected.
//!
//! Hosts joined by pinned edges (see [`crate::correlate::skew::Edge`]) form groups.
//! Each group's reference is its Masakari engine with most Nova calls, else its host
//! in most agreeing pairs. The other hosts of the group are reached from it along the
//! best-supported path of pinned edges: an offset is only ever carried through a host
//! whose own offset is pinned, so an unmeasured clock is never taken as zero. A host
//! in pairs but on no pinned edge is reported against its best-supported neighbour,
//! with its bounds only.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use crate::correlate::skew::interval::Interval;
use crate::correlate::skew::pairs::{Pair, PairKind};
use crate::correlate::skew::reading::describe;
use crate::correlate::skew::{Edge, KindCount, SkewEstimate, TOLERANCE_MS, edge_key, ms, value};
use crate::model::HostId;

/// A measurement chosen for one host.
pub(crate) struct Measured {
    /// What is reported.
    pub estimate: SkewEstimate,
    /// Shift applied, in ns (0 when not applied).
    pub shift: i64,
    /// The edge it rests on (host and the host it was measured from).
    pub edge: (HostId, HostId),
}

type Edges = BTreeMap<(HostId, HostId), Edge>;

/// The groups of hosts joined by pinned edges, each sorted.
fn groups(edges: &Edges) -> Vec<Vec<HostId>> {
    let mut adjacent: BTreeMap<HostId, Vec<HostId>> = BTreeMap::new();
    for (&(a, b), e) in edges {
        if e.pinned() {
            adjacent.entry(a).or_default().push(b);
            adjacent.entry(b).or_default().push(a);
        }
    }
    let mut seen: BTreeSet<HostId> = BTreeSet::new();
    let mut out = Vec::new();
    for &start in adjacent.keys() {
        if !seen.insert(start) {
            continue;
        }
        let mut group = vec![start];
        let mut i = 0;
        while i < group.len() {
            for &n in &adjacent[&group[i]] {
                if seen.insert(n) {
                    group.push(n);
                }
            }
            i += 1;
        }
        group.sort_unstable();
        out.push(group);
    }
    out
}

/// The group's reference: the engine with most Nova calls, else the host in most
/// agreeing pinned pairs (the lowest id on a tie).
fn reference(group: &[HostId], edges: &Edges, calls: &HashMap<HostId, usize>) -> HostId {
    let support = |h: HostId| -> usize {
        edges
            .iter()
            .filter(|&(&(a, b), e)| (a == h || b == h) && e.pinned())
            .map(|(_, e)| e.members.len())
            .sum()
    };
    let best = |score: &dyn Fn(HostId) -> usize| {
        group
            .iter()
            .copied()
            .map(|h| (score(h), std::cmp::Reverse(h)))
            .max()
            .filter(|&(n, _)| n > 0)
            .map(|(_, std::cmp::Reverse(h))| h)
    };
    best(&|h| calls.get(&h).copied().unwrap_or(0))
        .or_else(|| best(&support))
        .unwrap_or(group[0])
}

/// What is known of a host reached from the reference.
#[derive(Clone, Copy)]
struct Reached {
    /// Its offset against the reference.
    total: Interval,
    /// Its shift, in ns.
    shift: i64,
    /// The weakest support along its path.
    support: usize,
}

/// Every host's measurement; `calls` counts each host's Masakari Nova calls.
pub(crate) fn measure(
    edges: &Edges,
    pairs: &[Pair],
    calls: &HashMap<HostId, usize>,
) -> Vec<Measured> {
    let mut out: Vec<Measured> = Vec::new();
    for group in groups(edges) {
        out.extend(measure_group(&group, edges, pairs, calls));
    }
    // Each measured host's reference and offset against it.
    let mut known: HashMap<HostId, (HostId, Interval)> = HashMap::new();
    for m in &out {
        let e = &m.estimate;
        let total = Interval {
            lo: e.low_ms.map(|v| v * 1_000_000),
            hi: e.high_ms.map(|v| v * 1_000_000),
        };
        known.insert(e.host, (e.reference, total));
    }
    let roots: Vec<HostId> = out.iter().map(|m| m.estimate.reference).collect();
    for r in roots {
        known.insert(
            r,
            (
                r,
                Interval {
                    lo: Some(0),
                    hi: Some(0),
                },
            ),
        );
    }
    // Hosts on no pinned edge: bounds only, against a group's reference through the
    // measured hosts they share usable pairs with, else against their best-supported
    // neighbour.
    let mut hosts: Vec<HostId> = edges.keys().flat_map(|&(a, b)| [a, b]).collect();
    hosts.sort_unstable();
    hosts.dedup();
    // Servers before their clients (an engine or nova-api last), so that of two
    // hosts only the server is reported against the other.
    let mut as_client: HashMap<HostId, usize> = HashMap::new();
    for p in pairs {
        *as_client.entry(p.client).or_default() += 1;
    }
    let rank = |h: HostId| {
        (
            calls.get(&h).copied().unwrap_or(0),
            as_client.get(&h).copied().unwrap_or(0),
        )
    };
    hosts.sort_by_key(|&h| (rank(h), h));
    let mut against: HashMap<HostId, HostId> = HashMap::new();
    for h in hosts.into_iter().filter(|h| !known.contains_key(h)) {
        if let Some(m) = bounded_through_group(h, edges, pairs, &known) {
            out.push(m);
            continue;
        }
        // Its best-supported neighbour not already reported against it (the more
        // client-like on a tie).
        let Some((other, edge)) = edges
            .iter()
            .filter_map(|(&(a, b), e)| {
                let other = match (a == h, b == h) {
                    (true, _) => b,
                    (_, true) => a,
                    _ => return None,
                };
                (against.get(&other) != Some(&h)).then_some((other, e))
            })
            .max_by_key(|&(other, e)| {
                (
                    e.usable(),
                    e.members.len(),
                    rank(other),
                    std::cmp::Reverse(other),
                )
            })
        else {
            continue;
        };
        against.insert(h, other);
        let total = edge.of(h, other);
        out.push(Measured {
            estimate: estimate(h, other, None, total, (None, false), &[edge], pairs),
            shift: 0,
            edge: edge_key(h, other),
        });
    }
    out.sort_by_key(|m| m.estimate.host);
    out
}

/// The bounds of `h` against a group's reference: its usable edges to that group's
/// measured hosts, each plus that host's offset, intersected (the group where most
/// pairs agree). Sound whatever the neighbours' shifts: bounds of sums.
fn bounded_through_group(
    h: HostId,
    edges: &Edges,
    pairs: &[Pair],
    known: &HashMap<HostId, (HostId, Interval)>,
) -> Option<Measured> {
    let mut by_root: BTreeMap<HostId, Vec<(HostId, &Edge)>> = BTreeMap::new();
    for (&(a, b), e) in edges {
        if (a == h || b == h) && e.usable() {
            let nb = if a == h { b } else { a };
            if let Some(&(root, _)) = known.get(&nb) {
                by_root.entry(root).or_default().push((nb, e));
            }
        }
    }
    let (root, via) = by_root.into_iter().max_by_key(|(root, v)| {
        let n: usize = v.iter().map(|(_, e)| e.members.len()).sum();
        (n, std::cmp::Reverse(*root))
    })?;
    let total = via.iter().fold(Interval::ALL, |acc, &(nb, e)| {
        acc.intersect(e.of(h, nb).plus(known[&nb].1))
    });
    let (best, _) = via
        .iter()
        .copied()
        .max_by_key(|(nb, e)| (e.members.len(), std::cmp::Reverse(*nb)))?;
    let steps: Vec<&Edge> = via.iter().map(|(_, e)| *e).collect();
    Some(Measured {
        estimate: estimate(
            h,
            root,
            (best != root).then_some(best),
            total,
            (None, false),
            &steps,
            pairs,
        ),
        shift: 0,
        edge: edge_key(h, best),
    })
}

/// The group's hosts against its reference, along the widest paths of pinned edges
/// (the path whose weakest edge has most agreeing pairs).
fn measure_group(
    group: &[HostId],
    edges: &Edges,
    pairs: &[Pair],
    calls: &HashMap<HostId, usize>,
) -> Vec<Measured> {
    let root = reference(group, edges, calls);
    let mut reached: HashMap<HostId, Reached> = HashMap::new();
    reached.insert(
        root,
        Reached {
            total: Interval {
                lo: Some(0),
                hi: Some(0),
            },
            shift: 0,
            support: usize::MAX,
        },
    );
    let mut out = Vec::new();
    loop {
        // The best next step: from a reached host over a pinned edge to a new one.
        let step = edges
            .iter()
            .filter(|(_, e)| e.pinned())
            .filter_map(|(&(a, b), e)| {
                let (from, to) = match (reached.contains_key(&a), reached.contains_key(&b)) {
                    (true, false) => (a, b),
                    (false, true) => (b, a),
                    _ => return None,
                };
                let support = reached[&from].support.min(e.members.len());
                Some((support, std::cmp::Reverse((to, from)), to, from, e))
            })
            .max_by_key(|t| (t.0, t.1));
        let Some((support, _, host, from, edge)) = step else {
            break;
        };
        let parent = reached[&from];
        let own = edge.of(host, from);
        let total = own.plus(parent.total);
        // Shift by what keeps this edge's pairs causal once `from` is shifted.
        let shift = value(own).map_or(0, |v| v + parent.shift);
        let applied = ms(shift).abs() > TOLERANCE_MS;
        let shift = if applied { shift } else { 0 };
        reached.insert(
            host,
            Reached {
                total,
                shift,
                support,
            },
        );
        let via = (from != root).then_some(from);
        let offset = if applied { Some(shift) } else { value(total) };
        out.push(Measured {
            estimate: estimate(host, root, via, total, (offset, applied), &[edge], pairs),
            shift,
            edge: edge_key(host, from),
        });
    }
    out
}

/// The estimate of `host` against `reference`: its offset interval `total`, the
/// offset it pins (`None`: bounds only) and whether the timeline was shifted by it,
/// and the edges of the last step of its path.
fn estimate(
    host: HostId,
    reference: HostId,
    via: Option<HostId>,
    total: Interval,
    (offset, applied): (Option<i64>, bool),
    steps: &[&Edge],
    pairs: &[Pair],
) -> SkewEstimate {
    let mut kinds: BTreeMap<PairKind, usize> = BTreeMap::new();
    for e in steps {
        for k in e.kinds(pairs) {
            *kinds.entry(k.kind).or_default() += k.pairs;
        }
    }
    let agreeing: usize = steps.iter().map(|e| e.members.len()).sum();
    SkewEstimate {
        host,
        reference,
        via,
        offset_ms: offset.map(ms),
        low_ms: total.lo.map(ms),
        high_ms: total.hi.map(ms),
        pairs: agreeing,
        total_pairs: steps.iter().map(|e| e.intervals.len()).sum(),
        kinds: kinds
            .into_iter()
            .map(|(kind, pairs)| KindCount { kind, pairs })
            .collect(),
        applied,
        note: describe(steps, total, offset, applied),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::correlate::skew::edges;
    use crate::correlate::skew::pairs::{PairKind, Tie};
    use crate::model::EventId;

    const S: i64 = 1_000_000_000;

    /// `n` pairs of `client` calling `server`, each allowing `lo..hi` seconds.
    fn pairs(
        client: HostId,
        server: HostId,
        n: usize,
        lo: Option<i64>,
        hi: Option<i64>,
    ) -> Vec<Pair> {
        (0..n)
            .map(|i| Pair {
                server,
                client,
                kind: PairKind::ReturnedRequestId,
                tie: Tie::Ids,
                anchor: EventId((client * 1000 + server * 100) + i as u32),
                anchor_time: 0,
                start: 0,
                end: None,
                first_line: EventId(0),
                last_line: EventId(0),
                lo: lo.map(|v| v * S),
                hi: hi.map(|v| v * S),
            })
            .collect()
    }

    /// [`pairs`] tied as `tie`, each allowing `lo..hi` milliseconds.
    fn tied(client: HostId, server: HostId, tie: Tie, bounds_ms: &[(i64, i64)]) -> Vec<Pair> {
        bounds_ms
            .iter()
            .enumerate()
            .map(|(i, &(lo, hi))| Pair {
                tie,
                kind: if tie == Tie::Ids {
                    PairKind::ReturnedRequestId
                } else {
                    PairKind::Join
                },
                anchor: EventId((client * 1000 + server * 100) + i as u32),
                lo: Some(lo * 1_000_000),
                hi: Some(hi * 1_000_000),
                ..pairs(client, server, 1, None, None)[0].clone()
            })
            .collect()
    }

    #[test]
    fn two_id_tied_pairs_within_100_ms_pin_and_correct() {
        let all = tied(0, 1, Tie::Ids, &[(94_955, 95_050), (94_980, 95_060)]);
        let api = run(&all, &[(0, 10)]).remove(0);
        assert!(api.applied, "{api:?}");
        assert_eq!(api.offset_ms, Some(95_015));
        assert_eq!((api.low_ms, api.high_ms), (Some(94_980), Some(95_050)));
        assert!(api.note.contains("tied by ids"), "{api:?}");
    }

    #[test]
    fn two_pairs_tied_by_time_alone_never_correct() {
        // A host on time whose two joins by time alone (the wrong requests, a
        // generator's periodic calls 95 s apart) would put it 95 s ahead.
        let all = tied(0, 1, Tie::Time, &[(94_955, 95_050), (94_980, 95_060)]);
        let api = run(&all, &[(0, 10)]).remove(0);
        assert!(!api.applied && api.offset_ms.is_none(), "{api:?}");
        assert!(api.note.contains("only 2 causal pair(s) agree"), "{api:?}");
    }

    #[test]
    fn id_tied_pairs_pin_only_when_close_and_unanimous() {
        // Wider together than 100 ms.
        let wide = tied(0, 1, Tie::Ids, &[(94_800, 95_100), (94_850, 95_200)]);
        // A third id-tied pair disagrees.
        let mut split = tied(0, 1, Tie::Ids, &[(94_955, 95_050), (94_980, 95_060)]);
        split.extend(tied(0, 1, Tie::Ids, &[(-50, 50)]).into_iter().map(|mut p| {
            p.anchor.0 += 50;
            p
        }));
        // Agreeing, but time-tied pairs outvote them.
        let mut outvoted = tied(0, 1, Tie::Ids, &[(94_955, 95_050), (94_980, 95_060)]);
        outvoted.extend(
            tied(0, 1, Tie::Time, &[(-50, 50); 3])
                .into_iter()
                .map(|mut p| {
                    p.anchor.0 += 50;
                    p
                }),
        );
        for all in [wide, split, outvoted] {
            for s in run(&all, &[(0, 10)]) {
                assert!(!s.applied, "{s:?}");
            }
        }
    }

    fn run(all: &[Pair], calls: &[(HostId, usize)]) -> Vec<SkewEstimate> {
        let calls: HashMap<HostId, usize> = calls.iter().copied().collect();
        measure(&edges(all), all, &calls)
            .into_iter()
            .map(|m| m.estimate)
            .collect()
    }

    fn of(all: &[SkewEstimate], host: HostId) -> &SkewEstimate {
        all.iter().find(|s| s.host == host).unwrap()
    }

    #[test]
    fn an_offset_is_only_carried_through_a_pinned_host() {
        // Engine 0 calls nova-api 1 (95 s ahead, pinned); compute 2 is only known to
        // log after nova-api started (at most 506 s ahead of 1).
        let mut all = pairs(0, 1, 5, Some(94), Some(96));
        all.extend(pairs(1, 2, 5, None, Some(506)));
        let out = run(&all, &[(0, 10)]);
        let api = of(&out, 1);
        assert_eq!(
            (api.reference, api.offset_ms, api.applied),
            (0, Some(95_000), true)
        );
        assert!(api.note.ends_with("timeline corrected"), "{api:?}");
        let compute = of(&out, 2);
        // Bounded against the engine through nova-api, never pinned nor applied.
        assert_eq!((compute.reference, compute.via), (0, Some(1)));
        assert_eq!((compute.low_ms, compute.high_ms), (None, Some(602_000)));
        assert_eq!((compute.offset_ms, compute.applied), (None, false));
        assert!(
            compute
                .note
                .starts_with("clock at most 602.0 s ahead (one-sided")
                && compute.note.ends_with("not corrected"),
            "{compute:?}"
        );
    }

    #[test]
    fn an_unmeasured_intermediate_is_not_taken_as_zero() {
        // Engine 0 bounds nova-api 1 from one side only; 1 and compute 2 agree on
        // 10 s. 2 is measured against 1, not against the engine as if 1 were on time.
        let mut all = pairs(0, 1, 5, None, Some(200));
        all.extend(pairs(1, 2, 5, Some(9), Some(11)));
        let out = run(&all, &[(0, 10)]);
        let compute = of(&out, 2);
        assert_eq!(compute.reference, 1, "{compute:?}");
        assert_eq!(compute.offset_ms, Some(10_000));
        // The engine, on no pinned edge, is bounded against that group's reference.
        let engine = of(&out, 0);
        assert_eq!(engine.reference, 1, "{engine:?}");
        assert_eq!((engine.low_ms, engine.high_ms), (Some(-200_000), None));
        assert_eq!((engine.offset_ms, engine.applied), (None, false));
        assert!(engine.note.ends_with("not corrected"), "{engine:?}");
    }

    #[test]
    fn each_group_keeps_the_engine_that_calls_most() {
        // Engines 0 and 3 both call nova-api 1; 3 calls more.
        let mut all = pairs(0, 1, 4, Some(-1), Some(1));
        all.extend(pairs(3, 1, 6, Some(-1), Some(1)));
        let out = run(&all, &[(0, 10), (3, 50)]);
        assert!(out.iter().all(|s| s.reference == 3), "{out:?}");
        assert_eq!(out.len(), 2);
        assert!(out.iter().all(|s| s.offset_ms == Some(0) && !s.applied));
    }

    #[test]
    fn too_few_or_disagreeing_pairs_are_never_applied() {
        let mut all = pairs(0, 1, 2, Some(94), Some(96));
        all.extend(pairs(0, 2, 3, Some(94), Some(96)));
        all.extend(pairs(0, 2, 3, Some(-96), Some(-94)));
        let out = run(&all, &[(0, 10)]);
        for s in &out {
            assert!(!s.applied && s.offset_ms.is_none(), "{s:?}");
            assert!(s.note.ends_with("not corrected"), "{s:?}");
        }
        assert!(of(&out, 1).note.contains("only 2 causal pair(s) agree"));
    }
}
