//! A job that panics ends `failed` with the panic's message; the worker goes on with the
//! next job, which ends `done`.

use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::*;
use crate::jobs::input_dir;
use crate::store::{JobStatus, NewAnalysis, SqliteStore};

const LOG: &str = "samples/parsers/oslo/masakari_host_failure_zed.log";

/// [`run_analysis`], except for uploads named `panic…`: those start their index, then
/// meet a bug.
fn panics_on_some(
    store: &dyn Store,
    row: &AnalysisRow,
    progress: &JobProgress,
    counters: &JobCounters,
    limits: &crate::ingest::IngestLimits,
) -> Result<Loaded, JobError> {
    if row.name.starts_with("panic") {
        let running = IndexProgress {
            state: IndexState::Running,
            bytes_done: 10,
            error: None,
        };
        store.set_index(&row.id, &running)?;
        panic!("a bug met in {}", row.name);
    }
    run_analysis(store, row, progress, counters, limits)
}

/// Queues the Masakari log as an upload named `name`.
fn queue(store: &dyn Store, name: &str) -> String {
    let id = uuid::Uuid::new_v4().hyphenated().to_string();
    let folder = input_dir(store.paths(), &id).unwrap();
    std::fs::create_dir_all(&folder).unwrap();
    let log = Path::new(env!("CARGO_MANIFEST_DIR")).join(LOG);
    let size = std::fs::copy(log, folder.join(name)).unwrap();
    store
        .create_analysis(&NewAnalysis {
            id: id.clone(),
            name: name.to_string(),
            size_bytes: size,
            sha256: "0".repeat(64),
        })
        .unwrap();
    id
}

async fn ended(store: &dyn Store, id: &str) -> AnalysisRow {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let row = store.get_analysis(id).unwrap().unwrap();
        if matches!(row.status, JobStatus::Done | JobStatus::Failed) {
            return row;
        }
        assert!(Instant::now() < deadline, "{id} still {}", row.status);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_job_fails_with_the_reason_and_the_worker_goes_on() {
    let dir = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(&dir.path().join("data")).unwrap());
    // One worker: the job after the panic runs on the same worker.
    let first = queue(store.as_ref(), "panic-first.log");
    let good = queue(store.as_ref(), "masakari-engine.log");
    let second = queue(store.as_ref(), "panic-second.log");
    let config = JobConfig {
        workers: 1,
        ..JobConfig::default()
    };
    let runner = JobRunner::start_with(
        store.clone(),
        Arc::new(AnalysisCache::new(4)),
        config,
        panics_on_some,
    )
    .unwrap();
    runner.wake();

    for (id, name) in [(&first, "panic-first.log"), (&second, "panic-second.log")] {
        let row = ended(store.as_ref(), id).await;
        assert_eq!(row.status, JobStatus::Failed, "{row:?}");
        assert_eq!(
            row.error.as_deref(),
            Some(format!("the analysis panicked: a bug met in {name}").as_str())
        );
        // The index it had started does not stay `running`.
        assert_eq!(row.index.state, IndexState::Failed, "{row:?}");
    }
    let row = ended(store.as_ref(), &good).await;
    assert_eq!(row.status, JobStatus::Done, "{row:?}");
    assert_eq!(row.index.state, IndexState::Done, "{row:?}");
    let result = store.result_json(&good).unwrap().unwrap();
    assert!(result.contains("masakari"), "{result}");
    assert_eq!(runner.counters.jobs_failed.load(Ordering::Relaxed), 2);
    assert_eq!(runner.counters.jobs_done.load(Ordering::Relaxed), 1);
    assert!(runner.running_ids().is_empty());
    runner.shutdown(Duration::from_secs(5)).await;
}
