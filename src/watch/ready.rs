//! Which findings are ready to hand out, and which were handed out already. A finding's
//! evidence is complete when its recovery has ended, or, for a detector that measures a
//! gap, as soon as the gap is past its threshold (the detector only reports it then);
//! findings of no recovery (configuration alone) are complete as they are. A finding
//! goes out once: its id (detector and subject) is remembered, the oldest ids forgotten
//! past a bound (by then its events are long gone from the window).

use std::collections::{HashSet, VecDeque};

use crate::detect::Finding;
use crate::watch::snapshot::{Snapshot, ended};

/// Detectors whose finding is complete when first reported: it says a wait has
/// already lasted past its threshold, or a run that will never end (no final status
/// comes to wait for).
const GAP_DETECTORS: [&str; 2] = ["bfv-evacuation-delay", "notification-stuck-running"];

/// Whether `finding`'s evidence is complete in `snapshot`.
pub(crate) fn complete(finding: &Finding, snapshot: &Snapshot) -> bool {
    if GAP_DETECTORS.contains(&finding.detector) {
        return true;
    }
    let Some(notification) = &finding.notification_id else {
        return true;
    };
    snapshot
        .analysis
        .recoveries
        .iter()
        .find(|r| r.notification.to_string() == *notification)
        // A notification no recovery was rebuilt for has nothing more to wait for.
        .is_none_or(|r| ended(r.final_status()))
}

/// The findings handed out, the most recent `cap`, each remembered by a 64-bit
/// fingerprint of its id rather than the id: 16 bytes a finding instead of two copies of
/// an id of 60 to 100 bytes, so that the memory of a watcher that has handed out 100 000
/// findings stays about 2 MB instead of about 20 MB. Two ids sharing a fingerprint (about
/// one chance in 10^9 within the cap) would make the second finding go unreported.
#[derive(Debug)]
pub(crate) struct Emitted {
    ids: HashSet<u64>,
    order: VecDeque<u64>,
    cap: usize,
}

/// The fingerprint of a finding id: SipHash with fixed keys (`DefaultHasher::new`).
fn fingerprint(id: &str) -> u64 {
    use std::hash::{BuildHasher as _, BuildHasherDefault};
    BuildHasherDefault::<std::collections::hash_map::DefaultHasher>::default().hash_one(id)
}

impl Emitted {
    pub(crate) fn new(cap: usize) -> Emitted {
        Emitted {
            ids: HashSet::new(),
            order: VecDeque::new(),
            cap: cap.max(1),
        }
    }

    /// Records `id`; false when it was handed out already.
    pub(crate) fn first_time(&mut self, id: &str) -> bool {
        let print = fingerprint(id);
        if !self.ids.insert(print) {
            return false;
        }
        self.order.push_back(print);
        while self.order.len() > self.cap {
            if let Some(old) = self.order.pop_front() {
                self.ids.remove(&old);
            }
        }
        true
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.ids.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_goes_out_once_and_the_memory_of_ids_is_bounded() {
        let mut emitted = Emitted::new(3);
        assert!(emitted.first_time("a"));
        assert!(!emitted.first_time("a"));
        for id in ["b", "c", "d"] {
            assert!(emitted.first_time(id));
        }
        assert_eq!(emitted.len(), 3);
        // "a" was the oldest: forgotten.
        assert!(emitted.first_time("a"));
        assert!(!emitted.first_time("d"));
        assert_eq!(fingerprint("x"), fingerprint(&String::from("x")));
        assert_ne!(
            fingerprint("evacuate-400-race:a"),
            fingerprint("evacuate-400-race:b")
        );
    }
}
