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
}

impl Default for JobConfig {
    fn default() -> Self {
        JobConfig {
            workers: 2,
            max_attempts: 2,
            limits: crate::ingest::IngestLimits::default(),
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
        let interrupted = store.recover_interrupted(config.max_attempts)?;
        for id in &interrupted.requeued {
            tracing::warn!(analysis = %id, "job interrupted by a stop: queued again");
        }
        for id in &interrupted.failed {
            tracing::warn!(analysis = %id, "job interrupted too often: failed");
        }
        for id in &interrupted.index_failed {
            tracing::warn!(analysis = %id, "index interrupted by a stop: failed");
        }
        for dir in sweep_after_crash(store.as_ref(), &interrupted)? {
            tracing::warn!(path = %dir.display(), "left by a stop: removed");
        }
        let runner = Arc::new(JobRunner {
            store,
            cache,
            config: config.clone(),
            wake: Notify::new(),
            stopping: AtomicBool::new(false),
            running: Mutex::new(HashMap::new()),
            analyze,
            counters: Arc::new(JobCounters::default()),
        });
        for worker in 0..config.workers.max(1) {
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
            let claimed = tokio::task::spawn_blocking(move || store.claim_next()).await;
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
        tracing::info!(analysis = %id, name = %row.name, attempt = row.attempts, "analysis started");
        let ticker = {
            let store = self.store.clone();
            let progress = progress.clone();
            let id = id.clone();
            tokio::spawn(async move {
                loop {
                    tokio::time::sleep(Duration::from_secs(1)).await;
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
            let _ =
                tokio::task::spawn_blocking(move || fail(store.as_ref(), &failed, &reason)).await;
        }
        if let Ok(mut running) = self.running.lock() {
            running.remove(&id);
        }
    }
}

/// Ends job `id` failed with `reason`; an index it left being built ends failed too
/// (nothing will finish it; it would show `running` for ever).
fn fail(store: &dyn Store, id: &str, reason: &str) {
    if let Err(e) = store.finish_failed(id, reason) {
        tracing::error!(analysis = %id, error = %e, "cannot store the job's failure");
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

#[cfg(test)]
#[path = "runner_tests.rs"]
mod tests;
