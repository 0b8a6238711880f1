//! The ids of the analysis: host, file and event indexes, finding ids.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::Event;

/// Index of a host in `Analysis::hosts`.
pub type HostId = u32;
/// Index of a file in `Analysis::files`.
pub type FileId = u32;
/// Index of an event in `Analysis::events` (written in JSON as the plain number).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct EventId(pub u32);

impl EventId {
    /// The id of the event at `position` in the event list.
    pub const fn at(position: usize) -> EventId {
        EventId(position as u32)
    }

    /// The event's position in the event list.
    pub const fn index(self) -> usize {
        self.0 as usize
    }
}

impl std::fmt::Display for EventId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// Looking an event up by its id, instead of casting the id to an index at each place.
pub trait EventsById {
    /// The event `id`, when the list holds it.
    fn by_id(&self, id: EventId) -> Option<&Event>;
}

impl EventsById for [Event] {
    fn by_id(&self, id: EventId) -> Option<&Event> {
        self.get(id.index())
    }
}

/// A finding's stable id: its detector and subject (`evacuate-400-race:<notification>`).
/// Written in JSON as the plain string.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct FindingId(String);

impl FindingId {
    /// The id as text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl From<String> for FindingId {
    fn from(id: String) -> FindingId {
        FindingId(id)
    }
}

impl From<&str> for FindingId {
    fn from(id: &str) -> FindingId {
        FindingId(id.to_owned())
    }
}

impl fmt::Display for FindingId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::ops::Deref for FindingId {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::borrow::Borrow<str> for FindingId {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl PartialEq<str> for FindingId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for FindingId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for FindingId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl PartialEq<FindingId> for String {
    fn eq(&self, other: &FindingId) -> bool {
        *self == other.0
    }
}

impl PartialEq<FindingId> for &str {
    fn eq(&self, other: &FindingId) -> bool {
        *self == other.0
    }
}
