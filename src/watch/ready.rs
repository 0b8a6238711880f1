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
/// already lasted past its threshold.
const GAP_DETECTORS: [&str; 1] = ["bfv-evacuation-delay"];

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

/// The ids of the findings handed out, the most recent `cap`.
#[derive(Debug)]
pub(crate) struct Emitted {
    ids: HashSet<String>,
    order: VecDeque<String>,
    cap: usize,
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
        if self.ids.contains(id) {
            return false;
        }
        self.ids.insert(id.to_string());
        self.order.push_back(id.to_string());
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
    }
}
