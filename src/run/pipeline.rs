//! The analysis pipeline: discover the inputs, read every file in parallel, then join
//! everything into one [`Analysis`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use crate::correlate::analysis::{Analysis, Skipped, Stats};
use crate::correlate::assemble::{correct_skew, drop_copies, missing_rotations, sort_events};
use crate::correlate::extract::Watched;
use crate::correlate::index::Indexes;
use crate::correlate::joins::join_calls;
use crate::correlate::keeper::{EventKeeper, FileOutcome};
use crate::correlate::skew::estimate;
use crate::correlate::watched::watched_instances;
use crate::correlate::zones::{utc_events, vote_from_progress};
use crate::ingest::IngestError;
use crate::ingest::discover::discover;
use crate::ingest::layout::{host_roots, overall_layout, root_of};
use crate::ingest::place::{NO_HOST, hosts_of, place_files};
use crate::ingest::read_log::{is_masakari, progress_bar, read_cost, read_logs};
use crate::ingest::role::Role;
use crate::ingest::sink::SinkFactory;
use crate::ingest::small_files::{read_captures, read_config, read_packages, read_zone};
use crate::ingest::timezone::{HostZone, OffsetVotes, UnknownZone, ZoneSource, zone_name_of_link};
use crate::model::Event;

/// How to run an analysis.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// A time zone for every host, overriding what the bundle says (`--tz`).
    pub tz: Option<String>,
    /// Show a progress bar on a terminal.
    pub progress: bool,
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
}

/// Runs the whole analysis of `inputs`.
pub fn analyze(inputs: &[PathBuf], options: &Options) -> Result<Analysis, AnalyzeError> {
    analyze_with(inputs, options, None)
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
    let work = tempfile::Builder::new()
        .prefix("evacdoc-")
        .tempdir()
        .map_err(AnalyzeError::WorkFolder)?;
    let found = discover(inputs, work.path())?;
    let abs: HashMap<&str, &Path> = found
        .files
        .iter()
        .map(|f| (f.rel.as_str(), f.abs.as_path()))
        .collect();
    let roots = host_roots(&found, |rel| abs.get(rel).map(|p| p.to_path_buf()));
    let (mut hosts, root_host) = hosts_of(&roots);
    let placed = place_files(&found, &roots, &root_host, &mut hosts);

    let mut skipped: Vec<Skipped> = found
        .skipped
        .iter()
        .map(|(path, reason)| Skipped {
            path: path.clone(),
            reason: reason.clone(),
        })
        .collect();
    let mut config = Vec::new();
    let mut captures = Vec::new();
    let mut packages = Vec::new();
    let mut bundle_zones: BTreeMap<u32, HostZone> = BTreeMap::new();
    let mut logs = Vec::new();
    for p in placed {
        match &p.role {
            Role::Log(_) => logs.push(p),
            Role::Config(service) => read_config(&p, service, &mut config, &mut skipped),
            Role::MaybeCapture => read_captures(&p, &mut captures),
            Role::Clock if p.host != NO_HOST => {
                if let Some(zone) = read_zone(&p) {
                    bundle_zones.entry(p.host).or_insert(zone);
                }
            }
            Role::Packages if p.host != NO_HOST => read_packages(&p, &mut packages),
            // An input file given on its own that evacdoc cannot read is said so.
            Role::Ignored(reason) if p.file.given => skipped.push(Skipped {
                path: p.file.rel.clone(),
                reason: reason.to_string(),
            }),
            Role::Clock | Role::Hostname | Role::Packages | Role::Ignored(_) => {}
        }
    }
    for link in &found.links {
        let Some(root) = root_of(&roots, &link.rel) else {
            continue;
        };
        if link.rel[roots[root].prefix.len()..] == *"etc/localtime"
            && let Some(zone) = zone_name_of_link(&link.target)
                .and_then(|name| HostZone::named(&name, ZoneSource::Bundle(link.rel.clone())).ok())
        {
            bundle_zones.entry(root_host[root]).or_insert(zone);
        }
    }

    // Masakari's logs first (small): the instances they name decide which of Nova's
    // server requests matter when the (much larger) rest is read.
    // Within each group, the largest first, so that two threads finish together.
    logs.sort_by_key(|p| (!is_masakari(p), std::cmp::Reverse(read_cost(p))));
    let split = logs.partition_point(is_masakari);
    let progress = progress_bar(options.progress, logs.iter().map(|p| p.file.size).sum());
    let read = |range: std::ops::Range<usize>, watch: &Watched| -> Vec<FileOutcome> {
        read_logs(
            &logs[range.clone()],
            range.start as u32,
            |ctx| (EventKeeper::new(watch), extra.map(|f| f.sink(ctx))),
            &progress,
        )
        .into_iter()
        .map(|(read, (keeper, _))| keeper.into_outcome(read.info, read.skipped))
        .collect()
    };
    let mut outcomes = read(0..split, &None);
    let watch = watched_instances(&outcomes, &captures);
    outcomes.extend(read(split..logs.len(), &watch));
    progress.finish_and_clear();

    // Time zones: --tz, then the bundle, then the host's own lines, then UTC.
    let mut votes: BTreeMap<u32, OffsetVotes> = BTreeMap::new();
    for outcome in &outcomes {
        votes
            .entry(outcome.info.host)
            .or_default()
            .merge(&outcome.votes);
    }
    vote_from_progress(&captures, &outcomes, &mut votes);
    let zones: Vec<HostZone> = (0..hosts.len() as u32)
        .map(|h| {
            if let Some(zone) = &tz_override {
                return zone.clone();
            }
            if let Some(zone) = bundle_zones.get(&h) {
                return zone.clone();
            }
            match votes.get(&h).and_then(OffsetVotes::winner) {
                Some((offset, how)) => {
                    HostZone::fixed(offset, ZoneSource::Inferred(how.to_string()))
                }
                None => HostZone::utc_default(),
            }
        })
        .collect();
    for (host, zone) in hosts.iter_mut().zip(&zones) {
        host.zone = zone.name.clone();
        host.zone_source = zone.source.clone();
    }

    let mut files = Vec::with_capacity(outcomes.len());
    // Sized once: the events are the largest thing an analysis holds.
    let mut events = Vec::with_capacity(outcomes.iter().map(|o| o.events.len()).sum());
    let mut stats = Stats::default();
    for outcome in outcomes {
        stats.files += 1;
        stats.bytes += outcome.info.bytes;
        stats.records += outcome.info.records;
        stats.unparsed += outcome.info.unparsed;
        if let Some(reason) = outcome.skipped {
            skipped.push(Skipped {
                path: outcome.info.path.clone(),
                reason,
            });
        }
        let zone = &zones[outcome.info.host as usize];
        events.extend(utc_events(outcome.events, zone));
        files.push(outcome.info);
    }
    let missing = missing_rotations(&files, overall_layout(&roots));

    sort_events(&mut events);
    let project_of = |e: &Event| {
        files
            .get(e.file as usize)
            .map(|f| f.service.project())
            .unwrap_or(crate::model::Project::Other)
    };
    drop_copies(&mut events);
    let skew = estimate(&events, project_of);
    if skew.iter().any(|s| s.applied) {
        correct_skew(&mut events, &skew);
        sort_events(&mut events);
    }
    let joins = join_calls(&events, project_of);
    let index = Indexes::build(&events, &crate::correlate::index::host_names(&hosts));
    stats.events = events.len() as u64;
    stats.elapsed_ms = started.elapsed().as_millis() as u64;
    drop(work);
    Ok(Analysis {
        inputs: found.inputs,
        layout: overall_layout(&roots),
        hosts,
        files,
        skipped,
        missing,
        config,
        captures,
        packages,
        events,
        index,
        joins,
        skew,
        recoveries: Vec::new(),
        stats,
    }
    .with_recoveries())
}
