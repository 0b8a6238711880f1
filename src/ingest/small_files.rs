//! Reading the small files of a bundle whole: configs, CLI captures, package lists,
//! clock settings.

use std::collections::BTreeMap;

use evacdoc_parsers::ini::parse_ini;
use evacdoc_parsers::utf8::decode;

use crate::ingest::decompress::read_decompressed;
use crate::ingest::discover::Found;
use crate::ingest::layout::{HostRoot, root_of};
use crate::ingest::place::{NO_HOST, Placed};
use crate::ingest::role::Role;
use crate::ingest::timezone::{HostZone, zone_name_in, zone_name_of_link};
use crate::ingest::{IngestError, Named};
use crate::model::Service;
use crate::model::inventory::{
    CaptureFile, ConfigValue, HostClock, InstalledPackage, Skipped, ZoneSource,
};

/// What the small files of a bundle say.
#[derive(Debug, Default)]
pub(crate) struct SmallFiles {
    pub(crate) config: Vec<ConfigValue>,
    pub(crate) captures: Vec<CaptureFile>,
    pub(crate) packages: Vec<InstalledPackage>,
    /// What the hosts' clock captures say (chrony, ntpq, timedatectl).
    pub(crate) clocks: Vec<HostClock>,
    /// The zone each host's own settings name.
    pub(crate) zones: BTreeMap<u32, HostZone>,
}

/// Reads every placed file that is not a log; the logs are handed back, to be read by
/// [`crate::ingest::read_log`]. What cannot be read goes to `skipped`.
pub(crate) fn read_small_files<'f>(
    placed: Vec<Placed<'f>>,
    skipped: &mut Vec<Skipped>,
) -> (SmallFiles, Vec<Placed<'f>>) {
    let mut small = SmallFiles::default();
    let mut logs = Vec::new();
    for p in placed {
        match &p.role {
            Role::Log(_) => logs.push(p),
            Role::Config(service) => read_config(&p, service, &mut small.config, skipped),
            Role::MaybeCapture => read_captures(&p, &mut small.captures, skipped),
            Role::Clock if p.host != NO_HOST => {
                if let Some(zone) = read_zone(&p, skipped) {
                    small.zones.entry(p.host).or_insert(zone);
                }
                read_clock(&p, &mut small.clocks);
            }
            Role::Packages if p.host != NO_HOST => read_packages(&p, &mut small.packages, skipped),
            // An input file given on its own that evacdoc cannot read is said so.
            Role::Ignored(reason) if p.file.given => skipped.push(Skipped {
                path: p.file.rel.clone(),
                reason: reason.to_string(),
            }),
            Role::Clock | Role::Hostname | Role::Packages | Role::Ignored(_) => {}
        }
    }
    (small, logs)
}

/// The zones `etc/localtime` links name (sos keeps the link, not the file).
pub(crate) fn zones_of_links(
    found: &Found,
    roots: &[HostRoot],
    root_host: &[u32],
    zones: &mut BTreeMap<u32, HostZone>,
) {
    for link in &found.links {
        let Some(root) = root_of(roots, &link.rel) else {
            continue;
        };
        if link.rel[roots[root].prefix.len()..] == *"etc/localtime"
            && let Some(zone) = zone_name_of_link(&link.target)
                .and_then(|name| HostZone::named(&name, ZoneSource::Bundle(link.rel.clone())).ok())
        {
            zones.entry(root_host[root]).or_insert(zone);
        }
    }
}

/// The most a capture or clock file may hold.
pub(crate) const MAX_SMALL_FILE: u64 = 16 << 20;

pub(crate) fn read_text(
    file: Named<'_>,
    limit: u64,
) -> Result<(String, Option<String>), IngestError> {
    let content = read_decompressed(file, limit)?;
    let text = decode(&content.bytes).text.into_owned();
    Ok((text, content.damage.map(|d| d.to_string())))
}

/// Reads a small file whole; what keeps it from being read, or read to its end, is
/// said in `skipped` (the part before damage is still used).
fn read_small(p: &Placed<'_>, skipped: &mut Vec<Skipped>) -> Option<String> {
    let mut report = |reason: String| {
        skipped.push(Skipped {
            path: p.file.rel.clone(),
            reason,
        })
    };
    match read_text(p.file.named(), MAX_SMALL_FILE) {
        Ok((text, damage)) => {
            if let Some(damage) = damage {
                report(format!("read up to damage: {damage}"));
            }
            Some(text)
        }
        Err(error) => {
            report(error.to_string());
            None
        }
    }
}

pub(crate) fn read_config(
    p: &Placed<'_>,
    service: &Service,
    config: &mut Vec<ConfigValue>,
    skipped: &mut Vec<Skipped>,
) {
    let Some(text) = read_small(p, skipped) else {
        return;
    };
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

pub(crate) fn read_captures(
    p: &Placed<'_>,
    captures: &mut Vec<CaptureFile>,
    skipped: &mut Vec<Skipped>,
) {
    if p.file.size > MAX_SMALL_FILE {
        skipped.push(Skipped {
            path: p.file.rel.clone(),
            reason: format!(
                "{} bytes: too large for a capture (limit {MAX_SMALL_FILE} bytes)",
                p.file.size
            ),
        });
        return;
    }
    if let Some(text) = read_small(p, skipped) {
        let mut found = evacdoc_parsers::capture::parse_captures(&text);
        // sos's `pcs stonith history show` with no line is a history with no fencing:
        // evidence as much as a listing (only its file name says what it is).
        if found.is_empty()
            && p.inner
                .ends_with("sos_commands/pacemaker/pcs_stonith_history_show")
        {
            found.push(evacdoc_parsers::capture::Capture::FenceHistory {
                complete: true,
                actions: Vec::new(),
            });
        }
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
pub(crate) const PACKAGE_PREFIXES: [&str; 8] = [
    "masakari",
    "python3-masakari",
    "nova",
    "python3-nova",
    "cinder",
    "python3-cinder",
    "keystone",
    "openstack",
];

pub(crate) fn read_packages(
    p: &Placed<'_>,
    packages: &mut Vec<InstalledPackage>,
    skipped: &mut Vec<Skipped>,
) {
    let Some(text) = read_small(p, skipped) else {
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

/// A clock capture (`chronyc tracking`, `ntpq -p`, `timedatectl`) of a host. A file that
/// cannot be read was already reported by [`read_zone`], which reads every clock file.
fn read_clock(p: &Placed<'_>, clocks: &mut Vec<HostClock>) {
    if evacdoc_parsers::clock::tool_of(&p.inner).is_none() {
        return;
    }
    if let Some(text) = read_small(p, &mut Vec::new()) {
        clocks.extend(HostClock::read(p.host, &p.file.rel, &p.inner, &text));
    }
}

pub(crate) fn read_zone(p: &Placed<'_>, skipped: &mut Vec<Skipped>) -> Option<HostZone> {
    let source = ZoneSource::Bundle(p.file.rel.clone());
    if p.inner == "etc/localtime" {
        let bytes = match crate::ingest::read_file(p.file.named()) {
            Ok(bytes) => bytes,
            Err(error) => {
                skipped.push(Skipped {
                    path: p.file.rel.clone(),
                    reason: error.to_string(),
                });
                return None;
            }
        };
        return HostZone::tzif(&bytes, source);
    }
    let text = read_small(p, skipped)?;
    let name = zone_name_in(&p.inner, &text)?;
    HostZone::named(&name, source).ok()
}
