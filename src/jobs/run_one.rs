//! One analysis job, start to end, on a blocking thread: the uploaded bundle read once
//! (events for the analysis, every line for the search index), the findings and the
//! analysis document stored, the index committed.

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use super::cache::Loaded;
use super::progress::{BothSinks, JobProgress};
use super::remote;
use super::runner::JobCounters;
use crate::index::{IndexError, Indexer};
use crate::run::{Options, RunOptions, analyze_inputs};
use crate::store::{
    AnalysisRow, DataPaths, IndexProgress, IndexState, Store, StoreError, StoredResult,
    write_document_with,
};
use crate::triage::report::json_document;

/// The search index may use this much memory while it is built.
pub const INDEX_MEMORY_BUDGET: usize = 64 << 20;

/// Why a job failed.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    #[error("{0}")]
    Input(String),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("search index: {0}")]
    Index(#[from] IndexError),
}

/// The folder holding an analysis's uploaded input (the archive under its own name).
pub fn input_dir(paths: &DataPaths, id: &str) -> Result<PathBuf, StoreError> {
    Ok(paths.analysis_dir(id)?.join("input"))
}

/// Runs the analysis `id` (already claimed as running): stores its result, then builds
/// its search index. The analysis is done (findings served) before the index is. With an
/// object store, the upload is fetched first and the local copies removed at the end.
pub fn run_analysis(
    store: &dyn Store,
    row: &AnalysisRow,
    progress: &JobProgress,
    counters: &JobCounters,
    limits: &crate::ingest::IngestLimits,
) -> Result<Loaded, JobError> {
    let Some(remote) = store.remote_blobs() else {
        return run_here(store, row, progress, counters, limits);
    };
    let paths = store.paths();
    let ran = remote::fetch_upload(remote.as_ref(), paths, row)
        .map_err(JobError::from)
        .and_then(|()| run_here(store, row, progress, counters, limits));
    remote::drop_local(paths, &row.id);
    ran
}

fn run_here(
    store: &dyn Store,
    row: &AnalysisRow,
    progress: &JobProgress,
    counters: &JobCounters,
    limits: &crate::ingest::IngestLimits,
) -> Result<Loaded, JobError> {
    let id = row.id.as_str();
    let paths = store.paths().clone();
    let remote_blobs = store.remote_blobs();
    let folder = input_dir(&paths, id)?;
    let input = folder.join(&row.name);
    let index_dir = paths.index_dir(id)?;
    let _ = std::fs::remove_dir_all(&index_dir);
    let indexer = match Indexer::create(&index_dir, INDEX_MEMORY_BUDGET) {
        Ok(indexer) => Some(indexer),
        Err(e) => {
            tracing::warn!(analysis = id, error = %e, "search index not built");
            store.set_index(id, &index_failed(&e))?;
            None
        }
    };
    if indexer.is_some() {
        store.set_index(
            id,
            &IndexProgress {
                state: IndexState::Running,
                bytes_done: 0,
                error: None,
            },
        )?;
    }
    let sinks: Arc<dyn crate::ingest::sink::SinkFactory> = match &indexer {
        Some(indexer) => Arc::new(BothSinks(indexer.sinks(), Arc::new(progress.sinks()))),
        None => Arc::new(progress.sinks()),
    };
    let options = RunOptions {
        analysis: Options {
            progress_bar: Some(progress.bar.clone()),
            limits: *limits,
            work_dir: Some(paths.tmp_dir()),
            // Messages name the upload, not where the service keeps it.
            input_names: vec![PathBuf::from(&row.name)],
            ..Options::default()
        },
        sinks: Some(sinks),
        ..RunOptions::default()
    };
    let report = analyze_inputs(&[input], &options).map_err(|e| JobError::Input(e.to_string()))?;
    let mut analysis = report.analysis;
    analysis.inputs = vec![row.name.clone()];
    let findings = report.findings;

    write_document_with(&paths, id, |out| {
        analysis.write_document(out).map_err(std::io::Error::other)
    })?;
    let result = stored_result(&analysis, &findings);
    let mut read = progress.snapshot();
    read.files_total = read.files_done;
    read.bytes_done = read.bytes_total;
    store.set_progress(id, &read)?;
    // In the object store before the job is done: readers fetch it from there.
    if let Some(remote) = remote_blobs {
        remote::send_document(remote.as_ref(), &paths, id, row.attempts)?;
    }
    // Keyed by the attempt: a worker whose job was taken over finishes nothing.
    store.finish_done_attempt(id, row.attempts, &result)?;
    counters
        .bytes_ingested
        .fetch_add(analysis.stats.bytes, Ordering::Relaxed);
    counters
        .lines_ingested
        .fetch_add(analysis.stats.records, Ordering::Relaxed);

    if let Some(indexer) = indexer {
        let bytes = indexer.progress().load(Ordering::Relaxed);
        let mut tell = |done: u64| {
            let running = IndexProgress {
                state: IndexState::Running,
                bytes_done: done.min(bytes),
                error: None,
            };
            if let Err(e) = store.set_index(id, &running) {
                tracing::warn!(analysis = id, error = %e, "index progress not stored");
            }
        };
        let built = indexer
            .finish_reporting(&analysis, &mut tell)
            .and_then(|built| match remote_blobs {
                Some(remote) => remote::send_index(remote.as_ref(), &paths, id, row.attempts)
                    .map(|()| built)
                    .map_err(|e| IndexError::Writer {
                        path: index_dir.clone(),
                        reason: format!("sending it to {}: {e}", remote.describe()),
                    }),
                None => Ok(built),
            });
        match built {
            Ok(_) => store.set_index(
                id,
                &IndexProgress {
                    state: IndexState::Done,
                    bytes_done: bytes,
                    error: None,
                },
            )?,
            Err(e) => {
                tracing::warn!(analysis = id, error = %e, "search index failed");
                store.set_index(id, &index_failed(&e))?;
            }
        }
    }
    Ok(Loaded { analysis, findings })
}

fn index_failed(error: &IndexError) -> IndexProgress {
    IndexProgress {
        state: IndexState::Failed,
        bytes_done: 0,
        error: Some(error.to_string()),
    }
}

/// The `analyze --format json` document and the findings, typed: the store keeps them as
/// the API serves them and the pages show them.
pub fn stored_result(
    analysis: &crate::correlate::Analysis,
    findings: &[crate::detect::Finding],
) -> StoredResult {
    StoredResult {
        report_json: json_document(analysis, findings).to_string(),
        findings: findings.to_vec(),
    }
}
