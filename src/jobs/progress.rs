//! How far a running analysis is: bytes of input read (the pipeline's progress bar, kept
//! hidden) and files finished (a sink that counts them).

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use evacdoc_parsers::{Line, Record};

use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan, SinkFactory};
use crate::model::inventory::FileInfo;
use crate::store::Progress;

/// The counters of one running analysis.
#[derive(Debug, Clone)]
pub struct JobProgress {
    /// Bytes of input files read, against their total (set when reading starts).
    pub bar: indicatif::ProgressBar,
    /// Files read to their end.
    pub files_done: Arc<AtomicU64>,
}

impl JobProgress {
    pub fn new() -> JobProgress {
        JobProgress {
            bar: indicatif::ProgressBar::hidden(),
            files_done: Arc::new(AtomicU64::new(0)),
        }
    }

    /// The figures now.
    pub fn snapshot(&self) -> Progress {
        Progress {
            bytes_done: self.bar.position(),
            bytes_total: self.bar.length().unwrap_or(0),
            files_done: self.files_done.load(Ordering::Relaxed),
            files_total: 0,
        }
    }

    /// A sink factory that counts finished files.
    pub fn sinks(&self) -> FileCounter {
        FileCounter(self.files_done.clone())
    }
}

impl Default for JobProgress {
    fn default() -> Self {
        JobProgress::new()
    }
}

/// Counts the files read to their end.
#[derive(Debug, Clone)]
pub struct FileCounter(Arc<AtomicU64>);

impl RecordSink for FileCounter {
    fn record(&mut self, _: &FileCtx<'_>, _: &Record<'_>, _: RecordSpan) {}

    // It counts files, not records: the reader may pass over any record for it.
    fn skims(&self) -> bool {
        true
    }

    fn candidate(&self, _: &FileCtx<'_>, _: &str) -> bool {
        true
    }

    fn ignores(&self, _: &FileCtx<'_>, _: &Line<'_>) -> bool {
        true
    }

    fn finish_file(&mut self, _: &FileCtx<'_>, _: &FileInfo) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }
}

impl SinkFactory for FileCounter {
    fn sink(&self, _: &FileCtx<'_>) -> Box<dyn RecordSink + Send> {
        Box::new(self.clone())
    }
}

/// Two factories whose sinks are fed in the same pass.
pub struct BothSinks(pub Arc<dyn SinkFactory>, pub Arc<dyn SinkFactory>);

impl SinkFactory for BothSinks {
    fn sink(&self, file: &FileCtx<'_>) -> Box<dyn RecordSink + Send> {
        Box::new((self.0.sink(file), self.1.sink(file)))
    }

    fn keep_unpacked(&self, work: tempfile::TempDir) -> Option<tempfile::TempDir> {
        self.0
            .keep_unpacked(work)
            .and_then(|work| self.1.keep_unpacked(work))
    }
}
