//! Which deployment layout a bundle has, and where each host's folder starts in it.
//!
//! One case folder can hold several sosreports and crashdumps side by side with loose
//! captures, so layouts are found per folder ("host root"), not once per input.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Serialize;

use super::discover::Found;

/// A deployment layout.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, serde::Deserialize,
)]
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

/// A folder that holds one host's files.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostRoot {
    /// Path prefix of the folder relative to the input root, ending in `/` (or empty).
    pub prefix: String,
    /// The layout the folder was recognised by.
    pub layout: Layout,
    /// The host name the bundle gives (hostname file, juju status), or a name from the
    /// folder.
    pub hostname: String,
    /// Where the host name came from.
    pub hostname_source: &'static str,
    /// Other names of the host (juju unit aliases, machine ids, addresses).
    pub aliases: Vec<String>,
}

/// The index of the longest root whose prefix starts `rel`.
pub fn root_of(roots: &[HostRoot], rel: &str) -> Option<usize> {
    roots
        .iter()
        .enumerate()
        .filter(|(_, r)| rel.starts_with(&r.prefix))
        .max_by_key(|(_, r)| r.prefix.len())
        .map(|(i, _)| i)
}

/// Position of `marker` in `rel` at a path-component boundary.
fn component_find(rel: &str, marker: &str) -> Option<usize> {
    let mut from = 0;
    while let Some(found) = rel.get(from..)?.find(marker) {
        let at = from + found;
        if at == 0 || rel.as_bytes().get(at - 1) == Some(&b'/') {
            return Some(at);
        }
        from = at + 1;
    }
    None
}

/// Reads the first line of a small text file, if it exists.
fn first_line(path: &Path) -> Option<String> {
    let text = std::fs::read(path).ok()?;
    let text = String::from_utf8_lossy(&text);
    let line = text.lines().map(str::trim).find(|l| !l.is_empty())?;
    Some(line.to_string())
}

/// Machine folder → (hostname, unit names), from `juju_status.yaml`.
fn juju_machines(path: &Path) -> BTreeMap<String, (Option<String>, Vec<String>)> {
    let mut machines: BTreeMap<String, (Option<String>, Vec<String>)> = BTreeMap::new();
    let Ok(bytes) = std::fs::read(path) else {
        return machines;
    };
    let Ok(status) = serde_yaml_ng::from_slice::<serde_yaml_ng::Value>(&bytes) else {
        return machines;
    };
    let hostname = |m: &serde_yaml_ng::Value| {
        m.get("hostname")
            .and_then(|h| h.as_str())
            .map(str::to_string)
    };
    if let Some(list) = status.get("machines").and_then(|m| m.as_mapping()) {
        for (id, machine) in list {
            let Some(id) = id.as_str() else { continue };
            machines.entry(id.to_string()).or_default().0 = hostname(machine);
            if let Some(containers) = machine.get("containers").and_then(|c| c.as_mapping()) {
                for (cid, container) in containers {
                    if let Some(cid) = cid.as_str() {
                        machines.entry(cid.to_string()).or_default().0 = hostname(container);
                    }
                }
            }
        }
    }
    if let Some(apps) = status.get("applications").and_then(|a| a.as_mapping()) {
        for (_, app) in apps {
            let Some(units) = app.get("units").and_then(|u| u.as_mapping()) else {
                continue;
            };
            for (unit, detail) in units {
                let (Some(unit), Some(machine)) = (
                    unit.as_str(),
                    detail.get("machine").and_then(|m| m.as_str()),
                ) else {
                    continue;
                };
                machines
                    .entry(machine.to_string())
                    .or_default()
                    .1
                    .push(unit.to_string());
            }
        }
    }
    machines
}

/// The juju machine id of a crashdump folder path: `3/lxd/4/...` → `3/lxd/4`,
/// `0/baremetal/...` → `0`.
fn juju_machine(rest: &str) -> Option<(String, String)> {
    let mut parts = rest.split('/');
    let first = parts.next()?;
    if first.is_empty() || !first.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    match parts.next()? {
        "baremetal" => Some((format!("{first}/baremetal/"), first.to_string())),
        kind @ ("lxd" | "kvm") => {
            let n = parts.next()?;
            n.bytes().all(|b| b.is_ascii_digit()).then(|| {
                (
                    format!("{first}/{kind}/{n}/"),
                    format!("{first}/{kind}/{n}"),
                )
            })
        }
        _ => None,
    }
}

/// Finds every host root of the inputs; `read_root` maps a relative path to the file on
/// disk so hostname files can be read.
pub fn host_roots(
    found: &Found,
    abs_of: impl Fn(&str) -> Option<std::path::PathBuf>,
) -> Vec<HostRoot> {
    let mut roots: Vec<HostRoot> = Vec::new();
    fn add(roots: &mut Vec<HostRoot>, root: HostRoot) {
        if !roots.iter().any(|r| r.prefix == root.prefix) {
            roots.push(root);
        }
    }
    let read = |rel: &str| abs_of(rel).and_then(|p| first_line(&p));

    // juju-crashdump machines.
    for status in found
        .files
        .iter()
        .filter(|f| f.rel.ends_with("juju_status.yaml"))
    {
        let base = status.rel.trim_end_matches("juju_status.yaml");
        let machines = juju_machines(&status.abs);
        for file in found.files.iter().filter(|f| f.rel.starts_with(base)) {
            let Some((prefix, machine)) = juju_machine(&file.rel[base.len()..]) else {
                continue;
            };
            let prefix = format!("{base}{prefix}");
            if roots.iter().any(|r| r.prefix == prefix) {
                continue;
            }
            let (juju_name, units) = machines.get(&machine).cloned().unwrap_or_default();
            let (hostname, source) = match (juju_name, read(&format!("{prefix}etc/hostname"))) {
                (Some(name), _) => (name, "juju_status.yaml"),
                (None, Some(name)) => (name, "etc/hostname"),
                (None, None) => (
                    format!("machine-{}", machine.replace('/', "-")),
                    "folder name",
                ),
            };
            let mut aliases: Vec<String> = units.iter().map(|u| u.replace('/', "_")).collect();
            aliases.extend(units);
            aliases.push(machine);
            add(
                &mut roots,
                HostRoot {
                    prefix,
                    layout: Layout::JujuCrashdump,
                    hostname,
                    hostname_source: source,
                    aliases,
                },
            );
        }
    }

    // sosreports, and Sunbeam pods inside them.
    for file in &found.files {
        let Some(at) = component_find(&file.rel, "sos_commands/") else {
            continue;
        };
        let prefix = file.rel[..at].to_string();
        if let Some(pod_at) = file.rel.find("/podlogs/") {
            let rest = &file.rel[pod_at + "/podlogs/".len()..];
            if let Some((pod, _)) = rest.split_once('/') {
                add(
                    &mut roots,
                    HostRoot {
                        prefix: format!("{}{pod}/", &file.rel[..pod_at + "/podlogs/".len()]),
                        layout: Layout::Sunbeam,
                        hostname: pod.to_string(),
                        hostname_source: "pod name",
                        aliases: Vec::new(),
                    },
                );
            }
        }
        if roots.iter().any(|r| r.prefix == prefix) {
            continue;
        }
        let from_files = read(&format!("{prefix}hostname"))
            .map(|h| (h, "hostname"))
            .or_else(|| {
                read(&format!("{prefix}sos_commands/host/hostname"))
                    .map(|h| (h, "sos_commands/host/hostname"))
            })
            .or_else(|| read(&format!("{prefix}etc/hostname")).map(|h| (h, "etc/hostname")));
        let (hostname, source) = from_files.unwrap_or_else(|| {
            let folder = prefix
                .trim_end_matches('/')
                .rsplit('/')
                .next()
                .unwrap_or("");
            let name = folder
                .strip_prefix("sosreport-")
                .and_then(|rest| rest.split('-').next())
                .unwrap_or(folder);
            (name.to_string(), "folder name")
        });
        add(
            &mut roots,
            HostRoot {
                prefix,
                layout: Layout::Sosreport,
                hostname,
                hostname_source: source,
                aliases: Vec::new(),
            },
        );
    }

    // Any other folder with var/log or etc: one host per such folder.
    for file in &found.files {
        if root_of(&roots, &file.rel).is_some() {
            continue;
        }
        let at = ["var/log/", "etc/", "var/snap/", "var/lib/config-data/"]
            .iter()
            .filter_map(|m| component_find(&file.rel, m))
            .min();
        let Some(at) = at else { continue };
        let prefix = file.rel[..at].to_string();
        let layout = if found
            .files
            .iter()
            .any(|f| f.rel.starts_with(&format!("{prefix}var/log/kolla/")))
        {
            Layout::Kolla
        } else if found
            .files
            .iter()
            .any(|f| f.rel.starts_with(&format!("{prefix}var/log/containers/")))
        {
            Layout::Tripleo
        } else {
            Layout::Plain
        };
        let folder = prefix
            .trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or("");
        let (hostname, source) = match read(&format!("{prefix}etc/hostname")) {
            Some(name) => (name, "etc/hostname"),
            None if !folder.is_empty() => (folder.to_string(), "folder name"),
            None => {
                let input = found.inputs.first().map(String::as_str).unwrap_or("input");
                let name = Path::new(input)
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_else(|| "localhost".into());
                (name, "input name")
            }
        };
        add(
            &mut roots,
            HostRoot {
                prefix,
                layout,
                hostname,
                hostname_source: source,
                aliases: Vec::new(),
            },
        );
    }
    // Link aliases (juju unit symlinks at the top: masakari_0 -> 3/lxd/4).
    for link in &found.links {
        let target = link.target.trim_end_matches('/');
        let base = link
            .rel
            .rsplit_once('/')
            .map(|(d, _)| format!("{d}/"))
            .unwrap_or_default();
        let target_prefix = format!("{base}{target}/");
        if let Some(root) = roots.iter_mut().find(|r| r.prefix == target_prefix) {
            let alias = link.rel.rsplit('/').next().unwrap_or(&link.rel).to_string();
            if !root.aliases.contains(&alias) {
                root.aliases.push(alias);
            }
        }
    }
    roots
}

/// The layout of the whole analysis: the most specific one found.
pub fn overall_layout(roots: &[HostRoot]) -> Layout {
    roots
        .iter()
        .map(|r| r.layout)
        .min()
        .unwrap_or(Layout::Plain)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ingest::discover::{FoundFile, FoundLink};

    fn found(paths: &[&str]) -> Found {
        Found {
            files: paths
                .iter()
                .map(|p| FoundFile {
                    rel: p.to_string(),
                    abs: std::path::PathBuf::from("/nonexistent").join(p),
                    size: 1,
                    given: false,
                })
                .collect(),
            inputs: vec!["/cases/00123".into()],
            ..Found::default()
        }
    }

    #[test]
    fn case_folder_with_sosreports_and_loose_captures() {
        let f = found(&[
            "sosreport-ctl1-2024-05-21-xkqpwz/sos_commands/date/date",
            "sosreport-ctl1-2024-05-21-xkqpwz/var/log/masakari/masakari-engine.log",
            "sosreport-cmp2-2024-05-21-ab12cd/sos_commands/date/date",
            "sosreport-cmp2-2024-05-21-ab12cd/var/log/nova/nova-compute.log",
            "notification-show.txt",
        ]);
        let roots = host_roots(&f, |_| None);
        assert_eq!(roots.len(), 2);
        assert_eq!(roots[0].hostname, "ctl1");
        assert_eq!(roots[0].layout, Layout::Sosreport);
        assert_eq!(root_of(&roots, "notification-show.txt"), None);
        assert_eq!(
            root_of(
                &roots,
                "sosreport-cmp2-2024-05-21-ab12cd/var/log/nova/nova-compute.log"
            ),
            Some(1)
        );
    }

    #[test]
    fn juju_machines_and_unit_links() {
        let mut f = found(&[
            "juju_status.yaml",
            "3/lxd/4/var/log/masakari/masakari-engine.log",
            "0/baremetal/var/log/nova/nova-compute.log",
        ]);
        f.links.push(FoundLink {
            rel: "masakari_0".into(),
            target: "3/lxd/4".into(),
        });
        let roots = host_roots(&f, |_| None);
        assert_eq!(roots.len(), 2);
        let masakari =
            &roots[root_of(&roots, "3/lxd/4/var/log/masakari/masakari-engine.log").unwrap()];
        assert_eq!(masakari.layout, Layout::JujuCrashdump);
        assert_eq!(masakari.hostname, "machine-3-lxd-4");
        assert!(masakari.aliases.contains(&"masakari_0".to_string()));
        assert_eq!(overall_layout(&roots), Layout::JujuCrashdump);
    }

    #[test]
    fn kolla_host_folders_and_sunbeam_pods() {
        let f = found(&[
            "ctl01/var/log/kolla/masakari/masakari-engine.log",
            "cmp01/var/log/kolla/nova/nova-compute.log",
        ]);
        let roots = host_roots(&f, |_| None);
        assert_eq!(roots.len(), 2);
        assert!(roots.iter().all(|r| r.layout == Layout::Kolla));
        assert_eq!(roots[0].hostname, "ctl01");

        let f = found(&[
            "sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_masakari-engine",
            "var/log/syslog",
        ]);
        let roots = host_roots(&f, |_| None);
        let pod = root_of(
            &roots,
            "sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0/x",
        )
        .unwrap();
        assert_eq!(roots[pod].hostname, "masakari-0");
        assert_eq!(overall_layout(&roots), Layout::Sunbeam);
    }
}
