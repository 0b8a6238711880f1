//! The [`Analysis`]: everything read from the inputs, joined, in one value that later
//! stages (detectors, the store, the search index, redaction) take as it is.

use serde::{Deserialize, Serialize};

use crate::correlate::index::Indexes;
use crate::correlate::joins::Join;
use crate::correlate::recovery::Recovery;
use crate::correlate::skew::SkewEstimate;
use crate::model::inventory::{
    CaptureFile, ConfigValue, FileInfo, Host, HostClock, InstalledPackage, Layout, Missing, Skipped,
};
use crate::model::{Event, FileId, HostId};

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
    /// secrets: the first pass of redaction, `redact::identify`). Private: a
    /// public view never shows it.
    pub identified: crate::model::identified::Seeds,
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
