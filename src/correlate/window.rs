//! Time windows over lists of events in event order, found without scanning.
//!
//! Event order is by [`Event::sort_key`](crate::model::Event::sort_key), so the raw
//! times of a list are only nearly sorted (a one-second stamp sorts at the end of its
//! second). The joins select a window as "from the first event not before `from`
//! (binary search), up to the first event after `to`"; [`Times::window`] gives exactly
//! that range, using block maxima instead of a scan, so that callers can then look only
//! at the events of the window they index by kind.

/// Events per block of [`Times::block_max`].
const BLOCK: usize = 64;

/// The times of a list of events, with the maximum of each block of them.
#[derive(Clone, Debug, Default)]
pub struct Times {
    times: Vec<i64>,
    block_max: Vec<i64>,
}

impl Times {
    /// The times of a list, in its order.
    pub fn new(times: Vec<i64>) -> Times {
        let block_max = times
            .chunks(BLOCK)
            .map(|c| c.iter().copied().max().unwrap_or(i64::MIN))
            .collect();
        Times { times, block_max }
    }

    /// `(start, end)`: `start` is where `partition_point(|t| t < from)` puts `from`, and
    /// `end` the first position at or after `start` whose time is after `to` (the list's
    /// length when there is none). A scan from `start` that stops at the first time
    /// after `to` visits exactly `start..end`.
    pub fn window(&self, from: i64, to: i64) -> (usize, usize) {
        let start = self.times.partition_point(|&t| t < from);
        (start, self.first_after(start, to))
    }

    /// The first position at or after `start` whose time is after `to`.
    fn first_after(&self, start: usize, to: i64) -> usize {
        let n = self.times.len();
        let mut i = start;
        while i < n {
            if i.is_multiple_of(BLOCK) && self.block_max[i / BLOCK] <= to {
                i += BLOCK;
                continue;
            }
            if self.times[i] > to {
                return i;
            }
            i += 1;
        }
        n
    }
}

/// The part of `positions` (ascending positions in a list) inside `start..end`.
pub fn within(positions: &[u32], (start, end): (usize, usize)) -> &[u32] {
    let a = positions.partition_point(|&p| (p as usize) < start);
    let b = positions.partition_point(|&p| (p as usize) < end);
    &positions[a..b.max(a)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scan the joins did before: the reference for the window.
    fn scanned(times: &[i64], from: i64, to: i64) -> (usize, usize) {
        let start = times.partition_point(|&t| t < from);
        let end = times[start..]
            .iter()
            .position(|&t| t > to)
            .map_or(times.len(), |p| start + p);
        (start, end)
    }

    #[test]
    fn windows_match_the_scan_on_nearly_sorted_times() {
        // Millisecond stamps and one-second stamps interleaved in sort-key order.
        let mut times = Vec::new();
        let mut x: u64 = 7;
        for k in 0..1000i64 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let t = k * 100;
            times.push(if x >> 60 < 4 { t - t % 1000 } else { t });
        }
        let index = Times::new(times.clone());
        for from in (-500..100_500).step_by(333) {
            for width in [0, 1, 999, 2_000, 17_000, 200_000] {
                assert_eq!(
                    index.window(from, from + width),
                    scanned(&times, from, from + width),
                    "from {from} width {width}"
                );
            }
        }
    }

    #[test]
    fn within_keeps_the_positions_of_the_window() {
        assert_eq!(within(&[1, 4, 9, 12], (4, 12)), &[4, 9]);
        assert_eq!(within(&[1, 4], (5, 3)), &[] as &[u32]);
    }
}
