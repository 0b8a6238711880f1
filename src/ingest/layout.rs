//! Which deployment layout a bundle has, and where each host's folder starts in it.
//!
//! One case folder can hold several sosreports and crashdumps side by side with loose
//! captures, so layouts are found per folder ("host root"), not once per input.

use std::collections::{BTreeMap, HashSet};
use std::path::Path;

use serde::Serialize;

use super::discover::Found;
use super::sos_name::host_of_sos_name;

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
        // The status names no hostname and there is no hostname file: the machine id.
        assert_eq!(masakari.hostname, "3/lxd/4");
        assert_eq!(masakari.hostname_source, MACHINE_ID);
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

    /// Writes `files` (path, content) under a new temporary folder.
    fn tree(files: &[(&str, &str)]) -> (tempfile::TempDir, Found) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, content) in files {
            let path = dir.path().join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, content).unwrap();
        }
        let found = crate::ingest::discover::discover(
            &[dir.path().to_path_buf()],
            &dir.path().join("work-unused"),
        )
        .unwrap();
        (dir, found)
    }

    fn roots_of(found: &Found) -> Vec<HostRoot> {
        let abs: BTreeMap<&str, &Path> = found
            .files
            .iter()
            .map(|f| (f.rel.as_str(), f.abs.as_path()))
            .collect();
        host_roots(found, |rel| abs.get(rel).map(|p| p.to_path_buf()))
    }

    fn names(roots: &[HostRoot]) -> Vec<&str> {
        roots.iter().map(|r| r.hostname.as_str()).collect()
    }

    #[test]
    fn juju_tree_without_status_keeps_every_machine_and_container() {
        let log = "2024-07-22 11:04:10.212 3417 INFO nova.compute.manager [-] x\n";
        let mut files = Vec::new();
        let paths: Vec<String> = (0..5)
            .map(|n| format!("{n}/var/log/nova/nova-compute.log"))
            .chain((0..4).map(|n| format!("{n}/lxd/0/var/log/masakari/masakari-engine.log")))
            .collect();
        for p in &paths {
            files.push((p.as_str(), log));
        }
        let (_dir, found) = tree(&files);
        let roots = roots_of(&found);
        assert_eq!(roots.len(), 9, "{:?}", names(&roots));
        let mut got = names(&roots);
        got.sort_unstable();
        assert_eq!(
            got,
            [
                "0", "0/lxd/0", "1", "1/lxd/0", "2", "2/lxd/0", "3", "3/lxd/0", "4"
            ]
        );
        assert!(roots.iter().all(|r| r.layout == Layout::JujuCrashdump));
        assert!(roots.iter().all(|r| r.hostname_source == MACHINE_ID));
        let container =
            &roots[root_of(&roots, "2/lxd/0/var/log/masakari/masakari-engine.log").unwrap()];
        assert_eq!(container.prefix, "2/lxd/0/");
        assert!(container.aliases.contains(&"2/lxd/0".to_string()));
        let machine = &roots[root_of(&roots, "2/var/log/nova/nova-compute.log").unwrap()];
        assert_eq!(machine.prefix, "2/");
    }

    #[test]
    fn three_folder_juju_tree_and_hostname_files() {
        let (_dir, found) = tree(&[
            ("0/var/log/nova/nova-compute.log", "x\n"),
            ("0/etc/hostname", "node01ob100\n"),
            ("3/lxd/4/var/log/masakari/masakari-engine.log", "x\n"),
            ("3/lxd/4/hostname", "juju-4f2a1c-3-lxd-4\n"),
            ("3/lxd/6/var/log/nova/nova-api-wsgi.log", "x\n"),
        ]);
        let roots = roots_of(&found);
        assert_eq!(
            names(&roots),
            ["node01ob100", "juju-4f2a1c-3-lxd-4", "3/lxd/6"]
        );
        assert_eq!(roots[0].hostname_source, "etc/hostname");
        assert_eq!(roots[1].hostname_source, "hostname");
        // The machine id stays an alias of a host renamed by its hostname file.
        assert!(roots[0].aliases.contains(&"0".to_string()));
        assert!(roots[1].aliases.contains(&"3/lxd/4".to_string()));

        // The same machines in juju-crashdump's own shape.
        let (_dir, found) = tree(&[
            ("0/baremetal/var/log/nova/nova-compute.log", "x\n"),
            ("3/lxd/4/var/log/masakari/masakari-engine.log", "x\n"),
            ("3/lxd/6/var/log/nova/nova-api-wsgi.log", "x\n"),
        ]);
        assert_eq!(names(&roots_of(&found)), ["0", "3/lxd/4", "3/lxd/6"]);
    }

    #[test]
    fn numbered_folders_are_juju_machines_only_with_juju_marks() {
        let (_dir, found) = tree(&[
            ("1/var/log/nova/nova-compute.log", "x\n"),
            ("2/var/log/nova/nova-compute.log", "x\n"),
        ]);
        let roots = roots_of(&found);
        assert_eq!(names(&roots), ["1", "2"]);
        assert!(roots.iter().all(|r| r.layout == Layout::Plain));

        let (_dir, found) = tree(&[
            ("1/var/log/nova/nova-compute.log", "x\n"),
            ("1/var/log/juju/machine-1.log", "x\n"),
        ]);
        let roots = roots_of(&found);
        assert_eq!(roots[0].layout, Layout::JujuCrashdump);
        assert_eq!(roots[0].hostname_source, MACHINE_ID);
    }

    #[test]
    fn sosreport_folder_names_keep_dashed_host_names() {
        let (_dir, found) = tree(&[
            (
                "sosreport-cmp-01-2024-05-21-xkqpwza/sos_commands/date/date",
                "x\n",
            ),
            (
                "sosreport-cmp-01-2024-05-21-xkqpwza/var/log/nova/nova-compute.log",
                "x\n",
            ),
            (
                "sosreport-ctl-02-00345678-2024-05-21-abcdefg/sos_commands/date/date",
                "x\n",
            ),
            (
                "sosreport-db-03-2024-05-21-qwertyu/sos_commands/host/hostname",
                "db-03.example.com\n",
            ),
        ]);
        let roots = roots_of(&found);
        assert_eq!(names(&roots), ["cmp-01", "ctl-02", "db-03.example.com"]);
        assert_eq!(roots[0].hostname_source, "folder name");
        assert_eq!(roots[2].hostname_source, "sos_commands/host/hostname");
    }

    #[test]
    fn sosreport_given_as_the_input_is_named_after_the_input() {
        let dir = tempfile::tempdir().unwrap();
        let sos = dir.path().join("sosreport-cmp-01-2024-05-21-xkqpwza");
        std::fs::create_dir_all(sos.join("sos_commands/date")).unwrap();
        std::fs::write(sos.join("sos_commands/date/date"), "x\n").unwrap();
        let found =
            crate::ingest::discover::discover(&[sos], &dir.path().join("work-unused")).unwrap();
        assert_eq!(names(&roots_of(&found)), ["cmp-01"]);
    }
}
