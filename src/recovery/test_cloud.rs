//! An in-memory [`Cloud`] for the executor's unit tests: a host's service, its servers
//! and volumes, every call recorded, and failures scripted per call name. It moves an
//! evacuated server to `compute-2` at once; the simulator tests cover real timing.

use std::collections::BTreeMap;
use std::sync::Mutex;

use super::cloud::{
    Cloud, CloudError, CloudVersions, ComputeService, Migration, NovaService, Server, Volume,
    VolumeAttachment,
};

#[derive(Debug, Default)]
pub struct TestCloud {
    pub state: Mutex<State>,
}

#[derive(Debug, Default)]
pub struct State {
    pub service: Option<ComputeService>,
    pub servers: Vec<Server>,
    pub volumes: Vec<Volume>,
    /// Every call, `name id`.
    pub calls: Vec<String>,
    /// Call name, or `name id` for one resource → statuses to answer, one per call,
    /// before answering normally.
    pub failures: BTreeMap<String, Vec<u16>>,
    /// The service stays up whatever is done (a host that is not dead).
    pub stays_up: bool,
    /// The cloud's other services (`GET /os-services` adds `service`); `None`: a
    /// healthy cloud, one scheduler and three other computes up.
    pub others: Option<Vec<NovaService>>,
    /// Forcing the service up is refused as Nova refuses it while `done` evacuation
    /// migration records remain.
    pub done_evacuations: bool,
    /// Forced up, the service still does not report (nova-compute not started).
    pub stays_down: bool,
}

/// A service of `binary` on `host`.
pub fn other(binary: &str, host: &str, up: bool) -> NovaService {
    NovaService {
        binary: binary.to_owned(),
        service: ComputeService {
            id: format!("id-{binary}-{host}"),
            host: host.to_owned(),
            enabled: true,
            up,
            forced_down: false,
            disabled_reason: None,
        },
    }
}

pub fn service(up: bool) -> ComputeService {
    ComputeService {
        id: "5f0c3a9e-1d2b-4c3d-8e4f-000000000001".to_owned(),
        host: "compute-1".to_owned(),
        enabled: true,
        up,
        forced_down: false,
        disabled_reason: None,
    }
}

pub fn server(id: &str, name: &str, ha: bool, volumes: &[&str]) -> Server {
    let mut metadata = BTreeMap::new();
    if ha {
        metadata.insert("HA_Enabled".to_owned(), "True".to_owned());
    }
    Server {
        id: id.to_owned(),
        name: name.to_owned(),
        status: "ACTIVE".to_owned(),
        host: Some("compute-1".to_owned()),
        task_state: None,
        vm_state: Some("active".to_owned()),
        locked: false,
        locked_reason: None,
        metadata,
        volumes: volumes.iter().map(|v| (*v).to_owned()).collect(),
    }
}

pub fn volume(id: &str, server: &str, multiattach: bool) -> Volume {
    Volume {
        id: id.to_owned(),
        status: "in-use".to_owned(),
        multiattach,
        attachments: vec![VolumeAttachment {
            attachment_id: format!("att-{id}"),
            server_id: server.to_owned(),
            host: Some("compute-1".to_owned()),
        }],
    }
}

impl TestCloud {
    pub fn new(state: State) -> Self {
        TestCloud {
            state: Mutex::new(state),
        }
    }

    pub fn calls(&self) -> Vec<String> {
        self.lock().calls.clone()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Records the call and answers the scripted failure, if one is left.
    fn call(&self, name: &str, id: &str) -> Result<std::sync::MutexGuard<'_, State>, CloudError> {
        let mut state = self.lock();
        let call = format!("{name} {id}");
        state.calls.push(call.clone());
        let scripted = [call.as_str(), name]
            .into_iter()
            .find(|key| state.failures.get(*key).is_some_and(|s| !s.is_empty()));
        if let Some(key) = scripted
            && let Some(statuses) = state.failures.get_mut(key)
        {
            let status = statuses.remove(0);
            return Err(CloudError::Status {
                method: "X".to_owned(),
                path: format!("/{name}/{id}"),
                status,
                message: "scripted".to_owned(),
            });
        }
        Ok(state)
    }
}

fn not_found(what: &str) -> CloudError {
    CloudError::Status {
        method: "GET".to_owned(),
        path: what.to_owned(),
        status: 404,
        message: "not found".to_owned(),
    }
}

impl Cloud for TestCloud {
    fn versions(&self) -> CloudVersions {
        CloudVersions {
            compute_max: (2, 95),
            volume_max: (3, 70),
        }
    }

    async fn compute_service(&self, host: &str) -> Result<Option<ComputeService>, CloudError> {
        let state = self.call("compute_service", host)?;
        Ok(state.service.clone())
    }

    async fn services(&self) -> Result<Vec<NovaService>, CloudError> {
        let state = self.call("services", "")?;
        let mut all: Vec<NovaService> = state.others.clone().unwrap_or_else(|| {
            vec![
                other("nova-scheduler", "controller-0", true),
                other("nova-compute", "compute-2", true),
                other("nova-compute", "compute-3", true),
                other("nova-compute", "compute-4", true),
            ]
        });
        all.extend(state.service.clone().map(|service| NovaService {
            binary: "nova-compute".to_owned(),
            service,
        }));
        Ok(all)
    }

    async fn enable(&self, _service: &ComputeService) -> Result<ComputeService, CloudError> {
        let mut state = self.call("enable", "compute-1")?;
        let service = state.service.as_mut().ok_or_else(|| not_found("service"))?;
        service.enabled = true;
        service.disabled_reason = None;
        Ok(service.clone())
    }

    async fn force_down(
        &self,
        _service: &ComputeService,
        forced_down: bool,
    ) -> Result<ComputeService, CloudError> {
        let mut state = self.call("force_down", "compute-1")?;
        if !forced_down && state.done_evacuations {
            return Err(CloudError::Status {
                method: "PUT".to_owned(),
                path: "/os-services/5f0c3a9e-1d2b-4c3d-8e4f-000000000001".to_owned(),
                status: 400,
                message: "Unable to force up host compute-1 as `done` evacuation migration \
                          records remain associated with the host. Ensure the compute service \
                          has been restarted, allowing these records to move to `completed` \
                          before retrying this request."
                    .to_owned(),
            });
        }
        let stays_down = state.stays_down;
        let service = state.service.as_mut().ok_or_else(|| not_found("service"))?;
        service.forced_down = forced_down;
        service.up = !forced_down && !stays_down;
        Ok(service.clone())
    }

    async fn disable(
        &self,
        _service: &ComputeService,
        reason: &str,
    ) -> Result<ComputeService, CloudError> {
        let mut state = self.call("disable", "compute-1")?;
        let service = state.service.as_mut().ok_or_else(|| not_found("service"))?;
        service.enabled = false;
        service.disabled_reason = Some(reason.to_owned());
        Ok(service.clone())
    }

    async fn done_evacuations(&self, host: &str) -> Result<Vec<Migration>, CloudError> {
        let state = self.call("done_evacuations", host)?;
        Ok(if state.done_evacuations {
            vec![Migration {
                id: "7d0e2c5a-3b1f-4e8d-9c6a-000000000012".to_owned(),
                instance: "56ce6206-3659-495e-a6ea-f4d3d578cc96".to_owned(),
                destination: Some("compute-2".to_owned()),
                status: "done".to_owned(),
            }]
        } else {
            Vec::new()
        })
    }

    async fn servers_on_host(&self, host: &str) -> Result<Vec<Server>, CloudError> {
        let state = self.call("servers_on_host", host)?;
        Ok(state
            .servers
            .iter()
            .filter(|s| s.host.as_deref() == Some(host))
            .cloned()
            .collect())
    }

    async fn server(&self, id: &str) -> Result<Server, CloudError> {
        let state = self.call("server", id)?;
        state
            .servers
            .iter()
            .find(|s| s.id == id)
            .cloned()
            .ok_or_else(|| not_found(id))
    }

    async fn lock(&self, id: &str, reason: &str) -> Result<(), CloudError> {
        let mut state = self.call("lock", id)?;
        let server = state
            .servers
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| not_found(id))?;
        server.locked = true;
        server.locked_reason = Some(reason.to_owned());
        Ok(())
    }

    async fn unlock(&self, id: &str) -> Result<(), CloudError> {
        let mut state = self.call("unlock", id)?;
        let server = state
            .servers
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| not_found(id))?;
        server.locked = false;
        server.locked_reason = None;
        Ok(())
    }

    async fn evacuate(&self, id: &str) -> Result<(), CloudError> {
        let mut state = self.call("evacuate", id)?;
        if state.service.as_ref().is_some_and(|s| s.up) || state.stays_up {
            return Err(CloudError::Status {
                method: "POST".to_owned(),
                path: format!("/servers/{id}/action"),
                status: 400,
                message: "Compute service of compute-1 is still in use.".to_owned(),
            });
        }
        let server = state
            .servers
            .iter_mut()
            .find(|s| s.id == id)
            .ok_or_else(|| not_found(id))?;
        server.host = Some("compute-2".to_owned());
        Ok(())
    }

    async fn volume(&self, id: &str) -> Result<Volume, CloudError> {
        let state = self.call("volume", id)?;
        state
            .volumes
            .iter()
            .find(|v| v.id == id)
            .cloned()
            .ok_or_else(|| not_found(id))
    }

    async fn clear_attachment(
        &self,
        volume: &Volume,
        attachment: &VolumeAttachment,
    ) -> Result<(), CloudError> {
        let mut state = self.call("clear_attachment", &attachment.attachment_id)?;
        if let Some(stored) = state.volumes.iter_mut().find(|v| v.id == volume.id) {
            stored
                .attachments
                .retain(|a| a.attachment_id != attachment.attachment_id);
        }
        Ok(())
    }
}
