//! The one recovery use case, for `recover`/`remediate`, the trigger (`watch`, `serve
//! --watch`) and the service's remediation API alike: release the locks an interrupted
//! recovery left, plan, journal a planning failure, and apply when a journal is given.

use std::collections::BTreeSet;

use super::apply::{ApplyError, Observer, apply};
use super::cloud::Cloud;
use super::options::{LOCK_REASON, RecoveryOptions};
use super::plan::{Plan, PlanError, plan};
use super::remediation::{Remediation, RemediationError, remediation_for};
use super::retry::RetryPolicy;
use crate::detect::Finding;
use crate::store::{LeftLock, LeftMove, RecoveryJournal, RecoveryRow, StoreError};

/// What to recover: a host (all its instances, or some), and what asked for it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The failed host.
    pub host: String,
    /// Only these instances, or every instance left on the host.
    pub only_instances: Option<BTreeSet<String>>,
    /// What started it, as the journal keeps it: a finding id, or `cli`.
    pub source: String,
}

impl Target {
    /// The recovery a finding asks for, with the remediation it follows.
    pub fn of_finding(finding: &Finding) -> Result<(Target, Remediation), RemediationError> {
        let remediation = remediation_for(finding)?;
        let target = Target {
            host: remediation.host.clone(),
            only_instances: remediation.only_instances.clone(),
            source: finding.id.to_string(),
        };
        Ok((target, remediation))
    }
}

/// How a run ended.
#[derive(Debug)]
pub enum Ran {
    /// Planned only (no journal given): nothing changed.
    Planned(Plan),
    /// Applied: the plan and the recovery as the journal ended it.
    Applied { plan: Plan, recovery: RecoveryRow },
}

/// Why a run stopped before a journaled end.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The plan could not be made (journaled `failed` when a journal was given).
    #[error("cannot plan the recovery of {host}: {error}")]
    Plan { host: String, error: PlanError },
    /// The journal failed.
    #[error("recovery journal: {0}")]
    Journal(#[from] StoreError),
}

impl From<ApplyError> for RunError {
    fn from(error: ApplyError) -> Self {
        match error {
            ApplyError::Journal(error) => RunError::Journal(error),
        }
    }
}

/// Recovers `target` on `cloud`: planned only without `journal`; with one, the locks an
/// interrupted recovery left are released first, a planning failure is journaled, and the
/// plan is applied, journaled as it goes. `options.selection.only_instances` is the
/// target's.
pub async fn run<C, J>(
    target: &Target,
    cloud: &C,
    journal: Option<&J>,
    options: &RecoveryOptions,
    observer: &dyn Observer,
) -> Result<Ran, RunError>
where
    C: Cloud,
    J: RecoveryJournal + ?Sized,
{
    let mut options = options.clone();
    options.selection.only_instances = target.only_instances.clone();
    if let Some(journal) = journal {
        release_left_locks(cloud, journal, &options.retry, observer).await?;
    }
    let planned = match plan(cloud, &target.host, &options).await {
        Ok(planned) => planned,
        Err(error) => {
            if let Some(journal) = journal {
                let message = format!("planning failed: {error}");
                journal.record_plan_failure(&target.host, &target.source, &message)?;
            }
            return Err(RunError::Plan {
                host: target.host.clone(),
                error,
            });
        }
    };
    let Some(journal) = journal else {
        return Ok(Ran::Planned(planned));
    };
    observer.applying(&planned);
    let recovery = apply(cloud, journal, &planned, &options, &target.source, observer).await?;
    Ok(Ran::Applied {
        plan: planned,
        recovery,
    })
}

/// Releases the locks evacdoc holds (its lock reason, 2.73+) on the instances of moves an
/// interrupted recovery left open, wherever they are now; each is looked at once, what
/// was found journaled. Read and unlock errors are logged.
async fn release_left_locks<C, J>(
    cloud: &C,
    journal: &J,
    retry: &RetryPolicy,
    observer: &dyn Observer,
) -> Result<(), StoreError>
where
    C: Cloud,
    J: RecoveryJournal + ?Sized,
{
    for left in journal.left_locks()? {
        let found = release_one(cloud, &left, retry).await;
        if found == LeftLock::Released {
            observer.lock_released(left.recovery, &left.instance);
        }
        journal.lock_looked_at(&left, found)?;
    }
    Ok(())
}

async fn release_one<C: Cloud>(cloud: &C, left: &LeftMove, retry: &RetryPolicy) -> LeftLock {
    let id = &left.instance;
    let ours = match retry.run("server", || cloud.server(id)).await {
        Ok(server) => server.locked && server.locked_reason.as_deref() == Some(LOCK_REASON),
        Err(error) => {
            tracing::warn!(instance = %id, %error, "cannot read a server a killed run moved");
            return LeftLock::Unknown;
        }
    };
    if !ours {
        return LeftLock::NotHeld;
    }
    match retry.run("unlock", || cloud.unlock(id)).await {
        Ok(()) => {
            tracing::info!(recovery = left.recovery, instance = %id, "released a lock a killed run left");
            LeftLock::Released
        }
        Err(error) => {
            tracing::warn!(instance = %id, %error, "cannot release its lock");
            LeftLock::Unknown
        }
    }
}
