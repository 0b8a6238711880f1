//! Which notification's run a masakari-engine line belongs to: by its context, never by
//! its time when it has one.
//!
//! One engine runs several notifications at once (one green thread each, serialized
//! only per source host), so the lines of two recoveries interleave. A line belongs to:
//! - the notification it names;
//! - else the run whose request id it carries: Masakari logs a run under the context
//!   it received (the masakari-api request that created the notification, or the
//!   periodic task's admin context), and each Nova call makes a new context that keeps
//!   that id as its global id (Zed+ logs it) and has a fresh local id that the next
//!   lines of the same green thread carry (every release);
//! - else, for a line under a fresh local id (each Nova call builds a new context; the
//!   evacuate and reset-state calls log before building it, so the warning after them
//!   is the first line of that context), the run its instance or host belongs to, or
//!   the only run open on that engine;
//! - else, for a call naming an instance no run has named yet (a fresh context and no
//!   Nova log naming it: the call failed before Nova logged anything), the run that
//!   listed its host's servers last: Masakari's host-failure flow lists the servers,
//!   then calls Nova for each of them;
//! - a line with no context at all (`[-]`) goes to the run open on its engine: the one
//!   case where time decides.
//!
//! A line under a request id no run is known by, or under another run's global id, is
//! nobody's evidence here.

use std::collections::HashMap;

use crate::correlate::ids::short_host;
use crate::model::{Event, HostId, Uuid};

/// A run that has started and not ended.
#[derive(Clone, Debug)]
struct OpenRun {
    notification: Uuid,
    host: HostId,
    pid: Option<u32>,
    /// The failed host (short name), once the run named it.
    failed_host: Option<String>,
    /// When the run last listed its host's servers (an order, not a time).
    listed: Option<u64>,
}

/// The state of attribution while the engine's lines are read in time order.
#[derive(Debug, Default)]
pub struct Owners {
    /// Request ids (local or global) → the notifications whose runs logged under them,
    /// oldest first (a periodic task's admin context runs several, one after another).
    keys: HashMap<Uuid, Vec<Uuid>>,
    /// Runs open now, in start order.
    open: Vec<OpenRun>,
    /// Instance → the notification handling it (latest wins: a later notification may
    /// retry an instance).
    instances: HashMap<Uuid, Uuid>,
    /// Failed hosts known before reading (VM move captures), by notification.
    known_hosts: HashMap<Uuid, String>,
    /// Server listings seen so far (orders `OpenRun::listed`).
    listings: u64,
}

impl Owners {
    /// Attribution that starts with what captures say: instances and failed hosts of
    /// notifications.
    pub fn new(instances: HashMap<Uuid, Uuid>, known_hosts: HashMap<Uuid, String>) -> Owners {
        Owners {
            instances,
            known_hosts,
            ..Owners::default()
        }
    }

    fn is_open(&self, n: Uuid) -> bool {
        self.open.iter().any(|r| r.notification == n)
    }

    /// A run of `n` starts with `event` (its `Processing notification` line, or the first
    /// line naming it).
    pub fn start(&mut self, n: Uuid, event: &Event) {
        self.open.retain(|r| r.notification != n);
        self.open.push(OpenRun {
            notification: n,
            host: event.host,
            pid: event.pid,
            failed_host: self.known_hosts.get(&n).map(|h| short_host(h)),
            listed: None,
        });
        self.learn(n, event);
    }

    /// The run of `n` ended.
    pub fn end(&mut self, n: Uuid) {
        self.open.retain(|r| r.notification != n);
    }

    /// The run of `n` named its failed host.
    pub fn set_failed_host(&mut self, n: Uuid, host: &str) {
        for run in self.open.iter_mut().filter(|r| r.notification == n) {
            run.failed_host = Some(short_host(host));
        }
    }

    /// The run of `n` listed its failed host's servers: the instances first named after
    /// this are its own, unless their context or Nova's logs say otherwise.
    pub fn listed_servers(&mut self, n: Uuid) {
        self.listings += 1;
        let order = self.listings;
        for run in self.open.iter_mut().filter(|r| r.notification == n) {
            run.listed = Some(order);
        }
    }

    /// `event` belongs to `n`: its request ids, and the instance a call names, are `n`'s
    /// from now on.
    pub fn learn(&mut self, n: Uuid, event: &Event) {
        for id in [event.request_id, event.global_request_id]
            .into_iter()
            .flatten()
        {
            let list = self.keys.entry(id).or_default();
            if list.last() != Some(&n) {
                list.retain(|x| *x != n);
                list.push(n);
            }
        }
        if is_call(event)
            && let [instance] = event.instances.as_slice()
        {
            self.instances.insert(*instance, n);
        }
    }

    /// The notification a request id is known by: of those that logged under it, the
    /// open one, else the latest.
    fn by_key(&self, id: Uuid) -> Option<Uuid> {
        let list = self.keys.get(&id)?;
        list.iter()
            .rev()
            .find(|n| self.is_open(**n))
            .or(list.last())
            .copied()
    }

    /// The notification `event` (a masakari-engine line) belongs to, if any.
    /// `instance_hosts(i)` lists the (short) hosts whose Nova logs name instance `i`.
    pub fn owner(
        &self,
        event: &Event,
        instance_hosts: impl Fn(Uuid) -> Vec<String>,
    ) -> Option<Uuid> {
        if let Some(n) = event.notifications.first() {
            return Some(*n);
        }
        if let Some(g) = event.global_request_id {
            // Zed+: the run's own id; a global id no run is known by is another's.
            return self.by_key(g);
        }
        if let Some(n) = event.request_id.and_then(|r| self.by_key(r)) {
            return Some(n);
        }
        let on_engine: Vec<&OpenRun> = self
            .open
            .iter()
            .filter(|r| r.host == event.host && (r.pid.is_none() || r.pid == event.pid))
            .collect();
        if let Some(n) = event
            .instances
            .iter()
            .find_map(|i| self.instances.get(i))
            .filter(|n| on_engine.iter().any(|r| r.notification == **n))
        {
            return Some(*n);
        }
        if event.mentioned_hosts().next().is_some() {
            let named: Vec<String> = event.mentioned_hosts().map(short_host).collect();
            if let Some(run) = on_engine
                .iter()
                .find(|r| r.failed_host.as_ref().is_some_and(|h| named.contains(h)))
            {
                return Some(run.notification);
            }
            // `Disable nova-compute on <host>` names the failed host before any run knows
            // it: the earliest run that has not named one yet.
            if let Some(run) = on_engine.iter().find(|r| r.failed_host.is_none()) {
                return Some(run.notification);
            }
        }
        if let Some(&instance) = event.instances.first() {
            let hosts = instance_hosts(instance);
            let on_host: Vec<&&OpenRun> = on_engine
                .iter()
                .filter(|r| r.failed_host.as_ref().is_some_and(|h| hosts.contains(h)))
                .collect();
            if let [run] = on_host.as_slice() {
                return Some(run.notification);
            }
        }
        if is_call(event)
            && let [instance] = event.instances.as_slice()
            && !self.instances.contains_key(instance)
            && let Some(run) = on_engine
                .iter()
                .filter(|r| r.listed.is_some())
                .max_by_key(|r| r.listed)
        {
            return Some(run.notification);
        }
        match on_engine.as_slice() {
            [only] => Some(only.notification),
            // A line without any context: the latest run of its engine.
            [.., last] if event.request_id.is_none() => Some(last.notification),
            _ => None,
        }
    }
}

/// A `masakari.compute.nova` line: a call to Nova, logged in the context the call made.
fn is_call(event: &Event) -> bool {
    event.logger() == Some("masakari.compute.nova")
}
