//! A read-only map from a key to the event positions that carry it, in three flat
//! lists: the id indexes and the skew pairs' indexes hold every line with a request id
//! (a million at 10 GiB), and a hash map of vectors costs about a hundred bytes a key
//! more than this.
//!
//! [`GroupIndex::collect`] builds one from a pass over the events that it makes three
//! times instead of from a list of `(key, position)` entries: that list (24 to 32
//! bytes an entry) was the largest allocation of the index stage at 10 GiB.

use crate::model::EventId;

/// Keys in order, and each key's positions (ascending) in one list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupIndex<K> {
    keys: Vec<K>,
    /// Where each key's positions end in `positions`.
    ends: Vec<u32>,
    positions: Vec<EventId>,
}

impl<K: Ord> Default for GroupIndex<K> {
    fn default() -> Self {
        GroupIndex {
            keys: Vec::new(),
            ends: Vec::new(),
            positions: Vec::new(),
        }
    }
}

impl<K: Ord> GroupIndex<K> {
    /// The index of the `(key, position)` entries `entries()` yields, positions in
    /// ascending order (the events in their order); a repeated entry counts once.
    ///
    /// `entries` is called three times: for the keys, to count each key's positions,
    /// and to place them; so only the distinct keys and the positions are ever held.
    pub fn collect<I>(entries: impl Fn() -> I) -> GroupIndex<K>
    where
        I: Iterator<Item = (K, EventId)>,
    {
        let keys = distinct_sorted(entries().map(|(key, _)| key));
        // Each key's count, then (summed) where its positions end; `last` drops a
        // repeated entry, which follows its first since positions ascend.
        let mut ends = vec![0u32; keys.len()];
        let mut last = vec![u32::MAX; keys.len()];
        let mut previous = 0;
        for (key, position) in entries() {
            let position = position.0;
            debug_assert!(position >= previous, "entries in position order");
            previous = position;
            let Ok(at) = keys.binary_search(&key) else {
                continue;
            };
            if last[at] != position {
                last[at] = position;
                ends[at] += 1;
            }
        }
        let mut total = 0u32;
        for end in &mut ends {
            total += *end;
            *end = total;
        }
        // `last` becomes each key's next free slot.
        let mut next = last;
        for (at, slot) in next.iter_mut().enumerate() {
            *slot = if at == 0 { 0 } else { ends[at - 1] };
        }
        let mut positions = vec![EventId::default(); total as usize];
        for (key, position) in entries() {
            let Ok(at) = keys.binary_search(&key) else {
                continue;
            };
            let start = if at == 0 { 0 } else { ends[at - 1] };
            let slot = next[at];
            if slot > start && positions[slot as usize - 1] == position {
                continue;
            }
            if let Some(p) = positions.get_mut(slot as usize) {
                *p = position;
                next[at] = slot + 1;
            }
        }
        GroupIndex {
            keys,
            ends,
            positions,
        }
    }

    /// The index of `(key, position)` entries (in any order).
    #[cfg(test)]
    pub fn build(mut entries: Vec<(K, EventId)>) -> GroupIndex<K> {
        entries.sort_unstable();
        entries.dedup();
        let mut keys = Vec::new();
        let mut ends = Vec::new();
        let mut positions = Vec::with_capacity(entries.len());
        for (key, position) in entries {
            if keys.last() != Some(&key) {
                if !keys.is_empty() {
                    ends.push(positions.len() as u32);
                }
                keys.push(key);
            }
            positions.push(position);
        }
        if !keys.is_empty() {
            ends.push(positions.len() as u32);
        }
        keys.shrink_to_fit();
        ends.shrink_to_fit();
        GroupIndex {
            keys,
            ends,
            positions,
        }
    }

    /// The positions of `key`, ascending.
    pub fn get(&self, key: &K) -> Option<&[EventId]> {
        let at = self.keys.binary_search(key).ok()?;
        Some(self.group(at))
    }

    fn group(&self, at: usize) -> &[EventId] {
        let start = if at == 0 {
            0
        } else {
            self.ends[at - 1] as usize
        };
        let end = self.ends[at] as usize;
        &self.positions[start..end]
    }

    /// Every key's positions, by key.
    pub fn groups(&self) -> impl Iterator<Item = (&K, &[EventId])> + '_ {
        self.keys
            .iter()
            .enumerate()
            .map(|(at, key)| (key, self.group(at)))
    }
}

/// The distinct keys in order. Sorted and de-duplicated whenever the list is full
/// before it grows, so that it stays near the number of distinct keys (a request id is
/// on a few lines, an instance on hundreds) rather than the number of entries.
fn distinct_sorted<K: Ord>(keys: impl Iterator<Item = K>) -> Vec<K> {
    let mut out: Vec<K> = Vec::new();
    for key in keys {
        if out.len() == out.capacity() && out.len() >= 1024 {
            out.sort_unstable();
            out.dedup();
        }
        out.push(key);
    }
    out.sort_unstable();
    out.dedup();
    out.shrink_to_fit();
    out
}

/// The positions of a key; none for a key the index does not hold (never a panic).
impl<K: Ord> std::ops::Index<&K> for GroupIndex<K> {
    type Output = [EventId];
    fn index(&self, key: &K) -> &[EventId] {
        self.get(key).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_hold_each_keys_positions_in_order() {
        let entries = [(7, 9), (3, 1), (7, 2), (3, 1), (5, 4)];
        let index = GroupIndex::build(entries.map(|(k, p)| (k, EventId(p))).to_vec());
        assert_eq!(index.get(&7), Some(&[EventId(2), EventId(9)][..]));
        assert_eq!(index.get(&3), Some(&[EventId(1)][..]));
        assert_eq!(index.get(&4), None);
        assert!(index[&4].is_empty());
        assert_eq!(index[&3], [EventId(1)]);
        let all: Vec<(i32, Vec<u32>)> = index
            .groups()
            .map(|(k, p)| (*k, p.iter().map(|id| id.0).collect()))
            .collect();
        assert_eq!(all, vec![(3, vec![1]), (5, vec![4]), (7, vec![2, 9])]);
        assert_eq!(GroupIndex::<u8>::default().groups().count(), 0);
    }

    #[test]
    fn collect_gives_what_build_gives() {
        // Keys repeated often and rarely, more entries than the key list's first
        // compaction, repeated entries, and positions without keys.
        let mut x: u64 = 5;
        let mut entries: Vec<(u32, EventId)> = Vec::new();
        for position in 0..20_000u32 {
            for _ in 0..(position % 3) {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                let key = if x >> 63 == 0 {
                    (x >> 40) as u32 % 50
                } else {
                    (x >> 33) as u32
                };
                entries.push((key, EventId(position)));
                if x & 7 == 0 {
                    entries.push((key, EventId(position)));
                }
            }
        }
        let collected = GroupIndex::collect(|| entries.iter().copied());
        assert_eq!(collected, GroupIndex::build(entries.clone()));
        assert!(collected.groups().count() > 1000);
        let empty = GroupIndex::<u32>::collect(std::iter::empty);
        assert_eq!(empty, GroupIndex::default());
    }
}
