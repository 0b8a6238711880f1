//! The analysis pipeline: discover the inputs, read every file in parallel, then join
//! everything into one [`Analysis`].

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::time::Instant;

use evacdoc_parsers::ini::parse_ini;
use evacdoc_parsers::sniff::{FileKind, sniff};
use evacdoc_parsers::utf8::decode;
use evacdoc_parsers::{Format, Records};
use rayon::prelude::*;

use crate::correlate::analysis::{
    Analysis, CaptureFile, ConfigValue, FileInfo, Host, InstalledPackage, Missing, Skipped, Stats,
};
use crate::correlate::extract::{RawEvent, Watched, event_of, keep, vote_offsets};
use crate::correlate::ids::short_host;
use crate::correlate::index::Indexes;
use crate::correlate::joins::join_calls;
use crate::correlate::skew::estimate;
use crate::ingest::IngestError;
use crate::ingest::chunks::LineChunks;
use crate::ingest::decompress::read_decompressed;
use crate::ingest::discover::{Found, FoundFile, discover};
use crate::ingest::layout::{HostRoot, Layout, host_roots, overall_layout, root_of};
use crate::ingest::role::{Role, role_of, rotation};
use crate::ingest::timezone::{
    HostZone, OffsetVotes, UnknownZone, ZoneSource, zone_name_in, zone_name_of_link,
};
use crate::model::{Event, Service};

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

/// The most a single log file may decompress to.
const MAX_FILE_BYTES: u64 = 8 << 30;
/// The most a capture or clock file may hold.
const MAX_SMALL_FILE: u64 = 16 << 20;

/// The host of files that belong to none (loose captures and notes).
const NO_HOST: u32 = u32::MAX;

/// A file with its host and role decided.
struct Placed<'f> {
    file: &'f FoundFile,
    host: u32,
    /// Path inside the host folder.
    inner: String,
    role: Role,
    incomplete: Option<String>,
}

/// What reading one log file gave.
struct FileOutcome {
    info: FileInfo,
    events: Vec<RawEvent>,
    votes: OffsetVotes,
    skipped: Option<String>,
}

/// Runs the whole analysis of `inputs`.
pub fn analyze(inputs: &[PathBuf], options: &Options) -> Result<Analysis, AnalyzeError> {
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
        logs[range.clone()]
            .par_iter()
            .zip(range)
            .map(|(p, id)| {
                let outcome = read_log(p, id as u32, watch);
                progress.inc(p.file.size);
                outcome
            })
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
    let mut events = Vec::new();
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
    let host_names: Vec<Vec<String>> = hosts
        .iter()
        .map(|h| {
            let mut names = vec![short_host(&h.hostname)];
            names.extend(h.aliases.iter().map(|a| short_host(a)));
            names.dedup();
            names
        })
        .collect();
    let index = Indexes::build(&events, &host_names);
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

fn progress_bar(enabled: bool, total: u64) -> indicatif::ProgressBar {
    if !enabled {
        return indicatif::ProgressBar::hidden();
    }
    // Drawn only when stderr is a terminal: indicatif hides it otherwise.
    let bar = indicatif::ProgressBar::with_draw_target(
        Some(total),
        indicatif::ProgressDrawTarget::stderr(),
    );
    if let Ok(style) = indicatif::ProgressStyle::with_template(
        "{spinner} reading logs {bytes}/{total_bytes} {wide_bar} {eta}",
    ) {
        bar.set_style(style);
    }
    bar
}

/// One host per distinct host name (two bundles of one machine are one host).
fn hosts_of(roots: &[HostRoot]) -> (Vec<Host>, Vec<u32>) {
    let mut hosts: Vec<Host> = Vec::new();
    let mut by_name: HashMap<String, u32> = HashMap::new();
    let mut root_host = Vec::with_capacity(roots.len());
    for root in roots {
        let key = short_host(&root.hostname);
        let id = *by_name.entry(key).or_insert_with(|| {
            hosts.push(new_host(
                hosts.len() as u32,
                &root.hostname,
                root.hostname_source,
                root.layout,
            ));
            hosts.len() as u32 - 1
        });
        let host = &mut hosts[id as usize];
        host.roots.push(root.prefix.clone());
        for alias in &root.aliases {
            if !host.aliases.contains(alias) {
                host.aliases.push(alias.clone());
            }
        }
        root_host.push(id);
    }
    (hosts, root_host)
}

fn new_host(id: u32, hostname: &str, source: &'static str, layout: Layout) -> Host {
    Host {
        id,
        hostname: hostname.to_string(),
        hostname_source: source.to_string(),
        aliases: Vec::new(),
        roots: Vec::new(),
        layout,
        services: Vec::new(),
        zone: "UTC".into(),
        zone_source: ZoneSource::Default,
    }
}

/// Decides each file's host and role. Files outside any host folder (a single log
/// given on the command line, loose captures) go to a host named after the input.
fn place_files<'f>(
    found: &'f Found,
    roots: &[HostRoot],
    root_host: &[u32],
    hosts: &mut Vec<Host>,
) -> Vec<Placed<'f>> {
    // sos keeps the end of a large log under sos_strings/ and links the original path
    // to it: read the tail as the original file.
    let tailed: HashMap<&str, &str> = found
        .links
        .iter()
        .filter(|l| l.target.contains("sos_strings/"))
        .filter_map(|l| Some((l.target.rsplit('/').next()?, l.rel.as_str())))
        .collect();
    let mut loose_host: Option<u32> = None;
    let mut placed = Vec::new();
    for file in &found.files {
        let (logical, incomplete) = match file.rel.rsplit('/').next().and_then(|n| tailed.get(n)) {
            Some(original) if file.rel.contains("sos_strings/") => (
                original.to_string(),
                Some("tailed by sos: only the end of the file was collected".to_string()),
            ),
            _ => (file.rel.clone(), None),
        };
        let (host, inner) = match root_of(roots, &logical) {
            Some(r) => (root_host[r], logical[roots[r].prefix.len()..].to_string()),
            // Outside any host folder: only logs and configs need a host, and get one
            // named after the input.
            None if matches!(role_of(&logical), Role::Log(_) | Role::Config(_)) => {
                let id = *loose_host.get_or_insert_with(|| {
                    let name = found
                        .inputs
                        .first()
                        .and_then(|i| Path::new(i).file_name())
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "input".into());
                    hosts.push(new_host(
                        hosts.len() as u32,
                        &name,
                        "input name",
                        Layout::Plain,
                    ));
                    hosts.len() as u32 - 1
                });
                (id, logical.clone())
            }
            None => (NO_HOST, logical.clone()),
        };
        let role = if inner.contains("sos_strings/") && incomplete.is_none() {
            Role::Ignored("sos_strings copy without a link to its original path")
        } else {
            role_of(&inner)
        };
        if let (Role::Log(service) | Role::Config(service), Some(h)) =
            (&role, hosts.get_mut(host as usize))
            && !h.services.contains(&service.0)
        {
            h.services.push(service.0.clone());
        }
        placed.push(Placed {
            file,
            host,
            inner,
            role,
            incomplete,
        });
    }
    placed
}

fn read_text(path: &Path, limit: u64) -> Result<(String, Option<String>), IngestError> {
    let content = read_decompressed(path, limit)?;
    let text = decode(&content.bytes).text.into_owned();
    Ok((text, content.damage.map(|d| d.to_string())))
}

fn read_config(
    p: &Placed<'_>,
    service: &Service,
    config: &mut Vec<ConfigValue>,
    skipped: &mut Vec<Skipped>,
) {
    match read_text(&p.file.abs, MAX_SMALL_FILE) {
        Ok((text, _)) => {
            let doc = parse_ini(&text);
            let lines: Vec<&str> = text.lines().collect();
            for entry in &doc.entries {
                config.push(ConfigValue {
                    file: p.file.rel.clone(),
                    host: p.host,
                    service: service.0.clone(),
                    section: entry.section.to_string(),
                    option: entry.key.to_string(),
                    value: entry.value.to_string(),
                    line: entry.line,
                    text: lines
                        .get(entry.line.saturating_sub(1))
                        .map(|l| l.trim_end_matches('\r').to_string())
                        .unwrap_or_default(),
                });
            }
        }
        Err(error) => skipped.push(Skipped {
            path: p.file.rel.clone(),
            reason: error.to_string(),
        }),
    }
}

fn read_captures(p: &Placed<'_>, captures: &mut Vec<CaptureFile>) {
    if p.file.size > MAX_SMALL_FILE {
        return;
    }
    if let Ok((text, _)) = read_text(&p.file.abs, MAX_SMALL_FILE) {
        let found = evacdoc_parsers::capture::parse_captures(&text);
        if found.is_empty() {
            return;
        }
        let lines: Vec<(usize, String)> = text
            .lines()
            .enumerate()
            .filter(|(_, l)| evacdoc_parsers::text::uuids_in(l).next().is_some())
            .take(10_000)
            .map(|(i, l)| (i + 1, l.trim_end_matches('\r').to_string()))
            .collect();
        for capture in found {
            captures.push(CaptureFile {
                file: p.file.rel.clone(),
                capture,
                lines: lines.clone(),
            });
        }
    }
}

/// Packages of the projects evacdoc reasons about (the rest of a host's list is noise).
const PACKAGE_PREFIXES: [&str; 8] = [
    "masakari",
    "python3-masakari",
    "nova",
    "python3-nova",
    "cinder",
    "python3-cinder",
    "keystone",
    "openstack",
];

fn read_packages(p: &Placed<'_>, packages: &mut Vec<InstalledPackage>) {
    let Ok((text, _)) = read_text(&p.file.abs, MAX_SMALL_FILE) else {
        return;
    };
    for package in evacdoc_parsers::packages::parse_packages(&text) {
        if PACKAGE_PREFIXES
            .iter()
            .any(|prefix| package.name.starts_with(prefix))
        {
            packages.push(InstalledPackage {
                host: p.host,
                name: package.name.to_string(),
                version: package.version.to_string(),
                kind: package.kind.to_string(),
                file: p.file.rel.clone(),
            });
        }
    }
}

fn read_zone(p: &Placed<'_>) -> Option<HostZone> {
    let source = ZoneSource::Bundle(p.file.rel.clone());
    if p.inner == "etc/localtime" {
        let bytes = std::fs::read(&p.file.abs).ok()?;
        return HostZone::tzif(&bytes, source);
    }
    let (text, _) = read_text(&p.file.abs, MAX_SMALL_FILE).ok()?;
    let name = zone_name_in(&p.inner, &text)?;
    HostZone::named(&name, source).ok()
}

/// Rough cost of reading a file: compressed logs expand about tenfold.
fn read_cost(p: &Placed<'_>) -> u64 {
    let compressed = [".gz", ".xz", ".zst", ".bz2"]
        .iter()
        .any(|ext| p.file.rel.ends_with(ext));
    if compressed {
        p.file.size.saturating_mul(10)
    } else {
        p.file.size
    }
}

fn is_masakari(p: &Placed<'_>) -> bool {
    matches!(&p.role, Role::Log(s) if s.project() == crate::model::Project::Masakari)
}

/// The instances Masakari's events and the CLI captures name; `None` without any
/// Masakari line (then nothing narrows Nova's requests).
fn watched_instances(masakari: &[FileOutcome], captures: &[CaptureFile]) -> Watched {
    let mut set: std::collections::HashSet<crate::model::Uuid> = masakari
        .iter()
        .flat_map(|o| o.events.iter())
        .flat_map(|r| r.event.instances.iter().copied())
        .collect();
    if masakari.iter().all(|o| o.events.is_empty()) {
        return None;
    }
    for capture in captures {
        use evacdoc_parsers::capture::Capture;
        let ids: Vec<&str> = match &capture.capture {
            Capture::VmoveList { moves, .. } => {
                moves.iter().map(|m| m.server_id.as_str()).collect()
            }
            Capture::Server(s) => vec![s.id.as_str()],
            Capture::ServerEvents {
                server_id: Some(s), ..
            } => vec![s.as_str()],
            _ => Vec::new(),
        };
        set.extend(ids.into_iter().filter_map(crate::model::Uuid::parse));
    }
    Some(set)
}

/// Reads and parses one log file, keeping the events that matter.
fn read_log(p: &Placed<'_>, id: u32, watch: &Watched) -> FileOutcome {
    let mut service = match &p.role {
        Role::Log(service) => service.clone(),
        _ => Service::new("unknown"),
    };
    let name = p.file.rel.rsplit('/').next().unwrap_or(&p.file.rel);
    let (base, rotation_number) = rotation(name);
    let dir = p
        .file
        .rel
        .rsplit_once('/')
        .map(|(d, _)| format!("{d}/"))
        .unwrap_or_default();
    let mut info = FileInfo {
        path: p.file.rel.clone(),
        host: p.host,
        service: service.clone(),
        format: "unparsed".into(),
        records: 0,
        unparsed: 0,
        invalid_utf8_lines: 0,
        bytes: 0,
        log: format!("{dir}{base}"),
        rotation: rotation_number,
        incomplete: p.incomplete.clone(),
    };
    let mut outcome = FileOutcome {
        info,
        events: Vec::new(),
        votes: OffsetVotes::default(),
        skipped: None,
    };
    let mut chunks = match LineChunks::open(&p.file.abs, MAX_FILE_BYTES) {
        Ok(chunks) => chunks,
        Err(error) => {
            outcome.skipped = Some(error.to_string());
            return outcome;
        }
    };
    info = outcome.info;
    let mut formats: BTreeMap<Format, u64> = BTreeMap::new();
    let mut last_stamp = None;
    let mut first_reason = None;
    let mut first_piece = true;
    loop {
        let base = chunks.line_base;
        let Some((bytes, last)) = chunks.next_piece() else {
            break;
        };
        let decoded = decode(bytes);
        if std::mem::take(&mut first_piece) {
            if sniff(&p.inner, &decoded.text) == FileKind::Ini {
                outcome.info = info;
                outcome.skipped = Some("an INI file where a log was expected".into());
                return outcome;
            }
            // A name that says nothing: the loggers say which service wrote it.
            if !crate::ingest::role::is_canonical(&service)
                && let Some(found) = crate::ingest::role::service_from_loggers(&decoded.text)
            {
                service = found;
                info.service = service.clone();
            }
        }
        let mut records = Records::new(&decoded.text).peekable();
        let mut again = None;
        while let Some(record) = records.next() {
            // The piece's last record may go on in the next piece: read it again there
            // (unless it is the whole piece, a record longer than a piece).
            if !last && record.line > 1 && records.peek().is_none() {
                again = Some(record.line);
                break;
            }
            info.records += 1;
            *formats.entry(record.format()).or_default() += 1;
            if let Some(reason) = record.unparsed_reason() {
                info.unparsed += 1;
                if first_reason.is_none() && reason != evacdoc_parsers::Reason::BLANK {
                    first_reason = Some((base + record.line, reason));
                }
                continue;
            }
            vote_offsets(&record, &mut outcome.votes);
            if keep(&service, &record, watch) {
                let mut raw = event_of(&record, id, p.host);
                raw.event.line = raw.event.line.saturating_add(base as u32);
                if raw.stamp.is_none() {
                    raw.stamp = last_stamp;
                }
                outcome.events.push(raw);
            }
            if let Some(stamp) = record.timestamp() {
                last_stamp = Some(stamp);
            }
        }
        let read_again = again.unwrap_or(usize::MAX);
        info.invalid_utf8_lines += decoded
            .invalid_lines
            .iter()
            .filter(|l| **l < read_again)
            .count() as u64;
        drop(records);
        drop(decoded);
        chunks.consume(again);
    }
    info.bytes = chunks.total();
    if let Some(damage) = &chunks.damage {
        info.incomplete = Some(format!("read up to damage: {damage}"));
    }
    info.format = formats
        .iter()
        .filter(|(f, _)| **f != Format::Unparsed)
        .max_by_key(|(_, n)| **n)
        .map(|(f, _)| f.as_str().to_string())
        .unwrap_or_else(|| "unparsed".into());
    if info.records > 0 && info.unparsed == info.records {
        let reason = first_reason
            .map(|(line, reason)| format!("unknown format (line {line}: {reason})"))
            .unwrap_or_else(|| "unknown format".into());
        outcome.skipped = Some(reason);
    }
    outcome.info = info;
    outcome
}

/// Masakari's progress details (from `notification show` captures) are stamped in UTC;
/// `Disabling compute service on host: 'X'` is written just before the engine logs
/// `Disable nova-compute on X` in its local time: the difference is the engine's zone.
fn vote_from_progress(
    captures: &[CaptureFile],
    outcomes: &[FileOutcome],
    votes: &mut BTreeMap<u32, OffsetVotes>,
) {
    const PREFIX: &str = "Disabling compute service on host: '";
    for capture in captures {
        let evacdoc_parsers::capture::Capture::Notification(n) = &capture.capture else {
            continue;
        };
        for detail in n
            .recovery_workflow_details
            .iter()
            .flat_map(|t| t.details.iter())
        {
            let Some(host) = detail
                .message
                .strip_prefix(PREFIX)
                .and_then(|rest| rest.split('\'').next())
            else {
                continue;
            };
            let Ok((_, utc)) = evacdoc_parsers::time::oslo_timestamp(&detail.timestamp) else {
                continue;
            };
            let wanted = format!("Disable nova-compute on {host}");
            let utc = utc.unix_nanos(0);
            // The engine line nearest to a whole number of quarter hours away.
            let best = outcomes
                .iter()
                .flat_map(|o| o.events.iter().map(move |r| (o.info.host, r)))
                .filter(|(_, r)| r.event.message() == wanted)
                .filter_map(|(host, r)| {
                    let stamp = r.stamp.filter(|s| s.offset.is_none())?;
                    let diff = stamp.local.unix_nanos(0) - utc;
                    let quarter = 900 * 1_000_000_000i64;
                    let off = (diff - (diff + quarter / 2).div_euclid(quarter) * quarter).abs();
                    (diff.abs() < 15 * 3600 * 1_000_000_000).then_some((off, host, diff))
                })
                .min_by_key(|(off, _, _)| *off);
            if let Some((_, host, diff)) = best {
                votes
                    .entry(host)
                    .or_default()
                    .vote_difference(diff, "masakari progress details");
            }
        }
    }
}

/// Gives each event its UTC time from its line's stamp and the host's zone.
fn utc_events(raw: Vec<RawEvent>, zone: &HostZone) -> impl Iterator<Item = Event> + '_ {
    raw.into_iter()
        .filter_map(move |RawEvent { mut event, stamp }| {
            let stamp = stamp?;
            let offset = stamp.offset.unwrap_or_else(|| zone.offset_at(&stamp.local));
            event.time = stamp.local.unix_nanos(offset);
            Some(event)
        })
}

/// Drops a record seen again in another file of the same host at the same instant (the
/// journal and the log file of one service, one log collected twice): the first file
/// read keeps it.
fn drop_copies(events: &mut Vec<Event>) {
    use std::hash::{Hash, Hasher};
    let mut first_file: HashMap<(u32, i64, u64), u32> = HashMap::new();
    events.retain(|e| {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        e.message().hash(&mut hasher);
        match first_file.entry((e.host, e.time, hasher.finish())) {
            std::collections::hash_map::Entry::Occupied(seen) => *seen.get() == e.file,
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(e.file);
                true
            }
        }
    });
}

fn sort_events(events: &mut [Event]) {
    events.sort_by_key(|e| (e.sort_key(), e.file, e.line));
}

/// Shifts each skewed host's events by its estimated offset (the estimate with most
/// pairs wins when a host was measured against several others).
fn correct_skew(events: &mut [Event], skew: &[crate::correlate::skew::SkewEstimate]) {
    let mut shift: HashMap<u32, (usize, i64)> = HashMap::new();
    for s in skew.iter().filter(|s| s.applied) {
        let entry = shift.entry(s.host).or_insert((0, 0));
        if s.pairs > entry.0 {
            *entry = (s.pairs, s.offset_ms);
        }
    }
    for event in events {
        if let Some((_, offset_ms)) = shift.get(&event.host) {
            event.time -= offset_ms * 1_000_000;
        }
    }
}

/// Rotations that should be there and are not: `x.log.3.gz` present and `x.log.2`
/// absent means something dropped it (juju-crashdump skips files over 5 MB).
fn missing_rotations(files: &[FileInfo], layout: Layout) -> Vec<Missing> {
    let mut by_log: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for f in files {
        by_log.entry(&f.log).or_default().push(f.rotation);
    }
    let why = if layout == Layout::JujuCrashdump {
        "absent between its neighbours: juju-crashdump skips files over 5 MB"
    } else {
        "absent between its neighbours: the collector dropped it"
    };
    let mut missing = Vec::new();
    for (log, mut rotations) in by_log {
        rotations.sort_unstable();
        // Date-stamped rotations are large numbers: only small ones form a sequence.
        let Some(&max) = rotations.iter().filter(|r| **r < 1000).max() else {
            continue;
        };
        for n in 0..max {
            if !rotations.contains(&n) {
                let path = if n == 0 {
                    log.to_string()
                } else {
                    format!("{log}.{n}")
                };
                missing.push(Missing {
                    path,
                    reason: why.to_string(),
                });
            }
        }
    }
    missing
}
