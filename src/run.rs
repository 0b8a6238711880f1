//! The library entry point: inputs and options in, the analysis and its findings (with
//! known bugs attached) out. The CLI, the service and the watcher all run through here.
//!
//! The inputs are read once by [`crate::ingest`], every record pushed into sinks
//! ([`crate::ingest::sink`]), the kept events assembled by [`crate::correlate`], and
//! [`crate::detect`] and [`crate::triage`] run over the result.

mod nothing_read;
mod pipeline;

use std::path::PathBuf;
use std::sync::Arc;

pub use nothing_read::{FoundTally, NothingRead, thousands};
pub use pipeline::{
    AnalyzeError, Options, analyze, analyze_discovered, analyze_with, scratch_folder,
};

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
    let findings = findings_with_bugs(&analysis, &options.detect, &catalog);
    tracing::info!(
        findings = findings.len(),
        recoveries = analysis.recoveries.len(),
        peak_rss_mb = crate::memory::peak_rss_mb(),
        "detected"
    );
    Ok(Report { analysis, findings })
}

/// The detectors over `analysis`, known bugs attached: what a fresh analysis gets, and
/// what a stored analysis document gets when it is loaded again.
pub fn findings_with_bugs(
    analysis: &Analysis,
    options: &DetectOptions,
    catalog: &Catalog,
) -> Vec<Finding> {
    let mut findings = detect(analysis, options);
    attach_known_bugs(&mut findings, catalog, analysis);
    findings
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::path::Path;
    use std::sync::Mutex;

    use evacdoc_parsers::Record;

    use super::*;
    use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan};
    use crate::model::inventory::FileInfo;

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
        // The stage counters add up to what the files say.
        let stats = &report.analysis.stats;
        assert_eq!(stats.files, expected.len() as u64);
        assert_eq!(stats.records, expected.values().sum::<u64>());
        assert_eq!(stats.events, report.analysis.events.len() as u64);
        assert!(stats.kept >= stats.events && stats.events > 0, "{stats:?}");
        assert!(stats.elapsed_ms >= stats.stages.read_ms);
        // The extra sink changes nothing of the analysis.
        let ids =
            |r: &Report| -> Vec<String> { r.findings.iter().map(|f| f.id.to_string()).collect() };
        assert!(!ids(&report).is_empty());
        assert_eq!(ids(&report), ids(&plain));
        assert_eq!(report.analysis.events.len(), plain.analysis.events.len());
        assert!(report.findings.iter().any(|f| !f.known_bugs.is_empty()));
    }

    fn gzip(bytes: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(bytes).unwrap();
        encoder.finish().unwrap()
    }

    #[test]
    fn small_files_that_cannot_be_read_are_reported_with_the_reason() {
        let dir = tempfile::tempdir().unwrap();
        let host = dir.path().join("ctl1");
        let write = |rel: &str, bytes: &[u8]| {
            let path = host.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, bytes).unwrap();
        };
        write("etc/hostname", b"ctl1\n");
        write(
            "var/log/masakari/masakari-engine.log",
            b"2024-10-08 06:25:03.311 1187 INFO masakari.engine.manager [-] Starting masakari-engine (version 17.0.0)\n",
        );
        // A clock file cut short in the middle of its gzip stream.
        let zone = gzip(b"Europe/Berlin\n");
        write("etc/timezone", &zone[..zone.len() / 2]);
        // A package list that is xz by its magic bytes and garbage after them.
        write(
            "installed-debs",
            b"\xfd7zXZ\x00\x00\x04\xe6\xd6\xb4\x46garbage that is not an xz stream",
        );
        // A capture that decompresses to more than a capture may hold (17 gzip members
        // of 1 MiB each).
        write(
            "notification-show.txt",
            &gzip(&vec![b'x'; 1 << 20]).repeat(17),
        );
        // And a sound capture beside them, which is read.
        write(
            "server-show.json",
            br#"{"id": "8f0d3c52-1a7e-4b39-9c61-2e5b7a4d9f10", "status": "ACTIVE", "OS-EXT-SRV-ATTR:host": "cmp1"}"#,
        );

        let analysis = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
        let reason = |path: &str| -> String {
            let found: Vec<&str> = analysis
                .skipped
                .iter()
                .filter(|s| s.path == path)
                .map(|s| s.reason.as_str())
                .collect();
            assert_eq!(found.len(), 1, "{path}: {:?}", analysis.skipped);
            found[0].to_string()
        };
        let timezone = reason("ctl1/etc/timezone");
        assert!(timezone.contains("truncated"), "{timezone}");
        let debs = reason("ctl1/installed-debs");
        assert!(debs.starts_with("read up to damage: "), "{debs}");
        assert!(debs.contains("installed-debs: truncated"), "{debs}");
        let capture = reason("ctl1/notification-show.txt");
        assert!(capture.contains("limit"), "{capture}");
        assert!(
            !analysis
                .skipped
                .iter()
                .any(|s| s.path.contains("server-show")
                    || s.path.contains("masakari-engine")
                    || s.path.contains("hostname")),
            "{:?}",
            analysis.skipped
        );
        // The unreadable clock file gave no zone: the host falls back to UTC.
        assert_eq!(analysis.hosts.len(), 1);
        assert_eq!(analysis.hosts[0].zone, "UTC");
        assert_eq!(analysis.files.len(), 1);
    }
}
