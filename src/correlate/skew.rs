//! Clock skew between hosts, bounded by causal pairs and corrected only when enough
//! of them agree.
//!
//! Each pair (see [`pairs`]) bounds how far the server's clock is ahead of the
//! client's. Per two hosts, the offset most pairs allow is found and the pairs that
//! allow it are intersected. Hosts joined by pinned intervals (two-sided, narrow, well
//! supported) form groups; each group keeps one reference clock (the Masakari engine
//! that calls Nova most, else its host in most pairs) and every other host of the
//! group is measured against it along the best-supported path of pinned intervals
//! (see [`measure`]). A host with pairs but no pinned interval is reported against
//! its best-supported neighbour with the bounds it has, and never corrected.

pub mod interval;
pub mod measure;
pub mod notes;
pub mod pairs;
pub mod reading;

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};

use crate::model::inventory::FileInfo;
use crate::model::{Event, HostId};
use interval::{Interval, consensus};
use pairs::{Pair, PairKind, Tie, causal_pairs, precision};

/// Offsets up to this size are not corrected: a shift this small moves lines within
/// ordinary request latency.
pub const TOLERANCE_MS: i64 = 2_000;
/// How many pairs must agree before a host's clock is corrected (unless pairs tied by
/// ids pin it, see [`ID_PAIRS`]).
pub const MIN_PAIRS: usize = 3;
/// How many pairs tied by ids (see [`Tie`]) pin an offset on their own, when every
/// id-tied pair of the two hosts agrees and together they allow at most [`ID_NS`].
pub const ID_PAIRS: usize = 2;
/// How wide the offsets the id-tied pairs allow together may be for them to pin it.
pub const ID_NS: i64 = 100_000_000;
/// An interval up to this wide pins the offset (read as its midpoint, or zero when it
/// allows zero); a wider or one-sided one only bounds it.
pub const TIGHT_NS: i64 = 10_000_000_000;

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
    /// The host it is measured against (its group's reference, or the host it shares
    /// most pairs with when no pinned interval joins it to a group).
    pub reference: HostId,
    /// The host measured against the reference that the estimate goes through, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub via: Option<HostId>,
    /// How far `host`'s clock is ahead of `reference`'s, in milliseconds, when the
    /// interval pins it (subtracted from `host`'s times when applied); `None` when the
    /// pairs only bound it (one-sided or wide interval).
    pub offset_ms: Option<i64>,
    /// Lowest offset the agreeing pairs allow (ms); `None`: unbounded.
    pub low_ms: Option<i64>,
    /// Highest offset the agreeing pairs allow (ms); `None`: unbounded.
    pub high_ms: Option<i64>,
    /// How many causal pairs agree on the interval (of the last step of the path).
    pub pairs: usize,
    /// How many causal pairs were measured between the hosts of that step.
    pub total_pairs: usize,
    /// The agreeing pairs by kind.
    pub kinds: Vec<KindCount>,
    /// Whether the timeline was corrected by `offset_ms`.
    pub applied: bool,
    /// A reading of the numbers for a human.
    pub note: String,
}

/// The pairs between two hosts `(a, b)`, `a < b`, as offsets of `b` against `a`.
#[derive(Debug)]
pub struct Edge {
    /// Every pair's interval, and the pair's index.
    intervals: Vec<(Interval, usize)>,
    /// The intersection of the agreeing pairs.
    agreed: Interval,
    /// Indices (into `intervals`) of the agreeing pairs.
    members: Vec<usize>,
    /// The agreeing set is the one [`ID_PAIRS`] id-tied pairs pin (fewer than
    /// [`MIN_PAIRS`] pairs would not do).
    by_ids: bool,
}

impl Edge {
    /// Enough pairs (or id-tied ones that pin the offset), and most of them agree.
    fn usable(&self) -> bool {
        let n = self.members.len();
        (self.by_ids || n >= MIN_PAIRS) && n * 4 >= self.intervals.len() * 3
    }

    /// Usable, and the agreed interval pins the offset.
    fn pinned(&self) -> bool {
        self.usable() && pinned(self.agreed)
    }

    /// The agreed interval as the offset of `host` against `other`.
    fn of(&self, host: HostId, other: HostId) -> Interval {
        if host > other {
            self.agreed
        } else {
            self.agreed.negated()
        }
    }

    /// The agreeing pairs by kind.
    fn kinds(&self, pairs: &[Pair]) -> Vec<KindCount> {
        let mut kinds: BTreeMap<PairKind, usize> = BTreeMap::new();
        for &m in &self.members {
            *kinds.entry(pairs[self.intervals[m].1].kind).or_default() += 1;
        }
        kinds
            .into_iter()
            .map(|(kind, pairs)| KindCount { kind, pairs })
            .collect()
    }
}

/// Two-sided, not empty, and at most [`TIGHT_NS`] wide.
fn pinned(iv: Interval) -> bool {
    iv.width().is_some_and(|w| (0..=TIGHT_NS).contains(&w))
}

/// The offset a pinned interval reads as: zero when it allows zero, else its
/// midpoint; `None` for an interval that only bounds the offset.
fn value(iv: Interval) -> Option<i64> {
    if !pinned(iv) {
        return None;
    }
    if iv.contains(0) {
        return Some(0);
    }
    let (lo, hi) = iv.lo.zip(iv.hi)?;
    Some(lo + (hi - lo) / 2)
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
            let agreed = intersection(&only, &members);
            let mut edge = Edge {
                intervals,
                agreed,
                members,
                by_ids: false,
            };
            // Where the pairs of every kind do not pin the offset, id-tied ones may.
            if !edge.pinned() {
                let ties: Vec<Tie> = edge.intervals.iter().map(|&(_, i)| pairs[i].tie).collect();
                if let Some(members) = pinned_by_ids(&only, &ties) {
                    edge.agreed = intersection(&only, &members);
                    edge.members = members;
                    edge.by_ids = true;
                }
            }
            Some((key, edge))
        })
        .collect()
}

/// What the intervals at `members` all allow.
fn intersection(intervals: &[Interval], members: &[usize]) -> Interval {
    members
        .iter()
        .fold(Interval::ALL, |acc, &m| acc.intersect(intervals[m]))
}

/// The pairs (indices) that agree with the offset the id-tied ones pin: at least
/// [`ID_PAIRS`] of them, every id-tied pair agreeing, allowing together a two-sided
/// interval at most [`ID_NS`] wide; its offset (zero when allowed, else the middle)
/// is then what every agreeing pair, of any tie, must allow. `None` when they do not
/// pin it. Pairs tied by time alone never pin an offset this way: a join by time
/// under skew may be the wrong request.
fn pinned_by_ids(intervals: &[Interval], ties: &[Tie]) -> Option<Vec<usize>> {
    let ids: Vec<usize> = (0..intervals.len())
        .filter(|&i| ties[i] == Tie::Ids)
        .collect();
    if ids.len() < ID_PAIRS {
        return None;
    }
    let together = intersection(intervals, &ids);
    let width = together.width()?;
    if !(0..=ID_NS).contains(&width) {
        return None;
    }
    let x = value(together)?;
    let members: Vec<usize> = (0..intervals.len())
        .filter(|&i| intervals[i].contains(x))
        .collect();
    (members.len() * 4 >= intervals.len() * 3).then_some(members)
}

fn edge_key(a: HostId, b: HostId) -> (HostId, HostId) {
    (a.min(b), a.max(b))
}

/// How many of Masakari's Nova calls each host logs (the engines).
fn calls_per_host(events: &[Event]) -> HashMap<HostId, usize> {
    let mut calls: HashMap<HostId, usize> = HashMap::new();
    for e in events {
        if e.logger() == Some("masakari.compute.nova") {
            *calls.entry(e.host).or_default() += 1;
        }
    }
    calls
}

/// Estimates every host's clock offset against its group's reference host, corrects
/// the events of the hosts whose offset is pinned by enough agreeing causal pairs, and
/// returns the estimates. `events` must be in time order; they are no longer sorted
/// afterwards when a correction was applied. `files` are the analysis' files (by file
/// id).
pub fn correct(events: &mut [Event], files: &[FileInfo]) -> Vec<SkewEstimate> {
    let pairs = causal_pairs(events, files);
    if pairs.is_empty() {
        return Vec::new();
    }
    let edges = edges(&pairs);
    let measured = measure::measure(&edges, &pairs, &calls_per_host(events));
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
/// outside the client's window (the first and the last line decide: a host's lines
/// move together).
fn violations(events: &[Event], pairs: &[Pair], edge: &Edge) -> Vec<String> {
    let mut out = Vec::new();
    for &m in &edge.members {
        let p = &pairs[edge.intervals[m].1];
        // The client's window in corrected time: its anchor moved with its host.
        let delta = events[p.anchor.index()].time - p.anchor_time;
        let start = p.start + delta;
        let end = p.end.map(|n| n + delta);
        let mut lines = vec![p.first_line, p.last_line];
        lines.dedup();
        for l in lines {
            let e = &events[l.index()];
            let late = end.is_some_and(|n| e.time > n);
            let early = e.time + precision(e) < start;
            if late || early {
                out.push(format!(
                    "{:?} pair at line {} of file {}: server line {} of file {}",
                    p.kind,
                    events[p.anchor.index()].line,
                    events[p.anchor.index()].file,
                    e.line,
                    e.file
                ));
            }
        }
    }
    out
}

fn ms(ns: i64) -> i64 {
    ns.div_euclid(1_000_000)
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
    fn only_a_pinned_interval_has_a_value() {
        assert_eq!(value(iv(-1_000, 5_000)), Some(0));
        assert_eq!(
            value(iv(94_900_000_000, 95_100_000_000)),
            Some(95_000_000_000)
        );
        // Wide, one-sided or empty: bounds only.
        assert_eq!(value(iv(5_000_000_000, 600_000_000_000)), None);
        assert_eq!(
            value(Interval {
                lo: None,
                hi: Some(-95_000_000_000)
            }),
            None
        );
        assert_eq!(value(iv(3, 1)), None);
    }
}
