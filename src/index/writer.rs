//! Building the index in two steps: during the reading pass every record is spooled
//! (cheaply, `index::spool`) so that the analysis never waits for tantivy; once
//! the findings are stored, [`Indexer::finish`] builds the index from the spool with every
//! core, commits it and writes the meta file.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::Serialize;
use tantivy::indexer::IndexWriterOptions;
use tantivy::store::Compressor;
use tantivy::{Index, IndexSettings, IndexWriter};

use crate::correlate::Analysis;
use crate::index::IndexError;
use crate::index::document::{Scratch, document};
use crate::index::in_file::{FileWindows, SpooledFile};
use crate::index::meta::IndexMeta;
use crate::index::schema;
use crate::index::spool::{FRAME_BYTES, SpoolReader, SpoolWriter, SpooledRecord};

mod file_sink;

use crate::ingest::sink::{FileCtx, RecordSink, SinkFactory};
use file_sink::FileSink;

/// tantivy's smallest budget per indexing thread.
const MIN_BUDGET_PER_THREAD: usize = 15_000_000;
/// Doc store blocks: larger blocks compress the repetitive log text better, at a small
/// cost per hit read back.
const DOCSTORE_BLOCK: usize = 64 * 1024;
/// How often the build tells its progress.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);
/// The spool's name inside the index folder (removed once the index is built).
const SPOOL_FILE: &str = "records.spool";

/// What building the index did.
#[derive(Clone, Debug, Default, Serialize)]
pub struct IndexStats {
    /// Documents (records) indexed.
    pub documents: u64,
    /// Bytes of log text read into them.
    pub bytes: u64,
    /// Size of the index folder once committed.
    pub index_bytes: u64,
    /// Hosts whose zone could not be resolved by name (read as UTC), `host: zone`.
    pub unresolved_zones: Vec<String>,
}

/// Builds a search index from the same pass as the analysis: put [`Indexer::sinks`] into
/// [`crate::run::RunOptions::sinks`], run the analysis, then [`Indexer::finish`].
pub struct Indexer {
    dir: PathBuf,
    index: Index,
    memory_budget: usize,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Indexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexer").field("dir", &self.dir).finish()
    }
}

/// What the sinks of every file share.
struct Shared {
    spool: SpoolWriter,
    /// Bytes of log spooled.
    bytes: Arc<AtomicU64>,
    documents: AtomicU64,
    /// The first error writing the spool.
    error: Mutex<Option<String>>,
    /// Per host, the (min, max) raw time of its records.
    spans: Mutex<HashMap<u32, (i64, i64)>>,
    /// The folder the analysis unpacked archives into, kept until the index is built
    /// when the analysis offers it: records of its uncompressed files are spooled as
    /// their place (`index::in_file`).
    unpacked: Mutex<Option<tempfile::TempDir>>,
    /// The files records were spooled from by place, by file id.
    paths: Mutex<HashMap<u32, SpooledFile>>,
}

impl Shared {
    /// The files records were spooled from by place, to read them back.
    fn file_windows(&self) -> FileWindows {
        let paths = self
            .paths
            .lock()
            .map(|paths| paths.clone())
            .unwrap_or_default();
        FileWindows::new(paths)
    }

    fn fail(&self, reason: String) {
        if let Ok(mut first) = self.error.lock() {
            first.get_or_insert(reason);
        }
    }
}

impl Indexer {
    /// A new, empty index in `dir` (created if needed; it must hold no index yet),
    /// later built with at most about `memory_budget` bytes of buffers.
    pub fn create(dir: &Path, memory_budget: usize) -> Result<Indexer, IndexError> {
        std::fs::create_dir_all(dir).map_err(|source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let (schema, _) = schema::build();
        let settings = IndexSettings {
            docstore_compression: Compressor::Lz4,
            docstore_blocksize: DOCSTORE_BLOCK,
            ..IndexSettings::default()
        };
        let index = Index::builder()
            .schema(schema)
            .settings(settings)
            .create_in_dir(dir)
            .map_err(|e| IndexError::tantivy(dir, e))?;
        schema::register_tokenizers(&index);
        let spool = SpoolWriter::create(&dir.join(SPOOL_FILE))?;
        Ok(Indexer {
            dir: dir.to_path_buf(),
            index,
            memory_budget,
            shared: Arc::new(Shared {
                spool,
                bytes: Arc::new(AtomicU64::new(0)),
                documents: AtomicU64::new(0),
                error: Mutex::new(None),
                spans: Mutex::new(HashMap::new()),
                unpacked: Mutex::new(None),
                paths: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The sink factory to feed: one sink per file, all spooling for this index.
    pub fn sinks(&self) -> Arc<dyn SinkFactory> {
        Arc::new(Factory(self.shared.clone()))
    }

    /// Bytes of log spooled so far, readable while the analysis runs.
    pub fn progress(&self) -> Arc<AtomicU64> {
        self.shared.bytes.clone()
    }

    /// Builds the index from the spool, commits it and writes the meta file the search
    /// needs (each host's zone offsets and clock correction from `analysis`, each file's
    /// path and service). Call it once the reading pass is over.
    pub fn finish(self, analysis: &Analysis) -> Result<IndexStats, IndexError> {
        self.finish_reporting(analysis, &mut |_| {})
    }

    /// [`Indexer::finish`], telling `progress` now and then how many bytes of log are
    /// in the index so far (counted from the spooled lines, so close to, not exactly,
    /// the final [`IndexStats::bytes`]).
    pub fn finish_reporting(
        self,
        analysis: &Analysis,
        progress: &mut dyn FnMut(u64),
    ) -> Result<IndexStats, IndexError> {
        let writer_error = |reason: String| IndexError::Writer {
            path: self.dir.clone(),
            reason,
        };
        if let Some(reason) = self.shared.error.lock().ok().and_then(|e| e.clone()) {
            return Err(writer_error(format!(
                "a record could not be spooled: {reason}"
            )));
        }
        self.shared.spool.close()?;
        let spool_path = self.shared.spool.path().to_path_buf();
        let built = self.build_from_spool(&spool_path, progress);
        let _ = std::fs::remove_file(&spool_path);
        built?;
        let spans = self
            .shared
            .spans
            .lock()
            .map(|s| s.clone())
            .unwrap_or_default();
        let (meta, unresolved_zones) = IndexMeta::of(analysis, &spans);
        meta.write(&self.dir)?;
        Ok(IndexStats {
            documents: self.shared.documents.load(Ordering::Relaxed),
            bytes: self.shared.bytes.load(Ordering::Relaxed),
            index_bytes: folder_size(&self.dir),
            unresolved_zones,
        })
    }

    /// Every spooled record into one tantivy writer with a thread per core (the reading
    /// pass is over: the cores are the index's), then one commit.
    fn build_from_spool(
        &self,
        spool: &Path,
        progress: &mut dyn FnMut(u64),
    ) -> Result<(), IndexError> {
        let dir = &self.dir;
        let fields =
            schema::fields_of(&self.index.schema()).map_err(|e| IndexError::tantivy(dir, e))?;
        let threads = indexing_threads(self.memory_budget);
        let options = IndexWriterOptions::builder()
            .memory_budget_per_thread((self.memory_budget / threads).max(MIN_BUDGET_PER_THREAD))
            .num_worker_threads(threads)
            .num_merge_threads(1)
            .build();
        let mut writer: IndexWriter = self
            .index
            .writer_with_options(options)
            .map_err(|e| IndexError::tantivy(dir, e))?;
        // Merging rebuilds the term dictionaries of segments already written: measured,
        // it costs more than it saves in search time.
        writer.set_merge_policy(Box::new(tantivy::indexer::NoMergePolicy));
        let mut reader = SpoolReader::open(spool)?;
        let mut windows = self.shared.file_windows();
        let mut plain = Vec::with_capacity(FRAME_BYTES * 2);
        let mut scratch = Scratch::default();
        let mut done = 0u64;
        let mut told = Instant::now();
        while reader.next_frame(&mut plain)? {
            windows.plan(&plain);
            let mut at = 0;
            while let Some(mut record) = SpooledRecord::decode(&plain, &mut at) {
                if let Some(place) = record.in_file {
                    let raw = windows.raw(record.file, place)?;
                    record = record.with_raw(raw).ok_or_else(|| IndexError::Writer {
                        path: spool.to_path_buf(),
                        reason: "damaged spool: a field out of its record's lines".into(),
                    })?;
                }
                done += record.raw.len() as u64 + 1;
                writer
                    .add_document(document(&fields, &record, &mut scratch))
                    .map_err(|e| IndexError::tantivy(dir, e))?;
            }
            if at != plain.len() {
                return Err(IndexError::Writer {
                    path: spool.to_path_buf(),
                    reason: "damaged spool: a record cut short".into(),
                });
            }
            if told.elapsed() >= PROGRESS_EVERY {
                progress(done);
                told = Instant::now();
            }
        }
        progress(done);
        writer.commit().map_err(|e| IndexError::tantivy(dir, e))?;
        writer
            .wait_merging_threads()
            .map_err(|e| IndexError::tantivy(dir, e))
    }
}

/// One indexing thread per core, at most four, at most one per 30 MB of budget.
fn indexing_threads(memory_budget: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    cores.clamp(1, 4).min((memory_budget / 30_000_000).max(1))
}

fn folder_size(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter_map(|e| e.metadata().ok())
                .filter(|m| m.is_file())
                .map(|m| m.len())
                .sum()
        })
        .unwrap_or(0)
}

struct Factory(Arc<Shared>);

impl SinkFactory for Factory {
    fn sink(&self, _: &FileCtx<'_>) -> Box<dyn RecordSink + Send> {
        let keeps_files = self.0.unpacked.lock().is_ok_and(|kept| kept.is_some());
        Box::new(FileSink::new(self.0.clone(), keeps_files))
    }

    fn keep_unpacked(&self, work: tempfile::TempDir) -> Option<tempfile::TempDir> {
        match self.0.unpacked.lock() {
            Ok(mut kept) => {
                *kept = Some(work);
                None
            }
            Err(_) => Some(work),
        }
    }
}

#[cfg(test)]
impl Indexer {
    /// How many records were spooled by their place in their file.
    pub(crate) fn spooled_by_place(&self) -> usize {
        self.shared.spool.close().unwrap();
        let mut reader = SpoolReader::open(self.shared.spool.path()).unwrap();
        let (mut plain, mut by_place) = (Vec::new(), 0);
        while reader.next_frame(&mut plain).unwrap() {
            let mut at = 0;
            while let Some(record) = SpooledRecord::decode(&plain, &mut at) {
                by_place += usize::from(record.in_file.is_some());
            }
        }
        by_place
    }

    /// Every record spooled so far, encoded, in (file, line) order (the frames of the
    /// files interleave as their threads wrote them): what the index would be built from.
    pub(crate) fn spooled(&self) -> Vec<Vec<u8>> {
        self.shared.spool.close().unwrap();
        let mut reader = SpoolReader::open(self.shared.spool.path()).unwrap();
        let mut windows = self.shared.file_windows();
        let (mut plain, mut records) = (Vec::new(), Vec::new());
        while reader.next_frame(&mut plain).unwrap() {
            let mut at = 0;
            while let Some(mut record) = SpooledRecord::decode(&plain, &mut at) {
                // As if held: the place read back.
                if let Some(place) = record.in_file.take() {
                    let raw = windows.raw(record.file, place).unwrap();
                    record = record.with_raw(raw).unwrap();
                }
                let mut encoded = Vec::new();
                record.encode(record.raw, &mut encoded);
                records.push(encoded);
            }
        }
        records.sort();
        records
    }
}
