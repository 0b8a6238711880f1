//! The note of an estimate: what its interval says, in words that never claim more
//! than it pins, and never "corrected" unless it was.

use crate::correlate::skew::interval::Interval;
use crate::correlate::skew::{Edge, ID_NS, ID_PAIRS, MIN_PAIRS, pinned};

fn secs(ns: i64) -> f64 {
    ns as f64 / 1e9
}

/// "ahead" or "behind", for an offset of that sign.
fn side(ns: i64) -> &'static str {
    if ns >= 0 { "ahead" } else { "behind" }
}

/// What an interval that does not pin the offset says of it.
fn bounds(total: Interval) -> String {
    const ONE_SIDED: &str = "one-sided: only server-after-client pairs";
    match (total.lo, total.hi) {
        (None, Some(hi)) if hi >= 0 => {
            format!("clock at most {:.1} s ahead ({ONE_SIDED})", secs(hi))
        }
        (None, Some(hi)) => format!("clock at least {:.1} s behind ({ONE_SIDED})", -secs(hi)),
        (Some(lo), None) if lo <= 0 => {
            format!("clock at most {:.1} s behind ({ONE_SIDED})", -secs(lo))
        }
        (Some(lo), None) => format!("clock at least {:.1} s ahead ({ONE_SIDED})", secs(lo)),
        (Some(lo), Some(hi)) if lo > hi => "the agreeing pairs allow no offset".to_string(),
        (Some(lo), Some(hi)) => {
            let span = if lo >= 0 {
                format!("between {:.1} s and {:.1} s ahead", secs(lo), secs(hi))
            } else if hi <= 0 {
                format!("between {:.1} s and {:.1} s behind", -secs(hi), -secs(lo))
            } else {
                format!(
                    "between {:.1} s behind and {:.1} s ahead",
                    -secs(lo),
                    secs(hi)
                )
            };
            let wide = if pinned(total) {
                ""
            } else {
                ": too wide to pin"
            };
            format!("clock {span}{wide}")
        }
        (None, None) => "no bound".to_string(),
    }
}

/// The note of an estimate over `steps` (the edges of the last step of its path) with
/// offset interval `total`, the offset it pins (`None`: bounds only) and whether the
/// timeline was corrected by it.
pub fn describe(steps: &[&Edge], total: Interval, offset: Option<i64>, applied: bool) -> String {
    let n: usize = steps.iter().map(|e| e.members.len()).sum();
    let all: usize = steps.iter().map(|e| e.intervals.len()).sum();
    let not = if applied { "" } else { "; not corrected" };
    let Some(value) = offset else {
        let why = if n < MIN_PAIRS {
            format!(
                "; only {n} causal pair(s) agree ({MIN_PAIRS} needed, or {ID_PAIRS} tied by ids within {:.1} s)",
                secs(ID_NS)
            )
        } else if !steps.iter().all(|e| e.usable()) {
            format!("; causal pairs disagree ({n} of {all} agree)")
        } else {
            String::new()
        };
        return format!("{}{why}{not}", bounds(total));
    };
    if !applied {
        if total.contains(0) {
            return "clocks agree within the bounds of the causal pairs".to_string();
        }
        return format!(
            "clocks differ by {:.3} s, within tolerance{not}",
            secs(value)
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
    // Pinned by few pairs: say by which.
    let by_ids = if steps.iter().any(|e| e.by_ids) {
        " (pinned by causal pairs tied by ids)".to_string()
    } else {
        String::new()
    };
    format!(
        "clock {:.1} s {}{by_ids}; timeline corrected",
        secs(value).abs(),
        side(value)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one_sided(hi: i64) -> Interval {
        Interval {
            lo: None,
            hi: Some(hi),
        }
    }

    #[test]
    fn bounds_say_only_what_they_bound() {
        assert_eq!(
            bounds(one_sided(506_232_000_000)),
            "clock at most 506.2 s ahead (one-sided: only server-after-client pairs)"
        );
        assert_eq!(
            bounds(one_sided(-93_614_000_000)),
            "clock at least 93.6 s behind (one-sided: only server-after-client pairs)"
        );
        assert_eq!(
            bounds(Interval {
                lo: Some(5_000_000_000),
                hi: Some(600_000_000_000)
            }),
            "clock between 5.0 s and 600.0 s ahead: too wide to pin"
        );
        assert_eq!(
            bounds(Interval {
                lo: Some(-298_000_000),
                hi: Some(-163_000_000)
            }),
            "clock between 0.2 s and 0.3 s behind"
        );
    }
}
