//! One line per host about its clock, for reports: the offset measured from causal
//! pairs (with its interval and support) beside what the host's clock captures say.

use std::collections::BTreeMap;

use crate::correlate::analysis::Analysis;
use crate::correlate::skew::SkewEstimate;
use crate::model::HostId;

/// `94.900..95.100 s`, `..3.621 s`, `-2.000.. s`.
fn interval(low_ms: Option<i64>, high_ms: Option<i64>) -> String {
    let s = |v: Option<i64>| {
        v.map(|v| format!("{:.3}", v as f64 / 1000.0))
            .unwrap_or_default()
    };
    format!("{}..{} s", s(low_ms), s(high_ms))
}

fn measured(analysis: &Analysis, s: &SkewEstimate) -> String {
    let name = |h: HostId| analysis.host(h).map_or("?", |h| h.hostname.as_str());
    let via = s
        .via
        .map(|v| format!(" via {}", name(v)))
        .unwrap_or_default();
    // Only a pinned offset is stated as a number; bounds are in the interval.
    let offset = s.offset_ms.map_or("offset not pinned".to_string(), |v| {
        format!("{:+.3} s", v as f64 / 1000.0)
    });
    format!(
        "{offset} against {} (from {} of {} causal pairs{via}, interval {}): {}",
        name(s.reference),
        s.pairs,
        s.total_pairs,
        interval(s.low_ms, s.high_ms),
        s.note
    )
}

/// `host: <measured offset>; <capture>; <capture>` for every host with either.
pub fn clock_notes(analysis: &Analysis) -> Vec<String> {
    let mut by_host: BTreeMap<HostId, Vec<String>> = BTreeMap::new();
    for s in &analysis.skew {
        by_host
            .entry(s.host)
            .or_default()
            .push(measured(analysis, s));
    }
    for c in &analysis.clocks {
        by_host.entry(c.host).or_default().push(c.summary());
    }
    by_host
        .into_iter()
        .map(|(h, parts)| {
            let name = analysis.host(h).map_or("?", |h| h.hostname.as_str());
            format!("{name}: {}", parts.join("; "))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn intervals_read_open_sides() {
        assert_eq!(interval(Some(94_900), Some(95_100)), "94.900..95.100 s");
        assert_eq!(interval(None, Some(3_621)), "..3.621 s");
    }
}
