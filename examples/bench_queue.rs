//! Queue overhead per job (issue 27): the time to claim a job under a lease and finish it
//! (no analysis in between), on the embedded SQLite store and on PostgreSQL (a throwaway
//! cluster on loopback, Debian's postgresql), with 1 and 4 claiming threads.
//!
//! `cargo run --example bench_queue [JOBS]` (default 400 jobs per run).

use std::sync::Arc;
use std::time::{Duration, Instant};

use evacdoc::store::throwaway::ThrowawayCluster;
use evacdoc::store::{NewAnalysis, PgStore, SqliteStore, Store, StoredResult};

fn main() -> anyhow::Result<()> {
    let jobs: usize = std::env::args()
        .nth(1)
        .map(|n| n.parse())
        .transpose()?
        .unwrap_or(400);
    let dir = tempfile::tempdir()?;
    let cluster = ThrowawayCluster::start()?;
    println!("backend     threads  jobs  ms/job (claim+finish)  jobs/s");
    for threads in [1, 4] {
        let sqlite: Arc<dyn Store> = Arc::new(SqliteStore::open(
            &dir.path().join(format!("sqlite-{threads}")),
        )?);
        report("sqlite", threads, jobs, measure(&sqlite, threads, jobs)?);
        let url = cluster.create_database(&format!("bench_{threads}"))?;
        let postgres: Arc<dyn Store> = Arc::new(PgStore::open(
            &url,
            &dir.path().join(format!("blobs-{threads}")),
        )?);
        report(
            "postgres",
            threads,
            jobs,
            measure(&postgres, threads, jobs)?,
        );
    }
    Ok(())
}

fn report(backend: &str, threads: usize, jobs: usize, took: Duration) {
    let seconds = took.as_secs_f64();
    println!(
        "{backend:<11} {threads:>7} {jobs:>5} {:>22.3} {:>7.0}",
        seconds * 1000.0 / jobs as f64,
        jobs as f64 / seconds
    );
}

/// Queues `jobs` analyses, then times `threads` workers claiming and finishing them all.
fn measure(store: &Arc<dyn Store>, threads: usize, jobs: usize) -> anyhow::Result<Duration> {
    for n in 0..jobs {
        store.create_analysis(&NewAnalysis {
            id: uuid::Uuid::new_v4().hyphenated().to_string(),
            name: format!("bundle-{n}.tar.gz"),
            size_bytes: 1 << 20,
            sha256: "0".repeat(64),
        })?;
    }
    let result = StoredResult {
        report_json: r#"{"schema":"evacdoc.analysis/v1"}"#.to_owned(),
        findings: Vec::new(),
    };
    let started = Instant::now();
    let done: usize = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|worker| {
                let (store, result) = (store.clone(), result.clone());
                scope.spawn(move || -> anyhow::Result<usize> {
                    let owner = format!("bench:{worker}");
                    let mut finished = 0;
                    while let Some(row) = store.claim_leased(&owner, Duration::from_secs(30), 2)? {
                        store.finish_done_attempt(&row.id, row.attempts, &result)?;
                        finished += 1;
                    }
                    Ok(finished)
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|worker| {
                worker
                    .join()
                    .map_err(|_| anyhow::anyhow!("a worker panicked"))?
            })
            .sum::<anyhow::Result<usize>>()
    })?;
    anyhow::ensure!(done == jobs, "{done} of {jobs} jobs finished");
    Ok(started.elapsed())
}
