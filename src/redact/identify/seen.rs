//! The values already weighed, so that the same user, project and host of most lines of a
//! log are weighed once.

use std::collections::HashSet;

use crate::redact::map::Kind;

/// The values each of [`Identifier::secret`](super::Identifier::secret),
/// [`Identifier::host`](super::Identifier::host) and
/// [`Identifier::name`](super::Identifier::name) (by kind) was given: what they do with a value depends on the value
/// alone, so a second call with it adds nothing.
#[derive(Debug, Default)]
pub(super) struct Seen {
    sets: [HashSet<Box<str>>; 5],
    recent: Recent,
}

/// Short values given last, one per slot chosen by a cheap hash: most lines repeat the
/// values of the lines before them (the same user, project, host), and comparing a few
/// bytes costs less than hashing the value for the sets.
#[derive(Debug)]
struct Recent {
    slots: Box<[Slot; Recent::SLOTS]>,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The set the value was given to, plus one (0: an empty slot).
    set: u8,
    len: u8,
    bytes: [u8; Recent::LEN],
}

impl Default for Recent {
    fn default() -> Self {
        let empty = Slot {
            set: 0,
            len: 0,
            bytes: [0; Recent::LEN],
        };
        Recent {
            slots: Box::new([empty; Recent::SLOTS]),
        }
    }
}

impl Recent {
    const SLOTS: usize = 256;
    /// Longer values are only in the sets.
    const LEN: usize = 32;

    /// The slot of `value` of set `set`, when it is short enough for one.
    fn slot(set: usize, value: &str) -> Option<usize> {
        let b = value.as_bytes();
        let (&first, &last) = (b.first()?, b.last()?);
        if b.len() > Self::LEN {
            return None;
        }
        let mix = (usize::from(first) << 3) ^ usize::from(last) ^ (b.len() << 5) ^ (set << 6);
        Some((mix.wrapping_mul(0x9e37_79b9) >> 8) & (Self::SLOTS - 1))
    }

    fn holds(&self, slot: usize, set: usize, value: &str) -> bool {
        self.slots.get(slot).is_some_and(|s| {
            usize::from(s.set) == set + 1
                && usize::from(s.len) == value.len()
                && s.bytes.get(..value.len()) == Some(value.as_bytes())
        })
    }

    fn keep(&mut self, slot: usize, set: usize, value: &str) {
        if let Some(s) = self.slots.get_mut(slot)
            && let (Ok(set), Ok(len)) = (u8::try_from(set + 1), u8::try_from(value.len()))
            && let Some(bytes) = s.bytes.get_mut(..value.len())
        {
            bytes.copy_from_slice(value.as_bytes());
            s.set = set;
            s.len = len;
        }
    }
}

impl Seen {
    pub(super) const SECRET: usize = 0;
    pub(super) const HOST: usize = 1;
    /// At most this many values are remembered per set (a bound on memory; a value not
    /// remembered is only weighed again).
    const MAX: usize = 65_536;
    /// Longer values are not remembered.
    const MAX_LEN: usize = 256;

    /// The set of names of `kind` (none for kinds names are never given as).
    pub(super) fn name(kind: Kind) -> Option<usize> {
        match kind {
            Kind::User => Some(2),
            Kind::Project => Some(3),
            Kind::Name => Some(4),
            _ => None,
        }
    }

    /// Whether `value` is new to set `which` (and remembers it); always when `which` is
    /// none.
    pub(super) fn first(&mut self, which: impl Into<Option<usize>>, value: &str) -> bool {
        let Some(which) = which.into() else {
            return true;
        };
        let Some(set) = self.sets.get_mut(which) else {
            return true;
        };
        let slot = Recent::slot(which, value);
        if let Some(slot) = slot {
            if self.recent.holds(slot, which, value) {
                return false;
            }
            // Given before or now: a value's second call adds nothing either way.
            self.recent.keep(slot, which, value);
        }
        if set.contains(value) {
            return false;
        }
        if value.len() <= Self::MAX_LEN && set.len() < Self::MAX {
            set.insert(value.into());
        }
        true
    }
}
