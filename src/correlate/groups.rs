//! A read-only map from a key to the event positions that carry it, in three flat
//! lists: the id indexes and the skew pairs' indexes hold every line with a request id
//! (a million at 10 GiB), and a hash map of vectors costs about a hundred bytes a key
//! more than this.

/// Keys in order, and each key's positions (ascending) in one list.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GroupIndex<K> {
    keys: Vec<K>,
    /// Where each key's positions end in `positions`.
    ends: Vec<u32>,
    positions: Vec<u32>,
}

impl<K: Ord> Default for GroupIndex<K> {
    fn default() -> Self {
        GroupIndex::build(Vec::new())
    }
}

impl<K: Ord> GroupIndex<K> {
    /// The index of `(key, position)` entries (in any order).
    pub fn build(mut entries: Vec<(K, u32)>) -> GroupIndex<K> {
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
    pub fn get(&self, key: &K) -> Option<&[u32]> {
        let at = self.keys.binary_search(key).ok()?;
        Some(self.group(at))
    }

    fn group(&self, at: usize) -> &[u32] {
        let start = if at == 0 {
            0
        } else {
            self.ends[at - 1] as usize
        };
        let end = self.ends[at] as usize;
        &self.positions[start..end]
    }

    /// Every key's positions, by key.
    pub fn groups(&self) -> impl Iterator<Item = (&K, &[u32])> + '_ {
        self.keys
            .iter()
            .enumerate()
            .map(|(at, key)| (key, self.group(at)))
    }
}

/// The positions of a key; none for a key the index does not hold (never a panic).
impl<K: Ord> std::ops::Index<&K> for GroupIndex<K> {
    type Output = [u32];
    fn index(&self, key: &K) -> &[u32] {
        self.get(key).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_hold_each_keys_positions_in_order() {
        let index = GroupIndex::build(vec![(7, 9), (3, 1), (7, 2), (3, 1), (5, 4)]);
        assert_eq!(index.get(&7), Some(&[2, 9][..]));
        assert_eq!(index.get(&3), Some(&[1][..]));
        assert_eq!(index.get(&4), None);
        assert!(index[&4].is_empty());
        assert_eq!(index[&3], [1]);
        let all: Vec<(i32, Vec<u32>)> = index.groups().map(|(k, p)| (*k, p.to_vec())).collect();
        assert_eq!(all, vec![(3, vec![1]), (5, vec![4]), (7, vec![2, 9])]);
        assert_eq!(GroupIndex::<u8>::default().groups().count(), 0);
    }
}
