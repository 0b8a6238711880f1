//! The watcher: scans its inputs now and then, looks at every followed log each poll,
//! and when new events came in, analyzes the held ones and hands out the findings that
//! are complete and new.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use crate::detect::Finding;
use crate::ingest::IngestError;
use crate::ingest::live::{LiveScan, scan};
use crate::ingest::timezone::{HostZone, UnknownZone};
use crate::model::inventory::ZoneSource;
use crate::triage::Catalog;
use crate::triage::catalog::CatalogError;
use crate::watch::WatchOptions;
use crate::watch::files::Registry;
use crate::watch::ready::{Emitted, complete};
use crate::watch::snapshot::{Context, analyze};
use crate::watch::tailed::TailedLog;
use crate::watch::window::EventWindow;

/// How many finding ids are remembered (each one is handed out once).
const EMITTED_IDS: usize = 100_000;

/// New events of other services than Masakari wait at most this long for an analysis:
/// a recovery's evidence completes with a Masakari line (its end), so those are
/// analyzed at once, and a flood of Nova lines costs one analysis a second, not one
/// per look.
const SETTLE: Duration = Duration::from_secs(1);

/// Why the watcher cannot start.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WatchError {
    /// An input cannot be read.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// `--tz` named no known zone.
    #[error("--tz: {0}")]
    Zone(#[from] UnknownZone),
    /// The shipped known-bug catalog does not parse.
    #[error(transparent)]
    Catalog(#[from] CatalogError),
}

/// Counters of a watcher, for its caller's logs and benchmarks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WatchStats {
    /// Bytes read from the followed logs.
    pub bytes: u64,
    /// Records read.
    pub records: u64,
    /// Logs followed now.
    pub logs: usize,
    /// Events held now.
    pub held_events: usize,
    /// Analyses of the held events made.
    pub snapshots: u64,
    /// Findings handed out.
    pub findings: u64,
}

/// Follows live logs and hands out findings as they complete.
#[derive(Debug)]
pub struct Watcher {
    inputs: Vec<PathBuf>,
    options: WatchOptions,
    tz_override: Option<HostZone>,
    catalog: Catalog,
    files: Registry,
    logs: Vec<TailedLog>,
    context: Context,
    /// The small files' sizes and times at the last scan.
    fingerprint: Vec<(String, u64, Option<std::time::SystemTime>)>,
    window: EventWindow,
    emitted: Emitted,
    last_scan: Option<Instant>,
    /// Something changed since the last analysis that needs one now (configs, Masakari
    /// events).
    dirty: bool,
    /// Events came in since the last analysis.
    unanalyzed: bool,
    last_analysis: Instant,
    stats: WatchStats,
}

impl Watcher {
    /// A watcher of `inputs` (folders or log files). The inputs are scanned at once: the
    /// files there now are read from their end unless `options.from_start`.
    pub fn new(inputs: &[PathBuf], options: WatchOptions) -> Result<Watcher, WatchError> {
        let tz_override = options
            .tz
            .as_deref()
            .map(|name| HostZone::named(name, ZoneSource::Override))
            .transpose()?;
        let mut watcher = Watcher {
            inputs: inputs.to_vec(),
            options,
            tz_override,
            catalog: Catalog::shipped()?,
            files: Registry::default(),
            logs: Vec::new(),
            context: Context::default(),
            fingerprint: Vec::new(),
            window: EventWindow::default(),
            emitted: Emitted::new(EMITTED_IDS),
            last_scan: None,
            dirty: false,
            unanalyzed: false,
            last_analysis: Instant::now(),
            stats: WatchStats::default(),
        };
        let first = scan(&watcher.inputs)?;
        watcher.apply_scan(first, !watcher.options.from_start);
        Ok(watcher)
    }

    /// The counters so far.
    pub fn stats(&self) -> WatchStats {
        WatchStats {
            logs: self.logs.len(),
            held_events: self.window.len(),
            ..self.stats.clone()
        }
    }

    /// Nova's `[DEFAULT] service_down_time` the watched configs set at the last scan
    /// (the last nova file read that sets it), with its file.
    pub fn service_down_time(&self) -> Option<(Duration, String)> {
        crate::model::inventory::nova_service_down_time(&self.context.config)
    }

    /// The poll interval.
    pub fn poll_interval(&self) -> Duration {
        self.options.poll
    }

    /// One look at everything: new files (when a rescan is due), new lines, and the
    /// findings that became complete since the last call, each handed out once.
    pub fn poll(&mut self) -> Vec<Finding> {
        if self
            .last_scan
            .is_none_or(|at| at.elapsed() >= self.options.rescan)
        {
            match scan(&self.inputs) {
                Ok(found) => self.apply_scan(found, false),
                Err(error) => tracing::warn!(%error, "watch: rescan failed"),
            }
        }
        let mut new = Vec::new();
        let max_read = self.options.max_read;
        for log in &mut self.logs {
            match log.look(max_read, &mut self.files, &mut new) {
                Ok(look) => {
                    self.stats.bytes += look.bytes;
                    self.stats.records += look.records;
                    // A fencing result is no event, but it changes what the held
                    // recoveries say (evacuated-unfenced).
                    self.unanalyzed |= look.fencing > 0;
                }
                Err(error) => {
                    tracing::warn!(path = %log.log.rel, %error, "watch: cannot read");
                }
            }
        }
        if !new.is_empty() {
            let masakari = new.iter().any(|raw| {
                self.files
                    .files
                    .get(raw.event.file as usize)
                    .is_some_and(|f| f.info.service.project() == crate::model::Project::Masakari)
            });
            self.dirty |= masakari;
            self.unanalyzed = true;
            self.window.extend(new);
        }
        let settled = self.unanalyzed && self.last_analysis.elapsed() >= SETTLE;
        if !(self.dirty || settled) {
            return Vec::new();
        }
        self.dirty = false;
        self.unanalyzed = false;
        self.last_analysis = Instant::now();
        self.findings()
    }

    /// Analyzes the held events, drops what no longer needs holding, and returns the
    /// complete findings not handed out before.
    fn findings(&mut self) -> Vec<Finding> {
        let held = self.window.len();
        let snapshot = analyze(
            self.window.copy(),
            &self.files,
            &self.context,
            self.tz_override.as_ref(),
            &self.options.detect,
            &self.catalog,
        );
        self.stats.snapshots += 1;
        let mut out = Vec::new();
        for finding in &snapshot.findings {
            if complete(finding, &snapshot) && self.emitted.first_time(&finding.id) {
                out.push(finding.clone());
            }
        }
        self.stats.findings += out.len() as u64;
        let ns = |d: Duration| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX);
        let keep = snapshot.kept_events(ns(self.options.window), ns(self.options.grace));
        self.window
            .retain(&keep, held, self.options.max_events, &mut self.files);
        tracing::debug!(
            held_before = held,
            held = self.window.len(),
            events = snapshot.analysis.events.len(),
            recoveries = snapshot.analysis.recoveries.len(),
            findings = snapshot.findings.len(),
            new = out.len(),
            rss_mb = crate::memory::rss_mb(),
            "watch: analyzed the window"
        );
        out
    }

    /// Takes in a scan: hosts, configs, and logs not followed yet (read from their end
    /// when `from_end`, from their start otherwise).
    fn apply_scan(&mut self, found: LiveScan, from_end: bool) {
        self.last_scan = Some(Instant::now());
        let host_of: Vec<u32> = found.hosts.iter().map(|h| self.files.host_id(h)).collect();
        let followed: HashMap<PathBuf, usize> = self
            .logs
            .iter()
            .enumerate()
            .map(|(i, l)| (l.log.abs.clone(), i))
            .collect();
        for log in &found.logs {
            if followed.contains_key(&log.abs) {
                continue;
            }
            let Some(&host) = host_of.get(log.host as usize) else {
                continue;
            };
            tracing::debug!(path = %log.rel, service = %log.service, "watch: following");
            self.logs
                .push(TailedLog::new(log.clone(), host, from_end, &mut self.files));
        }
        if found.fingerprint != self.fingerprint {
            self.fingerprint = found.fingerprint.clone();
            let inputs = self
                .inputs
                .iter()
                .map(|p| crate::ingest::input_name(p))
                .collect();
            self.context = Context::of(found, inputs, &host_of);
            self.dirty = true;
        }
    }
}
