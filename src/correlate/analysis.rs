//! The [`Analysis`]: everything read from the inputs, joined, in one value that later
//! stages (detectors, the store, the search index, redaction) take as it is.

use serde::{Deserialize, Serialize};

use crate::correlate::index::Indexes;
use crate::correlate::joins::Join;
use crate::correlate::recovery::Recovery;
use crate::correlate::skew::SkewEstimate;
use crate::correlate::skew::clock::HostClock;
use crate::ingest::layout::Layout;
use crate::ingest::timezone::ZoneSource;
use crate::model::{Event, FileId, HostId, Service};

/// A host of the analysis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Host {
    /// Index in [`Analysis::hosts`].
    pub id: HostId,
    /// The name the bundle gives.
    pub hostname: String,
    /// Where the name came from.
    pub hostname_source: String,
    /// Other names (juju units and machine ids, folder names).
    pub aliases: Vec<String>,
    /// The folders of the inputs that hold this host's files.
    pub roots: Vec<String>,
    /// The layout its folder was recognised by.
    pub layout: Layout,
    /// Services whose logs or configs were found.
    pub services: Vec<String>,
    /// The time zone its local times are read in.
    pub zone: String,
    /// How that zone was decided.
    pub zone_source: ZoneSource,
}

/// A file that was read.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct FileInfo {
    /// Path relative to the input root.
    pub path: String,
    /// The host it belongs to.
    pub host: HostId,
    /// The service it belongs to.
    pub service: Service,
    /// The format most of its records had (`oslo`, `access`, `pebble`, ..., `ini`).
    pub format: String,
    /// Records read.
    pub records: u64,
    /// Records no format fitted.
    pub unparsed: u64,
    /// Lines with invalid UTF-8 (replaced).
    pub invalid_utf8_lines: u64,
    /// Bytes of text read (after decompression).
    pub bytes: u64,
    /// The log this file is a rotation of (its path without the rotation suffix).
    pub log: String,
    /// 0 for the current file, N for `.N` / `.N.gz`.
    pub rotation: u32,
    /// Why the content may be incomplete (cut-short compressed stream, sos tailing).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub incomplete: Option<String>,
}

/// A file that was not read, or a problem with one.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Skipped {
    /// Path relative to the input root.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// A rotation of a log that is expected but absent (a collector dropped it).
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Missing {
    /// The path the file would have.
    pub path: String,
    /// Why it is believed missing.
    pub reason: String,
}

/// One configuration value, with where it was set.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct ConfigValue {
    /// The file (relative path).
    pub file: String,
    /// The host.
    pub host: HostId,
    /// The service the file configures (`nova`, `masakari`, `cinder`).
    pub service: String,
    /// INI section.
    pub section: String,
    /// Option name.
    pub option: String,
    /// Value as written (secrets masked by the collector stay masked).
    pub value: String,
    /// 1-based line.
    pub line: usize,
    /// The line as written in the file.
    pub text: String,
}

/// An OpenStack CLI capture found in the inputs.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct CaptureFile {
    /// The file (relative path).
    pub file: String,
    /// What it holds.
    pub capture: evacdoc_parsers::capture::Capture,
    /// The file's lines that name an id (1-based number, text): what evidence cites.
    pub lines: Vec<(usize, String)>,
}

/// An installed package, from the bundle's package lists.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct InstalledPackage {
    /// The host.
    pub host: HostId,
    /// Package name.
    pub name: String,
    /// Version as installed.
    pub version: String,
    /// `deb`, `rpm` or `snap`.
    pub kind: String,
    /// The list it came from.
    pub file: String,
}

/// Counts over the whole analysis.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Stats {
    /// Bytes of text read.
    pub bytes: u64,
    /// Files read.
    pub files: u64,
    /// Records read.
    pub records: u64,
    /// Records no format fitted.
    pub unparsed: u64,
    /// Events kept.
    pub events: u64,
    /// Wall time of the analysis.
    pub elapsed_ms: u64,
    /// Events the keeper kept, before the copies of one record were dropped.
    pub kept: u64,
    /// Wall time of each stage.
    pub stages: StageTimes,
}

/// Wall time of each stage of the pipeline, in milliseconds.
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize)]
pub struct StageTimes {
    /// Finding the files (archives unpacked) and placing them on hosts.
    pub discover_ms: u64,
    /// Reading configs, captures, package lists and clock files.
    pub small_files_ms: u64,
    /// Reading the logs into the sinks.
    pub read_ms: u64,
    /// Deciding each host's time zone.
    pub zones_ms: u64,
    /// Ordering, de-duplicating, skew, joins and indexes.
    pub assemble_ms: u64,
}

/// Everything evacdoc knows about the inputs.
///
/// It serializes as a versioned document that reads back to an equal analysis (see
/// [`crate::correlate::document`]).
#[derive(Debug)]
pub struct Analysis {
    /// The inputs as given.
    pub inputs: Vec<String>,
    /// The deployment layout.
    pub layout: Layout,
    /// Hosts.
    pub hosts: Vec<Host>,
    /// Files read.
    pub files: Vec<FileInfo>,
    /// Files not read, with the reason.
    pub skipped: Vec<Skipped>,
    /// Files a collector dropped.
    pub missing: Vec<Missing>,
    /// Configuration values.
    pub config: Vec<ConfigValue>,
    /// CLI captures.
    pub captures: Vec<CaptureFile>,
    /// Installed packages of OpenStack services (from dpkg, rpm and snap lists).
    pub packages: Vec<InstalledPackage>,
    /// Events, in time order (UTC).
    pub events: Vec<Event>,
    /// Indexes from ids to events (rebuilt when a document is read).
    pub index: Indexes,
    /// Masakari calls joined with the Nova requests they caused.
    pub joins: Vec<Join>,
    /// Clock offsets between hosts, bounded by causal pairs of lines.
    pub skew: Vec<SkewEstimate>,
    /// Masakari recoveries rebuilt from the events and captures.
    pub recoveries: Vec<Recovery>,
    /// What the hosts' clock captures say (`chronyc tracking`, `ntpq -p`, `timedatectl`).
    pub clocks: Vec<HostClock>,
    /// Counts.
    pub stats: Stats,
    /// The identifiers every file and record read gives (host names, users, projects,
    /// secrets: the first pass of redaction, [`crate::redact::identify`]). Private: a
    /// public view never shows it.
    pub identified: crate::redact::names::Seeds,
}

impl Analysis {
    /// The analysis with its [`Analysis::recoveries`] rebuilt from the rest.
    pub fn with_recoveries(mut self) -> Analysis {
        self.recoveries = crate::correlate::recovery::recoveries(&self);
        tracing::debug!(
            recoveries = self.recoveries.len(),
            rss_mb = crate::memory::rss_mb(),
            peak_rss_mb = crate::memory::peak_rss_mb(),
            "recoveries rebuilt"
        );
        self
    }

    /// The file of an event.
    pub fn file(&self, id: FileId) -> Option<&FileInfo> {
        self.files.get(id as usize)
    }

    /// The host of an id.
    pub fn host(&self, id: HostId) -> Option<&Host> {
        self.hosts.get(id as usize)
    }

    /// The configuration value of `section`/`option` in files of `service`, last set
    /// wins (the order oslo.config reads files in is the order they were found).
    pub fn config_value(&self, service: &str, section: &str, option: &str) -> Option<&ConfigValue> {
        self.config
            .iter()
            .rev()
            .find(|c| c.service == service && c.section == section && c.option == option)
    }
}
