//! The time axis: UTC time to x, with long quiet stretches cut out.
//!
//! The times drawn are grouped into stretches of activity; a pause longer than the
//! options' minimum (and among the longest, when there are many) becomes a break of a
//! fixed width, labelled with its length. Each stretch gets a width that grows with its
//! length and with how many things happen in it, so a burst of lines in two seconds is
//! as readable as a minute of slow polling; within a stretch the scale is linear.

const NANOS_PER_SEC: i64 = 1_000_000_000;
/// Width of an axis break.
pub(super) const BREAK_WIDTH: f64 = 44.0;
/// Breaks may take at most this share of the plot's width.
const MAX_BREAK_SHARE: f64 = 0.4;
/// Room kept at both ends of a stretch so marks do not sit on a break.
const STRETCH_PAD: f64 = 10.0;
/// Width a stretch gets per thing drawn in it, and per second it lasts (before the
/// stretches are scaled to the plot).
const WEIGHT_PER_ITEM: f64 = 14.0;
const WEIGHT_PER_SEC: f64 = 1.5;
const MIN_STRETCH_WEIGHT: f64 = 36.0;
/// Tick labels this far apart at least.
const MIN_TICK_GAP_PX: f64 = 70.0;
/// Tick steps, in seconds.
const STEPS: [i64; 18] = [
    1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400,
];

/// A stretch of activity and where it is drawn.
#[derive(Clone, Debug, PartialEq)]
struct Stretch {
    from: i64,
    to: i64,
    x0: f64,
    x1: f64,
}

/// A quiet stretch cut out of the axis.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Break {
    /// Left edge.
    pub x0: f64,
    /// Right edge.
    pub x1: f64,
    /// Length of the pause, nanoseconds.
    pub nanos: i64,
}

/// A tick of the axis.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Tick {
    pub x: f64,
    pub label: String,
}

/// The axis of one picture.
#[derive(Clone, Debug)]
pub(super) struct Scale {
    stretches: Vec<Stretch>,
}

impl Scale {
    /// The axis of `times` (any order, repeats allowed) over `left..right`, breaking
    /// pauses longer than `min_break` nanoseconds.
    pub fn new(times: &[i64], left: f64, right: f64, min_break: i64) -> Scale {
        let mut times = times.to_vec();
        times.sort_unstable();
        times.dedup();
        let (Some(&first), Some(&last)) = (times.first(), times.last()) else {
            return Scale {
                stretches: Vec::new(),
            };
        };
        let width = (right - left).max(1.0);
        let max_breaks = (width * MAX_BREAK_SHARE / BREAK_WIDTH).floor() as usize;
        // The longest pauses become breaks, longest first, as many as fit.
        let mut pauses: Vec<(i64, usize)> = times
            .windows(2)
            .enumerate()
            .map(|(i, w)| (w[1] - w[0], i))
            .filter(|&(gap, _)| gap > min_break.max(1))
            .collect();
        pauses.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        pauses.truncate(max_breaks);
        let mut cut_after: Vec<usize> = pauses.into_iter().map(|(_, i)| i).collect();
        cut_after.sort_unstable();
        // Stretches between the cuts, with how many times fall in each.
        let mut spans: Vec<(i64, i64, usize)> = Vec::new();
        let mut start = 0;
        for &i in &cut_after {
            spans.push((times[start], times[i], i + 1 - start));
            start = i + 1;
        }
        spans.push((times[start], last, times.len() - start));
        let weights: Vec<f64> = spans
            .iter()
            .map(|&(from, to, count)| {
                let secs = (to - from) as f64 / NANOS_PER_SEC as f64;
                (count as f64 * WEIGHT_PER_ITEM + secs * WEIGHT_PER_SEC).max(MIN_STRETCH_WEIGHT)
            })
            .collect();
        let total: f64 = weights.iter().sum();
        let room = (width - BREAK_WIDTH * (spans.len() - 1) as f64).max(1.0);
        let mut x = left;
        let mut stretches = Vec::with_capacity(spans.len());
        for (&(from, to, _), weight) in spans.iter().zip(&weights) {
            let w = room * weight / total;
            stretches.push(Stretch {
                from,
                to,
                x0: x,
                x1: x + w,
            });
            x += w + BREAK_WIDTH;
        }
        debug_assert!(first <= last);
        Scale { stretches }
    }

    /// The x of a UTC time; a time in a break is placed within it, one outside the
    /// axis at its nearest end.
    pub fn x(&self, t: i64) -> f64 {
        let Some(first) = self.stretches.first() else {
            return 0.0;
        };
        if t < first.from {
            return first.x0 + STRETCH_PAD.min((first.x1 - first.x0) / 2.0);
        }
        for (i, s) in self.stretches.iter().enumerate() {
            if t <= s.to {
                return inside(s, t);
            }
            if let Some(next) = self.stretches.get(i + 1)
                && t < next.from
            {
                let share = (t - s.to) as f64 / (next.from - s.to).max(1) as f64;
                let a = inside(s, s.to);
                let b = inside(next, next.from);
                return a + (b - a) * share;
            }
        }
        self.stretches
            .last()
            .map_or(0.0, |s| inside(s, s.to.min(t)))
    }

    /// The breaks, left to right.
    pub fn breaks(&self) -> Vec<Break> {
        self.stretches
            .windows(2)
            .map(|w| Break {
                x0: w[0].x1,
                x1: w[1].x0,
                nanos: w[1].from - w[0].to,
            })
            .collect()
    }

    /// Tick marks with their labels, left to right, none overlapping: in each stretch
    /// the round times of a step that leaves room for the labels; a stretch too short
    /// for any round time gets its start.
    pub fn ticks(&self, char_width: f64) -> Vec<Tick> {
        let mut out: Vec<Tick> = Vec::new();
        let mut last_right = f64::NEG_INFINITY;
        for s in &self.stretches {
            let span = (s.to - s.from).max(0);
            let usable = (s.x1 - s.x0 - 2.0 * STRETCH_PAD).max(0.0);
            let px_per_ns = if span > 0 { usable / span as f64 } else { 0.0 };
            let step = STEPS
                .iter()
                .map(|&s| s * NANOS_PER_SEC)
                .find(|&step| step as f64 * px_per_ns >= MIN_TICK_GAP_PX);
            let mut candidates: Vec<(i64, bool)> = Vec::new();
            if let Some(step) = step.filter(|_| span > 0) {
                let mut t = s.from.div_euclid(step) * step;
                if t < s.from {
                    t += step;
                }
                while t <= s.to {
                    candidates.push((t, step >= 60 * NANOS_PER_SEC));
                    t += step;
                }
            }
            if candidates.is_empty() {
                candidates.push((s.from, false));
            }
            for (t, minutes) in candidates {
                let label = clock(t, !minutes);
                let x = inside(s, t);
                let half = label.len() as f64 * char_width / 2.0;
                if x - half < last_right + 8.0 {
                    continue;
                }
                last_right = x + half;
                out.push(Tick { x, label });
            }
        }
        out
    }
}

fn inside(s: &Stretch, t: i64) -> f64 {
    let pad = STRETCH_PAD.min((s.x1 - s.x0) / 2.0);
    let (a, b) = (s.x0 + pad, s.x1 - pad);
    if s.to <= s.from {
        return (a + b) / 2.0;
    }
    a + (b - a) * (t - s.from) as f64 / (s.to - s.from) as f64
}

/// `HH:MM:SS` (or `HH:MM`) of a UTC time.
pub(super) fn clock(nanos: i64, seconds: bool) -> String {
    let day_secs = nanos.div_euclid(NANOS_PER_SEC).rem_euclid(86_400);
    let (h, m, s) = (day_secs / 3600, day_secs / 60 % 60, day_secs % 60);
    if seconds {
        format!("{h:02}:{m:02}:{s:02}")
    } else {
        format!("{h:02}:{m:02}")
    }
}

/// A pause as an axis break labels it: `45 s`, `1 min 52 s`, `13 min`, `2 h 05 min`.
pub(super) fn pause(nanos: i64) -> String {
    let secs = (nanos.max(0) + NANOS_PER_SEC / 2) / NANOS_PER_SEC;
    match secs {
        0..120 => format!("{secs} s"),
        120..600 if secs % 60 != 0 => format!("{} min {} s", secs / 60, secs % 60),
        120..7200 => format!("{} min", (secs + 30) / 60),
        _ => format!("{} h {:02} min", secs / 3600, secs / 60 % 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const S: i64 = NANOS_PER_SEC;

    #[test]
    fn a_long_pause_is_cut_and_order_is_kept() {
        // A burst, 13 minutes of nothing, another burst.
        let times = [0, S / 2, S, 2 * S, 13 * 60 * S, 13 * 60 * S + 3 * S];
        let scale = Scale::new(&times, 100.0, 1100.0, 30 * S);
        let breaks = scale.breaks();
        assert_eq!(breaks.len(), 1);
        assert_eq!(pause(breaks[0].nanos), "13 min");
        let xs: Vec<f64> = times.iter().map(|&t| scale.x(t)).collect();
        assert!(xs.windows(2).all(|w| w[0] < w[1]), "{xs:?}");
        // The burst of two seconds is given real room.
        assert!(xs[3] - xs[0] > 100.0, "{xs:?}");
        assert!(xs.iter().all(|&x| (100.0..=1100.0).contains(&x)));
        // A time inside the break sits inside it.
        let mid = scale.x(6 * 60 * S);
        assert!(mid > breaks[0].x0 && mid < breaks[0].x1 + STRETCH_PAD);
    }

    #[test]
    fn short_pauses_are_not_cut() {
        let times = [0, 10 * S, 25 * S, 40 * S];
        let scale = Scale::new(&times, 0.0, 800.0, 30 * S);
        assert!(scale.breaks().is_empty());
        let ticks = scale.ticks(6.6);
        assert!(ticks.len() >= 3, "{ticks:?}");
        assert!(
            ticks
                .windows(2)
                .all(|w| w[1].x - w[0].x >= MIN_TICK_GAP_PX - 1.0)
        );
    }

    #[test]
    fn ticks_read_as_clock_times_and_do_not_overlap() {
        let base = (19 * 3600 + 48 * 60) * S;
        let times = [base, base + 30 * S, base + 6 * 60 * S];
        let scale = Scale::new(&times, 0.0, 900.0, 10 * 60 * S);
        let ticks = scale.ticks(6.6);
        assert!(ticks.iter().any(|t| t.label == "19:50:00"), "{ticks:?}");
        let half = 8.0 * 6.6 / 2.0;
        assert!(ticks.windows(2).all(|w| w[1].x - w[0].x > 2.0 * half));
    }

    #[test]
    fn pauses_read_like_an_engineer_writes_them() {
        assert_eq!(pause(45 * S), "45 s");
        assert_eq!(pause(112 * S), "112 s");
        assert_eq!(pause(148 * S), "2 min 28 s");
        assert_eq!(pause(180 * S), "3 min");
        assert_eq!(pause(47 * 60 * S + 10 * S), "47 min");
        assert_eq!(pause(2 * 3600 * S + 5 * 60 * S), "2 h 05 min");
        assert_eq!(
            clock((19 * 3600 + 51 * 60 + 12) * S + 309, true),
            "19:51:12"
        );
    }

    #[test]
    fn breaks_take_at_most_their_share_of_the_width() {
        let times: Vec<i64> = (0..100).map(|i| i * 3600 * S).collect();
        let scale = Scale::new(&times, 0.0, 1000.0, 60 * S);
        assert!(scale.breaks().len() as f64 * BREAK_WIDTH <= 1000.0 * MAX_BREAK_SHARE);
    }
}
