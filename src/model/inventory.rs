//! The inventory of an analysis: its hosts, the files read and not read, the configs,
//! captures, package lists and clock files found beside the logs. Ingest makes these
//! values and correlate takes them as they are, so they live below both.

use serde::{Deserialize, Serialize};

use crate::model::{HostId, Service};

mod clock;

pub use clock::HostClock;

/// A host of the analysis.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Host {
    /// Index in the analysis's hosts.
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

/// Nova's `[DEFAULT] service_down_time` the configs set (the last nova file read that
/// sets it), when it is a positive number of seconds, with its file: how long that cloud's
/// Nova takes to see a dead host down (its API does not say).
pub fn nova_service_down_time(config: &[ConfigValue]) -> Option<(std::time::Duration, String)> {
    config
        .iter()
        .rev()
        .filter(|c| c.service == "nova" && c.section == "DEFAULT")
        .find(|c| c.option == "service_down_time")
        .and_then(|c| positive_seconds(&c.value).map(|d| (d, c.file.clone())))
}

/// A positive, finite number of seconds written as text.
pub fn positive_seconds(text: &str) -> Option<std::time::Duration> {
    let v: f64 = text.trim().parse().ok()?;
    (v.is_finite() && v > 0.0).then(|| std::time::Duration::from_secs_f64(v))
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

/// A deployment layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Layout {
    /// juju-crashdump: `N/baremetal/`, `N/lxd/M/`, `juju_status.yaml`.
    JujuCrashdump,
    /// Sunbeam pod logs inside a sosreport.
    Sunbeam,
    /// sosreport: `sos_commands/`.
    Sosreport,
    /// Kolla-Ansible: `var/log/kolla/`.
    Kolla,
    /// TripleO: `var/log/containers/`.
    Tripleo,
    /// Any other folder of logs.
    Plain,
}

impl Layout {
    /// The name used in reports and the JSON schema.
    pub fn as_str(self) -> &'static str {
        match self {
            Layout::JujuCrashdump => "juju-crashdump",
            Layout::Sunbeam => "sunbeam",
            Layout::Sosreport => "sosreport",
            Layout::Kolla => "kolla",
            Layout::Tripleo => "tripleo",
            Layout::Plain => "plain",
        }
    }
}

/// How the zone of a host was decided.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", tag = "kind", content = "detail")]
pub enum ZoneSource {
    /// `--tz` on the command line.
    Override,
    /// A file of the bundle (its path).
    Bundle(String),
    /// Offsets seen in the host's own lines (which lines).
    Inferred(String),
    /// Nothing said anything: UTC assumed.
    Default,
}
