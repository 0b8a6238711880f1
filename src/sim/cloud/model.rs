//! The simulated cloud's records: compute services, servers, volumes and their
//! attachments, instance actions, migrations and tokens.

/// A Nova service (`nova-compute` on each compute host; conductor and scheduler on the
/// controller).
#[derive(Clone, Debug)]
pub struct Service {
    /// The integer id of microversions before 2.53.
    pub id: u32,
    /// The UUID id of 2.53 and later.
    pub uuid: String,
    pub binary: String,
    pub host: String,
    pub disabled: bool,
    pub disabled_reason: Option<String>,
    pub forced_down: bool,
    /// The scenario second its host stops heartbeating (infinity: never).
    pub dies_at: f64,
    /// The scenario second nova-compute starts again on the repaired host (infinity: never).
    pub returns_at: f64,
}

/// Who holds a server's lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LockOwner {
    /// The scenario's user (the one the simulator signs in).
    Us,
    /// Somebody else: evacuating answers 409.
    Other,
}

/// A Nova server.
#[derive(Clone, Debug)]
pub struct Server {
    pub id: String,
    pub name: String,
    /// `instance-0000000N`.
    pub instance_name: String,
    pub host: String,
    pub vm_state: String,
    pub task_state: Option<String>,
    pub locked: Option<LockOwner>,
    pub locked_reason: Option<String>,
    pub ha_enabled: bool,
    /// The volume it boots from.
    pub volume: Option<String>,
    pub created_s: f64,
    pub updated_s: f64,
    pub actions: Vec<InstanceAction>,
    pub rebuild: Option<Rebuild>,
}

/// An evacuation on its way.
#[derive(Clone, Debug)]
pub struct Rebuild {
    pub source: String,
    /// `None` when no host could take it (the conductor fails it at the next tick).
    pub destination: Option<String>,
    pub started_s: f64,
    /// When the destination began spawning (after any volume hold).
    pub spawn_started_s: Option<f64>,
    /// vm_state at the end: the one before, or `stopped` (2.95).
    pub target_vm_state: String,
    pub request: RequestIds,
    pub migration_id: u32,
}

/// The request ids of a call, for the lines it causes on other services.
#[derive(Clone, Debug, Default)]
pub struct RequestIds {
    pub request_id: String,
    pub global_request_id: Option<String>,
    pub user_id: String,
    pub project_id: String,
}

/// An instance action (`lock`, `unlock`, `evacuate`) and its events.
#[derive(Clone, Debug)]
pub struct InstanceAction {
    pub action: String,
    pub request_id: String,
    pub user_id: String,
    pub project_id: String,
    pub start_s: f64,
    pub updated_s: f64,
    pub events: Vec<ActionEvent>,
}

/// One event of an instance action (`rebuild_server`, `compute_rebuild_instance`).
#[derive(Clone, Debug)]
pub struct ActionEvent {
    pub event: String,
    pub host: Option<String>,
    pub start_s: f64,
    pub finish_s: Option<f64>,
    /// `Success` or `Error` once finished.
    pub result: Option<String>,
}

/// A Cinder volume.
#[derive(Clone, Debug)]
pub struct Volume {
    pub id: String,
    pub name: String,
    pub size: u32,
    pub multiattach: bool,
    pub status: String,
    pub attachments: Vec<Attachment>,
    pub created_s: f64,
    pub updated_s: f64,
}

/// A Cinder attachment of a volume to a server on a host.
#[derive(Clone, Debug)]
pub struct Attachment {
    pub id: String,
    pub server_id: String,
    pub host_name: String,
    pub attached_s: f64,
}

/// A Nova migration record (evacuations only).
#[derive(Clone, Debug)]
pub struct Migration {
    pub id: u32,
    pub uuid: String,
    pub instance: String,
    pub source: String,
    pub destination: Option<String>,
    /// `accepted`, `pre-migrating`, `done`, `failed`.
    pub status: String,
    pub created_s: f64,
    pub updated_s: f64,
}

/// An issued Keystone token.
#[derive(Clone, Debug)]
pub struct Token {
    pub issued_s: f64,
    pub expires_s: f64,
    pub methods: Vec<String>,
}
