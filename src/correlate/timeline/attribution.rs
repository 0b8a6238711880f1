//! Whose line is it: keeping an instance's timeline to that instance and its recovery.
//!
//! The instances of one recovery share its notification, often a request id (Masakari's
//! global id, a context reused across calls) and the engine's file, so following ids
//! brings every instance's lines. A line that names instances belongs to them. A line
//! that names none belongs to the instances its request names: its own request (the
//! `Creating a Nova client` line before a call, Nova's `HTTP exception thrown` beside the
//! request-log line), or the Nova request it cites (`(Request-ID: req-…)` in Masakari's
//! warning about a 4xx). A line whose request names no instance is the recovery's own
//! (disabling the service, listing the servers, sleeping).

use crate::model::EventsById;
use std::collections::{BTreeSet, HashMap};

use crate::correlate::Analysis;
use crate::model::{EventId, Uuid};

use super::select::MAX_REQUEST_FANOUT;

/// Decides, for one instance, which lines to keep; remembers what each request names.
pub(super) struct Attribution<'a> {
    analysis: &'a Analysis,
    instance: Uuid,
    /// The notifications whose recoveries moved the instance: a line naming one of them
    /// (`Processing`, `exits with status`, `Failed to process`) frames the story.
    notifications: BTreeSet<Uuid>,
    named_by_request: HashMap<Uuid, BTreeSet<Uuid>>,
}

impl<'a> Attribution<'a> {
    pub(super) fn new(
        analysis: &'a Analysis,
        instance: Uuid,
        notifications: BTreeSet<Uuid>,
    ) -> Self {
        Attribution {
            analysis,
            instance,
            notifications,
            named_by_request: HashMap::new(),
        }
    }

    /// True when `id` is the instance's line or its recovery's framing line.
    pub(super) fn keeps(&mut self, id: EventId) -> bool {
        let Some(event) = self.analysis.events.by_id(id) else {
            return false;
        };
        if event.instances.contains(&self.instance)
            || event
                .notifications
                .iter()
                .any(|n| self.notifications.contains(n))
        {
            return true;
        }
        if !event.instances.is_empty() {
            return false;
        }
        let instance = self.instance;
        if let Some(cited) = cited_request(&event.message()) {
            let owners = self.named_by(cited);
            if !owners.is_empty() {
                return owners.contains(&instance);
            }
        }
        let Some(request) = event.request_id else {
            return true;
        };
        let owners = self.named_by(request);
        owners.is_empty() || owners.contains(&instance)
    }

    /// The instances the lines of local request `request` name; none for a context too
    /// broad to say (a periodic task's, a whole recovery's).
    fn named_by(&mut self, request: Uuid) -> &BTreeSet<Uuid> {
        let analysis = self.analysis;
        self.named_by_request.entry(request).or_insert_with(|| {
            let events = analysis.index.request.get(&request);
            match events {
                Some(events) if events.len() <= MAX_REQUEST_FANOUT => events
                    .iter()
                    .filter_map(|&i| analysis.events.by_id(i))
                    // A recovery's summary (`Failed to process notification …
                    // instances 'B'`) names instances without being about them.
                    .filter(|e| e.notifications.is_empty())
                    .flat_map(|e| e.instances.iter().copied())
                    .collect(),
                _ => BTreeSet::new(),
            }
        })
    }
}

/// The request id a client error cites: novaclient and keystoneauth end their messages
/// with `(Request-ID: req-<uuid>)`.
fn cited_request(message: &str) -> Option<Uuid> {
    let (_, rest) = message.rsplit_once("Request-ID: ")?;
    Uuid::parse_request_id(rest.get(..40)?)
}

#[cfg(test)]
mod tests {
    use super::cited_request;

    #[test]
    fn the_cited_request_id_is_read() {
        let message = "Invalid input received: Compute service of compute-1 is still in use. (HTTP 400) (Request-ID: req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35): masakari.exception.InvalidInput: Invalid input received";
        assert_eq!(
            cited_request(message).unwrap().request_id(),
            "req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35"
        );
        assert_eq!(cited_request("Disable nova-compute on compute-1"), None);
    }
}
