//! Which OpenStack release a bundle runs, from its package lists: each service's upstream
//! major version moves by one a release, so a major version names the series.

use serde::Serialize;

use crate::correlate::Analysis;
use crate::model::inventory::InstalledPackage;
use crate::triage::version;

/// OpenStack series, oldest first, with Nova's major version in each.
const SERIES: &[(u32, &str)] = &[
    (17, "Queens"),
    (18, "Rocky"),
    (19, "Stein"),
    (20, "Train"),
    (21, "Ussuri"),
    (22, "Victoria"),
    (23, "Wallaby"),
    (24, "Xena"),
    (25, "Yoga"),
    (26, "Zed"),
    (27, "2023.1 Antelope"),
    (28, "2023.2 Bobcat"),
    (29, "2024.1 Caracal"),
    (30, "2024.2 Dalmatian"),
    (31, "2025.1 Epoxy"),
    (32, "2025.2 Flamingo"),
    (33, "2026.1 Gazpacho"),
    (34, "2026.2 Hibiscus"),
];

/// How far each service's major version is behind Nova's in the same series
/// (Masakari 15, Cinder 22, Keystone 23 and Neutron 22 shipped with Nova 27 in 2023.1).
const BEHIND_NOVA: &[(&str, u32)] = &[
    ("nova", 0),
    ("masakari", 12),
    ("cinder", 5),
    ("neutron", 5),
    ("keystone", 4),
];

/// The release of one service, as a package says it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct ServiceRelease {
    /// `nova`, `masakari`, `cinder`, `neutron`, `keystone` or `openstack` (a snap).
    pub component: String,
    /// The series (`2024.1 Caracal`), when the version is in the table.
    pub series: Option<String>,
    /// The package that says it.
    pub package: String,
    /// Its version as installed.
    pub version: String,
    /// The host whose list it is in.
    pub host: String,
}

/// The service an OpenStack package belongs to (`python3-nova`, `openstack-nova-api`,
/// `nova-common` → `nova`), if it is one of those the table knows.
fn component_of(package: &str) -> Option<&'static str> {
    let name = package
        .strip_prefix("python3-")
        .or_else(|| package.strip_prefix("python-"))
        .unwrap_or(package);
    let name = name.strip_prefix("openstack-").unwrap_or(name);
    let first = name.split('-').next().unwrap_or(name);
    BEHIND_NOVA.iter().map(|(c, _)| *c).find(|c| *c == first)
}

/// The series of `component` at upstream `version` (`masakari`, `17.0.0` → `2024.1 Caracal`).
pub fn series_of(component: &str, version: &str) -> Option<&'static str> {
    let behind = BEHIND_NOVA.iter().find(|(c, _)| *c == component)?.1;
    let major: u32 = version::upstream(version).split('.').next()?.parse().ok()?;
    let nova_major = major.checked_add(behind)?;
    SERIES
        .iter()
        .find(|(n, _)| *n == nova_major)
        .map(|(_, name)| *name)
}

/// A Sunbeam `openstack` snap tracks its series by channel (`2024.1`).
fn snap_series(package: &InstalledPackage) -> Option<&'static str> {
    if package.kind != "snap" || package.name != "openstack" {
        return None;
    }
    let track = package.version.split('/').next()?;
    SERIES
        .iter()
        .map(|(_, name)| *name)
        .find(|name| name.split(' ').next() == Some(track))
}

/// How well a package stands for its service's version: the shared library or engine
/// before a monitor or client plug-in (lower is better).
fn telling(release: &ServiceRelease) -> usize {
    let c = &release.component;
    let preferred = [
        format!("{c}-common"),
        format!("python3-{c}"),
        format!("{c}-engine"),
        format!("{c}-api"),
        format!("openstack-{c}-common"),
    ];
    preferred
        .iter()
        .position(|p| *p == release.package)
        .unwrap_or(preferred.len())
}

/// One release line per component and version found in the bundle's package lists, the
/// services that matter to instance HA first.
pub fn releases(analysis: &Analysis) -> Vec<ServiceRelease> {
    let host_name = |p: &InstalledPackage| {
        analysis
            .host(p.host)
            .map(|h| h.hostname.clone())
            .unwrap_or_default()
    };
    let mut found: Vec<ServiceRelease> = Vec::new();
    for package in &analysis.packages {
        let (component, series) = if let Some(series) = snap_series(package) {
            ("openstack", Some(series))
        } else if let Some(component) = component_of(&package.name) {
            (component, series_of(component, &package.version))
        } else {
            continue;
        };
        // One line per component and version, said by its most telling package.
        let line = ServiceRelease {
            component: component.to_string(),
            series: series.map(str::to_string),
            package: package.name.clone(),
            version: package.version.clone(),
            host: host_name(package),
        };
        match found
            .iter_mut()
            .find(|r| r.component == component && r.version == package.version)
        {
            Some(seen) if telling(&line) < telling(seen) => *seen = line,
            Some(_) => {}
            None => found.push(line),
        }
    }
    let rank = |c: &str| match c {
        "openstack" => 0,
        "masakari" => 1,
        "nova" => 2,
        "cinder" => 3,
        _ => 4,
    };
    found.sort_by(|a, b| {
        rank(&a.component)
            .cmp(&rank(&b.component))
            .then_with(|| a.component.cmp(&b.component))
    });
    found
}

/// The series most of the release lines name, when they name one.
pub fn main_series(releases: &[ServiceRelease]) -> Option<String> {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for series in releases.iter().filter_map(|r| r.series.as_deref()) {
        match counts.iter_mut().find(|(s, _)| *s == series) {
            Some((_, n)) => *n += 1,
            None => counts.push((series, 1)),
        }
    }
    counts
        .iter()
        .max_by_key(|(_, n)| *n)
        .map(|(s, _)| s.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn major_versions_name_their_series() {
        assert_eq!(
            series_of("nova", "3:29.0.1-0ubuntu1"),
            Some("2024.1 Caracal")
        );
        assert_eq!(
            series_of("masakari", "15.0.0-0ubuntu1"),
            Some("2023.1 Antelope")
        );
        assert_eq!(series_of("masakari", "13.0.1-1"), Some("Yoga"));
        assert_eq!(
            series_of("cinder", "2:23.0.0-0ubuntu1"),
            Some("2023.2 Bobcat")
        );
        assert_eq!(series_of("keystone", "2:17.0.0"), Some("Ussuri"));
        assert_eq!(series_of("nova", "99.0.0"), None);
        assert_eq!(series_of("glance", "27.0.0"), None);
        assert_eq!(series_of("nova", "not-a-version"), None);
    }

    #[test]
    fn package_names_of_every_packaging_map_to_their_service() {
        assert_eq!(component_of("nova-common"), Some("nova"));
        assert_eq!(component_of("python3-nova"), Some("nova"));
        assert_eq!(component_of("openstack-nova-api"), Some("nova"));
        assert_eq!(component_of("python3-masakari"), Some("masakari"));
        assert_eq!(component_of("masakari-engine"), Some("masakari"));
        assert_eq!(component_of("python3-novaclient"), None);
        assert_eq!(component_of("libvirt-daemon"), None);
    }

    #[test]
    fn a_sunbeam_snap_names_its_series_by_channel() {
        let snap = InstalledPackage {
            host: 0,
            name: "openstack".into(),
            version: "2024.1".into(),
            kind: "snap".into(),
            file: "sos_commands/snap/snap_list_--all".into(),
        };
        assert_eq!(snap_series(&snap), Some("2024.1 Caracal"));
    }
}
