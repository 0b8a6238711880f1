//! The spool and the identification of names pass over nothing: a record the reader
//! skims (one line the event keeper ignores) is spooled and identified as the record
//! would have been.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use evacdoc_parsers::{Line, Record};

use super::*;
use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan, SinkFactory};
use crate::model::identified::Seeds;
use crate::model::inventory::FileInfo;
use crate::run::{RunOptions, analyze_inputs};

/// The sinks of a factory, either made to see every record (the reader then skims
/// nothing) or counting the records the reader passed over.
struct Wrapped {
    inner: Arc<dyn SinkFactory>,
    see_every_record: bool,
    skipped: Arc<AtomicU64>,
}

struct WrappedSink {
    inner: Box<dyn RecordSink + Send>,
    see_every_record: bool,
    skipped: Arc<AtomicU64>,
}

impl SinkFactory for Wrapped {
    fn sink(&self, file: &FileCtx<'_>) -> Box<dyn RecordSink + Send> {
        Box::new(WrappedSink {
            inner: self.inner.sink(file),
            see_every_record: self.see_every_record,
            skipped: self.skipped.clone(),
        })
    }

    fn keep_unpacked(&self, work: tempfile::TempDir) -> Option<tempfile::TempDir> {
        self.inner.keep_unpacked(work)
    }
}

impl RecordSink for WrappedSink {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        self.inner.record(file, record, span);
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        self.inner.finish_file(file, info);
    }

    fn skims(&self) -> bool {
        !self.see_every_record && self.inner.skims()
    }

    fn candidate(&self, file: &FileCtx<'_>, raw: &str) -> bool {
        self.inner.candidate(file, raw)
    }

    fn ignores(&self, file: &FileCtx<'_>, head: &Line<'_>) -> bool {
        self.inner.ignores(file, head)
    }

    fn skipped(&mut self, file: &FileCtx<'_>, head: &Line<'_>, span: RecordSpan) {
        self.skipped.fetch_add(1, Ordering::Relaxed);
        self.inner.skipped(file, head, span);
    }
}

/// What the reading pass of `input` gave: the spooled records, how many records the
/// reader passed over, the records counted, the names and secrets identified.
fn spool_of(input: &Path, see_every_record: bool) -> (Vec<Vec<u8>>, u64, u64, Seeds) {
    let dir = tempfile::tempdir().unwrap();
    let indexer = Indexer::create(dir.path(), 50_000_000).unwrap();
    let skipped = Arc::new(AtomicU64::new(0));
    let sinks = Wrapped {
        inner: indexer.sinks(),
        see_every_record,
        skipped: skipped.clone(),
    };
    let options = RunOptions {
        sinks: Some(Arc::new(sinks)),
        ..RunOptions::default()
    };
    let report = analyze_inputs(&[input.to_path_buf()], &options).unwrap();
    let spooled = indexer.spooled();
    let skipped = skipped.load(Ordering::Relaxed);
    let analysis = report.analysis;
    (
        spooled,
        skipped,
        analysis.stats.records,
        analysis.identified,
    )
}

#[test]
fn skimmed_records_are_spooled_and_identified_as_whole_records_are() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut inputs: Vec<PathBuf> = Vec::new();
    for folder in ["scenarios", "realstack", "devstack"] {
        let mut found: Vec<PathBuf> = std::fs::read_dir(samples.join(folder))
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.is_dir())
            .collect();
        found.sort();
        inputs.extend(found);
    }
    assert!(inputs.len() > 40, "{inputs:?}");
    let mut skipped_in_all = 0;
    for input in &inputs {
        let (skimming, skipped, records, seeds) = spool_of(input, false);
        let (whole, none, whole_records, whole_seeds) = spool_of(input, true);
        assert_eq!(none, 0, "{}", input.display());
        assert_eq!((skimming.len() as u64, records), (records, whole_records));
        assert!(skimming == whole, "{}: the spools differ", input.display());
        assert_eq!(seeds, whole_seeds, "{}", input.display());
        skipped_in_all += skipped;
    }
    // The comparison means something: most scenarios' lines are passed over.
    assert!(skipped_in_all > 1000, "{skipped_in_all}");
}
