//! Offsets measured but not corrected, as the joins use them: an event of such a host
//! may lie anywhere within its measured interval, so a call's window on that host is
//! moved and widened by it.

use std::collections::HashMap;

use crate::correlate::skew::{SkewEstimate, TIGHT_NS, TOLERANCE_MS};
use crate::model::HostId;

/// Each uncorrected host's offset interval against its reference (ns).
#[derive(Clone, Debug, Default)]
pub struct ClockSlack {
    by_host: HashMap<HostId, (HostId, i64, i64)>,
}

impl ClockSlack {
    /// No host's clock is known to be off: every window is the plain one.
    pub fn none() -> ClockSlack {
        ClockSlack::default()
    }

    /// The estimates not applied whose interval is two-sided, at most
    /// [`TIGHT_NS`] wide and beyond the tolerance (a correction the pairs were too few
    /// for): a wider or one-sided bound would make every window ambiguous, and an
    /// offset within the tolerance is no offset.
    pub fn from_estimates(estimates: &[SkewEstimate]) -> ClockSlack {
        let by_host = estimates
            .iter()
            .filter(|s| !s.applied)
            .filter_map(|s| {
                let (lo, hi) = (s.low_ms?, s.high_ms?);
                let beyond = lo > TOLERANCE_MS || hi < -TOLERANCE_MS;
                let narrow = (hi - lo) * 1_000_000 <= TIGHT_NS;
                (beyond && narrow)
                    .then_some((s.host, (s.reference, lo * 1_000_000, (hi + 1) * 1_000_000)))
            })
            .collect();
        ClockSlack { by_host }
    }

    /// Whether no window moves.
    pub fn is_empty(&self) -> bool {
        self.by_host.is_empty()
    }

    /// The lowest and highest [`ClockSlack::between`] of `client` and any host (its
    /// own, the measured ones, one never measured).
    pub fn widest(&self, client: HostId) -> (i64, i64) {
        self.by_host
            .keys()
            .copied()
            .chain([HostId::MAX])
            .map(|h| self.between(client, h))
            .fold((0, 0), |(lo, hi), (l, h)| (lo.min(l), hi.max(h)))
    }

    /// How far `server`'s clock may be ahead of `client`'s, `(lo, hi)` in ns: the
    /// difference of their intervals; a host without one counts as on time.
    pub fn between(&self, client: HostId, server: HostId) -> (i64, i64) {
        if client == server {
            return (0, 0);
        }
        let of = |h: HostId| self.by_host.get(&h).map_or((0, 0), |&(_, lo, hi)| (lo, hi));
        let reference = |h: HostId| self.by_host.get(&h).map(|&(r, _, _)| r);
        // Two intervals against different references do not subtract.
        if let (Some(a), Some(b)) = (reference(client), reference(server))
            && a != b
        {
            return (0, 0);
        }
        let (client, server) = (of(client), of(server));
        (server.0 - client.1, server.1 - client.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn estimate(host: HostId, low_ms: i64, high_ms: i64, applied: bool) -> SkewEstimate {
        SkewEstimate {
            host,
            reference: 0,
            via: None,
            offset_ms: None,
            low_ms: Some(low_ms),
            high_ms: Some(high_ms),
            pairs: 2,
            total_pairs: 2,
            kinds: Vec::new(),
            applied,
            note: String::new(),
        }
    }

    #[test]
    fn only_narrow_uncorrected_offsets_beyond_tolerance_move_windows() {
        let slack = ClockSlack::from_estimates(&[
            estimate(1, 94_800, 95_100, false),
            estimate(2, 94_800, 95_100, true),
            estimate(3, -500, 1_500, false),
            estimate(4, 5_000, 600_000, false),
        ]);
        assert_eq!(slack.between(0, 1), (94_800_000_000, 95_101_000_000));
        assert_eq!(slack.between(1, 0), (-95_101_000_000, -94_800_000_000));
        for host in [2, 3, 4] {
            assert_eq!(slack.between(0, host), (0, 0), "host {host}");
        }
        assert_eq!(slack.widest(0), (0, 95_101_000_000));
        assert_eq!(slack.widest(1), (-95_101_000_000, 0));
        assert!(ClockSlack::none().is_empty());
    }
}
