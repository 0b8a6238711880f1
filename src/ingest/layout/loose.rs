//! Hosts of plain folders: logs gathered by hand, one folder per host
//! (`case/ctl1/masakari-engine.log`, `case/cmp1/nova-compute.log`), or several folders
//! given as separate inputs. No layout marks them (no `var/log/`, no `sos_commands/`),
//! so the folder structure is all there is to go by.

use std::collections::BTreeMap;

use super::{HostRoot, folder_host, root_of};
use crate::ingest::discover::Found;
use crate::ingest::role::{Role, role_of};
use crate::model::inventory::Layout;

/// Folder names that hold one host's logs of a service, not a host: a folder of them is
/// one host's log tree copied without its `var/log/`.
const LOG_DIRS: &[&str] = &[
    "apache2",
    "audit",
    "ceph",
    "cinder",
    "containers",
    "glance",
    "haproxy",
    "heat",
    "httpd",
    "journal",
    "juju",
    "keystone",
    "kolla",
    "libvirt",
    "log",
    "logs",
    "masakari",
    "masakarimonitors",
    "mysql",
    "neutron",
    "nova",
    "octavia",
    "openvswitch",
    "ovn",
    "pacemaker",
    "placement",
    "pods",
    "rabbitmq",
    "etc",
    "var",
];

fn is_log_dir(name: &str) -> bool {
    let lower = name.to_ascii_lowercase();
    LOG_DIRS.contains(&lower.as_str())
        || lower.starts_with("masakari")
        || lower.starts_with("nova")
        || lower.starts_with("cinder")
}

/// Host roots for the logs and configs no layout placed: per input (several inputs never
/// share a host), and inside an input one per subfolder when the logs sit in two or more
/// subfolders whose names are not service log folders.
pub(super) fn loose_roots(found: &Found, roots: &[HostRoot]) -> Vec<HostRoot> {
    // The placed-nowhere files, by the input they came from ("" for a single input).
    let several = found.inputs.len() > 1;
    let mut groups: BTreeMap<String, Vec<&str>> = BTreeMap::new();
    for file in &found.files {
        if root_of(roots, &file.rel).is_some()
            || !matches!(role_of(&file.rel), Role::Log(_) | Role::Config(_))
        {
            continue;
        }
        let group = match file.rel.split_once('/') {
            // Several inputs, or an archive given alone: each has its own folder.
            Some((first, _)) if several || is_archive_folder(found, first) => format!("{first}/"),
            _ => String::new(),
        };
        groups.entry(group).or_default().push(&file.rel);
    }
    let mut out = Vec::new();
    for (group, files) in groups {
        let base = common_wrapper(&group, &files);
        let mut subfolders: BTreeMap<&str, usize> = BTreeMap::new();
        let mut at_base = 0usize;
        for rel in &files {
            match rel[base.len()..].split_once('/') {
                Some((dir, _)) => *subfolders.entry(dir).or_default() += 1,
                None => at_base += 1,
            }
        }
        let hosts_by_folder = subfolders.len() >= 2 && !subfolders.keys().any(|d| is_log_dir(d));
        if hosts_by_folder {
            for dir in subfolders.keys() {
                out.push(plain_root(found, format!("{base}{dir}/")));
            }
        }
        // The group's own folder is a host when it is an input's folder (with several
        // inputs) or an archive's, and has logs of its own or no host subfolders.
        if !group.is_empty() && (at_base > 0 || !hosts_by_folder) {
            out.push(plain_root(found, group.clone()));
        }
    }
    out
}

/// True when `name` is the folder an archive input was unpacked into (a single input
/// that is not a folder: its files sit under the archive's stem).
fn is_archive_folder(found: &Found, name: &str) -> bool {
    found
        .files
        .iter()
        .any(|f| !f.given && f.rel.starts_with(name))
        && found.inputs.len() == 1
        && std::path::Path::new(found.inputs.first().map(String::as_str).unwrap_or("")).is_file()
}

/// The folder below `group` that every file lies in, descending through single
/// wrapper folders (`bundle.tar.gz` → `bundle/case-123/`), but not into a log folder.
fn common_wrapper(group: &str, files: &[&str]) -> String {
    let mut base = group.to_string();
    loop {
        let mut next: Option<&str> = None;
        for rel in files {
            let Some((dir, _)) = rel[base.len()..].split_once('/') else {
                return base;
            };
            match next {
                None => next = Some(dir),
                Some(d) if d == dir => {}
                Some(_) => return base,
            }
        }
        match next {
            Some(dir) if !is_log_dir(dir) && files.len() > 1 => base = format!("{base}{dir}/"),
            _ => return base,
        }
    }
}

fn plain_root(found: &Found, prefix: String) -> HostRoot {
    let (hostname, hostname_source) = folder_host(found, &prefix);
    HostRoot {
        prefix,
        layout: Layout::Plain,
        hostname,
        hostname_source,
        aliases: Vec::new(),
    }
}
