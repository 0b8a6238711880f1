//! Reading the small files of a bundle whole: configs, CLI captures, package lists,
//! clock settings.

use std::path::Path;

use evacdoc_parsers::ini::parse_ini;
use evacdoc_parsers::utf8::decode;

use crate::correlate::analysis::{CaptureFile, ConfigValue, InstalledPackage, Skipped};
use crate::ingest::IngestError;
use crate::ingest::decompress::read_decompressed;
use crate::ingest::place::Placed;
use crate::ingest::timezone::{HostZone, ZoneSource, zone_name_in};
use crate::model::Service;

/// The most a capture or clock file may hold.
pub(crate) const MAX_SMALL_FILE: u64 = 16 << 20;

pub(crate) fn read_text(path: &Path, limit: u64) -> Result<(String, Option<String>), IngestError> {
    let content = read_decompressed(path, limit)?;
    let text = decode(&content.bytes).text.into_owned();
    Ok((text, content.damage.map(|d| d.to_string())))
}

pub(crate) fn read_config(
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

pub(crate) fn read_captures(p: &Placed<'_>, captures: &mut Vec<CaptureFile>) {
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

pub(crate) fn read_packages(p: &Placed<'_>, packages: &mut Vec<InstalledPackage>) {
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

pub(crate) fn read_zone(p: &Placed<'_>) -> Option<HostZone> {
    let source = ZoneSource::Bundle(p.file.rel.clone());
    if p.inner == "etc/localtime" {
        let bytes = std::fs::read(&p.file.abs).ok()?;
        return HostZone::tzif(&bytes, source);
    }
    let (text, _) = read_text(&p.file.abs, MAX_SMALL_FILE).ok()?;
    let name = zone_name_in(&p.inner, &text)?;
    HostZone::named(&name, source).ok()
}
