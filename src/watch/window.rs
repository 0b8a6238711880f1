//! The events the watcher holds: the recent ones, and those of recoveries still open.
//! What goes is decided on the last snapshot (which events belong to which recovery and
//! whether it has ended), so memory follows the open recoveries and the window, not how
//! long the watcher has run.

use std::collections::HashSet;

use crate::correlate::extract::RawEvent;
use crate::watch::files::Registry;

/// The held events, in arrival order.
#[derive(Debug, Default)]
pub(crate) struct EventWindow {
    events: Vec<RawEvent>,
}

impl EventWindow {
    pub(crate) fn extend(&mut self, new: Vec<RawEvent>) {
        self.events.extend(new);
    }

    pub(crate) fn len(&self) -> usize {
        self.events.len()
    }

    /// A copy for a snapshot (the text blocks are shared, not copied).
    pub(crate) fn copy(&self) -> Vec<RawEvent> {
        self.events.clone()
    }

    /// Keeps the events `keep` names by file and line (those a snapshot kept and the
    /// expiry rules spare), and at most `max` of them, dropping the oldest arrivals.
    /// `fresh` events (arrived after the snapshot was taken) always stay.
    pub(crate) fn retain(
        &mut self,
        keep: &HashSet<(u32, u32)>,
        fresh_from: usize,
        max: usize,
        files: &mut Registry,
    ) {
        let mut at = 0usize;
        self.events.retain(|raw| {
            let stays = at >= fresh_from || keep.contains(&(raw.event.file, raw.event.line));
            at += 1;
            if !stays && let Some(slot) = files.file_mut(raw.event.file) {
                slot.held = slot.held.saturating_sub(1);
            }
            stays
        });
        if self.events.len() > max {
            let over = self.events.len() - max;
            for raw in self.events.drain(..over) {
                if let Some(slot) = files.file_mut(raw.event.file) {
                    slot.held = slot.held.saturating_sub(1);
                }
            }
        }
    }
}
