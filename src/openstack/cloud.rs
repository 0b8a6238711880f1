//! What the executor needs from an OpenStack cloud, as one trait: the executor's plan and
//! apply steps are written against it, and `openstack` implements it with `openstack_sdk`.
//! Methods are one API call each (no retries here: the executor owns retry policy).

use std::collections::BTreeMap;
use std::future::Future;

/// A `nova-compute` service as `GET /os-services` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ComputeService {
    /// The service id: an integer before microversion 2.53, a UUID from it on (as a string).
    pub id: String,
    pub host: String,
    /// `enabled` is false when `status` is `disabled`.
    pub enabled: bool,
    /// `state` is `up`.
    pub up: bool,
    pub forced_down: bool,
    pub disabled_reason: Option<String>,
}

/// Any Nova service as `GET /os-services` lists it: the guards count the computes down
/// and the schedulers up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NovaService {
    /// `nova-compute`, `nova-scheduler`, `nova-conductor`...
    pub binary: String,
    pub service: ComputeService,
}

/// An evacuation record as `GET /os-migrations` shows it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Migration {
    pub id: String,
    /// `instance_uuid`.
    pub instance: String,
    /// `dest_compute`.
    pub destination: Option<String>,
    /// `done` until nova-compute starts again on the source, then `completed`.
    pub status: String,
}

/// A server as `GET /servers/{id}` (or the detailed list) shows it, admin view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Server {
    pub id: String,
    pub name: String,
    /// `ACTIVE`, `SHUTOFF`, `ERROR`, `REBUILD`...
    pub status: String,
    /// `OS-EXT-SRV-ATTR:host`.
    pub host: Option<String>,
    /// `OS-EXT-STS:task_state`.
    pub task_state: Option<String>,
    /// `OS-EXT-STS:vm_state`.
    pub vm_state: Option<String>,
    pub locked: bool,
    /// Why, from microversion 2.73 (`locked_reason`).
    pub locked_reason: Option<String>,
    pub metadata: BTreeMap<String, String>,
    /// Volume ids of `os-extended-volumes:volumes_attached`.
    pub volumes: Vec<String>,
}

/// One attachment of a Cinder volume.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VolumeAttachment {
    /// The Cinder attachment id.
    pub attachment_id: String,
    pub server_id: String,
    /// The compute host the attachment was made for, when Cinder says.
    pub host: Option<String>,
}

/// A Cinder volume as `GET /volumes/{id}` shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Volume {
    pub id: String,
    pub status: String,
    pub multiattach: bool,
    pub attachments: Vec<VolumeAttachment>,
}

/// What the cloud offers, found once when connecting.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CloudVersions {
    /// Nova's maximum microversion, `(2, 95)`.
    pub compute_max: (u32, u32),
    /// Cinder's maximum microversion, `(3, 70)`; `(3, 0)` when it offers none.
    pub volume_max: (u32, u32),
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum CloudError {
    /// The cloud answered with an error status.
    #[error("{method} {path} answered {status}: {message}")]
    Status {
        method: String,
        path: String,
        status: u16,
        message: String,
    },
    /// No answer: refused, reset, timed out.
    #[error("{method} {path}: connection failed: {message}")]
    Connection {
        method: String,
        path: String,
        message: String,
    },
    /// The cloud answered a redirect. None is followed: the executor talks only to the
    /// endpoints of its configuration and of the token's catalog.
    #[error(
        "{method} {path} answered {status} redirecting to {location}: redirects are not followed"
    )]
    Redirect {
        method: String,
        path: String,
        status: u16,
        location: String,
    },
    /// Keystone refused the credentials or could not be reached.
    #[error("authentication failed: {0}")]
    Auth(String),
    /// clouds.yaml or the OS_* variables are missing or wrong.
    #[error("cloud configuration: {0}")]
    Config(String),
    /// An answer that could not be understood.
    #[error("{method} {path}: unexpected answer: {message}")]
    Unexpected {
        method: String,
        path: String,
        message: String,
    },
}

impl CloudError {
    /// The HTTP status, when the cloud answered.
    pub fn status(&self) -> Option<u16> {
        match self {
            Self::Status { status, .. } | Self::Redirect { status, .. } => Some(*status),
            _ => None,
        }
    }
}

/// The calls the executor makes. One implementation talks to a real cloud
/// (`openstack::OpenStack`); futures are `Send` so moves run in parallel on tokio.
pub trait Cloud: Send + Sync {
    /// The microversions found when connecting.
    fn versions(&self) -> CloudVersions;

    /// `GET /os-services?binary=nova-compute&host=HOST`.
    fn compute_service(
        &self,
        host: &str,
    ) -> impl Future<Output = Result<Option<ComputeService>, CloudError>> + Send;

    /// `GET /os-services`: every service of every binary.
    fn services(&self) -> impl Future<Output = Result<Vec<NovaService>, CloudError>> + Send;

    /// `PUT /os-services/{id}` (2.53) or `PUT /os-services/force-down` (2.11): sets
    /// `forced_down` on the service.
    fn force_down(
        &self,
        service: &ComputeService,
        forced_down: bool,
    ) -> impl Future<Output = Result<ComputeService, CloudError>> + Send;

    /// Disables the service with a reason (`PUT /os-services/{id}` with status disabled,
    /// or `PUT /os-services/disable-log-reason` before 2.53).
    fn disable(
        &self,
        service: &ComputeService,
        reason: &str,
    ) -> impl Future<Output = Result<ComputeService, CloudError>> + Send;

    /// Enables the service (`PUT /os-services/{id}` with status enabled, or `PUT
    /// /os-services/enable` before 2.53).
    fn enable(
        &self,
        service: &ComputeService,
    ) -> impl Future<Output = Result<ComputeService, CloudError>> + Send;

    /// `GET /os-migrations?source_compute=HOST&migration_type=evacuation&status=done`:
    /// the evacuations from `host` its nova-compute has not cleaned up yet.
    fn done_evacuations(
        &self,
        host: &str,
    ) -> impl Future<Output = Result<Vec<Migration>, CloudError>> + Send;

    /// `GET /servers/detail?all_tenants=1&host=HOST` (every page).
    fn servers_on_host(
        &self,
        host: &str,
    ) -> impl Future<Output = Result<Vec<Server>, CloudError>> + Send;

    /// `GET /servers/{id}`.
    fn server(&self, id: &str) -> impl Future<Output = Result<Server, CloudError>> + Send;

    /// `POST /servers/{id}/action` `lock` (with a reason from 2.73).
    fn lock(&self, id: &str, reason: &str) -> impl Future<Output = Result<(), CloudError>> + Send;

    /// `POST /servers/{id}/action` `unlock`.
    fn unlock(&self, id: &str) -> impl Future<Output = Result<(), CloudError>> + Send;

    /// `POST /servers/{id}/action` `evacuate`, in the body form of the highest
    /// microversion both sides know (2.68, 2.29, 2.14, else 2.1 with `onSharedStorage`);
    /// no target host (the scheduler picks). Not 2.95: from it Nova leaves the server
    /// SHUTOFF at the destination, so a server ends in its earlier state only below it.
    fn evacuate(&self, id: &str) -> impl Future<Output = Result<(), CloudError>> + Send;

    /// `GET /volumes/{id}` (Cinder).
    fn volume(&self, id: &str) -> impl Future<Output = Result<Volume, CloudError>> + Send;

    /// Removes one attachment: `DELETE /attachments/{id}` (3.27+), else
    /// `POST /volumes/{id}/action` `os-force_detach` with the attachment id (also after
    /// the delete is refused with 409 by Cinder's bug #2004555 guard).
    fn clear_attachment(
        &self,
        volume: &Volume,
        attachment: &VolumeAttachment,
    ) -> impl Future<Output = Result<(), CloudError>> + Send;
}
