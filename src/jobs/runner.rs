//! The job runner: a fixed number of workers take queued analyses from the store one at a
//! time, run them on blocking threads and write their progress back every second. Jobs
//! left running by a crash are re-run or failed at start; on shutdown the running ones
//! get a grace period, then go back to the queue.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::Notify;

use super::cache::AnalysisCache;
use super::cache::Loaded;
use super::progress::JobProgress;
use super::run_one::{JobError, run_analysis};
use super::sweep::sweep_after_crash;
use crate::store::{AnalysisRow, IndexProgress, IndexState, Progress, Store, StoreError};

/// How the runner works.
#[derive(Debug, Clone)]
pub struct JobConfig {
    /// Analyses run at once; the rest wait in the queue.
    pub workers: usize,
    /// A job interrupted this many times (crashes) is failed instead of re-run.
    pub max_attempts: u32,
    /// Bounds on what one analysis unpacks and reads.
    pub limits: crate::ingest::IngestLimits,
    /// Workers of several processes sharing one store (issue 27): jobs are claimed under
    /// a lease of this length, renewed every second while they run; a job whose lease
    /// expired (its worker died) is claimed again by another. Nothing is recovered at
    /// start then: a running job may be another process's. None: one process owns the
    /// store, and a start recovers what a crash left running.
    pub lease: Option<Duration>,
}

impl Default for JobConfig {
    fn default() -> Self {
        JobConfig {
            workers: 2,
            max_attempts: 2,
            limits: crate::ingest::IngestLimits::default(),
            lease: None,
        }
    }
}

/// What the finished jobs read, for `/metrics`.
#[derive(Debug, Default)]
pub struct JobCounters {
    /// Bytes of log read by finished analyses (after decompression).
    pub bytes_ingested: AtomicU64,
    /// Log records read by finished analyses.
    pub lines_ingested: AtomicU64,
    /// Analyses that ended done.
    pub jobs_done: AtomicU64,
    /// Analyses that ended failed.
    pub jobs_failed: AtomicU64,
}

/// What a job runs: [`run_analysis`] (a test gives one that panics).
type Analyze = fn(
    &dyn Store,
    &AnalysisRow,
    &JobProgress,
    &JobCounters,
    &crate::ingest::IngestLimits,
) -> Result<Loaded, JobError>;

/// The running jobs and the workers' shared state.
pub struct JobRunner {
    store: Arc<dyn Store>,
    cache: Arc<AnalysisCache>,
    config: JobConfig,
    wake: Notify,
    stopping: AtomicBool,
    running: Mutex<HashMap<String, JobProgress>>,
    analyze: Analyze,
    /// Who this runner's leases name (host, process, a random part).
    owner: String,
    /// What the finished jobs read.
    pub counters: Arc<JobCounters>,
}

impl std::fmt::Debug for JobRunner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobRunner")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl JobRunner {
    /// The bounds on what one analysis unpacks and reads (also used by a share's bundle).
    pub fn limits(&self) -> crate::ingest::IngestLimits {
        self.config.limits
    }

    /// Recovers the jobs a crash left running, then starts the workers (on the current
    /// tokio runtime).
    pub fn start(
        store: Arc<dyn Store>,
        cache: Arc<AnalysisCache>,
        config: JobConfig,
    ) -> Result<Arc<JobRunner>, StoreError> {
        JobRunner::start_with(store, cache, config, run_analysis)
    }

    /// [`JobRunner::start`], each job running `analyze`.
    fn start_with(
        store: Arc<dyn Store>,
        cache: Arc<AnalysisCache>,
        config: JobConfig,
        analyze: Analyze,
    ) -> Result<Arc<JobRunner>, StoreError> {
        if config.lease.is_none() {
            recover_at_start(store.as_ref(), config.max_attempts)?;
        }
        let runner = Arc::new(JobRunner {
            store,
            cache,
            config: config.clone(),
            wake: Notify::new(),
            stopping: AtomicBool::new(false),
            running: Mutex::new(HashMap::new()),
            analyze,
            owner: lease_owner(),
            counters: Arc::new(JobCounters::default()),
        });
        // Zero workers: an API process that leaves the analyses to `evacdoc worker`.
        for worker in 0..config.workers {
            let runner = runner.clone();
            tokio::spawn(async move { runner.work(worker).await });
        }
        Ok(runner)
    }

    /// A new job was queued.
    pub fn wake(&self) {
        self.wake.notify_one();
    }

    /// The live progress of a running job (fresher than the store's copy).
    pub fn progress(&self, id: &str) -> Option<Progress> {
        let running = self.running.lock().ok()?;
        running.get(id).map(JobProgress::snapshot)
    }

    /// Ids of the jobs running in this process.
    pub fn running_ids(&self) -> Vec<String> {
        self.running
            .lock()
            .map(|r| r.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// Stops taking jobs; waits up to `grace` for the running ones, then puts those still
    /// running back in the queue (they run again at the next start).
    pub async fn shutdown(&self, grace: Duration) {
        self.stopping.store(true, Ordering::SeqCst);
        self.wake.notify_waiters();
        let deadline = tokio::time::Instant::now() + grace;
        while !self.running_ids().is_empty() && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        for id in self.running_ids() {
            let store = self.store.clone();
            let requeue = id.clone();
            match tokio::task::spawn_blocking(move || store.requeue(&requeue)).await {
                Ok(Ok(())) => {
                    tracing::info!(analysis = %id, "running job queued again for the next start")
                }
                Ok(Err(e)) => {
                    tracing::error!(analysis = %id, error = %e, "cannot queue a running job again")
                }
                Err(e) => {
                    tracing::error!(analysis = %id, error = %e, "cannot queue a running job again")
                }
            }
        }
    }

    async fn work(self: Arc<Self>, worker: usize) {
        while !self.stopping.load(Ordering::SeqCst) {
            let store = self.store.clone();
            let (lease, owner) = (self.config.lease, self.owner.clone());
            let max_attempts = self.config.max_attempts;
            let claimed = tokio::task::spawn_blocking(move || match lease {
                Some(lease) => store.claim_leased(&owner, lease, max_attempts),
                None => store.claim_next(),
            })
            .await;
            match claimed {
                Ok(Ok(Some(row))) => self.run(row).await,
                Ok(Ok(None)) => {
                    // Woken by an upload, or look again now and then (another process
                    // sharing the store may have queued work).
                    let _ =
                        tokio::time::timeout(Duration::from_secs(2), self.wake.notified()).await;
                }
                Ok(Err(e)) => {
                    tracing::error!(worker, error = %e, "cannot take a job from the store");
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
                Err(e) => {
                    tracing::error!(worker, error = %e, "job worker failed");
                    tokio::time::sleep(Duration::from_secs(2)).await;
                }
            }
        }
    }

    async fn run(&self, row: AnalysisRow) {
        let id = row.id.clone();
        let progress = JobProgress::new();
        if let Ok(mut running) = self.running.lock() {
            running.insert(id.clone(), progress.clone());
        }
        tracing::info!(analysis = %id, name = %row.name, attempt = row.attempts, owner = %self.owner, "analysis started");
        let ticker = {
            let store = self.store.clone();
            let progress = progress.clone();
            let id = id.clone();
            let mut lease = self
                .config
                .lease
                .map(|lease| (lease, self.owner.clone(), row.attempts));
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
                    if let Some((length, owner, attempt)) = lease.clone()
                        && !renew(store.clone(), id.clone(), owner, attempt, length).await
                    {
                        lease = None;
                    }
                    let (store, id, now) = (store.clone(), id.clone(), progress.snapshot());
                    let _ =
                        tokio::task::spawn_blocking(move || store.set_progress(&id, &now)).await;
                }
            })
        };
        let outcome = {
            let store = self.store.clone();
            let progress = progress.clone();
            let counters = self.counters.clone();
            let row = row.clone();
            let (limits, analyze) = (self.config.limits, self.analyze);
            tokio::task::spawn_blocking(move || {
                analyze(store.as_ref(), &row, &progress, &counters, &limits)
            })
            .await
        };
        ticker.abort();
        let failure = match outcome {
            Ok(Ok(loaded)) => {
                self.counters.jobs_done.fetch_add(1, Ordering::Relaxed);
                self.cache.insert(&id, Arc::new(loaded));
                tracing::info!(analysis = %id, "analysis done");
                None
            }
            // Another worker took the job over (this one's lease expired): its result is
            // that worker's to write; this attempt leaves the job alone.
            Ok(Err(JobError::Store(StoreError::Superseded { attempt, .. }))) => {
                tracing::warn!(analysis = %id, attempt, "attempt superseded by another worker: result dropped");
                if let Ok(mut running) = self.running.lock() {
                    running.remove(&id);
                }
                return;
            }
            Ok(Err(e)) => Some(e.to_string()),
            // A panic ends this job only: the worker, the other jobs and the service go on.
            Err(e) if e.is_panic() => {
                let panic = e.into_panic();
                let message = crate::panics::message(panic.as_ref());
                tracing::error!(analysis = %id, panic = %message, "analysis panicked");
                Some(format!("the analysis panicked: {message}"))
            }
            Err(e) => {
                tracing::error!(analysis = %id, error = %e, "analysis stopped unexpectedly");
                Some("internal error: the analysis stopped unexpectedly".to_string())
            }
        };
        if let Some(reason) = failure {
            self.counters.jobs_failed.fetch_add(1, Ordering::Relaxed);
            tracing::warn!(analysis = %id, reason = %reason, "analysis failed");
            let store = self.store.clone();
            let failed = id.clone();
            let attempt = self.config.lease.map(|_| row.attempts);
            let _ = tokio::task::spawn_blocking(move || {
                fail(store.as_ref(), &failed, attempt, &reason)
            })
            .await;
        }
        if let Ok(mut running) = self.running.lock() {
            running.remove(&id);
        }
    }
}

/// Ends job `id` failed with `reason`; an index it left being built ends failed too
/// (nothing will finish it; it would show `running` for ever).
/// With an attempt (leased claims), only while the job is still that attempt's.
fn fail(store: &dyn Store, id: &str, attempt: Option<u32>, reason: &str) {
    let stored = match attempt {
        Some(attempt) => store.finish_failed_attempt(id, attempt, reason),
        None => store.finish_failed(id, reason),
    };
    if let Err(e) = stored {
        tracing::error!(analysis = %id, error = %e, "cannot store the job's failure");
        if matches!(e, StoreError::Superseded { .. }) {
            return;
        }
    }
    let index = store.get_analysis(id).ok().flatten().map(|row| row.index);
    if let Some(index) = index
        && index.state == IndexState::Running
    {
        let failed = IndexProgress {
            state: IndexState::Failed,
            bytes_done: index.bytes_done,
            error: Some("the analysis failed before its index was finished".to_string()),
        };
        if let Err(e) = store.set_index(id, &failed) {
            tracing::error!(analysis = %id, error = %e, "cannot store the index's failure");
        }
    }
}

/// What a crash of the one process that owns the store left: jobs queued again or
/// failed, half-built indexes failed, work folders removed.
fn recover_at_start(store: &dyn Store, max_attempts: u32) -> Result<(), StoreError> {
    let interrupted = store.recover_interrupted(max_attempts)?;
    for id in &interrupted.requeued {
        tracing::warn!(analysis = %id, "job interrupted by a stop: queued again");
    }
    for id in &interrupted.failed {
        tracing::warn!(analysis = %id, "job interrupted too often: failed");
    }
    for id in &interrupted.index_failed {
        tracing::warn!(analysis = %id, "index interrupted by a stop: failed");
    }
    for dir in sweep_after_crash(store, &interrupted)? {
        tracing::warn!(path = %dir.display(), "left by a stop: removed");
    }
    Ok(())
}

/// Extends the lease of a running job; false once the job is no longer this attempt's
/// (it is done and its index being built, or another worker took it over: then its
/// result will be refused), so renewing stops. A failure to reach the store is retried.
async fn renew(
    store: Arc<dyn Store>,
    id: String,
    owner: String,
    attempt: u32,
    lease: Duration,
) -> bool {
    let job = id.clone();
    let renewed =
        tokio::task::spawn_blocking(move || store.renew_lease(&id, &owner, attempt, lease)).await;
    match renewed {
        Ok(Ok(())) => true,
        Ok(Err(StoreError::Superseded { .. })) => {
            tracing::info!(analysis = %job, attempt, "lease no longer held: finished, or taken over");
            false
        }
        Ok(Err(e)) => {
            tracing::warn!(analysis = %job, error = %e, "lease not renewed");
            true
        }
        Err(e) => {
            tracing::warn!(analysis = %job, error = %e, "lease not renewed");
            true
        }
    }
}

/// `host:pid:random`: unique among the workers sharing a store, and says where one runs.
fn lease_owner() -> String {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|name| name.trim().to_owned())
        .unwrap_or_else(|_| "host".to_owned());
    let random = uuid::Uuid::new_v4().simple().to_string();
    format!(
        "{host}:{}:{}",
        std::process::id(),
        random.get(..8).unwrap_or(&random)
    )
}

#[cfg(test)]
#[path = "runner_tests.rs"]
mod tests;
