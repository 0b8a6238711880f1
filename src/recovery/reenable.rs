//! Giving a recovered host back to Nova, in InstanceHA's two steps: unset `forced_down`,
//! wait for Nova to see nova-compute `up`, and only then enable it (enabled while still
//! down, the scheduler would place nothing there anyway; enabled before nova-compute
//! cleaned up the evacuated instances, it could get them back).
//!
//! Nova (24.0.0+) refuses the first step while evacuations from the host are still
//! `done`: they become `completed` only when nova-compute starts again on the host and
//! destroys the evacuated instances' leftovers. That answer is a typed outcome here, with
//! the records it is about.

use std::time::{Duration, Instant};

use serde::Serialize;

use super::apply::Observer;
use super::cloud::{Cloud, CloudError, ComputeService, Migration};
use super::options::RecoveryOptions;

/// What Nova answers, in part, when forcing a host up while evacuations remain `done`
/// (`nova/api/openstack/compute/services.py`, `_check_for_evacuations`).
const EVACUATIONS_REMAIN: &str = "as `done` evacuation migration records remain";

/// How a re-enable ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "outcome", rename_all = "kebab-case")]
pub enum Reenabled {
    /// Not forced down and enabled already: nothing to do.
    AlreadyEnabled,
    /// Forced up (when it was forced down), seen up, enabled.
    Enabled { forced_up: bool, waited_s: u64 },
    /// Up, but disabled by someone else (its reason is not the executor's nor
    /// Masakari's): left disabled, that is the operator's call.
    LeftDisabled { reason: Option<String> },
}

/// Why a host was not given back.
#[derive(Debug, thiserror::Error)]
pub enum ReenableError {
    #[error("nova has no nova-compute service on host {0}")]
    NoService(String),
    /// Nova's 400: `done` evacuation records with the host as their source remain.
    #[error(
        "nova refuses to force {host} up: {} evacuation(s) from it are still `done`{}. They \
         become `completed` only when nova-compute starts again on {host} and cleans up the \
         evacuated instances: repair the host, make sure it runs none of them, start \
         nova-compute there (it stays reported down while forced down), then run this again. \
         Nova said: {message}",
        remaining.len(),
        list(remaining)
    )]
    EvacuationsRemain {
        host: String,
        /// The records Nova is about (empty when they could not be listed).
        remaining: Vec<Migration>,
        message: String,
    },
    /// Forced up, but nova-compute did not report in time: left disabled.
    #[error(
        "{host} is no longer forced down, but nova did not see its nova-compute up within {}s: \
         left disabled (start nova-compute on {host}, then run this again)",
        waited.as_secs()
    )]
    NotUp { host: String, waited: Duration },
    #[error(transparent)]
    Cloud(#[from] CloudError),
}

impl ReenableError {
    /// A stable name for machines.
    pub fn code(&self) -> &'static str {
        match self {
            ReenableError::NoService(_) => "no_compute_service",
            ReenableError::EvacuationsRemain { .. } => "evacuations_remain",
            ReenableError::NotUp { .. } => "not_up",
            ReenableError::Cloud(_) => "cloud_error",
        }
    }
}

fn list(remaining: &[Migration]) -> String {
    if remaining.is_empty() {
        return String::new();
    }
    let each: Vec<String> = remaining
        .iter()
        .map(|m| {
            format!(
                "instance {} (migration {}, to {})",
                m.instance,
                m.id,
                m.destination.as_deref().unwrap_or("no host")
            )
        })
        .collect();
    format!(": {}", each.join(", "))
}

/// Whether `error` is Nova's refusal to force a host up while evacuations remain.
pub fn is_evacuations_remain(error: &CloudError) -> bool {
    matches!(error, CloudError::Status { status: 400, message, .. } if message.contains(EVACUATIONS_REMAIN))
}

/// Whether a disabled reason is one a recovery left (the executor's, Masakari's
/// default, InstanceHA's), so enabling the host again is the recovery's to undo.
pub fn set_by_a_recovery(reason: Option<&str>, options: &RecoveryOptions) -> bool {
    reason.is_some_and(|r| {
        r == options.disable_reason
            || r.starts_with("evacdoc:")
            || r.starts_with("Masakari detected host failed")
            || r.starts_with("instanceha evacuation")
    })
}

/// Gives `host` back: forced up if forced down, waited for until Nova sees it up (for
/// `service_down_time` + margin at most), then enabled if a recovery disabled it.
pub async fn reenable<C: Cloud>(
    cloud: &C,
    host: &str,
    options: &RecoveryOptions,
    observer: &dyn Observer,
) -> Result<Reenabled, ReenableError> {
    let retry = &options.retry;
    let service = read(cloud, host, options).await?;
    if !service.forced_down && service.enabled {
        return Ok(Reenabled::AlreadyEnabled);
    }
    let forced_up = service.forced_down;
    if forced_up {
        observer.host_step(&format!(
            "unsetting forced_down on {host}'s compute service"
        ));
        if let Err(error) = retry
            .run("force up", || cloud.force_down(&service, false))
            .await
        {
            if !is_evacuations_remain(&error) {
                return Err(error.into());
            }
            // Only to say which; the refusal stands if they cannot be listed.
            let remaining = cloud.done_evacuations(host).await.unwrap_or_default();
            let message = match error {
                CloudError::Status { message, .. } => message,
                other => other.to_string(),
            };
            return Err(ReenableError::EvacuationsRemain {
                host: host.to_owned(),
                remaining,
                message,
            });
        }
    }
    let limit = options.wait_for_down();
    let started = Instant::now();
    let service = loop {
        let service = read(cloud, host, options).await?;
        if service.up {
            break service;
        }
        if started.elapsed() >= limit {
            return Err(ReenableError::NotUp {
                host: host.to_owned(),
                waited: limit,
            });
        }
        tokio::time::sleep(options.poll_interval).await;
    };
    let waited_s = started.elapsed().as_secs();
    if service.enabled {
        return Ok(Reenabled::Enabled {
            forced_up,
            waited_s,
        });
    }
    if !set_by_a_recovery(service.disabled_reason.as_deref(), options) {
        return Ok(Reenabled::LeftDisabled {
            reason: service.disabled_reason,
        });
    }
    retry.run("enable", || cloud.enable(&service)).await?;
    observer.host_step(&format!("enabled {host}'s compute service"));
    Ok(Reenabled::Enabled {
        forced_up,
        waited_s,
    })
}

async fn read<C: Cloud>(
    cloud: &C,
    host: &str,
    options: &RecoveryOptions,
) -> Result<ComputeService, ReenableError> {
    options
        .retry
        .run("compute service", || cloud.compute_service(host))
        .await?
        .ok_or_else(|| ReenableError::NoService(host.to_owned()))
}

#[cfg(test)]
mod tests;
