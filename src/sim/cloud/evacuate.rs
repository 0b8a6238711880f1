//! Server actions that change state: lock, unlock and evacuate, with Nova's checks in
//! Nova's order (schema, instance, target host, lock, state, source service).

use serde_json::Value;

use super::model::{ActionEvent, InstanceAction, LockOwner, Migration, Rebuild, RequestIds};
use super::refusal::Refusal;
use super::state::Cloud;
use crate::sim::logs::Level;
use crate::sim::microversion::Microversion;

/// The body keys `evacuate` accepts at `version` (nova/api/openstack/compute/schemas).
fn allowed_keys(version: Microversion) -> &'static [&'static str] {
    if version < Microversion::new(2, 14) {
        &["host", "onSharedStorage", "adminPass"]
    } else if version >= Microversion::new(2, 29) && version < Microversion::new(2, 68) {
        &["host", "force"]
    } else {
        &["host"]
    }
}

/// The generic validation message of Nova's JSON schema check.
fn invalid(body: &Value, detail: &str) -> Refusal {
    Refusal::bad_request(format!(
        "Invalid input for field/attribute evacuate. Value: {body}. {detail}"
    ))
}

impl Cloud {
    fn action(&mut self, server: &str, name: &str, ids: &RequestIds, now: f64) {
        if let Some(s) = self.server_mut(server) {
            s.actions.push(InstanceAction {
                action: name.into(),
                request_id: ids.request_id.clone(),
                user_id: ids.user_id.clone(),
                project_id: ids.project_id.clone(),
                start_s: now,
                updated_s: now,
                events: Vec::new(),
            });
            s.updated_s = now;
        }
    }

    /// `{"lock": null}` or `{"lock": {"locked_reason": ...}}` (2.73).
    pub fn lock(
        &mut self,
        server: &str,
        reason: Option<String>,
        ids: &RequestIds,
    ) -> Result<(), Refusal> {
        let now = self.now();
        let s = self.server_mut(server).ok_or_else(|| not_found(server))?;
        if s.locked.is_none() {
            s.locked = Some(LockOwner::Us);
            s.locked_reason = reason;
        }
        self.action(server, "lock", ids, now);
        Ok(())
    }

    /// `{"unlock": null}`.
    pub fn unlock(&mut self, server: &str, ids: &RequestIds) -> Result<(), Refusal> {
        let now = self.now();
        let s = self.server_mut(server).ok_or_else(|| not_found(server))?;
        s.locked = None;
        s.locked_reason = None;
        self.action(server, "unlock", ids, now);
        Ok(())
    }

    /// `{"evacuate": {...}}`: accepted (the rebuild goes on in the ticker) or refused.
    pub fn evacuate(
        &mut self,
        server: &str,
        body: &Value,
        version: Microversion,
        ids: &RequestIds,
    ) -> Result<(), Refusal> {
        let now = self.now();
        let Some(args) = body.as_object() else {
            return Err(invalid(body, "None is not of type 'object'"));
        };
        let allowed = allowed_keys(version);
        if let Some(extra) = args.keys().find(|k| !allowed.contains(&k.as_str())) {
            return Err(invalid(
                body,
                &format!("Additional properties are not allowed ('{extra}' was unexpected)"),
            ));
        }
        if version < Microversion::new(2, 14) && !args.contains_key("onSharedStorage") {
            return Err(invalid(body, "'onSharedStorage' is a required property"));
        }
        let host = match args.get("host") {
            None | Some(Value::Null) => None,
            Some(Value::String(h)) => Some(h.clone()),
            Some(other) => return Err(invalid(body, &format!("{other} is not of type 'string'"))),
        };
        let force = args.get("force").and_then(Value::as_bool).unwrap_or(false);
        if version < Microversion::new(2, 14)
            && args.get("onSharedStorage").and_then(Value::as_bool) == Some(true)
            && args.contains_key("adminPass")
        {
            return Err(Refusal::bad_request(
                "admin password can't be changed on existing disk",
            ));
        }
        if force && host.is_none() {
            return Err(Refusal::bad_request(
                "Can't force to a non-provided destination",
            ));
        }
        let s = self.server(server).ok_or_else(|| not_found(server))?;
        if let Some(h) = &host {
            if self.compute_service(h).is_none() {
                return Err(Refusal::not_found(format!("Compute host {h} not found.")));
            }
            if *h == s.host {
                return Err(Refusal::bad_request(
                    "The target host can't be the same one.",
                ));
            }
        }
        if s.locked == Some(LockOwner::Other) {
            return Err(Refusal::conflict(format!("Instance {server} is locked")));
        }
        if let Some(task) = &s.task_state {
            return Err(Refusal::conflict(format!(
                "Cannot 'evacuate' instance {server} while it is in task_state {task}"
            )));
        }
        if !["active", "stopped", "error"].contains(&s.vm_state.as_str()) {
            return Err(Refusal::conflict(format!(
                "Cannot 'evacuate' instance {server} while it is in vm_state {}",
                s.vm_state
            )));
        }
        let source = s.host.clone();
        let target_vm_state = if version >= Microversion::new(2, 95) {
            "stopped".to_string()
        } else {
            s.vm_state.clone()
        };
        let source_up = self
            .compute_service(&source)
            .is_some_and(|svc| self.service_is_up(svc, now));
        if source_up {
            let time = self.clock.at(now);
            self.logs.nova_api(
                time,
                Level::Error,
                "nova.compute.api",
                Some(ids),
                None,
                &format!(
                    "Instance compute service state on {source} expected to be down, but it was up."
                ),
            );
            return Err(Refusal::bad_request(format!(
                "Compute service of {source} is still in use."
            )));
        }
        let destination = host.or_else(|| self.pick_destination(&source, now));
        let migration_id = self.migrations.len() as u32 + 1;
        self.migrations.push(Migration {
            id: migration_id,
            uuid: uuid::Uuid::new_v4().hyphenated().to_string(),
            instance: server.to_string(),
            source: source.clone(),
            destination: destination.clone(),
            status: "accepted".into(),
            created_s: now,
            updated_s: now,
        });
        self.action(server, "evacuate", ids, now);
        if let Some(s) = self.server_mut(server) {
            s.task_state = Some("rebuilding".into());
            if let Some(action) = s.actions.last_mut() {
                action.events.push(ActionEvent {
                    event: "rebuild_server".into(),
                    host: None,
                    start_s: now,
                    finish_s: None,
                    result: None,
                });
            }
            s.rebuild = Some(Rebuild {
                source,
                destination,
                started_s: now,
                spawn_started_s: None,
                target_vm_state,
                request: ids.clone(),
                migration_id,
            });
        }
        Ok(())
    }

    /// The scheduler's choice: an enabled compute host Nova sees up, other than the
    /// source, with the fewest servers (then by name).
    fn pick_destination(&self, source: &str, now: f64) -> Option<String> {
        self.services
            .iter()
            .filter(|s| s.binary == "nova-compute" && s.host != source && !s.disabled)
            .filter(|s| self.service_is_up(s, now))
            .min_by_key(|s| {
                let load = self.servers.iter().filter(|v| v.host == s.host).count();
                (load, s.host.clone())
            })
            .map(|s| s.host.clone())
    }
}

fn not_found(server: &str) -> Refusal {
    Refusal::not_found(format!("Instance {server} could not be found."))
}
