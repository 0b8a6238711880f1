//! The analysis pipeline: discover and place the inputs, read the small files, push
//! every log's records into sinks in parallel, decide the zones, assemble one
//! [`Analysis`].

use std::path::PathBuf;
use std::time::Instant;

use super::nothing_read::{FoundTally, NothingRead};
use crate::correlate::analysis::Analysis;
use crate::correlate::extract::Watched;
use crate::correlate::keeper::{EventKeeper, FileOutcome, KeptEvents};
use crate::correlate::watched::watched_instances;
use crate::correlate::{Inventory, correlate};
use crate::ingest::discover::{Found, discover_within};
use crate::ingest::host_names::HostNames;
use crate::ingest::layout::overall_layout;
use crate::ingest::place::{Placed, Placement, place_all};
use crate::ingest::read_log::{is_masakari, progress_bar, read_cost, read_logs};
use crate::ingest::sink::SinkFactory;
use crate::ingest::small_files::{read_small_files, zones_of_links};
use crate::ingest::split_sources::{may_mix, split_mixed, with_parts};
use crate::ingest::timezone::{HostZone, UnknownZone};
use crate::ingest::{IngestError, IngestLimits, Named};
use crate::memory::peak_rss_mb;
use crate::model::identified::Seeds;
use crate::model::inventory::Skipped;
use crate::model::inventory::ZoneSource;
use crate::redact::identify::IdentifySink;
use crate::redact::small_files::identify_small_files;

/// How to run an analysis.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A time zone for every host, overriding what the bundle says (`--tz`).
    pub tz: Option<String>,
    /// Show a progress bar on a terminal.
    pub progress: bool,
    /// Where to count the bytes of logs read (its length set to the total before reading
    /// starts), for a caller that shows progress elsewhere (the service's job status);
    /// used instead of the terminal bar when given.
    pub progress_bar: Option<indicatif::ProgressBar>,
    /// Bounds on unpacking and reading (decompression bombs, nesting, entry counts).
    pub limits: IngestLimits,
    /// Where archives are unpacked: a fresh folder inside it, removed when the
    /// analysis ends. The system's temporary folder when `None` (the CLI); the
    /// service gives its data folder's `tmp/`, so that nothing is written outside it.
    pub work_dir: Option<PathBuf>,
    /// The names messages give the inputs, one per input in order (the service's: the
    /// upload's file name, not where it keeps the upload); an input without one is
    /// named by its path.
    pub input_names: Vec<PathBuf>,
    /// Leave out the first pass of redaction (the identifiers shares and redacted copies
    /// replace, `Analysis::identified`): for commands that never redact (`analyze`),
    /// which then read several times faster.
    pub skip_identification: bool,
}

/// Why an analysis could not run at all (problems with single files are reported in the
/// analysis instead).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AnalyzeError {
    /// An input could not be read.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// `--tz` named no known zone.
    #[error("--tz: {0}")]
    Zone(#[from] UnknownZone),
    /// The work folder could not be created.
    #[error("cannot create a work folder: {0}")]
    WorkFolder(std::io::Error),
    /// No log line, config or capture could be read from the inputs.
    #[error("{0}")]
    NothingRead(Box<NothingRead>),
}

/// A fresh folder (removed when dropped) inside `within`, or in the system's temporary
/// folder when `None`: where archives are unpacked.
pub fn scratch_folder(within: Option<&std::path::Path>) -> std::io::Result<tempfile::TempDir> {
    let mut work = tempfile::Builder::new();
    work.prefix("evacdoc-");
    match within {
        Some(dir) => std::fs::create_dir_all(dir).and_then(|()| work.tempdir_in(dir)),
        None => work.tempdir(),
    }
}

/// Runs the whole analysis of `inputs`.
pub fn analyze(inputs: &[PathBuf], options: &Options) -> Result<Analysis, AnalyzeError> {
    analyze_with(inputs, options, None)
}

/// Milliseconds since `since`.
fn ms(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}

/// Runs the whole analysis of `inputs`, feeding every record of every log also to the
/// sinks `extra` makes (one per file, in the same pass as the event keeper).
pub fn analyze_with(
    inputs: &[PathBuf],
    options: &Options,
    extra: Option<&dyn SinkFactory>,
) -> Result<Analysis, AnalyzeError> {
    let started = Instant::now();
    let tz_override = options
        .tz
        .as_deref()
        .map(|name| HostZone::named(name, ZoneSource::Override))
        .transpose()?;
    let work = scratch_folder(options.work_dir.as_deref()).map_err(AnalyzeError::WorkFolder)?;
    let work_path = work.path().to_path_buf();
    // A sink that reads the unpacked files again after the pass (the search index)
    // keeps the folder; otherwise it goes when the analysis ends.
    let _work = match extra {
        Some(sinks) => sinks.keep_unpacked(work),
        None => Some(work),
    };

    let stage = Instant::now();
    let named = Named::inputs(inputs, &options.input_names);
    let found = discover_within(&named, &work_path, &options.limits)?;
    analyze_found(&found, (started, stage), tz_override, options, extra)
}

/// Analyses what [`discover_within`] found (its unpacked files still in place): for a
/// caller that reads the same files again (a redacted copy), so the inputs are unpacked
/// once.
pub fn analyze_discovered(found: &Found, options: &Options) -> Result<Analysis, AnalyzeError> {
    let tz_override = options
        .tz
        .as_deref()
        .map(|name| HostZone::named(name, ZoneSource::Override))
        .transpose()?;
    let now = Instant::now();
    analyze_found(found, (now, now), tz_override, options, None)
}

/// `(started, stage)`: when the analysis and its discovering stage began (the stats' times).
fn analyze_found(
    found: &Found,
    (started, stage): (Instant, Instant),
    tz_override: Option<HostZone>,
    options: &Options,
    extra: Option<&dyn SinkFactory>,
) -> Result<Analysis, AnalyzeError> {
    let Placement {
        roots,
        root_host,
        mut hosts,
        placed,
    } = place_all(found);
    let tally = FoundTally::of(&placed);
    let discover_ms = ms(stage);
    tracing::info!(
        files = found.files.len(),
        links = found.links.len(),
        skipped = found.skipped.len(),
        hosts = hosts.len(),
        ms = discover_ms,
        "discovered inputs"
    );

    let stage = Instant::now();
    let mut skipped: Vec<Skipped> = found
        .skipped
        .iter()
        .map(|(path, reason)| Skipped {
            path: path.clone(),
            reason: reason.clone(),
        })
        .collect();
    let identified = std::sync::Mutex::new(if options.skip_identification {
        Seeds::default()
    } else {
        identify_small_files(&placed)
    });
    let (mut small, logs) = read_small_files(placed, &mut skipped);
    zones_of_links(found, &roots, &root_host, &mut small.zones);
    // Logs that interleave several services' lines (a whole journal, a syslog,
    // `kubectl logs --all-containers --prefix`): a part per service, read as its log.
    let split_work = match logs.iter().any(|p| may_mix(&p.role)) {
        true => {
            Some(scratch_folder(options.work_dir.as_deref()).map_err(AnalyzeError::WorkFolder)?)
        }
        false => None,
    };
    let splits = match &split_work {
        Some(work) => split_mixed(&logs, work.path(), &options.limits),
        None => Vec::new(),
    };
    let logs = with_parts(logs, &splits, &mut hosts);
    let small_files_ms = ms(stage);
    tracing::debug!(
        config = small.config.len(),
        captures = small.captures.len(),
        packages = small.packages.len(),
        zones = small.zones.len(),
        skipped = skipped.len(),
        ms = small_files_ms,
        "read small files"
    );

    let stage = Instant::now();
    let pool = KeptEvents::default();
    let outcomes = read_all_logs(logs, &small.captures, options, extra, &pool, &identified);
    let kept_events = pool.into_events();
    let read_ms = ms(stage);
    rename_hosts(&mut hosts, &outcomes, &small.config);

    let inventory = Inventory {
        inputs: found
            .inputs
            .iter()
            .map(|i| crate::ingest::input_name(std::path::Path::new(i)))
            .collect(),
        layout: overall_layout(&roots),
        hosts,
        skipped,
        config: small.config,
        captures: small.captures,
        packages: small.packages,
        clocks: small.clocks,
        zones: small.zones,
    };
    let mut analysis = correlate(inventory, outcomes, kept_events, tz_override.as_ref());
    // The first pass of redaction: what was identified in every file and record read.
    analysis.identified = identified
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(nothing) = NothingRead::check(
        found,
        &tally,
        &analysis.files,
        &analysis.config,
        &analysis.captures,
        &analysis.skipped,
    ) {
        return Err(AnalyzeError::NothingRead(Box::new(nothing)));
    }
    let stages = &mut analysis.stats.stages;
    (stages.discover_ms, stages.small_files_ms, stages.read_ms) =
        (discover_ms, small_files_ms, read_ms);
    let stats = &analysis.stats;
    tracing::info!(
        events = stats.events,
        // Copies of one record, and lines without a time before them.
        dropped = stats.kept.saturating_sub(stats.events),
        skew_applied = analysis.skew.iter().filter(|s| s.applied).count(),
        joins = analysis.joins.len(),
        ms = stats.stages.assemble_ms,
        peak_rss_mb = peak_rss_mb(),
        "assembled events"
    );
    analysis.stats.elapsed_ms = ms(started);
    let stats = &analysis.stats;
    tracing::info!(
        files = stats.files,
        bytes = stats.bytes,
        records = stats.records,
        events = stats.events,
        skipped = analysis.skipped.len(),
        ms = stats.elapsed_ms,
        peak_rss_mb = peak_rss_mb(),
        "analysis done"
    );
    Ok(analysis)
}

/// Reads every log into its event keeper (and the extra sinks), Masakari's first: the
/// instances they name decide which of Nova's server requests matter when the (much
/// larger) rest is read. Within each group the largest go first, so that the threads
/// finish together. File ids follow the order of reading. The events go to `pool`.
fn read_all_logs(
    mut logs: Vec<Placed<'_>>,
    captures: &[crate::model::inventory::CaptureFile],
    options: &Options,
    extra: Option<&dyn SinkFactory>,
    pool: &KeptEvents,
    identified: &std::sync::Mutex<Seeds>,
) -> Vec<FileOutcome> {
    logs.sort_by_key(|p| (!is_masakari(p), std::cmp::Reverse(read_cost(p))));
    let split = logs.partition_point(is_masakari);
    let total = logs.iter().map(|p| p.file.size).sum();
    let progress = match &options.progress_bar {
        Some(bar) => {
            bar.set_length(total);
            bar.clone()
        }
        None => progress_bar(options.progress, total),
    };
    let read = |range: std::ops::Range<usize>, watch: &Watched| -> Vec<FileOutcome> {
        let stage = Instant::now();
        let outcomes: Vec<FileOutcome> = read_logs(
            &logs[range.clone()],
            range.start as u32,
            |ctx| {
                (
                    EventKeeper::pooled(watch, pool),
                    (
                        (!options.skip_identification).then(IdentifySink::default),
                        extra.map(|f| f.sink(ctx)),
                    ),
                )
            },
            &progress,
            &options.limits,
        )
        .into_iter()
        .map(|(read, (keeper, (identify, _)))| {
            if let Some(identify) = identify {
                identified
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .merge(identify.into_seeds());
            }
            keeper.into_outcome(read.info, read.skipped)
        })
        .collect();
        for o in &outcomes {
            tracing::debug!(
                path = %o.info.path,
                service = %o.info.service.name(),
                format = %o.info.format,
                bytes = o.info.bytes,
                records = o.info.records,
                kept = o.kept,
                "read log"
            );
        }
        tracing::info!(
            files = outcomes.len(),
            bytes = outcomes.iter().map(|o| o.info.bytes).sum::<u64>(),
            records = outcomes.iter().map(|o| o.info.records).sum::<u64>(),
            kept = outcomes.iter().map(|o| o.kept).sum::<u64>(),
            watched = watch.as_ref().map(|w| w.len()),
            ms = ms(stage),
            peak_rss_mb = peak_rss_mb(),
            "read logs"
        );
        outcomes
    };
    let mut outcomes = read(0..split, &None);
    let watch = pool.snapshot(|masakari| watched_instances(masakari, captures));
    outcomes.extend(read(split..logs.len(), &watch));
    progress.finish_and_clear();
    outcomes
}

/// Hosts still named by machine id take the name their lines and configs give.
fn rename_hosts(
    hosts: &mut [crate::model::inventory::Host],
    outcomes: &[FileOutcome],
    config: &[crate::model::inventory::ConfigValue],
) {
    let names = HostNames::gather(
        outcomes.iter().map(|o| (o.info.host, &o.names)),
        config
            .iter()
            .map(|c| (c.host, &*c.service, &*c.section, &*c.option, &*c.value)),
    );
    for host in hosts {
        names.rename(host.id, &mut host.hostname, &mut host.hostname_source);
    }
}
