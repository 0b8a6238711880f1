//! Placing the files discovery found: each file's host and role.

use std::collections::HashMap;
use std::path::Path;

use crate::ingest::discover::{Found, FoundFile};
use crate::ingest::layout::{HostRoot, host_roots, root_of};
use crate::ingest::role::{Role, role_of};
use crate::model::inventory::Host;
use crate::model::inventory::Layout;
use crate::model::inventory::ZoneSource;

/// The host of files that belong to none (loose captures and notes).
pub(crate) const NO_HOST: u32 = u32::MAX;

/// A file with its host and role decided.
pub(crate) struct Placed<'f> {
    pub(crate) file: &'f FoundFile,
    pub(crate) host: u32,
    /// Path inside the host folder.
    pub(crate) inner: String,
    pub(crate) role: Role,
    pub(crate) incomplete: Option<String>,
    /// A part of a file that mixes services (`ingest::split_sources`): where its lines
    /// are in the file.
    pub(crate) part_lines: Option<std::sync::Arc<crate::ingest::split_sources::PartLines>>,
}

/// A found tree laid out: its host roots, the host of each root, the hosts and every
/// file placed on one (the steps `analyze` and `watch` share).
pub(crate) struct Placement<'f> {
    pub roots: Vec<HostRoot>,
    pub root_host: Vec<u32>,
    pub hosts: Vec<Host>,
    pub placed: Vec<Placed<'f>>,
}

/// Lays out `found`: host roots (from the files' absolute paths), hosts, placed files.
pub(crate) fn place_all(found: &Found) -> Placement<'_> {
    let abs: HashMap<&str, &Path> = found
        .files
        .iter()
        .map(|f| (f.rel.as_str(), f.abs.as_path()))
        .collect();
    let roots = host_roots(found, |rel| abs.get(rel).map(|p| p.to_path_buf()));
    let (mut hosts, root_host) = hosts_of(&roots);
    let placed = place_files(found, &roots, &root_host, &mut hosts);
    Placement {
        roots,
        root_host,
        hosts,
        placed,
    }
}

/// One host per distinct host name (two bundles of one machine are one host).
pub(crate) fn hosts_of(roots: &[HostRoot]) -> (Vec<Host>, Vec<u32>) {
    let mut hosts: Vec<Host> = Vec::with_capacity(roots.len());
    for root in roots {
        let mut host = new_host(
            hosts.len() as u32,
            &root.hostname,
            root.hostname_source,
            root.layout,
        );
        host.roots.push(root.prefix.clone());
        for alias in &root.aliases {
            if !host.aliases.contains(alias) {
                host.aliases.push(alias.clone());
            }
        }
        hosts.push(host);
    }
    let root_host = (0..roots.len() as u32).collect();
    (hosts, root_host)
}

pub(crate) fn new_host(id: u32, hostname: &str, source: &'static str, layout: Layout) -> Host {
    Host {
        id,
        hostname: hostname.to_string(),
        hostname_source: source.to_string(),
        aliases: Vec::new(),
        roots: Vec::new(),
        layout,
        services: Vec::new(),
        zone: "UTC".into(),
        zone_source: ZoneSource::Default,
    }
}

/// Decides each file's host and role. Files outside any host folder (a single log
/// given on the command line, loose captures) go to a host named after the input.
pub(crate) fn place_files<'f>(
    found: &'f Found,
    roots: &[HostRoot],
    root_host: &[u32],
    hosts: &mut Vec<Host>,
) -> Vec<Placed<'f>> {
    // sos keeps the end of a large log under sos_strings/ and links the original path
    // to it: read the tail as the original file.
    let tailed: HashMap<&str, &str> = found
        .links
        .iter()
        .filter(|l| l.target.contains("sos_strings/"))
        .filter_map(|l| Some((l.target.rsplit('/').next()?, l.rel.as_str())))
        .collect();
    let mut loose_host: Option<u32> = None;
    let mut placed = Vec::new();
    for file in &found.files {
        let (logical, incomplete) = match file.rel.rsplit('/').next().and_then(|n| tailed.get(n)) {
            Some(original) if file.rel.contains("sos_strings/") => (
                original.to_string(),
                Some("tailed by sos: only the end of the file was collected".to_string()),
            ),
            _ => (file.rel.clone(), None),
        };
        let (host, inner) = match root_of(roots, &logical) {
            Some(r) => (root_host[r], logical[roots[r].prefix.len()..].to_string()),
            // Outside any host folder: only logs and configs need a host, and get one
            // named after the input.
            None if matches!(role_of(&logical), Role::Log(_) | Role::Config(_)) => {
                let id = *loose_host.get_or_insert_with(|| {
                    let name = found
                        .inputs
                        .first()
                        .and_then(|i| Path::new(i).file_name())
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "input".into());
                    hosts.push(new_host(
                        hosts.len() as u32,
                        &name,
                        "input name",
                        Layout::Plain,
                    ));
                    hosts.len() as u32 - 1
                });
                (id, logical.clone())
            }
            None => (NO_HOST, logical.clone()),
        };
        let role = if inner.contains("sos_strings/") && incomplete.is_none() {
            Role::Ignored("sos_strings copy without a link to its original path")
        } else {
            role_of(&inner)
        };
        if let (Role::Log(service) | Role::Config(service), Some(h)) =
            (&role, hosts.get_mut(host as usize))
            && !h.services.contains(&service.0)
        {
            h.services.push(service.0.clone());
        }
        placed.push(Placed {
            file,
            host,
            inner,
            role,
            incomplete,
            part_lines: None,
        });
    }
    drop_duplicate_journals(&mut placed);
    placed
}

/// A host's whole-journal capture holds the records its syslog (`var/log/syslog`,
/// `messages`) already has when rsyslog runs: read it only on hosts without one, and
/// only one capture per host (the shortest name: `journalctl_--no-pager`).
fn drop_duplicate_journals(placed: &mut [Placed<'_>]) {
    use crate::ingest::role::is_whole_journal;
    let is_syslog = |p: &Placed<'_>| matches!(&p.role, Role::Log(s) if s.name() == "syslog");
    let mut keep: HashMap<u32, Option<usize>> = HashMap::new();
    for (i, p) in placed.iter().enumerate() {
        if !is_syslog(p) {
            continue;
        }
        let slot = keep.entry(p.host).or_insert(None);
        if !is_whole_journal(&p.inner) {
            *slot = Some(usize::MAX); // a syslog file: no journal needed
        } else if let Some(k) = *slot {
            if k != usize::MAX && p.inner.len() < placed[k].inner.len() {
                *slot = Some(i);
            }
        } else {
            *slot = Some(i);
        }
    }
    for (i, p) in placed.iter_mut().enumerate() {
        if is_syslog(p) && is_whole_journal(&p.inner) && keep.get(&p.host) != Some(&Some(i)) {
            p.role = Role::Ignored("a journal capture with the records of the host's syslog");
        }
    }
}
