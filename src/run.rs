//! The library entry point: inputs and options in, the analysis and its findings (with
//! known bugs attached) out. The CLI, the service and the watcher all run through here.
//!
//! The inputs are read once by [`crate::ingest`], every record pushed into sinks
//! ([`crate::ingest::sink`]), the kept events assembled by [`crate::correlate`], and
//! [`crate::detect`] and [`crate::triage`] run over the result.

mod pipeline;

use std::path::PathBuf;
use std::sync::Arc;

pub use pipeline::{AnalyzeError, Options, analyze, analyze_with};

use crate::correlate::Analysis;
use crate::detect::{DetectOptions, Finding, detect};
use crate::ingest::sink::SinkFactory;
use crate::triage::catalog::CatalogError;
use crate::triage::{Catalog, attach_known_bugs};

/// How to run an analysis and its detectors.
#[derive(Clone, Default)]
pub struct RunOptions {
    /// Reading and correlating.
    pub analysis: Options,
    /// The detectors' tunables.
    pub detect: DetectOptions,
    /// Sinks fed every record beside the event keeper (search indexer, live watcher).
    pub sinks: Option<Arc<dyn SinkFactory>>,
}

impl std::fmt::Debug for RunOptions {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunOptions")
            .field("analysis", &self.analysis)
            .field("detect", &self.detect)
            .field("sinks", &self.sinks.is_some())
            .finish()
    }
}

/// An analysis and what the detectors found in it.
#[derive(Debug)]
pub struct Report {
    /// What was read and correlated.
    pub analysis: Analysis,
    /// The findings, known bugs attached.
    pub findings: Vec<Finding>,
}

/// Why a run gave no report.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The analysis could not run.
    #[error(transparent)]
    Analyze(#[from] AnalyzeError),
    /// The shipped known-bug catalog does not parse.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

/// Analyzes `inputs` (folders, files, archives: one analysis) and runs the detectors.
pub fn analyze_inputs(inputs: &[PathBuf], options: &RunOptions) -> Result<Report, RunError> {
    let catalog = Catalog::shipped()?;
    let analysis = analyze_with(inputs, &options.analysis, options.sinks.as_deref())?;
    let mut findings = detect(&analysis, &options.detect);
    attach_known_bugs(&mut findings, &catalog, &analysis);
    Ok(Report { analysis, findings })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Mutex;

    use evacdoc_parsers::Record;

    use super::*;
    use crate::correlate::analysis::FileInfo;
    use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan};

    /// Counts the records of each file, each file's count handed back when it ends: how
    /// the search indexer and the watcher plug in, without the reader knowing them.
    #[derive(Debug, Default)]
    struct CountPerFile(Arc<Mutex<BTreeMap<String, u64>>>);

    struct Count {
        records: u64,
        into: Arc<Mutex<BTreeMap<String, u64>>>,
    }

    impl RecordSink for Count {
        fn record(&mut self, _: &FileCtx<'_>, _: &Record<'_>, _: RecordSpan) {
            self.records += 1;
        }

        fn finish_file(&mut self, file: &FileCtx<'_>, _: &FileInfo) {
            if let Ok(mut counts) = self.into.lock() {
                counts.insert(file.path.to_string(), self.records);
            }
        }
    }

    impl SinkFactory for CountPerFile {
        fn sink(&self, _: &FileCtx<'_>) -> Box<dyn RecordSink + Send> {
            Box::new(Count {
                records: 0,
                into: self.0.clone(),
            })
        }
    }

    #[test]
    fn an_extra_sink_counts_every_record_of_every_file_in_the_same_pass() {
        let scenario =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("samples/scenarios/2020-juju-evacuate-race");
        let inputs = [scenario];
        let counts = Arc::new(Mutex::new(BTreeMap::new()));
        let options = RunOptions {
            sinks: Some(Arc::new(CountPerFile(counts.clone()))),
            ..RunOptions::default()
        };
        let report = analyze_inputs(&inputs, &options).unwrap();
        let plain = analyze_inputs(&inputs, &RunOptions::default()).unwrap();

        let counts = counts.lock().unwrap().clone();
        let expected: BTreeMap<String, u64> = report
            .analysis
            .files
            .iter()
            .map(|f| (f.path.clone(), f.records))
            .collect();
        assert!(expected.len() > 3, "{expected:?}");
        assert!(expected.values().sum::<u64>() > 100);
        assert_eq!(counts, expected);
        // The extra sink changes nothing of the analysis.
        let ids = |r: &Report| -> Vec<String> { r.findings.iter().map(|f| f.id.clone()).collect() };
        assert!(!ids(&report).is_empty());
        assert_eq!(ids(&report), ids(&plain));
        assert_eq!(report.analysis.events.len(), plain.analysis.events.len());
        assert!(report.findings.iter().any(|f| !f.known_bugs.is_empty()));
    }
}
