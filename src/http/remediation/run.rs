//! Running a remediation for the service: plans on a thread of their own (the
//! executor's futures are not all `Send`), applies on a thread of their own that outlives
//! the request, journaled in the service's store; the caller learns the recovery's id as
//! soon as the journal has it.

use std::sync::{Arc, Mutex, PoisonError};

use axum::http::StatusCode;
use tokio::sync::oneshot;

use super::Remediations;
use super::feed::{Feed, FeedObserver, RecoveryEvent};
use crate::detect::Finding;
use crate::recovery::observed::ObservedCloud;
use crate::recovery::openstack::{ConnectOptions, OpenStack};
use crate::recovery::remediation::Remediation;
use crate::recovery::{self, Observer, Quiet, Ran, RecoveryOptions, RecoveryReport, Target};
use crate::store::{
    LeftLock, LeftMove, MoveStatus, MoveUpdate, RecoveryJournal, RecoveryRow, RecoveryStatus,
    SqliteStore, StoreError,
};
use crate::trigger::Trigger;

/// Why a remediation is refused or could not start.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RunError {
    #[error(
        "no cloud is configured for remediations: start the service with --cloud NAME (a clouds.yaml entry)"
    )]
    NoCloud,
    #[error("cloud {cloud:?} is not one this service may act on (configured: {allowed})")]
    CloudNotAllowed { cloud: String, allowed: String },
    #[error("{0}")]
    NotRemediable(String),
    #[error("{0}")]
    HostBusy(String),
    #[error("{0}")]
    Connect(String),
    #[error("{0}")]
    Plan(String),
    /// InstanceHA's guards refused (`code`: `too_many_computes_down`, `no_scheduler_up`).
    #[error("{message}")]
    Refused { code: &'static str, message: String },
    #[error("{0}")]
    Failed(String),
}

impl RunError {
    /// The HTTP status it is answered with.
    pub fn status(&self) -> StatusCode {
        match self {
            RunError::NoCloud
            | RunError::HostBusy(_)
            | RunError::Plan(_)
            | RunError::Refused { .. } => StatusCode::CONFLICT,
            RunError::CloudNotAllowed { .. } => StatusCode::FORBIDDEN,
            RunError::NotRemediable(_) => StatusCode::UNPROCESSABLE_ENTITY,
            RunError::Connect(_) => StatusCode::BAD_GATEWAY,
            RunError::Failed(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// The recovery a finding asks for, or why there is none.
fn target_of(finding: &Finding) -> Result<(Target, Remediation), RunError> {
    Target::of_finding(finding).map_err(|e| RunError::NotRemediable(e.to_string()))
}

/// The executor's reasons as the service answers them: a plan that could not be made is
/// a conflict with the cloud's state, a journal failure the service's own.
fn run_error(error: recovery::RunError) -> RunError {
    match error {
        recovery::RunError::Plan {
            host,
            error: error @ recovery::PlanError::Guard(_),
        } => RunError::Refused {
            code: error.code(),
            message: format!("recovery of {host} {error}"),
        },
        error @ recovery::RunError::Plan { .. } => RunError::Plan(error.to_string()),
        error @ recovery::RunError::Journal(_) => RunError::Failed(error.to_string()),
    }
}

/// What the finding's bundle says that a remediation uses.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BundleFacts {
    /// Nova's `[DEFAULT] service_down_time` the bundle's nova.conf sets, with its file:
    /// it replaces the configured value (Nova's default unless set).
    pub service_down_time: Option<(std::time::Duration, String)>,
}

/// A host held for one run; released when dropped, however the run ends.
struct HostClaim {
    trigger: Arc<Trigger>,
    host: String,
}

impl HostClaim {
    fn take(trigger: &Arc<Trigger>, host: &str) -> Result<HostClaim, RunError> {
        trigger.claim_host(host).map_err(RunError::HostBusy)?;
        Ok(HostClaim {
            trigger: trigger.clone(),
            host: host.to_owned(),
        })
    }
}

impl Drop for HostClaim {
    fn drop(&mut self) {
        self.trigger.release_host(&self.host);
    }
}

/// Who asked, for the audit log.
#[derive(Debug, Clone)]
pub struct Asker {
    pub actor: String,
    pub target: String,
}

fn own_runtime() -> Result<tokio::runtime::Runtime, RunError> {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| RunError::Failed(format!("cannot start the executor's runtime: {e}")))
}

impl Remediations {
    fn options_for(&self, host_fenced: bool, bundle: &BundleFacts) -> RecoveryOptions {
        let mut options = self.config.options.clone();
        options.host_fenced = host_fenced;
        if let Some((value, _)) = &bundle.service_down_time {
            options.service_down_time = *value;
        }
        options
    }

    /// The plan of the recovery `finding` asks for, on `cloud`: reads only.
    pub async fn plan(
        &self,
        finding: &Finding,
        cloud: &str,
        host_fenced: bool,
        bundle: &BundleFacts,
    ) -> Result<RecoveryReport, RunError> {
        let (target, _) = target_of(finding)?;
        let options = self.options_for(host_fenced, bundle);
        let (this, cloud) = (self.clone_parts(), cloud.to_owned());
        tokio::task::spawn_blocking(move || {
            own_runtime()?.block_on(async {
                let openstack = this.connect(&cloud).await?;
                let ran =
                    recovery::run(&target, &openstack, None::<&SqliteStore>, &options, &Quiet)
                        .await
                        .map_err(run_error)?;
                match ran {
                    Ran::Planned(planned) => Ok(RecoveryReport::planned(&planned, &target.source)),
                    Ran::Applied { .. } => {
                        Err(RunError::Failed("applied without a journal".into()))
                    }
                }
            })
        })
        .await
        .map_err(|e| RunError::Failed(format!("the planner stopped: {e}")))?
    }

    /// Starts applying the recovery `finding` asks for on `cloud`, on a thread of its
    /// own; answers the journal's id of the recovery once it has begun (connected,
    /// planned, journaled), or why it could not.
    pub async fn start(
        self: &Arc<Self>,
        finding: Finding,
        cloud: String,
        host_fenced: bool,
        bundle: &BundleFacts,
        asker: Asker,
    ) -> Result<i64, RunError> {
        let (target, _) = target_of(&finding)?;
        let claim = HostClaim::take(&self.trigger, &target.host)?;
        let options = self.options_for(host_fenced, bundle);
        let (started, begun) = oneshot::channel();
        let this = self.clone();
        std::thread::Builder::new()
            .name("evacdoc-remediation".into())
            .spawn(move || {
                let _claim = claim;
                match own_runtime() {
                    Ok(runtime) => {
                        runtime.block_on(this.run(&target, &cloud, &options, started, &asker))
                    }
                    Err(error) => {
                        let _ = started.send(Err(error));
                    }
                }
            })
            .map_err(|e| RunError::Failed(format!("cannot start the run: {e}")))?;
        begun
            .await
            .map_err(|_| RunError::Failed("the run stopped before it began".into()))?
    }

    async fn run(
        &self,
        target: &Target,
        cloud: &str,
        options: &RecoveryOptions,
        started: oneshot::Sender<Result<i64, RunError>>,
        asker: &Asker,
    ) {
        let feed = Arc::new(Feed::default());
        let observer: Arc<dyn Observer> = Arc::new(FeedObserver(feed.clone()));
        let openstack = match self.clone_parts().connect(cloud).await {
            Ok(openstack) => ObservedCloud::new(openstack, observer.clone()),
            Err(error) => {
                let _ = started.send(Err(error));
                return;
            }
        };
        let journal = Announcing {
            store: &self.store,
            remediations: self,
            feed: feed.clone(),
            started: Mutex::new(Some(started)),
            id: Mutex::new(None),
        };
        let ran = recovery::run(
            target,
            &openstack,
            Some(&journal),
            options,
            observer.as_ref(),
        )
        .await;
        let id = *journal.id.lock().unwrap_or_else(PoisonError::into_inner);
        let (status, message) = match ran {
            Ok(Ran::Applied { recovery, .. }) => (recovery.status, summary(&recovery)),
            Ok(Ran::Planned(_)) => (RecoveryStatus::Failed, "planned only".to_owned()),
            Err(error) => {
                let not_begun = journal
                    .started
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .take();
                if let Some(started) = not_begun {
                    let _ = started.send(Err(run_error(error)));
                    return;
                }
                (RecoveryStatus::Failed, error.to_string())
            }
        };
        feed.push(RecoveryEvent::End {
            recovery_id: id,
            status,
            message: Some(message.clone()),
        });
        self.audit(
            &asker.actor,
            "remediation-result",
            &asker.target,
            &format!("{status}: {message}"),
        );
    }

    /// What a plan needs, without the feeds (it runs on another thread).
    fn clone_parts(&self) -> PlanParts {
        PlanParts {
            config_file: self.config.config_file.clone(),
        }
    }
}

/// What planning on another thread needs.
struct PlanParts {
    config_file: Option<std::path::PathBuf>,
}

impl PlanParts {
    async fn connect(&self, cloud: &str) -> Result<OpenStack, RunError> {
        OpenStack::connect(ConnectOptions {
            cloud: Some(cloud.to_owned()),
            config_file: self.config_file.clone(),
        })
        .await
        .map_err(|e| RunError::Connect(format!("cannot connect to cloud {cloud}: {e}")))
    }
}

fn summary(row: &RecoveryRow) -> String {
    let moved = row
        .moves
        .iter()
        .filter(|m| m.status == MoveStatus::Succeeded)
        .count();
    let mut text = format!(
        "recovery {} of {}: {} ({moved} of {} moves succeeded)",
        row.id,
        row.host,
        row.status,
        row.moves.len()
    );
    if let Some(message) = &row.message {
        text.push_str("; ");
        text.push_str(message);
    }
    text
}

/// The service's journal, that tells the caller the recovery's id and keeps its feed
/// under it as soon as the recovery is begun.
struct Announcing<'a> {
    store: &'a SqliteStore,
    remediations: &'a Remediations,
    feed: Arc<Feed>,
    started: Mutex<Option<oneshot::Sender<Result<i64, RunError>>>>,
    id: Mutex<Option<i64>>,
}

impl RecoveryJournal for Announcing<'_> {
    fn begin_recovery(
        &self,
        host: &str,
        source: &str,
        moves: &[(String, String)],
    ) -> Result<i64, StoreError> {
        let id = self.store.begin_recovery(host, source, moves)?;
        self.remediations.keep_feed(id, self.feed.clone());
        *self.id.lock().unwrap_or_else(PoisonError::into_inner) = Some(id);
        if let Some(started) = self
            .started
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take()
        {
            let _ = started.send(Ok(id));
        }
        Ok(id)
    }

    fn update_move(
        &self,
        recovery: i64,
        instance: &str,
        update: &MoveUpdate,
    ) -> Result<(), StoreError> {
        self.store.update_move(recovery, instance, update)
    }

    fn end_recovery(
        &self,
        recovery: i64,
        refused: bool,
        message: Option<&str>,
    ) -> Result<RecoveryRow, StoreError> {
        self.store.end_recovery(recovery, refused, message)
    }

    fn recovery(&self, recovery: i64) -> Result<Option<RecoveryRow>, StoreError> {
        self.store.recovery(recovery)
    }

    fn recoveries(&self, limit: usize) -> Result<Vec<RecoveryRow>, StoreError> {
        self.store.recoveries(limit)
    }

    fn repair_interrupted_recoveries(&self) -> Result<Vec<i64>, StoreError> {
        self.store.repair_interrupted_recoveries()
    }

    fn left_locks(&self) -> Result<Vec<LeftMove>, StoreError> {
        self.store.left_locks()
    }

    fn lock_looked_at(&self, left: &LeftMove, found: LeftLock) -> Result<(), StoreError> {
        self.store.lock_looked_at(left, found)
    }

    /// Journaled in the store without announcing: the caller learns of the failure as an
    /// answer (a conflict), not as a recovery that began.
    fn record_plan_failure(
        &self,
        host: &str,
        source: &str,
        message: &str,
    ) -> Result<i64, StoreError> {
        self.store.record_plan_failure(host, source, message)
    }
}
