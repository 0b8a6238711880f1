//! The plan of a host recovery: what the cloud looks like now (the compute service, the
//! host's servers, the attachments of their volumes) and every API call the run will
//! make, in order, with why. Reading is all it does.

use serde::Serialize;

use super::cloud::{Cloud, CloudError, CloudVersions, ComputeService, Server};
use super::guards::{Fleet, GuardError};
use super::options::RecoveryOptions;
use super::reenable::set_by_a_recovery;

/// One API call of the plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// `GET`, `PUT`, `POST`, `DELETE`, or `WAIT` for a bounded wait made of reads.
    pub method: String,
    pub path: String,
    pub why: String,
    /// The instance it is for, when it is a move's step.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instance: Option<String>,
}

/// What the run must do for Nova to see the host down before any evacuation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum HostAction {
    /// Nova already sees it down.
    AlreadyDown,
    /// Up, and stated fenced: force the service down.
    ForceDown,
    /// Up, not stated fenced: wait for Nova, then refuse if it still sees it up.
    WaitThenRefuse,
}

/// A volume attachment to clear before evacuating (non-multiattach, made for the dead host).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct AttachmentToClear {
    pub volume: String,
    pub attachment: String,
}

/// One instance of the host and what the run does with it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PlannedMove {
    pub instance: String,
    pub name: String,
    /// The failed host.
    pub source: String,
    /// Its status now (`ACTIVE`, `SHUTOFF`, `ERROR`).
    pub status: String,
    /// Locked already by someone else: the run leaves the lock as it is. A lock with
    /// evacdoc's reason (a killed run's) is taken as the run's own, and released.
    pub locked: bool,
    pub attachments: Vec<AttachmentToClear>,
    /// An evacuation is already under way (task state `rebuilding`, held by its volume):
    /// the run clears the attachment and follows it, without a second evacuate.
    pub evacuating: bool,
    /// Why it is not moved, when it is not (journaled `ignored`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ignored: Option<String>,
    /// Why it cannot be moved safely (journaled `failed`, the other moves go on): one of
    /// its volumes could not be read, so its dead attachment could not be found.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub unmovable: Option<String>,
}

/// The plan of a host recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub host: String,
    pub host_action: HostAction,
    /// The service's id, for the calls that name it.
    pub service_id: String,
    /// The service is enabled now, so the run disables it.
    pub disable: bool,
    /// HA-enabled instances first (Masakari's order), then the others.
    pub moves: Vec<PlannedMove>,
    pub steps: Vec<Step>,
    /// The computes down and the schedulers up, as the guards counted them.
    pub fleet: Fleet,
    /// What the operator should know before applying (the host not declared fenced).
    pub warnings: Vec<String>,
}

/// Why no plan could be made.
#[derive(Debug, thiserror::Error)]
pub enum PlanError {
    #[error("nova has no nova-compute service on host {0}")]
    NoService(String),
    /// InstanceHA's guards refuse: too many computes down, or no scheduler up.
    #[error(transparent)]
    Guard(#[from] GuardError),
    #[error(transparent)]
    Cloud(#[from] CloudError),
}

impl PlanError {
    /// A stable name for machines (the service's API error code).
    pub fn code(&self) -> &'static str {
        match self {
            PlanError::NoService(_) => "no_compute_service",
            PlanError::Guard(GuardError::TooManyComputesDown { .. }) => "too_many_computes_down",
            PlanError::Guard(GuardError::NoSchedulerUp { .. }) => "no_scheduler_up",
            PlanError::Cloud(_) => "plan_failed",
        }
    }
}

/// Reads the host's service, its servers (all projects) and their volumes, and plans.
pub async fn plan<C: Cloud>(
    cloud: &C,
    host: &str,
    options: &RecoveryOptions,
) -> Result<Plan, PlanError> {
    let retry = &options.retry;
    let service = retry
        .run("compute service", || cloud.compute_service(host))
        .await?
        .ok_or_else(|| PlanError::NoService(host.to_owned()))?;
    let services = retry.run("services", || cloud.services()).await?;
    let fleet = Fleet::of(&services, host);
    fleet.check(options.max_down_percent)?;
    let servers = retry
        .run("servers on host", || cloud.servers_on_host(host))
        .await?;
    let only = options.selection.only_instances.as_ref();
    let servers = servers
        .into_iter()
        .filter(|s| only.is_none_or(|only| only.contains(&s.id)))
        .collect();
    let mut moves = Vec::new();
    for server in order_for_recovery(servers, &options.selection.ha_metadata_key) {
        let mut attachments = Vec::new();
        let mut unmovable = None;
        for volume_id in &server.volumes {
            // One server's volume that cannot be read (no Cinder in the catalog, Cinder
            // down, no access) fails that move only: the host's other instances still go.
            let volume = match retry.run("volume", || cloud.volume(volume_id)).await {
                Ok(volume) => volume,
                Err(error) => {
                    unmovable = Some(format!(
                        "not moved: its volume {volume_id} cannot be read ({error}), so its \
                         attachment to the dead host cannot be cleared"
                    ));
                    break;
                }
            };
            if volume.multiattach {
                continue;
            }
            // The attachment made for the dead host (Cinder may not say which host).
            attachments.extend(
                volume
                    .attachments
                    .iter()
                    .filter(|a| a.server_id == server.id)
                    .filter(|a| a.host.as_deref().is_none_or(|h| h == host))
                    .map(|a| AttachmentToClear {
                        volume: volume.id.clone(),
                        attachment: a.attachment_id.clone(),
                    }),
            );
        }
        let ignored = why_ignored(&server, options);
        let evacuating = server.task_state.as_deref() == Some("rebuilding");
        moves.push(PlannedMove {
            evacuating,
            instance: server.id,
            name: server.name,
            source: host.to_owned(),
            status: server.status,
            locked: server.locked
                && server.locked_reason.as_deref() != Some(super::options::LOCK_REASON),
            attachments,
            ignored,
            unmovable,
        });
    }
    Ok(assemble(
        host,
        &service,
        fleet,
        moves,
        cloud.versions(),
        options,
    ))
}

/// Whether the HA metadata key says `True` (Masakari compares case-insensitively).
pub fn is_ha_enabled(server: &Server, key: &str) -> bool {
    server
        .metadata
        .get(key)
        .is_some_and(|value| value.eq_ignore_ascii_case("true"))
}

/// HA-enabled first, then the others, each in the order Nova listed them.
fn order_for_recovery(servers: Vec<Server>, key: &str) -> Vec<Server> {
    let (mut first, rest): (Vec<Server>, Vec<Server>) =
        servers.into_iter().partition(|s| is_ha_enabled(s, key));
    first.extend(rest);
    first
}

fn why_ignored(server: &Server, options: &RecoveryOptions) -> Option<String> {
    let selection = &options.selection;
    if !selection.all_instances && !is_ha_enabled(server, &selection.ha_metadata_key) {
        return Some(format!(
            "not moved: no {}=True metadata and only HA-enabled instances are moved",
            selection.ha_metadata_key
        ));
    }
    if selection.ignore_error_instances && server.status.eq_ignore_ascii_case("ERROR") {
        return Some("not moved: in error state and error instances are ignored".to_owned());
    }
    None
}

/// The plan from what was read: the host steps, then each move's calls.
pub fn assemble(
    host: &str,
    service: &ComputeService,
    fleet: Fleet,
    moves: Vec<PlannedMove>,
    versions: CloudVersions,
    options: &RecoveryOptions,
) -> Plan {
    let host_action = match (service.up, options.host_fenced) {
        (false, _) => HostAction::AlreadyDown,
        (true, true) => HostAction::ForceDown,
        (true, false) => HostAction::WaitThenRefuse,
    };
    let mut steps = vec![
        step(
            "GET",
            format!("/os-services?binary=nova-compute&host={host}"),
            format!(
                "read: nova-compute on {host} is {}, {}{}{}",
                if service.up { "up" } else { "down" },
                if service.enabled {
                    "enabled"
                } else {
                    "disabled"
                },
                if service.forced_down {
                    ", forced down"
                } else {
                    ""
                },
                resumed_from_nova(service, options)
            ),
        ),
        step(
            "GET",
            "/os-services".to_owned(),
            format!("read: {}", fleet.summary(options.max_down_percent)),
        ),
        step(
            "GET",
            format!("/servers/detail?all_tenants=1&host={host}"),
            format!("read: {} instances on {host}", moves.len()),
        ),
    ];
    let modern_services = versions.compute_max >= (2, 53);
    match host_action {
        HostAction::AlreadyDown => {}
        HostAction::ForceDown => steps.push(step(
            "PUT",
            if modern_services {
                format!("/os-services/{}", service.id)
            } else {
                "/os-services/force-down".to_owned()
            },
            format!(
                "nova still sees {host} up and the operator states it is fenced: \
                 forced_down=true so nova sees it down at once"
            ),
        )),
        HostAction::WaitThenRefuse => steps.push(step(
            "WAIT",
            format!("/os-services?binary=nova-compute&host={host}"),
            format!(
                "nova still sees {host} up and it is not stated fenced: poll every {}s \
                 for up to {}s (service_down_time {}s + {}s), then refuse; never evacuate \
                 from a host nova sees up",
                options.poll_interval.as_secs_f64(),
                options.wait_for_down().as_secs(),
                options.service_down_time.as_secs(),
                options.down_margin.as_secs()
            ),
        )),
    }
    let disable = service.enabled;
    if disable {
        steps.push(step(
            "PUT",
            if modern_services {
                format!("/os-services/{}", service.id)
            } else {
                "/os-services/disable-log-reason".to_owned()
            },
            format!(
                "disable with reason {:?} so nothing is scheduled there",
                options.disable_reason
            ),
        ));
    }
    for planned in &moves {
        steps.extend(move_steps(planned, versions, options));
    }
    Plan {
        host: host.to_owned(),
        host_action,
        service_id: service.id.clone(),
        disable,
        moves,
        steps,
        fleet,
        warnings: fencing_warning(host, options).into_iter().collect(),
    }
}

/// Masakari never fences, and Nova's `down` only says heartbeats stopped: a host that
/// still runs its instances while they are rebuilt elsewhere has two copies writing the
/// same volumes and shared disks. `--host-fenced` stays the operator's statement.
fn fencing_warning(host: &str, options: &RecoveryOptions) -> Option<String> {
    (!options.host_fenced).then(|| {
        format!(
            "{host} is not declared fenced (--host-fenced): evacuating a host that may still \
             run its instances risks data corruption (two copies writing the same volumes or \
             shared disks). Nova seeing it down only means its heartbeats stopped; confirm it \
             is powered off or isolated (`pcs stonith history show`, `crm_mon`, its BMC) first"
        )
    })
}

/// An earlier recovery (the executor's, Masakari's, InstanceHA's), interrupted or not,
/// is seen in Nova's own state, whatever the journal holds: its disabled reason. What it
/// left is what this plan reads from Nova: the instances still on the host, and those
/// rebuilding followed without a second evacuate.
fn resumed_from_nova(service: &ComputeService, options: &RecoveryOptions) -> String {
    let reason = service.disabled_reason.as_deref();
    if service.enabled || !set_by_a_recovery(reason, options) {
        return String::new();
    }
    format!(
        "; disabled by an earlier recovery ({:?}): resumed from nova's state, only what is \
         still on the host is moved",
        reason.unwrap_or_default()
    )
}

fn step(method: &str, path: String, why: String) -> Step {
    Step {
        method: method.to_owned(),
        path,
        why,
        instance: None,
    }
}

fn move_steps(
    planned: &PlannedMove,
    versions: CloudVersions,
    options: &RecoveryOptions,
) -> Vec<Step> {
    let id = &planned.instance;
    let action = format!("/servers/{id}/action");
    let mut steps = Vec::new();
    if let Some(reason) = planned.ignored.as_ref().or(planned.unmovable.as_ref()) {
        return vec![Step {
            method: "SKIP".to_owned(),
            path: format!("/servers/{id}"),
            why: format!("{} ({})", reason, planned.name),
            instance: Some(id.clone()),
        }];
    }
    if planned.locked {
        steps.push(step(
            "KEEP",
            action.clone(),
            format!(
                "{} is locked already: left locked, not unlocked after",
                planned.name
            ),
        ));
    } else {
        steps.push(step(
            "POST",
            action.clone(),
            format!("lock {}", planned.name),
        ));
    }
    for clear in &planned.attachments {
        let (method, path) = if versions.volume_max >= (3, 27) {
            ("DELETE", format!("/attachments/{}", clear.attachment))
        } else {
            ("POST", format!("/volumes/{}/action", clear.volume))
        };
        steps.push(step(
            method,
            path,
            format!(
                "clear volume {}'s attachment to the dead host (not multiattach: it would \
                 hold the rebuild)",
                clear.volume
            ),
        ));
    }
    if planned.evacuating {
        steps.push(step(
            "KEEP",
            action.clone(),
            format!(
                "{} is being evacuated already (task rebuilding): no second evacuate",
                planned.name
            ),
        ));
    } else {
        steps.push(step(
            "POST",
            action.clone(),
            format!(
                "evacuate {} (no target host: the scheduler picks one)",
                planned.name
            ),
        ));
    }
    steps.push(step(
        "GET",
        format!("/servers/{id}"),
        format!(
            "poll every {}s until {} on another host, or ERROR, for up to {}s",
            options.poll_interval.as_secs_f64(),
            planned.status,
            options.rebuild_timeout.as_secs()
        ),
    ));
    if !planned.locked {
        steps.push(step(
            "POST",
            action,
            format!("unlock {}, whatever happened", planned.name),
        ));
    }
    for step in &mut steps {
        step.instance = Some(id.clone());
    }
    steps
}

#[cfg(test)]
mod tests;
