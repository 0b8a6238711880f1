//! The words a run has judged already: the kept-word sets with their caches, and the
//! verdicts and keys of the words that are not kept as they are.

use super::*;

/// Words already judged safe to show as they are, by whether vocabulary words were
/// allowed: the text of a file repeats its words, and judging one takes several
/// lookups (ids, names, seeds, vocabulary pieces). Only words kept verbatim are
/// remembered (a replaced word counts in the report each time). The standard keyed
/// hash, not the Fx hash of the fixed word sets: these sets grow from the input, which must not be able to
/// pick colliding words.
///
/// In front of the sets, a small direct-mapped cache by a fast unkeyed hash
/// ([`crate::redact::fasthash::fold_hash`]): a word found there
/// (compared byte for byte) is in its set; a word not found there is looked up in the
/// set as before, and put in its slot. Colliding words only evict each other: the cost
/// per word stays bounded whatever the input picks, and the keyed hash is paid once per
/// run of a word rather than at every occurrence.
#[derive(Debug, Default)]
pub(super) struct KeptWords {
    pub(super) sets: [std::collections::HashSet<std::sync::Arc<str>>; 2],
    pub(super) recent: Vec<Option<std::sync::Arc<str>>>,
    /// What the other words were shown as: see [`Verdict`].
    pub(super) verdicts: Vec<Option<Verdict>>,
    /// What words say about the value after them ([`key_of`] with no `--` before them),
    /// by the same kind of direct-mapped cache: a word found in its slot (compared byte
    /// for byte) has the key it had, anything else is judged by [`key_of`] again.
    pub(super) keys: Vec<Option<(Box<str>, Option<Key>)>>,
}

/// A word not kept as it is (a pseudonym, a hidden value, the upload's neutral name) as
/// it was shown, with the pseudonyms it asked for (counted again when it is shown
/// again) and whether it reduced its line. All of it follows from the word, whether
/// vocabulary words were allowed, the seeds and the upload's names (fixed for a run) and
/// the map, which never changes a pseudonym once given: showing it again as it was
/// shown is what judging it again gives. In a direct-mapped cache by
/// [`crate::redact::fasthash::fold_hash`], as [`KeptWords::recent`]: a colliding word only
/// evicts another, and the bound on memory holds whatever the input.
#[derive(Debug)]
pub(super) struct Verdict {
    pub(super) word: Box<str>,
    pub(super) vocabulary: bool,
    pub(super) shown: Box<str>,
    pub(super) kinds: Vec<Kind>,
    pub(super) reduced: bool,
}

/// Words remembered per [`KeptWords`] set: a bound on memory whatever the input.
pub(super) const KEPT_WORDS: usize = 1 << 14;

/// Slots of the cache in front of each [`KeptWords`] set: 2^10.
pub(super) const RECENT_BITS: u32 = 10;

/// Slots of [`KeptWords::verdicts`] and of [`KeptWords::keys`]: 2^10 each.
pub(super) const VERDICT_BITS: u32 = 10;

impl KeptWords {
    pub(super) fn slot(hash: u64, vocabulary: bool) -> usize {
        let at = (hash >> (64 - RECENT_BITS)) as usize;
        (usize::from(vocabulary) << RECENT_BITS) | at
    }

    pub(super) fn contains(&mut self, w: &str, hash: u64, vocabulary: bool) -> bool {
        let slot = KeptWords::slot(hash, vocabulary);
        if self
            .recent
            .get(slot)
            .is_some_and(|r| r.as_deref() == Some(w))
        {
            return true;
        }
        let Some(kept) = self.sets[usize::from(vocabulary)].get(w) else {
            return false;
        };
        if self.recent.is_empty() {
            // Made on the first word found: a path or a short text may need none.
            self.recent = vec![None; 2 << RECENT_BITS];
        }
        if let Some(r) = self.recent.get_mut(slot) {
            *r = Some(kept.clone());
        }
        true
    }

    pub(super) fn insert(&mut self, w: &str, vocabulary: bool) {
        let set = &mut self.sets[usize::from(vocabulary)];
        if set.len() < KEPT_WORDS {
            set.insert(w.into());
        }
    }

    pub(super) fn verdict_slot(hash: u64) -> usize {
        (hash >> (64 - VERDICT_BITS)) as usize
    }

    pub(super) fn verdict(&self, w: &str, hash: u64, vocabulary: bool) -> Option<&Verdict> {
        self.verdicts
            .get(KeptWords::verdict_slot(hash))?
            .as_ref()
            .filter(|v| v.vocabulary == vocabulary && &*v.word == w)
    }

    pub(super) fn remember(&mut self, hash: u64, verdict: Verdict) {
        if self.verdicts.is_empty() {
            self.verdicts.resize_with(1 << VERDICT_BITS, || None);
        }
        if let Some(slot) = self.verdicts.get_mut(KeptWords::verdict_slot(hash)) {
            *slot = Some(verdict);
        }
    }

    /// [`key_of`]`(w, flag)`, the part that does not depend on `flag` remembered.
    pub(super) fn key_of(
        &mut self,
        w: &str,
        hash: u64,
        flag: bool,
        buf: &mut String,
    ) -> Option<Key> {
        if !may_be_key(w) {
            return None;
        }
        let slot = KeptWords::verdict_slot(hash);
        let key = match self.keys.get(slot) {
            Some(Some((word, key))) if &**word == w => *key,
            _ => {
                let key = key_of(w, false, buf);
                if self.keys.is_empty() {
                    self.keys.resize_with(1 << VERDICT_BITS, || None);
                }
                if let Some(s) = self.keys.get_mut(slot) {
                    *s = Some((w.into(), key));
                }
                key
            }
        };
        // `key_of(w, true)` is `key_of(w, false)` with the flag set (`bearer` and
        // `basic` have it set either way).
        match key {
            Some(Key::Secret { .. }) if flag => Some(Key::Secret { flag: true }),
            Some(Key::Name { .. }) if flag => Some(Key::Name { flag: true }),
            key => key,
        }
    }
}
