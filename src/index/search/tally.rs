//! What a search's hits add up to: counts per host, service and level (facets) and per
//! span of time (a histogram), over every hit, not only the page shown.

use std::collections::{BTreeMap, HashMap};

use serde::{Deserialize, Serialize};
use tantivy::collector::{Collector, SegmentCollector, SegmentSortKeyComputer, SortKeyComputer};
use tantivy::{DocId, Score, SegmentOrdinal, SegmentReader};

use super::{OrderKey, SegmentTimeOrder, TimeOrder, rfc3339};
use crate::index::meta::IndexMeta;

const NANOS: i64 = 1_000_000_000;
/// A histogram has at most about this many bars.
const MAX_BUCKETS: i64 = 60;
/// Bucket widths offered, in seconds (the first that fits the range is taken).
const WIDTHS: [i64; 22] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
    172_800, 604_800, 2_592_000, 31_536_000,
];
/// The level facet's value for hits whose format has no level.
pub const NO_LEVEL: &str = "(none)";

/// Hits per host, service and level, most first.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Facets {
    pub host: Vec<FacetCount>,
    pub service: Vec<FacetCount>,
    /// Levels as logged (`ERROR`), and `(none)` for hits without one.
    pub level: Vec<FacetCount>,
}

/// One value of a facet and its hits.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FacetCount {
    pub value: String,
    pub count: usize,
}

/// Hits over time, in buckets of one width (chosen from the range: at most about 60).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Histogram {
    /// Each bucket's width in seconds.
    pub bucket_seconds: i64,
    /// The buckets in time order, empty ones included, from the one holding the range's
    /// start (or the first hit) to the one holding its end (or the last hit).
    pub buckets: Vec<Bucket>,
    /// Hits in a file with no time at all (in no bucket).
    pub untimed: usize,
}

/// One bucket: hits at or after `start`, before `end` (UTC, RFC 3339).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize, utoipa::ToSchema)]
pub struct Bucket {
    pub start: String,
    pub end: String,
    pub count: usize,
}

/// Counts per file and per UTC second; levels are counted apart.
#[derive(Debug, Default)]
pub(super) struct Tallies {
    files: HashMap<u32, usize>,
    seconds: HashMap<i64, usize>,
    untimed: usize,
}

impl Tallies {
    pub fn add(&mut self, key: &OrderKey) {
        *self.files.entry(key.file).or_default() += 1;
        if key.utc == i64::MAX {
            self.untimed += 1;
        } else {
            *self.seconds.entry(key.utc.div_euclid(NANOS)).or_default() += 1;
        }
    }

    fn merge(&mut self, other: Tallies) {
        for (file, n) in other.files {
            *self.files.entry(file).or_default() += n;
        }
        for (second, n) in other.seconds {
            *self.seconds.entry(second).or_default() += n;
        }
        self.untimed += other.untimed;
    }

    /// The facets, `levels` counted by the caller (level name → hits).
    pub fn facets(&self, meta: &IndexMeta, levels: BTreeMap<String, usize>) -> Facets {
        let mut host: BTreeMap<String, usize> = BTreeMap::new();
        let mut service: BTreeMap<String, usize> = BTreeMap::new();
        for (file, n) in &self.files {
            let Some(f) = meta.files.get(*file as usize) else {
                continue;
            };
            let name = meta
                .hosts
                .get(f.host as usize)
                .map(|h| h.name.clone())
                .unwrap_or_default();
            *host.entry(name).or_default() += n;
            *service.entry(f.service.clone()).or_default() += n;
        }
        Facets {
            host: ranked(host),
            service: ranked(service),
            level: ranked(levels),
        }
    }

    /// The histogram over `[from, to]` (UTC ns), each end the hits' own when not given.
    pub fn histogram(&self, from: Option<i64>, to: Option<i64>) -> Histogram {
        let lo = from
            .map(|f| f.div_euclid(NANOS))
            .or_else(|| self.seconds.keys().min().copied());
        let hi = to
            .map(|t| t.div_euclid(NANOS))
            .or_else(|| self.seconds.keys().max().copied());
        let (Some(lo), Some(hi)) = (lo, hi) else {
            return self.no_buckets();
        };
        if hi < lo {
            return self.no_buckets();
        }
        let span = hi.saturating_sub(lo).saturating_add(1);
        let width = WIDTHS
            .into_iter()
            .find(|w| ceil_div(span, *w) <= MAX_BUCKETS)
            .unwrap_or_else(|| ceil_div(span, MAX_BUCKETS).max(1));
        let first = lo.div_euclid(width);
        let last = hi.div_euclid(width);
        let mut counts = vec![0usize; usize::try_from(last - first + 1).unwrap_or(0)];
        for (second, n) in &self.seconds {
            let at = second.div_euclid(width) - first;
            if let Some(slot) = usize::try_from(at).ok().and_then(|i| counts.get_mut(i)) {
                *slot += n;
            }
        }
        let time = |bucket: i64| {
            bucket
                .checked_mul(width)
                .and_then(|s| s.checked_mul(NANOS))
                .and_then(rfc3339)
                .unwrap_or_default()
        };
        let buckets = counts
            .into_iter()
            .enumerate()
            .map(|(i, count)| {
                let at = first + i as i64;
                Bucket {
                    start: time(at),
                    end: time(at + 1),
                    count,
                }
            })
            .collect();
        Histogram {
            bucket_seconds: width,
            buckets,
            untimed: self.untimed,
        }
    }
}

impl Tallies {
    fn no_buckets(&self) -> Histogram {
        Histogram {
            bucket_seconds: 1,
            buckets: Vec::new(),
            untimed: self.untimed,
        }
    }
}

/// `a / b` rounded up, for positive `a` and `b`.
fn ceil_div(a: i64, b: i64) -> i64 {
    a / b + i64::from(a % b != 0)
}

fn ranked(counts: BTreeMap<String, usize>) -> Vec<FacetCount> {
    let mut out: Vec<FacetCount> = counts
        .into_iter()
        .filter(|(_, n)| *n > 0)
        .map(|(value, count)| FacetCount { value, count })
        .collect();
    out.sort_by(|a, b| b.count.cmp(&a.count).then_with(|| a.value.cmp(&b.value)));
    out
}

/// Counts every hit of a query per file and UTC second.
pub(super) struct Tally(pub(super) TimeOrder);

pub(super) struct SegmentTally {
    keys: SegmentTimeOrder,
    tallies: Tallies,
}

impl Collector for Tally {
    type Fruit = Tallies;
    type Child = SegmentTally;

    fn for_segment(
        &self,
        _: SegmentOrdinal,
        segment: &SegmentReader,
    ) -> tantivy::Result<SegmentTally> {
        Ok(SegmentTally {
            keys: self.0.segment_sort_key_computer(segment)?,
            tallies: Tallies::default(),
        })
    }

    fn requires_scoring(&self) -> bool {
        false
    }

    fn merge_fruits(&self, fruits: Vec<Tallies>) -> tantivy::Result<Tallies> {
        let mut all = Tallies::default();
        for fruit in fruits {
            all.merge(fruit);
        }
        Ok(all)
    }
}

impl SegmentCollector for SegmentTally {
    type Fruit = Tallies;

    fn collect(&mut self, doc: DocId, _: Score) {
        let key = self.keys.segment_sort_key(doc, 0.0);
        self.tallies.add(&key);
    }

    fn harvest(self) -> Tallies {
        self.tallies
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(file: u32, utc: i64) -> OrderKey {
        OrderKey {
            utc,
            path_rank: 0,
            line: 1,
            file,
            own_time: true,
        }
    }

    #[test]
    fn buckets_cover_the_range_and_sum_to_the_timed_hits() {
        let mut t = Tallies::default();
        // On the hour: buckets start at multiples of their width since the epoch.
        let base = 1_699_999_200 * NANOS;
        for s in [0, 1, 59, 61, 3599] {
            t.add(&key(0, base + s * NANOS + 5));
        }
        t.add(&key(0, i64::MAX));
        let h = t.histogram(None, None);
        assert_eq!(h.bucket_seconds, 60);
        assert_eq!(h.untimed, 1);
        assert_eq!(h.buckets.iter().map(|b| b.count).sum::<usize>(), 5);
        assert!(h.buckets.len() <= 61);
        assert_eq!(h.buckets[0].count, 3);
        // A minute asked for: one-second buckets.
        let h = t.histogram(Some(base), Some(base + 59 * NANOS));
        assert_eq!(h.bucket_seconds, 1);
        assert_eq!(h.buckets.len(), 60);
        assert_eq!(h.buckets[0].start, "2023-11-14T22:00:00Z");
        assert_eq!(h.buckets[0].end, "2023-11-14T22:00:01Z");
        assert_eq!(Tallies::default().histogram(None, None).buckets.len(), 0);
    }
}
