//! Time passing: evacuations move on (the conductor picks or fails the destination,
//! a volume still attached to the source holds the rebuild, the destination spawns for
//! `rebuild_s`) and leave their lines in the conductor's and computes' logs.

use super::model::{ActionEvent, Attachment, Rebuild};
use super::state::Cloud;
use crate::sim::logs::Level;

/// What the next step of one rebuild is.
enum Step {
    /// The conductor found no host: the instance goes to ERROR.
    NoHost,
    /// A volume still attached to the source holds it.
    Held,
    /// The hold ran out (`attachment_hold`): the old attachment is dropped.
    HoldExpired,
    /// The destination starts spawning.
    Spawn(String),
    /// The spawn is done.
    Finish(String),
    Wait,
}

impl Cloud {
    /// Moves every evacuation on to scenario second `now`.
    pub fn advance(&mut self, now: f64) {
        self.restart_returned_hosts(now);
        let rebuilding: Vec<String> = self
            .servers
            .iter()
            .filter(|s| s.rebuild.is_some())
            .map(|s| s.id.clone())
            .collect();
        for id in rebuilding {
            // A rebuild can take several steps in one tick (no hold, zero rebuild time).
            for _ in 0..4 {
                if !self.step(&id, now) {
                    break;
                }
            }
        }
    }

    /// One step of the rebuild of `id`; false when there is nothing more to do now.
    fn step(&mut self, id: &str, now: f64) -> bool {
        let Some(rebuild) = self.server(id).and_then(|s| s.rebuild.clone()) else {
            return false;
        };
        match self.next_step(id, &rebuild, now) {
            Step::Wait | Step::Held => false,
            Step::NoHost => {
                self.fail_no_host(id, &rebuild, now);
                false
            }
            Step::HoldExpired => {
                self.drop_attachments(id, &rebuild.source, now);
                true
            }
            Step::Spawn(destination) => {
                self.spawn(id, &rebuild, &destination, now);
                true
            }
            Step::Finish(destination) => {
                self.finish(id, &rebuild, &destination, now);
                false
            }
        }
    }

    fn next_step(&self, id: &str, rebuild: &Rebuild, now: f64) -> Step {
        let Some(destination) = rebuild.destination.clone() else {
            return Step::NoHost;
        };
        if let Some(spawn) = rebuild.spawn_started_s {
            return if now >= spawn + self.scenario.timing.rebuild_s {
                Step::Finish(destination)
            } else {
                Step::Wait
            };
        }
        if !self.host_alive(&destination, now) {
            return Step::NoHost;
        }
        if self.held_by_volume(id, &rebuild.source) {
            return match self.scenario.timing.attachment_hold {
                Some(hold) if now >= rebuild.started_s + hold => Step::HoldExpired,
                _ => Step::Held,
            };
        }
        Step::Spawn(destination)
    }

    /// Whether a non-multiattach volume of `id` is still attached on `source`.
    pub fn held_by_volume(&self, id: &str, source: &str) -> bool {
        self.volumes.iter().any(|v| {
            !v.multiattach
                && v.attachments
                    .iter()
                    .any(|a| a.server_id == id && a.host_name == source)
        })
    }

    fn drop_attachments(&mut self, id: &str, source: &str, now: f64) {
        for volume in &mut self.volumes {
            let before = volume.attachments.len();
            volume
                .attachments
                .retain(|a| !(a.server_id == id && a.host_name == source));
            if volume.attachments.len() != before {
                volume.updated_s = now;
                if volume.attachments.is_empty() {
                    volume.status = "available".into();
                }
            }
        }
    }

    fn fail_no_host(&mut self, id: &str, rebuild: &Rebuild, now: f64) {
        let time = self.clock.at(now);
        self.logs.conductor(
            time,
            Level::Warning,
            &rebuild.request,
            id,
            "Rebuild failed: No valid host was found. There are not enough hosts available.",
        );
        self.set_migration(rebuild.migration_id, "error", now);
        if let Some(s) = self.server_mut(id) {
            s.rebuild = None;
            s.task_state = None;
            s.vm_state = "error".into();
            s.updated_s = now;
            if let Some(event) = s.actions.last_mut().and_then(|a| a.events.last_mut()) {
                event.finish_s = Some(now);
                event.result = Some("Error".into());
            }
        }
    }

    fn spawn(&mut self, id: &str, rebuild: &Rebuild, destination: &str, now: f64) {
        let boots_from_volume = self.server(id).is_some_and(|s| s.volume.is_some());
        let time = self.clock.at(now);
        let ids = &rebuild.request;
        self.logs
            .compute(destination, time, ids, id, "Evacuating instance");
        let disk = if boots_from_volume {
            "disk on volume, evacuating using existing volume"
        } else {
            "disk on shared storage, evacuating using existing disk"
        };
        self.logs.compute(destination, time, ids, id, disk);
        self.set_migration(rebuild.migration_id, "pre-migrating", now);
        if let Some(s) = self.server_mut(id) {
            s.host = destination.to_string();
            s.task_state = Some("rebuild_spawning".into());
            s.updated_s = now;
            if let Some(r) = &mut s.rebuild {
                r.spawn_started_s = Some(now);
            }
            if let Some(action) = s.actions.last_mut() {
                action.updated_s = now;
                if let Some(event) = action.events.last_mut() {
                    event.finish_s = Some(now);
                    event.result = Some("Success".into());
                }
                action.events.push(ActionEvent {
                    event: "compute_rebuild_instance".into(),
                    host: Some(destination.to_string()),
                    start_s: now,
                    finish_s: None,
                    result: None,
                });
            }
        }
    }

    fn finish(&mut self, id: &str, rebuild: &Rebuild, destination: &str, now: f64) {
        if rebuild.target_vm_state != "active" {
            let time = self.clock.at(now);
            let message = format!(
                "bringing vm to original state: '{}'",
                rebuild.target_vm_state
            );
            self.logs
                .compute(destination, time, &rebuild.request, id, &message);
        }
        self.set_migration(rebuild.migration_id, "done", now);
        // The destination attaches the volumes; the source's attachments are replaced.
        for volume in &mut self.volumes {
            if volume.attachments.iter().any(|a| a.server_id == id)
                || self
                    .servers
                    .iter()
                    .any(|s| s.id == id && s.volume.as_deref() == Some(&volume.id))
            {
                volume.attachments.retain(|a| a.server_id != id);
                volume.attachments.push(Attachment {
                    id: uuid::Uuid::new_v4().hyphenated().to_string(),
                    server_id: id.to_string(),
                    host_name: destination.to_string(),
                    attached_s: now,
                });
                volume.status = "in-use".into();
                volume.updated_s = now;
            }
        }
        if let Some(s) = self.server_mut(id) {
            s.rebuild = None;
            s.task_state = None;
            s.vm_state = rebuild.target_vm_state.clone();
            s.updated_s = now;
            if let Some(action) = s.actions.last_mut() {
                action.updated_s = now;
                if let Some(event) = action.events.last_mut() {
                    event.finish_s = Some(now);
                    event.result = Some("Success".into());
                }
            }
        }
    }

    fn set_migration(&mut self, id: u32, status: &str, now: f64) {
        if let Some(m) = self.migrations.iter_mut().find(|m| m.id == id) {
            m.status = status.into();
            m.updated_s = now;
        }
    }
}
