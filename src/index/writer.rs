//! Building the index as a sink of the reading pass: one document per record, added
//! from the reader threads into one tantivy writer with a bounded memory budget.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use evacdoc_parsers::Record;
use serde::Serialize;
use tantivy::indexer::IndexWriterOptions;
use tantivy::store::Compressor;
use tantivy::{Index, IndexSettings, IndexWriter, TantivyDocument};

use crate::correlate::Analysis;
use crate::correlate::analysis::FileInfo;
use crate::correlate::ids::{UuidKind, classified_uuids};
use crate::index::IndexError;
use crate::index::meta::IndexMeta;
use crate::index::schema::{self, FLAG_OWN_TIME, Fields};
use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan, SinkFactory};

/// tantivy's smallest budget per indexing thread.
const MIN_BUDGET_PER_THREAD: usize = 15_000_000;
/// Doc store blocks: larger blocks compress the repetitive log text better, at a small
/// cost per hit read back.
const DOCSTORE_BLOCK: usize = 64 * 1024;

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

/// Builds a search index in the same pass as the analysis: put [`Indexer::sinks`] into
/// [`crate::run::RunOptions::sinks`], run the analysis, then [`Indexer::finish`].
pub struct Indexer {
    dir: PathBuf,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Indexer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Indexer").field("dir", &self.dir).finish()
    }
}

/// What the sinks of every file share.
struct Shared {
    /// Taken by [`Indexer::finish`]; sinks still alive afterwards add nothing.
    writer: RwLock<Option<IndexWriter>>,
    fields: Fields,
    bytes: Arc<AtomicU64>,
    documents: AtomicU64,
    /// The first error of `add_document` (the writer's threads died).
    error: Mutex<Option<String>>,
    /// Per host, the (min, max) raw time of its records.
    spans: Mutex<HashMap<u32, (i64, i64)>>,
}

impl Indexer {
    /// A new, empty index in `dir` (created if needed; it must hold no index yet),
    /// written with at most about `memory_budget` bytes of buffers.
    pub fn create(dir: &Path, memory_budget: usize) -> Result<Indexer, IndexError> {
        std::fs::create_dir_all(dir).map_err(|source| IndexError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        let (schema, fields) = schema::build();
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
        let threads = indexing_threads(memory_budget);
        let options = IndexWriterOptions::builder()
            .memory_budget_per_thread((memory_budget / threads).max(MIN_BUDGET_PER_THREAD))
            .num_worker_threads(threads)
            .num_merge_threads(1)
            .build();
        let writer = index
            .writer_with_options(options)
            .map_err(|e| IndexError::tantivy(dir, e))?;
        Ok(Indexer {
            dir: dir.to_path_buf(),
            shared: Arc::new(Shared {
                writer: RwLock::new(Some(writer)),
                fields,
                bytes: Arc::new(AtomicU64::new(0)),
                documents: AtomicU64::new(0),
                error: Mutex::new(None),
                spans: Mutex::new(HashMap::new()),
            }),
        })
    }

    /// The sink factory to feed: one sink per file, all adding to this index.
    pub fn sinks(&self) -> Arc<dyn SinkFactory> {
        Arc::new(Factory(self.shared.clone()))
    }

    /// Bytes of log indexed so far, readable while the analysis runs.
    pub fn progress(&self) -> Arc<AtomicU64> {
        self.shared.bytes.clone()
    }

    /// Commits the index and writes the meta file the search needs (each host's zone
    /// offsets and clock correction from `analysis`, each file's path and service).
    pub fn finish(self, analysis: &Analysis) -> Result<IndexStats, IndexError> {
        let writer_error = |reason: String| IndexError::Writer {
            path: self.dir.clone(),
            reason,
        };
        if let Some(reason) = self.shared.error.lock().ok().and_then(|e| e.clone()) {
            return Err(writer_error(format!(
                "a record could not be added: {reason}"
            )));
        }
        let writer = self
            .shared
            .writer
            .write()
            .map_err(|_| writer_error("a reader thread panicked while indexing".into()))?
            .take();
        let mut writer = writer.ok_or_else(|| writer_error("already finished".into()))?;
        writer
            .commit()
            .map_err(|e| IndexError::tantivy(&self.dir, e))?;
        writer
            .wait_merging_threads()
            .map_err(|e| IndexError::tantivy(&self.dir, e))?;
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
}

/// One indexing thread per 50 MB of budget, at most the cores the reader leaves.
fn indexing_threads(memory_budget: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    (memory_budget / 50_000_000).clamp(1, cores.clamp(1, 4))
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
        Box::new(FileSink {
            shared: self.0.clone(),
            last_time: None,
            span: None,
            text: String::new(),
        })
    }
}

/// The sink of one file.
struct FileSink {
    shared: Arc<Shared>,
    /// The raw time of the last record that had one, and whether it carried its offset.
    last_time: Option<(i64, bool)>,
    /// (min, max) raw time of the file's records.
    span: Option<(i64, i64)>,
    /// The text of the record being built, reused.
    text: String,
}

impl FileSink {
    fn document(
        &mut self,
        file: &FileCtx<'_>,
        record: &Record<'_>,
        span: RecordSpan,
    ) -> TantivyDocument {
        let f = &self.shared.fields;
        let mut doc = TantivyDocument::new();
        doc.add_u64(f.file, u64::from(file.id));
        doc.add_u64(f.line, span.first_line as u64);

        let own = record.timestamp().and_then(|t| match t.offset {
            Some(offset) => t.local.checked_unix_nanos(offset).map(|n| (n, true)),
            None => t.local.checked_unix_nanos(0).map(|n| (n, false)),
        });
        if let Some((raw, _)) = own {
            self.last_time = own;
            self.span = Some(match self.span {
                Some((lo, hi)) => (lo.min(raw), hi.max(raw)),
                None => (raw, raw),
            });
        }
        // A record without a time of its own sorts after the one before it.
        if let Some((raw, zoned)) = self.last_time {
            doc.add_i64(if zoned { f.time_utc } else { f.time_local }, raw);
        }
        doc.add_u64(f.flags, if own.is_some() { FLAG_OWN_TIME } else { 0 });

        self.text.clear();
        self.text.push_str(record.message());
        for line in record.continuation.iter().chain(record.traceback.iter()) {
            self.text.push('\n');
            self.text.push_str(line);
        }
        if let Some(oslo) = record.oslo() {
            doc.add_text(f.level, oslo.level.as_str());
            doc.add_text(f.logger, oslo.logger);
            if let Some(context) = oslo.context() {
                if let Some(id) = context.request_id {
                    doc.add_text(f.request, id);
                }
                if let Some(id) = context.global_request_id {
                    doc.add_text(f.request, id);
                    doc.add_text(f.global, id);
                }
            }
            if let Some(id) = oslo.instance {
                doc.add_text(f.instance, id);
            }
        }
        // A UUID's kind is said by the word before it; only a text with a dash can hold one.
        if self.text.contains('-') {
            for (kind, id) in classified_uuids(&self.text) {
                let field = match kind {
                    UuidKind::Instance => f.instance,
                    UuidKind::Notification => f.notification,
                    UuidKind::Volume => f.volume,
                };
                doc.add_text(field, id.to_string());
            }
        }
        doc.add_text(f.text, &self.text);
        doc
    }
}

impl RecordSink for FileSink {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        let doc = self.document(file, record, span);
        let added = match self.shared.writer.read() {
            Ok(writer) => match writer.as_ref() {
                Some(w) => w.add_document(doc).map(|_| ()).map_err(|e| e.to_string()),
                None => Ok(()),
            },
            Err(_) => Err("the index writer lock is poisoned".to_string()),
        };
        if let Err(reason) = added
            && let Ok(mut first) = self.shared.error.lock()
        {
            first.get_or_insert(reason);
        }
        self.shared.documents.fetch_add(1, Ordering::Relaxed);
        self.shared.bytes.fetch_add(
            span.byte_end.saturating_sub(span.byte_start) + 1,
            Ordering::Relaxed,
        );
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, _: &FileInfo) {
        let (Some((lo, hi)), Ok(mut spans)) = (self.span, self.shared.spans.lock()) else {
            return;
        };
        let entry = spans.entry(file.host).or_insert((lo, hi));
        *entry = (entry.0.min(lo), entry.1.max(hi));
    }
}
