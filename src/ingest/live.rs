//! What live inputs hold now, for the watcher: the logs to follow with the host and the
//! service the same rules as for a bundle give them (layouts, host folders, file roles),
//! and what the small files beside them say (configs, captures, zones). Compressed logs
//! and numbered rotations are not followed: they are finished files, and the current
//! file under the log's name is the one that grows.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::ingest::IngestError;
use crate::ingest::discover::discover;
use crate::ingest::layout::overall_layout;
use crate::ingest::place::{NO_HOST, Placement, place_all};
use crate::ingest::role::{Role, rotation};
use crate::ingest::small_files::{read_small_files, zones_of_links};
use crate::ingest::timezone::HostZone;
use crate::model::Service;
use crate::model::inventory::{CaptureFile, ConfigValue, Host, Layout, Skipped};

/// A log to follow.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LiveLog {
    /// Where it is on disk.
    pub abs: PathBuf,
    /// Path relative to the input root (as evidence cites it).
    pub rel: String,
    /// Its host, an index in [`LiveScan::hosts`].
    pub host: u32,
    /// The service its name says (refined from its loggers once read, as for bundles).
    pub service: Service,
}

/// What a scan of the live inputs found.
#[derive(Debug)]
pub struct LiveScan {
    /// The hosts, named as for a bundle.
    pub hosts: Vec<Host>,
    /// The deployment layout.
    pub layout: Layout,
    /// The logs to follow.
    pub logs: Vec<LiveLog>,
    /// Configuration values.
    pub config: Vec<ConfigValue>,
    /// CLI captures.
    pub captures: Vec<CaptureFile>,
    /// The zone each host's own settings name.
    pub zones: BTreeMap<u32, HostZone>,
    /// Small files that could not be read.
    pub skipped: Vec<Skipped>,
    /// Size and modification time of every file that is not a followed log: when it
    /// changes, the small files are worth reading again.
    pub fingerprint: Vec<(String, u64, Option<std::time::SystemTime>)>,
}

/// Whether a log file is a finished one: compressed, or a numbered rotation.
fn finished_rotation(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let compressed = [".gz", ".xz", ".zst", ".bz2"]
        .iter()
        .any(|ext| name.ends_with(ext));
    compressed || rotation(name).1 != 0
}

/// Scans `inputs` (folders or log files) as they are now.
pub fn scan(inputs: &[PathBuf]) -> Result<LiveScan, IngestError> {
    let work = tempfile::Builder::new()
        .prefix("evacdoc-watch-")
        .tempdir()
        .map_err(|source| IngestError::Io {
            path: std::env::temp_dir(),
            source,
        })?;
    let found = discover(inputs, work.path())?;
    let Placement {
        roots,
        root_host,
        hosts,
        placed,
    } = place_all(&found);
    let mut fingerprint = Vec::new();
    let mut small = Vec::new();
    let mut logs = Vec::new();
    for p in placed {
        match &p.role {
            Role::Log(service) => {
                if p.host != NO_HOST && !finished_rotation(&p.file.rel) {
                    logs.push(LiveLog {
                        abs: p.file.abs.clone(),
                        rel: p.file.rel.clone(),
                        host: p.host,
                        service: service.clone(),
                    });
                }
            }
            _ => {
                let modified = std::fs::metadata(&p.file.abs)
                    .and_then(|m| m.modified())
                    .ok();
                fingerprint.push((p.file.rel.clone(), p.file.size, modified));
                small.push(p);
            }
        }
    }
    let mut skipped = Vec::new();
    let (mut read, _) = read_small_files(small, &mut skipped);
    zones_of_links(&found, &roots, &root_host, &mut read.zones);
    fingerprint.sort();
    Ok(LiveScan {
        hosts,
        layout: overall_layout(&roots),
        logs,
        config: read.config,
        captures: read.captures,
        zones: read.zones,
        skipped,
        fingerprint,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn logs_get_the_hosts_and_services_of_their_folders_and_rotations_are_left_out() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |rel: &str, text: &str| {
            let path = root.join(rel);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write("ctl01/etc/timezone", "Etc/UTC\n");
        write("ctl01/var/log/kolla/masakari/masakari-engine.log", "");
        write("ctl01/var/log/kolla/masakari/masakari-engine.log.1", "");
        write("ctl01/var/log/kolla/masakari/masakari-engine.log.2.gz", "");
        write("ctl01/var/log/kolla/nova/nova-api.log", "");
        write(
            "ctl01/etc/kolla/nova-api/nova.conf",
            "[DEFAULT]\nservice_down_time = 60\n",
        );
        write("cmp01/etc/timezone", "Etc/UTC\n");
        write("cmp01/var/log/kolla/nova/nova-compute.log", "");
        let scan = scan(&[root.to_path_buf()]).unwrap();
        let mut logs: Vec<(String, String, String)> = scan
            .logs
            .iter()
            .map(|l| {
                (
                    scan.hosts[l.host as usize].hostname.clone(),
                    l.rel.clone(),
                    l.service.name().to_string(),
                )
            })
            .collect();
        logs.sort();
        assert_eq!(
            logs,
            vec![
                (
                    "cmp01".into(),
                    "cmp01/var/log/kolla/nova/nova-compute.log".into(),
                    "nova-compute".into()
                ),
                (
                    "ctl01".into(),
                    "ctl01/var/log/kolla/masakari/masakari-engine.log".into(),
                    "masakari-engine".into()
                ),
                (
                    "ctl01".into(),
                    "ctl01/var/log/kolla/nova/nova-api.log".into(),
                    "nova-api".into()
                ),
            ]
        );
        assert!(
            scan.config
                .iter()
                .any(|c| c.option == "service_down_time" && c.value == "60"),
            "{:?}",
            scan.config
        );
    }
}
