//! Intervals of possible offsets, and the offset most of them allow.

/// A closed interval of offsets in nanoseconds; `None` is unbounded on that side.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Interval {
    /// Lowest offset allowed.
    pub lo: Option<i64>,
    /// Highest offset allowed.
    pub hi: Option<i64>,
}

impl Interval {
    /// Every offset.
    pub const ALL: Interval = Interval { lo: None, hi: None };

    /// Whether `x` lies inside.
    pub fn contains(&self, x: i64) -> bool {
        self.lo.is_none_or(|lo| lo <= x) && self.hi.is_none_or(|hi| x <= hi)
    }

    /// The offsets of the other side (`-x` for every `x`).
    pub fn negated(self) -> Interval {
        Interval {
            lo: self.hi.map(|h| -h),
            hi: self.lo.map(|l| -l),
        }
    }

    /// Every `x + by`.
    pub fn shifted(self, by: i64) -> Interval {
        Interval {
            lo: self.lo.map(|l| l + by),
            hi: self.hi.map(|h| h + by),
        }
    }

    /// Every `a + b` of `a` in `self` and `b` in `other`.
    pub fn plus(self, other: Interval) -> Interval {
        Interval {
            lo: self.lo.zip(other.lo).map(|(a, b)| a + b),
            hi: self.hi.zip(other.hi).map(|(a, b)| a + b),
        }
    }

    /// What both allow (may be empty: `lo > hi`).
    pub fn intersect(self, other: Interval) -> Interval {
        let pick = |a: Option<i64>, b: Option<i64>, f: fn(i64, i64) -> i64| match (a, b) {
            (Some(a), Some(b)) => Some(f(a, b)),
            (a, b) => a.or(b),
        };
        Interval {
            lo: pick(self.lo, other.lo, i64::max),
            hi: pick(self.hi, other.hi, i64::min),
        }
    }

    /// The width, when both sides are bounded.
    pub fn width(&self) -> Option<i64> {
        self.lo.zip(self.hi).map(|(l, h)| h - l)
    }
}

/// The offset the most intervals allow (zero when it is among them, else the one
/// nearest zero), with the indices of the intervals that allow it.
pub fn consensus(intervals: &[Interval]) -> Option<(i64, Vec<usize>)> {
    if intervals.is_empty() {
        return None;
    }
    let mut los: Vec<i64> = intervals.iter().map(|i| i.lo.unwrap_or(i64::MIN)).collect();
    let mut his: Vec<i64> = intervals.iter().map(|i| i.hi.unwrap_or(i64::MAX)).collect();
    los.sort_unstable();
    his.sort_unstable();
    // Intervals with lo <= x, minus those with hi < x.
    let coverage = |x: i64| los.partition_point(|&l| l <= x) - his.partition_point(|&h| h < x);
    let mut best = (coverage(0), 0i64);
    for &x in los.iter().chain(his.iter()) {
        if x == i64::MIN || x == i64::MAX {
            continue;
        }
        let c = coverage(x);
        if c > best.0 || (c == best.0 && x.unsigned_abs() < best.1.unsigned_abs()) {
            best = (c, x);
        }
    }
    if best.0 == 0 {
        return None;
    }
    let members = (0..intervals.len())
        .filter(|&i| intervals[i].contains(best.1))
        .collect();
    Some((best.1, members))
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
    fn the_most_allowed_offset_wins_over_an_outlier() {
        let all = [iv(94, 96), iv(95, 99), iv(90, 95), iv(-300, -200)];
        let (x, members) = consensus(&all).unwrap();
        assert_eq!(x, 95);
        assert_eq!(members, [0, 1, 2]);
    }

    #[test]
    fn zero_wins_a_tie() {
        let all = [iv(-1, 1), iv(5, 6)];
        assert_eq!(consensus(&all).unwrap(), (0, vec![0]));
        let half = [
            Interval {
                lo: None,
                hi: Some(-95),
            },
            iv(-97, -94),
        ];
        assert_eq!(consensus(&half).unwrap(), (-95, vec![0, 1]));
        assert_eq!(consensus(&[]), None);
    }

    #[test]
    fn arithmetic() {
        let a = iv(1, 3);
        assert_eq!(a.negated(), iv(-3, -1));
        assert_eq!(a.shifted(10), iv(11, 13));
        assert_eq!(a.plus(iv(10, 20)), iv(11, 23));
        assert_eq!(a.intersect(iv(2, 9)), iv(2, 3));
        assert!(Interval::ALL.contains(i64::MIN));
        assert_eq!(a.width(), Some(2));
    }
}
