//! Running a plan: make Nova see the host down (or refuse), disable it, then move the
//! instances, bounded in parallel, each locked, its dead attachment cleared, evacuated,
//! followed to its state on another host, and unlocked whatever happened. Every step is
//! journaled as it happens; the recovery ends `finished` only when every move succeeded
//! or was ignored.

use std::time::Instant;

use futures_util::stream::{self, StreamExt};

use super::cloud::{Cloud, Server};
use super::guards::Fleet;
use super::options::{LOCK_REASON, RecoveryOptions};
use super::plan::{Plan, PlannedMove};
use crate::store::{MoveStatus, MoveUpdate, RecoveryJournal, RecoveryRow, StoreError};

/// Why a run stopped without a journaled end: only the journal itself failing.
#[derive(Debug, thiserror::Error)]
pub enum ApplyError {
    #[error("recovery journal: {0}")]
    Journal(#[from] StoreError),
}

/// What a run tells whoever watches it (a progress bar, a log).
pub trait Observer: Send + Sync {
    /// A host-level step: forced down, disabled, waiting.
    fn host_step(&self, _message: &str) {}
    /// A move started.
    fn move_started(&self, _instance: &str, _name: &str) {}
    /// A move ended, as journaled.
    fn move_ended(&self, _instance: &str, _name: &str, _status: MoveStatus, _message: &str) {}
    /// An API call is about to be made (seen through [`super::observed::ObservedCloud`]).
    fn call_started(&self, _call: &super::observed::Call) {}
    /// An API call answered: `error` is the failure, if it failed.
    fn call_ended(&self, _call: &super::observed::Call, _error: Option<&str>) {}
    /// Before planning: the lock interrupted recovery `recovery` left on `instance` was
    /// released.
    fn lock_released(&self, _recovery: i64, _instance: &str) {}
    /// A plan is about to be applied.
    fn applying(&self, _plan: &Plan) {}
}

/// Watches nothing.
#[derive(Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {}

/// Runs `plan`, journaled as a recovery started by `source` (a finding id or `cli`).
/// Returns the recovery as the journal ended it.
pub async fn apply<C, J>(
    cloud: &C,
    journal: &J,
    plan: &Plan,
    options: &RecoveryOptions,
    source: &str,
    observer: &dyn Observer,
) -> Result<RecoveryRow, ApplyError>
where
    C: Cloud,
    J: RecoveryJournal + ?Sized,
{
    let moves: Vec<(String, String)> = plan
        .moves
        .iter()
        .map(|m| (m.instance.clone(), m.source.clone()))
        .collect();
    let recovery = journal.begin_recovery(&plan.host, source, &moves)?;
    for warning in &plan.warnings {
        observer.host_step(&format!("warning: {warning}"));
    }
    match make_host_down(cloud, plan, options, observer).await {
        HostOutcome::Ready => {}
        HostOutcome::Refused(message) => {
            observer.host_step(&message);
            return Ok(journal.end_recovery(recovery, true, Some(&message))?);
        }
        HostOutcome::Failed(message) => {
            observer.host_step(&message);
            let message = format!("not attempted: {message}");
            return Ok(journal.end_recovery(recovery, false, Some(&message))?);
        }
    }
    for planned in plan.moves.iter().filter(|m| m.ignored.is_some()) {
        let update = MoveUpdate {
            status: MoveStatus::Ignored,
            destination: None,
            message: planned.ignored.clone(),
        };
        journal.update_move(recovery, &planned.instance, &update)?;
        observer.move_ended(
            &planned.instance,
            &planned.name,
            MoveStatus::Ignored,
            planned.ignored.as_deref().unwrap_or_default(),
        );
    }
    for planned in plan.moves.iter().filter(|m| m.ignored.is_none()) {
        let Some(reason) = &planned.unmovable else {
            continue;
        };
        let update = MoveUpdate {
            status: MoveStatus::Failed,
            destination: None,
            message: Some(reason.clone()),
        };
        journal.update_move(recovery, &planned.instance, &update)?;
        observer.move_ended(&planned.instance, &planned.name, MoveStatus::Failed, reason);
    }
    let movable = |m: &&PlannedMove| m.ignored.is_none() && m.unmovable.is_none();
    let results: Vec<Result<(), StoreError>> = stream::iter(plan.moves.iter().filter(movable))
        .map(|planned| {
            let run = MoveRun {
                cloud,
                journal,
                recovery,
                planned,
                options,
                observer,
            };
            run.run()
        })
        .buffer_unordered(options.parallelism.max(1))
        .collect()
        .await;
    // A journal error inside a move is reported after the others ended; the recovery
    // is still closed, its open moves failed, so nothing stays pending.
    let journal_error = results.into_iter().find_map(Result::err);
    let message = journal_error
        .as_ref()
        .map(|error| format!("the journal failed during the run: {error}"));
    let ended = journal.end_recovery(recovery, false, message.as_deref())?;
    match journal_error {
        Some(error) => Err(error.into()),
        None => Ok(ended),
    }
}

enum HostOutcome {
    Ready,
    Refused(String),
    Failed(String),
}

/// Nova must see the host down before anything is evacuated, then the host is disabled.
async fn make_host_down<C: Cloud>(
    cloud: &C,
    plan: &Plan,
    options: &RecoveryOptions,
    observer: &dyn Observer,
) -> HostOutcome {
    let host = &plan.host;
    let retry = &options.retry;
    // Read again: the plan may be minutes old, and the host may have come back.
    let service = match retry
        .run("compute service", || cloud.compute_service(host))
        .await
    {
        Ok(Some(service)) => service,
        Ok(None) => {
            return HostOutcome::Failed(format!("nova has no nova-compute service on {host}"));
        }
        Err(error) => return HostOutcome::Failed(format!("reading {host}'s service: {error}")),
    };
    // The guards again, on what Nova says now: more computes may have failed since.
    match retry.run("services", || cloud.services()).await {
        Ok(services) => {
            if let Err(refused) = Fleet::of(&services, host).check(options.max_down_percent) {
                return HostOutcome::Refused(refused.to_string());
            }
        }
        Err(error) => return HostOutcome::Failed(format!("reading nova's services: {error}")),
    }
    let service = if !service.up {
        service
    } else if options.host_fenced {
        observer.host_step(&format!("forcing {host}'s compute service down (fenced)"));
        match retry
            .run("force down", || cloud.force_down(&service, true))
            .await
        {
            Ok(_) => {}
            Err(error) => return HostOutcome::Failed(format!("forcing {host} down: {error}")),
        }
        // Trust Nova's own answer to the next read, not the update's echo.
        match retry
            .run("compute service", || cloud.compute_service(host))
            .await
        {
            Ok(Some(service)) if !service.up => service,
            Ok(_) => {
                return HostOutcome::Failed(format!(
                    "{host} was forced down but nova still reports its service up"
                ));
            }
            Err(error) => return HostOutcome::Failed(format!("reading {host}'s service: {error}")),
        }
    } else {
        let limit = options.wait_for_down();
        observer.host_step(&format!(
            "nova sees {host} up and it is not stated fenced: waiting up to {}s for nova to see it down",
            limit.as_secs()
        ));
        let deadline = Instant::now() + limit;
        loop {
            if Instant::now() >= deadline {
                return HostOutcome::Refused(format!(
                    "refused: nova still sees {host}'s compute service up after {}s; never \
                     evacuating from a host nova sees up (fence it and pass --host-fenced)",
                    limit.as_secs()
                ));
            }
            tokio::time::sleep(options.poll_interval.min(deadline - Instant::now())).await;
            match retry
                .run("compute service", || cloud.compute_service(host))
                .await
            {
                Ok(Some(service)) if !service.up => break service,
                Ok(Some(_)) => continue,
                Ok(None) => {
                    return HostOutcome::Failed(format!(
                        "nova has no nova-compute service on {host}"
                    ));
                }
                Err(error) => {
                    return HostOutcome::Failed(format!("reading {host}'s service: {error}"));
                }
            }
        }
    };
    if service.enabled {
        let reason = &options.disable_reason;
        if let Err(error) = retry
            .run("disable", || cloud.disable(&service, reason))
            .await
        {
            return HostOutcome::Failed(format!("disabling {host}: {error}"));
        }
        observer.host_step(&format!("disabled {host}'s compute service"));
    }
    HostOutcome::Ready
}

/// One instance's move.
struct MoveRun<'a, C: ?Sized, J: ?Sized> {
    cloud: &'a C,
    journal: &'a J,
    recovery: i64,
    planned: &'a PlannedMove,
    options: &'a RecoveryOptions,
    observer: &'a dyn Observer,
}

/// How a move's cloud work ended.
struct Ended {
    status: MoveStatus,
    destination: Option<String>,
    message: String,
}

impl<C: Cloud, J: RecoveryJournal + ?Sized> MoveRun<'_, C, J> {
    async fn run(self) -> Result<(), StoreError> {
        let instance = &self.planned.instance;
        self.record(MoveStatus::Ongoing, None, "started")?;
        self.observer.move_started(instance, &self.planned.name);
        // Unlock whatever happened, if this run took (or may have taken) the lock.
        let take_lock = !self.planned.locked;
        let mut ended = self.move_instance(take_lock).await;
        if take_lock {
            let unlocked = self
                .options
                .retry
                .run("unlock", || self.cloud.unlock(instance))
                .await;
            if let Err(error) = unlocked {
                ended = Ended {
                    status: MoveStatus::Failed,
                    destination: ended.destination,
                    message: format!(
                        "{}; and unlocking failed, it is still locked: {error}",
                        ended.message
                    ),
                };
            }
        }
        self.record(ended.status, ended.destination.as_deref(), &ended.message)?;
        self.observer
            .move_ended(instance, &self.planned.name, ended.status, &ended.message);
        Ok(())
    }

    /// Journals a step of this move; a failure to note an intermediate step is only logged.
    fn record(
        &self,
        status: MoveStatus,
        destination: Option<&str>,
        message: &str,
    ) -> Result<(), StoreError> {
        let update = MoveUpdate {
            status,
            destination: destination.map(str::to_owned),
            message: Some(message.to_owned()),
        };
        self.journal
            .update_move(self.recovery, &self.planned.instance, &update)
    }

    fn note(&self, message: &str) {
        if let Err(error) = self.record(MoveStatus::Ongoing, None, message) {
            tracing::warn!(instance = %self.planned.instance, %error, "journal note failed");
        }
    }

    async fn move_instance(&self, take_lock: bool) -> Ended {
        match self.steps(take_lock).await {
            Ok(ended) => ended,
            Err(error) => Ended {
                status: MoveStatus::Failed,
                destination: None,
                message: error,
            },
        }
    }

    /// Lock, clear, evacuate, follow. An `Err` is the failure's message.
    async fn steps(&self, take_lock: bool) -> Result<Ended, String> {
        let cloud = self.cloud;
        let retry = &self.options.retry;
        let id = self.planned.instance.as_str();
        if take_lock {
            retry
                .run("lock", || cloud.lock(id, LOCK_REASON))
                .await
                .map_err(|e| format!("lock: {e}"))?;
            self.note("locked");
        }
        for clear in &self.planned.attachments {
            let volume = retry
                .run("volume", || cloud.volume(&clear.volume))
                .await
                .map_err(|e| format!("reading volume {}: {e}", clear.volume))?;
            // Gone already (cleared by someone, or by a previous run): nothing to do.
            let Some(attachment) = volume
                .attachments
                .iter()
                .find(|a| a.attachment_id == clear.attachment)
            else {
                continue;
            };
            retry
                .run("clear attachment", || {
                    cloud.clear_attachment(&volume, attachment)
                })
                .await
                .map_err(|e| format!("clearing volume {}'s attachment: {e}", clear.volume))?;
            self.note(&format!(
                "cleared volume {}'s attachment to the dead host",
                clear.volume
            ));
        }
        if !self.planned.evacuating {
            retry
                .run("evacuate", || cloud.evacuate(id))
                .await
                .map_err(|e| format!("evacuate: {e}"))?;
            self.note("evacuate accepted");
        }
        self.follow().await
    }

    /// Polls the server until it is in its state on another host, ERROR, or the timeout.
    async fn follow(&self) -> Result<Ended, String> {
        let started = Instant::now();
        let limit = self.options.rebuild_timeout;
        let source = &self.planned.source;
        loop {
            let server = self
                .options
                .retry
                .run("server", || self.cloud.server(&self.planned.instance))
                .await
                .map_err(|e| format!("evacuate accepted, but following it failed: {e}"))?;
            if let Some(ended) = arrived(&server, source, &self.planned.status) {
                return ended;
            }
            if started.elapsed() >= limit {
                return Err(format!(
                    "timeout: not back after {}s (last seen {} on {}, task {})",
                    limit.as_secs(),
                    server.status,
                    server.host.as_deref().unwrap_or("no host"),
                    server.task_state.as_deref().unwrap_or("none")
                ));
            }
            tokio::time::sleep(self.options.poll_interval).await;
        }
    }
}

/// Whether `server` has ended its evacuation: its earlier state (ACTIVE, SHUTOFF; ACTIVE
/// for one that was ERROR) on a host other than `source`, or ERROR.
fn arrived(server: &Server, source: &str, before: &str) -> Option<Result<Ended, String>> {
    let host = server.host.as_deref().unwrap_or_default();
    if server.status.eq_ignore_ascii_case("ERROR") {
        return Some(Err(format!("the server went ERROR (on {})", or_none(host))));
    }
    let settled = server.task_state.is_none() && !host.is_empty() && host != source;
    if !settled {
        return None;
    }
    let status = server.status.to_ascii_uppercase();
    let message = match (before.to_ascii_uppercase().as_str(), status.as_str()) {
        (was, now) if was == now => format!("{now} on {host}"),
        // An ERROR instance comes back running; a stopped one comes back stopped.
        ("ERROR", "ACTIVE") => format!("ACTIVE on {host} (was ERROR)"),
        // Anything else is not its earlier state (yet): keep following.
        _ => return None,
    };
    Some(Ok(Ended {
        status: MoveStatus::Succeeded,
        destination: Some(host.to_owned()),
        message,
    }))
}

fn or_none(host: &str) -> &str {
    if host.is_empty() { "no host" } else { host }
}

#[cfg(test)]
mod tests;
