//! Which deployment layout a bundle has, and where each host's folder starts in it.
//!
//! One case folder can hold several sosreports and crashdumps side by side with loose
//! captures, so layouts are found per folder ("host root"), not once per input.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use super::discover::Found;
use super::sos_name::host_of_sos_name;
use crate::model::inventory::Layout;

mod loose;

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

/// Machine id → (hostname, unit names), as `juju_status.yaml` gives them.
type StatusMachines = BTreeMap<String, (Option<String>, Vec<String>)>;

/// The machines of a `juju_status.yaml`.
fn juju_machines(path: &Path) -> StatusMachines {
    let mut machines = StatusMachines::new();
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

/// Where the name of a host with no better evidence than its juju machine folder came
/// from; such hosts may be renamed from their own lines after reading
/// ([`crate::ingest::host_names`]).
pub const MACHINE_ID: &str = "machine id";

/// A juju-crashdump machine folder found in a path.
#[derive(Clone, Debug, PartialEq, Eq)]
struct JujuMachine {
    /// The folder holding the machine folders (where `juju_status.yaml` would be).
    base: String,
    /// The machine folder: `3/lxd/4/`, `0/baremetal/`, or `0/` in trees that leave out
    /// `baremetal`.
    prefix: String,
    /// The machine id: `3/lxd/4`, `0`.
    id: String,
    /// A top-level machine without `baremetal/`: only a juju folder if something else
    /// says the tree is a crashdump.
    bare: bool,
}

/// The juju machine folder `rel` lies in: `3/lxd/4/...`, `0/baremetal/...`, or
/// `0/var/log/...`, found before the host's own folders (`var/`, `etc/`) start.
fn juju_machine(rel: &str) -> Option<JujuMachine> {
    let parts: Vec<&str> = rel.split('/').collect();
    let number = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let mut offset = 0;
    for (i, part) in parts.iter().enumerate() {
        if matches!(*part, "var" | "etc" | "sos_commands") {
            return None;
        }
        if number(part) {
            let base = rel[..offset].to_string();
            let found = |prefix_len: usize, id: String, bare: bool| JujuMachine {
                base: base.clone(),
                prefix: rel[..prefix_len].to_string(),
                id,
                bare,
            };
            let after = offset + part.len() + 1;
            match (parts.get(i + 1), parts.get(i + 2), parts.get(i + 3)) {
                (Some(&"baremetal"), Some(_), _) => {
                    return Some(found(after + "baremetal/".len(), part.to_string(), false));
                }
                (Some(kind @ (&"lxd" | &"kvm")), Some(n), Some(_)) if number(n) => {
                    return Some(found(
                        after + kind.len() + 1 + n.len() + 1,
                        format!("{part}/{kind}/{n}"),
                        false,
                    ));
                }
                (Some(&("var" | "etc")), Some(_), _) => {
                    return Some(found(after, part.to_string(), true));
                }
                _ => {}
            }
        }
        offset += part.len() + 1;
    }
    None
}

/// The juju machines of every crashdump-shaped folder, `juju_status.yaml` or not.
fn juju_roots(found: &Found, read: &dyn Fn(&str) -> Option<String>) -> Vec<HostRoot> {
    // One entry per machine folder, in path order; the folders holding juju's own logs.
    let mut machines: Vec<JujuMachine> = Vec::new();
    let mut seen: HashSet<String> = HashSet::new();
    let mut juju_logs: HashSet<String> = HashSet::new();
    for file in &found.files {
        let Some(machine) = juju_machine(&file.rel) else {
            continue;
        };
        let inner = &file.rel[machine.prefix.len()..];
        if inner.starts_with("var/log/juju/") || inner.starts_with("var/lib/juju/") {
            juju_logs.insert(machine.prefix.clone());
        }
        if seen.insert(machine.prefix.clone()) {
            machines.push(machine);
        }
    }
    // A bare numbered folder is a machine when its tree has juju's marks: a status
    // file, container or `baremetal` folders beside it, or juju's own logs inside it.
    let statuses: BTreeMap<&str, &Path> = found
        .files
        .iter()
        .filter_map(|f| Some((f.rel.strip_suffix("juju_status.yaml")?, f.abs.as_path())))
        .filter(|(base, _)| base.is_empty() || base.ends_with('/'))
        .collect();
    let shaped_bases: HashSet<&str> = machines
        .iter()
        .filter(|m| !m.bare)
        .map(|m| m.base.as_str())
        .collect();
    let mut status_of: BTreeMap<&str, StatusMachines> = BTreeMap::new();
    let mut roots: Vec<HostRoot> = Vec::new();
    for machine in &machines {
        let juju_marked = statuses.contains_key(machine.base.as_str())
            || shaped_bases.contains(machine.base.as_str())
            || juju_logs.contains(&machine.prefix);
        if machine.bare && !juju_marked {
            continue;
        }
        let status = status_of.entry(machine.base.as_str()).or_insert_with(|| {
            statuses
                .get(machine.base.as_str())
                .map(|path| juju_machines(path))
                .unwrap_or_default()
        });
        let (juju_name, units) = status.get(&machine.id).cloned().unwrap_or_default();
        let prefix = &machine.prefix;
        let (hostname, source) = juju_name
            .map(|name| (name, "juju_status.yaml"))
            .or_else(|| read(&format!("{prefix}etc/hostname")).map(|h| (h, "etc/hostname")))
            .or_else(|| read(&format!("{prefix}hostname")).map(|h| (h, "hostname")))
            .unwrap_or_else(|| (machine.id.clone(), MACHINE_ID));
        let mut aliases: Vec<String> = units.iter().map(|u| u.replace('/', "_")).collect();
        aliases.extend(units);
        aliases.push(machine.id.clone());
        roots.push(HostRoot {
            prefix: prefix.clone(),
            layout: Layout::JujuCrashdump,
            hostname,
            hostname_source: source,
            aliases,
        });
    }
    roots
}

/// The host a folder's name gives: its last component (the input's name for the input
/// root itself), read as a sosreport name when it is one.
fn folder_host(found: &Found, prefix: &str) -> (String, &'static str) {
    let folder = prefix
        .trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or("");
    let (name, source) = if folder.is_empty() {
        let input = found.inputs.first().map(String::as_str).unwrap_or("input");
        let name = Path::new(input)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| "localhost".into());
        (name, "input name")
    } else {
        (folder.to_string(), "folder name")
    };
    match host_of_sos_name(&name) {
        Some(host) => (host.to_string(), source),
        None => (name, source),
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
    roots.extend(juju_roots(found, &read));

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
        let (hostname, source) = from_files.unwrap_or_else(|| folder_host(found, &prefix));
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

    // Any other folder with var/log, etc or Docker's logs: one host per such folder.
    for file in &found.files {
        if root_of(&roots, &file.rel).is_some() {
            continue;
        }
        // Docker's own log folder alone makes a host too: a node copied with only its
        // containers' json-file logs.
        let at = [
            "var/log/",
            "etc/",
            "var/snap/",
            "var/lib/config-data/",
            "var/lib/docker/containers/",
        ]
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
        let (hostname, source) = match read(&format!("{prefix}etc/hostname")) {
            Some(name) => (name, "etc/hostname"),
            None => folder_host(found, &prefix),
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
    // Plain folders of logs: per input, and per host subfolder.
    for root in loose::loose_roots(found, &roots) {
        add(&mut roots, root);
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
mod tests;
