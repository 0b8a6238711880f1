//! `evacdoc worker --store postgres://… --blobs file:///…`: a process that only runs
//! analyses, claiming them from the shared store under a lease (issue 27).

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use evacdoc::jobs::{AnalysisCache, JobConfig, JobRunner};
use evacdoc::store::{PgStore, Store};

#[derive(Debug, Args)]
pub struct WorkerArgs {
    #[command(flatten)]
    store: super::store_args::StoreArgs,
    /// With an object store as --blobs: this worker's own work folder (uploads fetched,
    /// indexes built), emptied at start; one per worker process.
    #[arg(long, default_value = "./evacdoc-worker")]
    data: std::path::PathBuf,
    /// Analyses run at once by this process.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Seconds running analyses may go on after a stop is asked for (then they are
    /// queued again for any worker).
    #[arg(long, default_value_t = 10)]
    shutdown_grace: u64,
    #[command(flatten)]
    limits: super::limits::LimitArgs,
}

pub fn run(args: &WorkerArgs) -> anyhow::Result<ExitCode> {
    let shared = args
        .store
        .shared()?
        .context("a worker needs --store postgres://… and --blobs file:///…")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let url = shared.url.clone();
        let data = shared.blobs.data_folder(&args.data);
        let remote = shared.blobs.remote();
        let store = tokio::task::spawn_blocking(move || -> anyhow::Result<PgStore> {
            let store = PgStore::open(&url, &data)?;
            let Some(remote) = remote else {
                return Ok(store);
            };
            // Its own folder: what a killed run of this worker left is removed.
            let swept = evacdoc::jobs::remote::sweep_worker_folder(store.paths());
            if swept > 0 {
                eprintln!("evacdoc: removed {swept} leftover work file(s) of an earlier run");
            }
            let blobs =
                evacdoc::blobs::open(&remote).with_context(|| format!("--blobs {remote}"))?;
            Ok(store.with_remote_blobs(blobs))
        })
        .await
        .context("cannot open the store")??;
        let target = store.target().to_owned();
        let store: Arc<dyn Store> = Arc::new(store);
        let config = JobConfig {
            workers: args.jobs.max(1),
            limits: args.limits.limits(),
            lease: Some(shared.lease),
            ..JobConfig::default()
        };
        let runner = JobRunner::start(store, Arc::new(AnalysisCache::new(1)), config)?;
        eprintln!(
            "evacdoc: worker running {} job(s) at once from {target}, files in {}",
            args.jobs.max(1),
            shared.blobs
        );
        super::serve::wait_for_stop().await;
        eprintln!(
            "evacdoc: stopping (running analyses get {} s)",
            args.shutdown_grace
        );
        runner
            .shutdown(Duration::from_secs(args.shutdown_grace))
            .await;
        Ok(ExitCode::SUCCESS)
    })
}
