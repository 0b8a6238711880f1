//! The whole simulated cloud, built from a scenario and changed by the API handlers
//! and the ticker, always under one lock.

use std::collections::HashMap;

use super::model::{Attachment, LockOwner, Server, Service, Token, Volume};
use crate::sim::clock::SimClock;
use crate::sim::faults::Faults;
use crate::sim::logs::Logs;
use crate::sim::scenario::{HostState, Scenario};

/// The state of the simulated cloud.
#[derive(Debug)]
pub struct Cloud {
    pub scenario: Scenario,
    pub clock: SimClock,
    pub user_id: String,
    pub project_id: String,
    pub services: Vec<Service>,
    pub servers: Vec<Server>,
    pub volumes: Vec<Volume>,
    pub migrations: Vec<super::model::Migration>,
    pub tokens: HashMap<String, Token>,
    pub faults: Faults,
    pub logs: Logs,
    /// Nova's `service_down_time` after its start-up check (at least 2.5 report
    /// intervals, as Nova sets it when configured lower).
    pub service_down_time: f64,
}

/// A fresh id, as Keystone writes them (32 hex digits).
pub fn hex_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// A fresh request id, `req-<uuid>`.
pub fn request_id() -> String {
    format!("req-{}", uuid::Uuid::new_v4().hyphenated())
}

impl Cloud {
    /// The cloud at the start of `scenario`.
    pub fn new(scenario: Scenario, logs: Logs) -> Cloud {
        let clock = SimClock::new(scenario.timing.time_scale);
        let nova = &scenario.nova;
        let service_down_time = if nova.service_down_time <= nova.report_interval {
            (nova.report_interval * 2.5).floor()
        } else {
            nova.service_down_time
        };
        let mut services = Vec::new();
        let mut add = |binary: &str, host: &str, dies_at: f64, disabled: bool| {
            services.push(Service {
                id: services.len() as u32 + 1,
                uuid: uuid::Uuid::new_v4().hyphenated().to_string(),
                binary: binary.into(),
                host: host.into(),
                disabled,
                disabled_reason: None,
                forced_down: false,
                dies_at,
                returns_at: f64::INFINITY,
            });
        };
        // Long enough ago that Nova already reports it down.
        let long_dead = -(service_down_time + nova.report_interval) * 2.0;
        let scheduler_dies = if nova.scheduler_down {
            long_dead
        } else {
            f64::INFINITY
        };
        add("nova-scheduler", &nova.controller, scheduler_dies, false);
        add("nova-conductor", &nova.controller, f64::INFINITY, false);
        for host in &scenario.hosts {
            let dies_at = match (host.state, host.dies_at_s) {
                (HostState::Down, _) => long_dead,
                (HostState::Dead, _) => 0.0,
                (HostState::Up, Some(at)) => at,
                (HostState::Up, None) => f64::INFINITY,
            };
            add("nova-compute", &host.name, dies_at, host.disabled);
        }
        for host in &scenario.hosts {
            if let Some(back) = host.returns_at_s
                && let Some(service) = services
                    .iter_mut()
                    .find(|s| s.binary == "nova-compute" && s.host == host.name)
            {
                service.returns_at = back;
            }
        }
        let mut servers = Vec::new();
        let mut volumes = Vec::new();
        for (n, i) in scenario.instances.iter().enumerate() {
            let vm_state = match i.status.as_str() {
                "SHUTOFF" => "stopped",
                "ERROR" => "error",
                _ => "active",
            };
            servers.push(Server {
                id: i.id.clone(),
                name: i.name.clone(),
                instance_name: format!("instance-{:08x}", n + 1),
                host: i.host.clone(),
                vm_state: vm_state.into(),
                task_state: None,
                locked: i.locked_by_other.then_some(LockOwner::Other),
                locked_reason: None,
                ha_enabled: i.ha_enabled,
                volume: i.volume.clone(),
                created_s: -86400.0,
                updated_s: -86400.0,
                actions: Vec::new(),
                rebuild: None,
            });
            if let Some(volume) = &i.volume {
                volumes.push(Volume {
                    id: volume.clone(),
                    name: format!("{}-boot", i.name),
                    size: 10,
                    multiattach: i.multiattach,
                    status: "in-use".into(),
                    attachments: vec![Attachment {
                        id: uuid::Uuid::new_v4().hyphenated().to_string(),
                        server_id: i.id.clone(),
                        host_name: i.host.clone(),
                        attached_s: -86400.0,
                    }],
                    created_s: -86400.0,
                    updated_s: -86400.0,
                });
            }
        }
        let faults = Faults::new(&scenario.faults);
        Cloud {
            clock,
            user_id: hex_id(),
            project_id: hex_id(),
            services,
            servers,
            volumes,
            migrations: Vec::new(),
            tokens: HashMap::new(),
            faults,
            logs,
            service_down_time,
            scenario,
        }
    }

    /// Scenario seconds now.
    pub fn now(&self) -> f64 {
        self.clock.now_s()
    }

    /// The last heartbeat of `service` at scenario second `now`: the last multiple of
    /// `report_interval` its host was alive for.
    pub fn last_heartbeat(&self, service: &Service, now: f64) -> f64 {
        let interval = self.scenario.nova.report_interval;
        let alive_until = if now >= service.returns_at {
            now
        } else {
            now.min(service.dies_at)
        };
        (alive_until / interval).floor() * interval
    }

    /// Whether Nova reports `service` up at `now` (`servicegroup` `service_is_up`).
    pub fn service_is_up(&self, service: &Service, now: f64) -> bool {
        !service.forced_down && now - self.last_heartbeat(service, now) <= self.service_down_time
    }

    /// Whether the host itself runs (it answers, it can take a rebuild).
    pub fn host_alive(&self, host: &str, now: f64) -> bool {
        self.compute_service(host)
            .is_some_and(|s| now < s.dies_at || now >= s.returns_at)
    }

    /// The `nova-compute` service of `host`.
    pub fn compute_service(&self, host: &str) -> Option<&Service> {
        self.services
            .iter()
            .find(|s| s.binary == "nova-compute" && s.host == host)
    }

    pub fn server(&self, id: &str) -> Option<&Server> {
        self.servers.iter().find(|s| s.id == id)
    }

    pub fn server_mut(&mut self, id: &str) -> Option<&mut Server> {
        self.servers.iter_mut().find(|s| s.id == id)
    }

    pub fn volume_mut(&mut self, id: &str) -> Option<&mut Volume> {
        self.volumes.iter_mut().find(|v| v.id == id)
    }

    /// Whether `token` is one this Keystone issued and it has not expired.
    pub fn token_valid(&self, token: &str, now: f64) -> bool {
        self.tokens.get(token).is_some_and(|t| t.expires_s > now)
    }
}
