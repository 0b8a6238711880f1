//! Order-preserving pairing of one group's calls with its requests: the dynamic program
//! that picks most pairs first, then the least total delay.

use super::{Join, Paired};
use crate::model::{EventId, Uuid};

/// The cost of a pair in the pairing: late is normal, early (clock granularity) is
/// counted four times.
fn pair_cost(delay: i64) -> i64 {
    if delay < 0 { delay.abs() * 4 } else { delay }
}

/// Order-preserving pairing of one group's calls and requests (dynamic programming over
/// the calls and requests sorted by time): most pairs first, then the least total delay.
///
/// The calls and requests fall into blocks that no candidate crosses (a poll a second
/// for hours is thousands of short blocks); each block gets its own table, so time and
/// memory follow the blocks' sizes, not the group's. The walk through the tables takes
/// the same steps as one walk through the whole table would (see `pair_whole`).
pub(super) fn pair_in_order(group: &[Paired], instance: Option<Uuid>) -> Vec<Join> {
    let mut calls: Vec<EventId> = group.iter().map(|(c, _)| c.call).collect();
    let mut requests: Vec<EventId> = group.iter().map(|(c, _)| c.request).collect();
    calls.sort_unstable();
    calls.dedup();
    requests.sort_unstable();
    requests.dedup();
    let lookup: std::collections::HashMap<(EventId, EventId), i64> = group
        .iter()
        .map(|(c, _)| ((c.call, c.request), c.delay))
        .collect();
    // The lowest and highest request (by position) of each call's candidates.
    let n = calls.len();
    let mut low = vec![usize::MAX; n];
    let mut high = vec![0usize; n];
    for (c, _) in group {
        let (Ok(i), Ok(j)) = (
            calls.binary_search(&c.call),
            requests.binary_search(&c.request),
        ) else {
            continue;
        };
        low[i] = low[i].min(j);
        high[i] = high[i].max(j);
    }
    // A block ends after call `a` when every candidate of the calls up to `a` comes
    // before every candidate of the later calls (every request has a candidate, so the
    // requests split there too).
    let mut suffix_low = vec![usize::MAX; n + 1];
    for i in (0..n).rev() {
        suffix_low[i] = suffix_low[i + 1].min(low[i]);
    }
    let mut out = Vec::new();
    let (mut call_start, mut request_start, mut reach) = (0, 0, 0);
    // Requests of earlier blocks the walk has not passed yet when it enters a block.
    let mut pending = 0;
    for (a, &h) in high.iter().enumerate() {
        reach = reach.max(h);
        if a + 1 < n && reach >= suffix_low[a + 1] {
            continue;
        }
        let request_end = if a + 1 < n {
            suffix_low[a + 1]
        } else {
            requests.len()
        };
        let block = Block {
            calls: &calls[call_start..=a],
            requests: &requests[request_start..request_end],
            lookup: &lookup,
            instance,
        };
        pending = block.walk(pending, &mut out);
        call_start = a + 1;
        request_start = request_end;
    }
    out
}

/// The calls and requests of one block of a group, with the group's candidates.
struct Block<'a> {
    calls: &'a [EventId],
    requests: &'a [EventId],
    lookup: &'a std::collections::HashMap<(EventId, EventId), i64>,
    /// The instance the group's calls name.
    instance: Option<Uuid>,
}

impl Block<'_> {
    /// Pairs the block, entered with `pending` requests of earlier blocks not passed
    /// yet; returns how many requests the walk leaves unpassed for the next block.
    fn walk(&self, mut pending: usize, out: &mut Vec<Join>) -> usize {
        let (n, m) = (self.calls.len(), self.requests.len());
        // score[i][j]: best (pairs, -cost) using calls[i..] and requests[j..].
        let mut score = vec![vec![(0i64, 0i64); m + 1]; n + 1];
        for i in (0..n).rev() {
            for j in (0..m).rev() {
                let mut best = score[i + 1][j].max(score[i][j + 1]);
                if let Some(delay) = self.lookup.get(&(self.calls[i], self.requests[j])) {
                    let (pairs, neg_cost) = score[i + 1][j + 1];
                    best = best.max((pairs + 1, neg_cost - pair_cost(*delay) / 1_000_000));
                }
                score[i][j] = best;
            }
        }
        let (mut i, mut j) = (0, 0);
        // An earlier block's request has no candidate here: the whole-table walk skips
        // the call when that loses nothing, else the request.
        while pending > 0 && i < n {
            if score[i][0] == score[i + 1][0] {
                i += 1;
            } else {
                pending -= 1;
            }
        }
        if i == n {
            return pending + m;
        }
        while i < n && j < m {
            if let Some(delay) = self.lookup.get(&(self.calls[i], self.requests[j])) {
                let (pairs, neg_cost) = score[i + 1][j + 1];
                if score[i][j] == (pairs + 1, neg_cost - pair_cost(*delay) / 1_000_000) {
                    out.push(Join {
                        call: self.calls[i],
                        request: self.requests[j],
                        instance: self.instance,
                        delay_ms: delay / 1_000_000,
                    });
                    i += 1;
                    j += 1;
                    continue;
                }
            }
            if score[i][j] == score[i + 1][j] {
                i += 1;
            } else {
                j += 1;
            }
        }
        // Out of calls: the rest of the requests are still to pass. Out of requests:
        // the rest of the calls have no candidate later on, and are skipped.
        m - j
    }
}

#[cfg(test)]
/// The pairing of one group in one table, as it was before blocks: the reference for
/// [`pair_in_order`]. Order-preserving pairing of one group's calls and requests (dynamic programming over
/// the calls and requests sorted by time): most pairs first, then the least total delay.
pub(super) fn pair_whole(group: &[Paired], instance: Option<Uuid>) -> Vec<Join> {
    let mut calls: Vec<EventId> = group.iter().map(|(c, _)| c.call).collect();
    let mut requests: Vec<EventId> = group.iter().map(|(c, _)| c.request).collect();
    calls.sort_unstable();
    calls.dedup();
    requests.sort_unstable();
    requests.dedup();
    let lookup: std::collections::HashMap<(EventId, EventId), i64> = group
        .iter()
        .map(|(c, _)| ((c.call, c.request), c.delay))
        .collect();
    let (n, m) = (calls.len(), requests.len());
    // score[i][j]: best (pairs, -cost) using calls[i..] and requests[j..].
    let mut score = vec![vec![(0i64, 0i64); m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let mut best = score[i + 1][j].max(score[i][j + 1]);
            if let Some(delay) = lookup.get(&(calls[i], requests[j])) {
                let cost = pair_cost(*delay);
                let (pairs, neg_cost) = score[i + 1][j + 1];
                best = best.max((pairs + 1, neg_cost - cost / 1_000_000));
            }
            score[i][j] = best;
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if let Some(delay) = lookup.get(&(calls[i], requests[j])) {
            let cost = pair_cost(*delay);
            let (pairs, neg_cost) = score[i + 1][j + 1];
            if score[i][j] == (pairs + 1, neg_cost - cost / 1_000_000) {
                out.push(Join {
                    call: calls[i],
                    request: requests[j],
                    instance,
                    delay_ms: delay / 1_000_000,
                });
                i += 1;
                j += 1;
                continue;
            }
        }
        if score[i][j] == score[i + 1][j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}
