//! A fast hash for the fixed word sets the public step looks every word up in (the
//! vocabulary, module names, seeded hosts, domains and names). The standard hasher
//! (SipHash) was a tenth of `redact --public`'s time on short words. These sets are
//! built once and never grow from the text looked up, so hash flooding cannot slow them.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// The Fx hash (as in rustc): a multiply and a rotate per 8 bytes.
#[derive(Default, Clone, Copy)]
pub struct FxHasher {
    hash: u64,
}

const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

impl FxHasher {
    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            self.add(u64::from_le_bytes(w));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            let mut w = [0u8; 8];
            w[..rest.len()].copy_from_slice(rest);
            self.add(u64::from_le_bytes(w));
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

/// A 64-bit hash of a whole text by folded multiplies, 16 bytes a step (the mixing of
/// foldhash and wyhash): fast on long texts and well spread, for a map keyed by the hash
/// alone. Written here because the `foldhash` crate, once a direct dependency, changes
/// the features `hashbrown` is built with and rebuilds half the dependency tree.
pub fn fold_hash(bytes: &[u8]) -> u64 {
    const K: [u64; 4] = [
        0x243f_6a88_85a3_08d3,
        0x1319_8a2e_0370_7344,
        0xa409_3822_299f_31d0,
        0x082e_fa98_ec4e_6c89,
    ];
    let fold = |a: u64, b: u64| {
        let full = u128::from(a).wrapping_mul(u128::from(b));
        (full as u64) ^ ((full >> 64) as u64)
    };
    let word = |c: &[u8]| {
        let mut w = [0u8; 8];
        w[..c.len()].copy_from_slice(c);
        u64::from_le_bytes(w)
    };
    let mut h = K[0] ^ bytes.len() as u64;
    let mut chunks = bytes.chunks_exact(16);
    for c in &mut chunks {
        h = fold(word(&c[..8]) ^ K[1] ^ h, word(&c[8..]) ^ K[2]);
    }
    let rest = chunks.remainder();
    let (a, b) = rest.split_at(rest.len().min(8));
    fold(word(a) ^ K[1] ^ h, word(b) ^ K[3])
}

/// A set hashed with [`FxHasher`].
pub type FxHashSet<T> = HashSet<T, BuildHasherDefault<FxHasher>>;
/// A map hashed with [`FxHasher`].
pub type FxHashMap<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_hash_tells_near_messages_apart() {
        let a = "Lock \"compute_resources\" acquired by \"nova.compute.resource_tracker.ResourceTracker._update_available_resource\" :: waited 0.000s";
        let mut seen = std::collections::HashSet::new();
        for cut in 0..a.len() {
            assert!(seen.insert(fold_hash(&a.as_bytes()[..cut])), "{cut}");
        }
        let b = a.replace("0.000s", "0.001s");
        assert_ne!(fold_hash(a.as_bytes()), fold_hash(b.as_bytes()));
        assert_eq!(fold_hash(a.as_bytes()), fold_hash(a.to_string().as_bytes()));
    }

    #[test]
    fn lookups_by_borrowed_and_owned_keys_agree() {
        let set: FxHashSet<String> = ["compute", "a-much-longer-word-than-eight"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert!(set.contains("compute"));
        assert!(set.contains("a-much-longer-word-than-eight"));
        assert!(!set.contains("comput"));
        assert!(!set.contains(""));
    }
}
