//! Clock skew between hosts, bounded by causal pairs and corrected only when enough
//! of them agree.
//!
//! Each pair (see [`pairs`]) bounds how far the server's clock is ahead of the
//! client's. Per two hosts, the offset most pairs allow is found and the pairs that
//! allow it are intersected. One reference host (Masakari's engine, else the host with
//! most pairs) keeps its clock; every other host is measured against it directly or
//! through one host measured directly; a host in no pair is left as it is.

pub mod clock;
pub mod interval;
pub mod notes;
pub mod pairs;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::correlate::analysis::FileInfo;
use crate::model::{Event, HostId};
use interval::{Interval, consensus};
use pairs::{Pair, PairKind, causal_pairs, precision};

/// Offsets up to this size are not corrected: a shift this small moves lines within
/// ordinary request latency.
pub const TOLERANCE_MS: i64 = 2_000;
/// How many pairs must agree before a host's clock is corrected.
pub const MIN_PAIRS: usize = 3;
/// An interval up to this wide is read as its midpoint; a wider (or one-sided) one as
/// its bound nearest zero, the least correction that keeps every pair causal.
const TIGHT_NS: i64 = 10_000_000_000;

/// How many pairs of one kind an estimate rests on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KindCount {
    /// The kind of pair.
    pub kind: PairKind,
    /// How many agreeing pairs of that kind.
    pub pairs: usize,
}

/// The measured clock offset of one host against the reference host.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkewEstimate {
    /// The host whose clock is measured.
    pub host: HostId,
    /// The host it is measured against (the reference, or the host it shares pairs
    /// with when it could not be measured).
    pub reference: HostId,
    /// The host measured directly that the estimate goes through, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<HostId>,
    /// How far `host`'s clock is ahead of `reference`'s, in milliseconds: the value
    /// chosen inside the interval (subtracted from `host`'s times when applied).
    pub offset_ms: i64,
    /// Lowest offset the agreeing pairs allow (ms); `None`: unbounded.
    pub low_ms: Option<i64>,
    /// Highest offset the agreeing pairs allow (ms); `None`: unbounded.
    pub high_ms: Option<i64>,
    /// How many causal pairs agree on the interval.
    pub pairs: usize,
    /// How many causal pairs were measured between the hosts.
    pub total_pairs: usize,
    /// The agreeing pairs by kind.
    pub kinds: Vec<KindCount>,
    /// Whether the timeline was corrected by `offset_ms`.
    pub applied: bool,
    /// A reading of the numbers for a human.
    pub note: String,
}

/// The pairs between two hosts `(a, b)`, `a < b`, as offsets of `b` against `a`.
struct Edge {
    /// Every pair's interval, and the pair's index.
    intervals: Vec<(Interval, usize)>,
    /// The intersection of the agreeing pairs.
    agreed: Interval,
    /// Indices (into `intervals`) of the agreeing pairs.
    members: Vec<usize>,
}

impl Edge {
    fn usable(&self) -> bool {
        let n = self.members.len();
        n >= MIN_PAIRS && n * 4 >= self.intervals.len() * 3
    }

    /// The agreed interval as the offset of `host` against `other`.
    fn of(&self, host: HostId, other: HostId) -> Interval {
        if host > other {
            self.agreed
        } else {
            self.agreed.negated()
        }
    }
}

fn edges(pairs: &[Pair]) -> BTreeMap<(HostId, HostId), Edge> {
    let mut grouped: BTreeMap<(HostId, HostId), Vec<(Interval, usize)>> = BTreeMap::new();
    for (i, p) in pairs.iter().enumerate() {
        let iv = Interval { lo: p.lo, hi: p.hi };
        let (key, iv) = if p.client < p.server {
            ((p.client, p.server), iv)
        } else {
            ((p.server, p.client), iv.negated())
        };
        grouped.entry(key).or_default().push((iv, i));
    }
    grouped
        .into_iter()
        .filter_map(|(key, intervals)| {
            let only: Vec<Interval> = intervals.iter().map(|(iv, _)| *iv).collect();
            let (_, members) = consensus(&only)?;
            let agreed = members
                .iter()
                .fold(Interval::ALL, |acc, &m| acc.intersect(only[m]));
            Some((
                key,
                Edge {
                    intervals,
                    agreed,
                    members,
                },
            ))
        })
        .collect()
}

fn edge_key(a: HostId, b: HostId) -> (HostId, HostId) {
    (a.min(b), a.max(b))
}

/// The offset to read an interval as: zero when it allows zero, its midpoint when it
/// is narrow, else its bound nearest zero.
fn pick(iv: Interval) -> i64 {
    if iv.contains(0) {
        return 0;
    }
    match (iv.lo, iv.hi, iv.width()) {
        (Some(lo), Some(hi), Some(w)) if w <= TIGHT_NS => lo + (hi - lo) / 2,
        (Some(lo), _, _) if lo > 0 => lo,
        (_, Some(hi), _) => hi,
        (lo, _, _) => lo.unwrap_or(0),
    }
}

/// The reference host: the one that logs Masakari's Nova calls most, else the one in
/// most pairs.
fn reference_host(events: &[Event], pairs: &[Pair]) -> Option<HostId> {
    let mut calls: HashMap<HostId, usize> = HashMap::new();
    for e in events {
        if e.logger() == Some("masakari.compute.nova") {
            *calls.entry(e.host).or_default() += 1;
        }
    }
    let most = |counts: HashMap<HostId, usize>| {
        counts
            .into_iter()
            .max_by_key(|&(h, n)| (n, std::cmp::Reverse(h)))
            .map(|(h, _)| h)
    };
    most(calls).or_else(|| {
        let mut in_pairs: HashMap<HostId, usize> = HashMap::new();
        for p in pairs {
            *in_pairs.entry(p.server).or_default() += 1;
            *in_pairs.entry(p.client).or_default() += 1;
        }
        most(in_pairs)
    })
}

/// A measurement chosen for one host.
struct Measured {
    estimate: SkewEstimate,
    /// Shift applied, in ns (0 when not applied).
    shift: i64,
    /// The edge it rests on, when applied.
    edge: (HostId, HostId),
}

/// Estimates every host's clock offset against the reference host, corrects the
/// events of the hosts where enough causal pairs agree, and returns the estimates.
/// `events` must be in time order; they are no longer sorted afterwards when a
/// correction was applied. `files` are the analysis' files (by file id).
pub fn correct(events: &mut [Event], files: &[FileInfo]) -> Vec<SkewEstimate> {
    let pairs = causal_pairs(events, files);
    let edges = edges(&pairs);
    let Some(reference) = reference_host(events, &pairs) else {
        return Vec::new();
    };
    let measured = measure(reference, &edges, &pairs);
    let shifts: HashMap<HostId, i64> = measured
        .iter()
        .filter(|m| m.shift != 0)
        .map(|m| (m.estimate.host, m.shift))
        .collect();
    if !shifts.is_empty() {
        for e in events.iter_mut() {
            if let Some(shift) = shifts.get(&e.host) {
                e.time -= shift;
            }
        }
        if cfg!(debug_assertions) {
            for m in measured.iter().filter(|m| m.shift != 0) {
                let edge = &edges[&m.edge];
                let wrong = violations(events, &pairs, edge);
                debug_assert!(
                    wrong.is_empty(),
                    "skew correction broke causality: {wrong:?}"
                );
            }
        }
    }
    measured.into_iter().map(|m| m.estimate).collect()
}

/// The pairs of `edge`'s agreeing set whose server lines, in corrected times, lie
/// outside the client's window.
fn violations(events: &[Event], pairs: &[Pair], edge: &Edge) -> Vec<String> {
    let mut out = Vec::new();
    for &m in &edge.members {
        let p = &pairs[edge.intervals[m].1];
        // The client's window in corrected time: its anchor moved with its host.
        let delta = events[p.anchor as usize].time - p.anchor_time;
        let start = p.start + delta;
        let end = p.end.map(|n| n + delta);
        for &l in &p.lines {
            let e = &events[l as usize];
            let late = end.is_some_and(|n| e.time > n);
            let early = e.time + precision(e) < start;
            if late || early {
                out.push(format!(
                    "{:?} pair at line {} of file {}: server line {} of file {}",
                    p.kind,
                    events[p.anchor as usize].line,
                    events[p.anchor as usize].file,
                    e.line,
                    e.file
                ));
            }
        }
    }
    out
}

fn measure(
    reference: HostId,
    edges: &BTreeMap<(HostId, HostId), Edge>,
    pairs: &[Pair],
) -> Vec<Measured> {
    let mut hosts: Vec<HostId> = edges
        .keys()
        .flat_map(|&(a, b)| [a, b])
        .filter(|&h| h != reference)
        .collect();
    hosts.sort_unstable();
    hosts.dedup();
    let mut out: Vec<Measured> = Vec::new();
    let mut direct: HashMap<HostId, i64> = HashMap::new();
    // Hosts measured directly against the reference.
    for &h in &hosts {
        if let Some(edge) = edges.get(&edge_key(h, reference))
            && edge.usable()
        {
            let iv = edge.of(h, reference);
            let m = measured(h, reference, None, iv, 0, edge, pairs);
            direct.insert(h, m.shift);
            out.push(m);
        }
    }
    // Then through one host measured directly, the best-supported path.
    for &h in &hosts {
        if direct.contains_key(&h) {
            continue;
        }
        let via = direct
            .iter()
            .filter_map(|(&x, &shift)| {
                let edge = edges.get(&edge_key(h, x)).filter(|e| e.usable())?;
                let to_ref = edges.get(&edge_key(x, reference))?;
                let support = edge.members.len().min(to_ref.members.len());
                Some((support, std::cmp::Reverse(x), x, shift, edge, to_ref))
            })
            .max_by_key(|t| (t.0, t.1));
        if let Some((_, _, x, shift, edge, to_ref)) = via {
            let iv = edge.of(h, x);
            let mut m = measured(h, reference, Some(x), iv, shift, edge, pairs);
            let total = iv.plus(to_ref.of(x, reference));
            m.estimate.low_ms = total.lo.map(ms);
            m.estimate.high_ms = total.hi.map(ms);
            out.push(m);
            continue;
        }
        // Not measured: say what its best-supported pairs show.
        if let Some((&(a, b), edge)) = edges
            .iter()
            .filter(|((a, b), _)| *a == h || *b == h)
            .max_by_key(|(_, e)| e.members.len())
        {
            let other = if a == h { b } else { a };
            let mut m = measured(h, other, None, edge.of(h, other), 0, edge, pairs);
            m.shift = 0;
            m.estimate.applied = false;
            out.push(m);
        }
    }
    out.sort_by_key(|m| m.estimate.host);
    out
}

fn ms(ns: i64) -> i64 {
    ns.div_euclid(1_000_000)
}

/// The estimate of `host` against `reference` from `iv` (offset of `host` against the
/// host it was measured from, which is shifted by `base`).
fn measured(
    host: HostId,
    reference: HostId,
    via: Option<HostId>,
    iv: Interval,
    base: i64,
    edge: &Edge,
    pairs: &[Pair],
) -> Measured {
    let total = iv.shifted(base);
    let value = pick(total);
    let applied = edge.usable() && ms(value).abs() > TOLERANCE_MS;
    let mut kinds: BTreeMap<PairKind, usize> = BTreeMap::new();
    for &m in &edge.members {
        *kinds.entry(pairs[edge.intervals[m].1].kind).or_default() += 1;
    }
    let note = describe(edge, total, value, applied);
    let parent = via.unwrap_or(reference);
    Measured {
        estimate: SkewEstimate {
            host,
            reference,
            via,
            offset_ms: ms(value),
            low_ms: total.lo.map(ms),
            high_ms: total.hi.map(ms),
            pairs: edge.members.len(),
            total_pairs: edge.intervals.len(),
            kinds: kinds
                .into_iter()
                .map(|(kind, pairs)| KindCount { kind, pairs })
                .collect(),
            applied,
            note,
        },
        shift: if applied { value } else { 0 },
        edge: edge_key(host, parent),
    }
}

fn describe(edge: &Edge, total: Interval, value: i64, applied: bool) -> String {
    let n = edge.members.len();
    if n < MIN_PAIRS {
        return format!("only {n} causal pair(s) agree ({MIN_PAIRS} needed); not applied");
    }
    if !edge.usable() {
        return format!(
            "causal pairs disagree ({n} of {} agree); not applied",
            edge.intervals.len()
        );
    }
    if total.contains(0) {
        return "clocks agree within the bounds of the causal pairs".to_string();
    }
    if !applied {
        return format!(
            "clocks differ by {:.3} s, within tolerance; not applied",
            value as f64 / 1e9
        );
    }
    let quarter_hours = (value as f64 / 900e9).round();
    if quarter_hours != 0.0 && (value - quarter_hours as i64 * 900_000_000_000).abs() < 60e9 as i64
    {
        return format!(
            "clocks differ by {:.2} h: looks like a time-zone difference; timeline corrected, pass --tz if a host's zone was guessed wrong",
            value as f64 / 3.6e12
        );
    }
    let bound = if total.width().is_none_or(|w| w > TIGHT_NS) {
        "at least "
    } else {
        ""
    };
    format!(
        "clock {bound}{:.1} s {}; timeline corrected",
        (value as f64 / 1e9).abs(),
        if value > 0 { "ahead" } else { "behind" }
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn iv(lo: i64, hi: i64) -> Interval {
        Interval {
            lo: Some(lo),
            hi: Some(hi),
        }
    }

    #[test]
    fn picks_inside_the_interval() {
        assert_eq!(pick(iv(-1_000, 5_000)), 0);
        assert_eq!(pick(iv(94_900_000_000, 95_100_000_000)), 95_000_000_000);
        // Wide or one-sided: the least correction.
        assert_eq!(pick(iv(5_000_000_000, 600_000_000_000)), 5_000_000_000);
        assert_eq!(
            pick(Interval {
                lo: None,
                hi: Some(-95_000_000_000)
            }),
            -95_000_000_000
        );
    }
}
