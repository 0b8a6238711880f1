//! `evacdoc redact`: a redacted copy of a whole bundle, as a folder or a `.tar.gz`.
//!
//! The bundle is unpacked once through ingest (archives unpacked, compressed files
//! decompressed) and analysed for what it identifies (host names, users, secrets); then
//! every file of that same unpacking is read again, redacted line by line in parallel,
//! and written under its redacted path. gzip files stay gzip; other
//! compressed files are written plain without their compression suffix. Links are kept
//! as links with redacted names and targets. Binary files are not copied (they cannot be
//! redacted line by line) and are listed with the reason. The map is written beside
//! the output, never inside it, readable by its owner only.

use std::io::{BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use rayon::prelude::*;

use crate::ingest::decompress::{Compression, open_decompressed};
use crate::ingest::discover::{Found, FoundFile, discover_within};
use crate::ingest::{IngestError, IngestLimits, Named};
use crate::redact::line::redact_path;
use crate::redact::map::{MapError, PseudonymMap, SharedMap};
use crate::redact::names::NameFinder;
use crate::redact::public::{Judged, PublicStats, PublicText, upload_names};
use crate::redact::seed::seeds_of;
use crate::run::{AnalyzeError, Options, scratch_folder};

mod output;
mod streams;
use output::{write_links, write_report, write_tarball};
use streams::{public_stream, redact_stream};

/// Why a redacted copy could not be made.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RedactError {
    /// The bundle could not be analysed.
    #[error(transparent)]
    Analyze(#[from] AnalyzeError),
    /// The inputs could not be read.
    #[error(transparent)]
    Ingest(#[from] IngestError),
    /// The map could not be read or written.
    #[error(transparent)]
    Map(#[from] MapError),
    /// The output could not be written.
    #[error("{path}: {source}")]
    Write {
        /// What was being written.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The output or map path is not usable.
    #[error("{path}: {reason}")]
    Output {
        /// The path.
        path: String,
        /// Why.
        reason: String,
    },
}

/// Where to write and which map to use.
#[derive(Debug, Clone)]
pub struct RedactOptions {
    /// A folder (created; must be empty if it exists) or a `.tar.gz` / `.tgz` file.
    pub out: PathBuf,
    /// The case map: read when it exists, written back with the new pairs.
    pub map: PathBuf,
    /// A public copy (a share's bundle): every line by default-deny
    /// ([`crate::redact::public`]), config values by the allow-list, the upload's name (this
    /// one) shown as `bundle`, and `redaction-report.json` in the copy.
    pub public: Option<String>,
    /// Where the upload is unpacked and what bounds that (the service's data folder and
    /// limits, so nothing is written outside it); the system's temporary folder and the
    /// default limits when `None`.
    pub work_dir: Option<PathBuf>,
    /// Bounds on unpacking and reading.
    pub limits: IngestLimits,
    /// The names messages give the inputs (the service's: the upload's file name);
    /// by their paths when empty.
    pub input_names: Vec<PathBuf>,
}

impl RedactOptions {
    /// Options writing to `out` with the map beside it (`<out>.map.json`) unless given.
    pub fn new(out: PathBuf, map: Option<PathBuf>) -> RedactOptions {
        let map = map.unwrap_or_else(|| {
            let mut name = out.file_name().unwrap_or_default().to_os_string();
            name.push(".map.json");
            out.with_file_name(name)
        });
        RedactOptions {
            out,
            map,
            public: None,
            work_dir: None,
            limits: IngestLimits::default(),
            input_names: Vec::new(),
        }
    }
}

/// What was written.
#[derive(Debug, Default, serde::Serialize)]
pub struct RedactReport {
    /// Files written.
    pub files: usize,
    /// Links written.
    pub links: usize,
    /// Lines read.
    pub lines: u64,
    /// Lines that changed.
    pub changed_lines: u64,
    /// Files not copied, with the reason.
    pub skipped: Vec<(String, String)>,
    /// Host names and domains looked for.
    pub seeded_names: usize,
    /// The map file.
    pub map: String,
    /// What the public step did (public copies only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub public: Option<PublicStats>,
}

/// The name of the report a public copy holds.
pub const REPORT_NAME: &str = "redaction-report.json";

/// How lines are redacted.
#[derive(Debug)]
enum Mode {
    /// Identifiers replaced, other text kept.
    Private,
    /// Default-deny; the upload's names.
    Public(Vec<String>),
}

/// Writes a redacted copy of `inputs` as `options` say.
pub fn redact_bundle(
    inputs: &[PathBuf],
    options: &RedactOptions,
) -> Result<RedactReport, RedactError> {
    let tarball = is_tarball(&options.out);
    check_paths(options, tarball)?;
    let work =
        scratch_folder(options.work_dir.as_deref()).map_err(|source| RedactError::Write {
            path: "work folder".into(),
            source,
        })?;
    // Unpacked once: the analysis (for what it identifies) and the copy read the same files.
    let named = Named::inputs(inputs, &options.input_names);
    let found = discover_within(&named, work.path(), &options.limits)?;
    let analysis = crate::run::analyze_discovered(
        &found,
        &Options {
            limits: options.limits,
            work_dir: options.work_dir.clone(),
            input_names: options.input_names.clone(),
            ..Options::default()
        },
    )?;
    // The first pass: what the analysis identified in every file and record.
    let seeds = seeds_of(&analysis);
    drop(analysis);
    let names = NameFinder::new(seeds);
    let map = if options.map.exists() {
        PseudonymMap::load(&options.map)?
    } else {
        PseudonymMap::new()
    };
    let shared = Mutex::new(map);

    let stage = if tarball {
        let parent = options.out.parent().filter(|p| !p.as_os_str().is_empty());
        let dir = tempfile::Builder::new()
            .prefix(".evacdoc-redact-")
            .tempdir_in(parent.unwrap_or(Path::new(".")))
            .map_err(|source| RedactError::Write {
                path: options.out.display().to_string(),
                source,
            })?;
        Staged::Temp(dir)
    } else {
        std::fs::create_dir_all(&options.out).map_err(|source| RedactError::Write {
            path: options.out.display().to_string(),
            source,
        })?;
        Staged::Out(options.out.clone())
    };
    let root = stage.path().to_path_buf();
    let mode = match &options.public {
        Some(upload) => Mode::Public(upload_names(upload)),
        None => Mode::Private,
    };

    // Each file's name in the copy, made one by one so that two files whose names redact
    // alike (both masked, say) keep both, with the same names on every run.
    let targets = {
        let mut view = SharedMap::new(&shared);
        let redacted = found.files.iter().map(|file| match &mode {
            Mode::Private => redact_path(&file.rel, &names, &mut view),
            Mode::Public(upload) => public_path(&file.rel, &names, upload, &mut view),
        });
        distinct_paths(redacted.collect())
    };
    // One view of the map per piece of work rayon splits off, not per file: what one
    // file looked up is not asked of the shared map again for the next; so with what the
    // public step judged (words, messages), which other files repeat.
    let results: Vec<FileResult> = found
        .files
        .par_iter()
        .zip(targets)
        .map_init(
            || (SharedMap::new(&shared), Judged::default()),
            |(view, judged), (file, rel)| copy_file(file, rel, &root, &names, &mode, view, judged),
        )
        .collect();
    let mut report = RedactReport {
        seeded_names: names.seeds().hosts.len() + names.seeds().domains.len(),
        public: matches!(mode, Mode::Public(_)).then(PublicStats::default),
        ..RedactReport::default()
    };
    for r in results {
        match r {
            FileResult::Written {
                lines,
                changed,
                stats,
            } => {
                report.files += 1;
                report.lines += lines;
                report.changed_lines += changed;
                if let (Some(all), Some(stats)) = (report.public.as_mut(), stats) {
                    all.merge(stats);
                }
            }
            FileResult::Skipped(rel, why) => report.skipped.push((rel, why)),
            FileResult::Failed(e) => return Err(e),
        }
    }
    let mut view = SharedMap::new(&shared);
    report.links = write_links(&found, &root, &names, &mode, &mut view)?;
    report.skipped.extend(found.skipped.iter().cloned());
    if let Mode::Public(upload) = &mode {
        // The skipped files' paths as the copy names them.
        for (rel, _) in &mut report.skipped {
            *rel = public_path(rel, &names, upload, &mut view);
        }
        write_report(&root, &report)?;
    }
    drop(view);
    if let Staged::Temp(dir) = &stage {
        write_tarball(dir.path(), &options.out)?;
    }
    let map = shared.into_inner().unwrap_or_else(|p| p.into_inner());
    map.save(&options.map)?;
    report.map = options.map.display().to_string();
    Ok(report)
}

enum Staged {
    Temp(tempfile::TempDir),
    Out(PathBuf),
}

impl Staged {
    fn path(&self) -> &Path {
        match self {
            Staged::Temp(d) => d.path(),
            Staged::Out(p) => p,
        }
    }
}

fn is_tarball(out: &Path) -> bool {
    let name = out.to_string_lossy();
    name.ends_with(".tar.gz") || name.ends_with(".tgz")
}

/// The output must be new (or an empty folder) and the map must not be inside it.
fn check_paths(options: &RedactOptions, tarball: bool) -> Result<(), RedactError> {
    let bad = |path: &Path, reason: &str| RedactError::Output {
        path: path.display().to_string(),
        reason: reason.into(),
    };
    if tarball {
        if options.out.exists() {
            return Err(bad(&options.out, "already exists"));
        }
    } else if options.out.exists() {
        let empty = std::fs::read_dir(&options.out)
            .map(|mut d| d.next().is_none())
            .unwrap_or(false);
        if !empty {
            return Err(bad(&options.out, "exists and is not an empty folder"));
        }
    }
    let absolute = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    if !tarball && absolute(&options.map).starts_with(absolute(&options.out)) {
        return Err(bad(
            &options.map,
            "the map undoes the redaction: it must not be inside the output",
        ));
    }
    Ok(())
}

enum FileResult {
    Written {
        lines: u64,
        changed: u64,
        stats: Option<PublicStats>,
    },
    Skipped(String, String),
    Failed(RedactError),
}

/// Bytes of a file's start looked at to tell text from binary.
const SNIFF: usize = 8192;

/// `paths` with each repeat made distinct by a counter before the last part's first dot
/// (`name-2.log.gz`): the first keeps its name, so a name that never collides is unchanged.
fn distinct_paths(paths: Vec<String>) -> Vec<String> {
    let mut taken: std::collections::HashSet<String> = paths.iter().cloned().collect();
    let mut seen = std::collections::HashSet::new();
    paths
        .into_iter()
        .map(|path| {
            if seen.insert(path.clone()) {
                return path;
            }
            let (dir, name) = path
                .rsplit_once('/')
                .map_or(("", path.as_str()), |(d, n)| (d, n));
            let (stem, ext) = name.split_once('.').map_or((name, ""), |(s, e)| (s, e));
            let dot = if ext.is_empty() { "" } else { "." };
            let slash = if dir.is_empty() { "" } else { "/" };
            let unique = (2..)
                .map(|n| format!("{dir}{slash}{stem}-{n}{dot}{ext}"))
                .find(|candidate| !taken.contains(candidate))
                .unwrap_or(path);
            taken.insert(unique.clone());
            seen.insert(unique.clone());
            unique
        })
        .collect()
}

fn copy_file(
    file: &FoundFile,
    mut rel: String,
    root: &Path,
    names: &NameFinder,
    mode: &Mode,
    map: &mut SharedMap<'_>,
    judged: &mut Judged,
) -> FileResult {
    let (compression, reader) = match open_decompressed(file.named()) {
        Ok(r) => r,
        Err(e) => return FileResult::Skipped(file.rel.clone(), e.to_string()),
    };
    let mut reader = BufReader::with_capacity(1 << 16, reader);
    let head = match reader.fill_buf() {
        Ok(h) => h,
        Err(e) => return FileResult::Skipped(file.rel.clone(), e.to_string()),
    };
    if head.iter().take(SNIFF).any(|&b| b == 0) {
        return FileResult::Skipped(
            file.rel.clone(),
            "binary content: not copied (it cannot be redacted line by line)".into(),
        );
    }
    let gzip = compression == Compression::Gzip;
    if !gzip && compression != Compression::None {
        for ext in [".xz", ".zst", ".bz2"] {
            if let Some(stripped) = rel.strip_suffix(ext) {
                rel = stripped.to_string();
            }
        }
    }
    let path = root.join(&rel);
    let failed = |source| {
        FileResult::Failed(RedactError::Write {
            path: path.display().to_string(),
            source,
        })
    };
    if let Some(parent) = path.parent()
        && let Err(e) = std::fs::create_dir_all(parent)
    {
        return failed(e);
    }
    let out = match std::fs::File::create(&path) {
        Ok(f) => f,
        Err(e) => return failed(e),
    };
    let sink: Box<dyn Write> = if gzip {
        Box::new(flate2::write::GzEncoder::new(
            BufWriter::new(out),
            flate2::Compression::fast(),
        ))
    } else {
        Box::new(BufWriter::new(out))
    };
    let result = match mode {
        Mode::Private => redact_stream(&mut reader, sink, names, map).map(|(l, c)| (l, c, None)),
        Mode::Public(upload) => {
            let config = is_config_file(&file.rel);
            public_stream(&mut reader, sink, names, upload, config, map, judged)
                .map(|(l, c, s)| (l, c, Some(s)))
        }
    };
    match result {
        Ok((lines, changed, stats)) => FileResult::Written {
            lines,
            changed,
            stats,
        },
        Err(e) => failed(e),
    }
}

/// A path through the public step: every part default-deny, the upload's name `bundle`.
fn public_path(
    rel: &str,
    names: &NameFinder,
    upload: &[String],
    map: &mut dyn crate::redact::map::Pseudonyms,
) -> String {
    let mut stats = PublicStats::default();
    PublicText::new(names, upload).path(rel, map, &mut stats)
}

/// Files read as `option = value` lines.
fn is_config_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    [".conf", ".ini", ".cfg", ".cnf", ".keyring"]
        .iter()
        .any(|e| name.ends_with(e))
        || rel.contains("/etc/") && !name.contains('.')
}
