//! Clock skew between hosts, estimated from joined Masakari calls and Nova requests.
//!
//! A request is logged by Nova a few milliseconds after Masakari logs the call, and
//! Apache stamps it to the second; so the delays of many pairs between two hosts centre
//! near zero when their clocks agree. A median away from zero by more than a few seconds
//! is a clock (or time-zone) difference.

use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use crate::correlate::joins::candidates;
use crate::model::{Event, HostId, Project};

/// Offsets up to this size are ordinary request latency and one-second stamps.
pub const TOLERANCE_MS: i64 = 2_000;

/// The estimated clock offset of one host against another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct SkewEstimate {
    /// The host whose clock is measured (the Nova side).
    pub host: HostId,
    /// The host it is measured against (the Masakari side).
    pub reference: HostId,
    /// Median of request time minus call time, in milliseconds: how far `host`'s clock
    /// is ahead of `reference`'s.
    pub offset_ms: i64,
    /// How many joined pairs the estimate rests on.
    pub pairs: usize,
    /// Whether the offset exceeds [`TOLERANCE_MS`], and was corrected in the timeline.
    pub applied: bool,
    /// A reading of the number for a human.
    pub note: String,
}

fn median(values: &mut [i64]) -> i64 {
    values.sort_unstable();
    let mid = values.len() / 2;
    if values.len().is_multiple_of(2) && mid > 0 {
        (values[mid - 1] + values[mid]) / 2
    } else {
        values.get(mid).copied().unwrap_or(0)
    }
}

/// How far apart two clocks may be and still be measured.
const SEARCH_NS: i64 = 10 * 60 * 1_000_000_000;

/// Estimates the offset of each Nova host against the Masakari host it served.
///
/// Pairs are not trusted one by one (with a skewed clock the nearest request is not the
/// right one): every call is set against every request it could have made within ten
/// minutes, and the offset is the delay most of them share, found as the fullest
/// two-second window of all delays.
pub fn estimate(events: &[Event], project_of: impl Fn(&Event) -> Project) -> Vec<SkewEstimate> {
    let mut by_pair: BTreeMap<(HostId, HostId), Vec<i64>> = BTreeMap::new();
    for (candidate, _, _) in candidates(events, project_of, SEARCH_NS, SEARCH_NS) {
        let (call, request) = (
            &events[candidate.call as usize],
            &events[candidate.request as usize],
        );
        if call.host != request.host {
            by_pair
                .entry((request.host, call.host))
                .or_default()
                .push(candidate.delay / 1_000_000);
        }
    }
    by_pair
        .into_iter()
        .filter_map(|((host, reference), mut delays)| {
            delays.sort_unstable();
            let (start, end) = fullest_window(&delays, 2_000)?;
            let mut window = delays[start..end].to_vec();
            let offset_ms = median(&mut window);
            Some(describe(host, reference, offset_ms, window.len()))
        })
        .collect()
}

/// The `[start, end)` range of sorted `values` holding the most values within `width`.
fn fullest_window(values: &[i64], width: i64) -> Option<(usize, usize)> {
    let mut best: Option<(usize, usize)> = None;
    let mut end = 0;
    for start in 0..values.len() {
        while end < values.len() && values[end] - values[start] <= width {
            end += 1;
        }
        if best.is_none_or(|(s, e)| end - start > e - s) {
            best = Some((start, end));
        }
    }
    best
}

fn describe(host: HostId, reference: HostId, offset_ms: i64, pairs: usize) -> SkewEstimate {
    let applied = offset_ms.abs() > TOLERANCE_MS;
    let quarter_hours = (offset_ms as f64 / 900_000.0).round();
    let note = if !applied {
        "clocks agree within request latency".to_string()
    } else if quarter_hours != 0.0 && (offset_ms - quarter_hours as i64 * 900_000).abs() < 60_000 {
        format!(
            "clocks differ by {:.2} h: looks like a time-zone difference; pass --tz if a host's zone was guessed wrong",
            offset_ms as f64 / 3_600_000.0
        )
    } else {
        format!(
            "clocks differ by {:.1} s; timeline corrected",
            offset_ms as f64 / 1000.0
        )
    };
    SkewEstimate {
        host,
        reference,
        offset_ms,
        pairs,
        applied,
        note,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fullest_window_finds_the_common_delay() {
        let delays = [
            -300_000, -120_000, 24_600, 24_900, 25_100, 25_400, 61_000, 200_000,
        ];
        assert_eq!(fullest_window(&delays, 2_000), Some((2, 6)));
        assert_eq!(fullest_window(&[], 2_000), None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&mut [3, 1, 2]), 2);
        assert_eq!(median(&mut [4, 1, 2, 3]), 2);
        assert_eq!(median(&mut []), 0);
    }
}
