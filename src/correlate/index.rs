//! Indexes from every id to the events that carry it, built once after the events are
//! in their final order, so that timelines and detectors never scan all events.

use std::collections::HashMap;

use crate::correlate::groups::GroupIndex;
use crate::correlate::ids::short_host;
use crate::model::{Event, EventId, Uuid};

/// Ids to event positions (ascending, so in time order).
#[derive(Clone, Debug, Default)]
pub struct Indexes {
    /// Local request id → events.
    pub request: GroupIndex<Uuid>,
    /// Global request id → events.
    pub global_request: GroupIndex<Uuid>,
    /// Instance UUID → events.
    pub instance: GroupIndex<Uuid>,
    /// Notification UUID → events.
    pub notification: GroupIndex<Uuid>,
    /// Volume UUID → events.
    pub volume: GroupIndex<Uuid>,
    /// Short host name (lowercase) → events logged on it or mentioning it.
    pub host: HostIndex,
}

/// Short host names to the events logged on each host or mentioning it: the names
/// numbered and the positions in one [`GroupIndex`] (every event is in it, and a vector
/// per name grown by doubling held up to twice the positions).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostIndex {
    numbers: HashMap<String, u32>,
    events: GroupIndex<u32>,
}

impl HostIndex {
    /// Builds the index of `events`; `host_names[h]` lists the short names of host `h`.
    fn build(events: &[Event], host_names: &[Vec<String>]) -> HostIndex {
        // Every name numbered first, so that the entries can be made again for each of
        // the index's passes without a list of them.
        let mut numbers: HashMap<String, u32> = HashMap::new();
        let mut number = |name: String| {
            let next = numbers.len() as u32;
            *numbers.entry(name).or_insert(next)
        };
        let host_numbers: Vec<Vec<u32>> = host_names
            .iter()
            .map(|names| names.iter().map(|n| number(n.clone())).collect())
            .collect();
        for event in events {
            for name in event.mentioned_hosts() {
                number(short_host(name));
            }
        }
        let entries = || {
            events.iter().enumerate().flat_map(|(position, event)| {
                let id = EventId::at(position);
                let own = host_numbers.get(event.host as usize).into_iter().flatten();
                let mentioned = event
                    .mentioned_hosts()
                    .filter_map(|name| numbers.get(&short_host(name)));
                own.chain(mentioned).map(move |&n| (n, id))
            })
        };
        HostIndex {
            events: GroupIndex::collect(entries),
            numbers,
        }
    }

    /// The events (ascending) of a short host name (lowercase).
    pub fn get(&self, name: &str) -> Option<&[EventId]> {
        self.events.get(self.numbers.get(name)?)
    }
}

/// The events of a short host name; none for a name the index does not hold.
impl std::ops::Index<&str> for HostIndex {
    type Output = [EventId];
    fn index(&self, name: &str) -> &[EventId] {
        self.get(name).unwrap_or_default()
    }
}

/// The short names (lowercase) each host is known by, by host id: its hostname and
/// aliases, which is how lines logged on it or naming it are found.
pub fn host_names(hosts: &[crate::model::inventory::Host]) -> Vec<Vec<String>> {
    hosts
        .iter()
        .map(|h| {
            let mut names = vec![short_host(&h.hostname)];
            names.extend(h.aliases.iter().map(|a| short_host(a)));
            names.dedup();
            names
        })
        .collect()
}

impl Indexes {
    /// Builds the indexes of `events`; `host_names[h]` lists the short names of host `h`.
    pub fn build(events: &[Event], host_names: &[Vec<String>]) -> Indexes {
        let ids = |of: &(dyn Fn(&Event) -> &[Uuid] + Sync)| {
            GroupIndex::collect(|| {
                events.iter().enumerate().flat_map(|(position, e)| {
                    of(e).iter().map(move |&u| (u, EventId::at(position)))
                })
            })
        };
        // Six passes over every event, independent: two at a time (the host index,
        // the slowest, beside the five id indexes).
        let (host, ((request, global_request), (instance, (notification, volume)))) = rayon::join(
            || HostIndex::build(events, host_names),
            || {
                rayon::join(
                    || {
                        rayon::join(
                            || ids(&|e| e.request_id.as_slice()),
                            || ids(&|e| e.global_request_id.as_slice()),
                        )
                    },
                    || {
                        rayon::join(
                            || ids(&|e| e.instances.as_slice()),
                            || {
                                rayon::join(
                                    || ids(&|e| e.notifications.as_slice()),
                                    || ids(&|e| e.volumes.as_slice()),
                                )
                            },
                        )
                    },
                )
            },
        );
        Indexes {
            request,
            global_request,
            instance,
            notification,
            volume,
            host,
        }
    }

    /// Events of a request id, as local or global id.
    pub fn request_events(&self, id: Uuid) -> Vec<EventId> {
        let mut out: Vec<EventId> = self
            .request
            .get(&id)
            .into_iter()
            .chain(self.global_request.get(&id))
            .flatten()
            .copied()
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}
