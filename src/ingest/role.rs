//! What a file is, from its path inside a host's folder: which service's log or config,
//! or another piece of evidence (package list, time zone, CLI capture).

use crate::model::Service;

/// The role of a file in a bundle.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// A service log (read line by line).
    Log(Service),
    /// An oslo.config file of a service.
    Config(Service),
    /// Package versions (`dpkg -l`, `rpm -qa`, `snap list`).
    Packages,
    /// Time zone or clock evidence (`etc/timezone`, `sos_commands/date/date`, ...).
    Clock,
    /// The host name (`etc/hostname`, sos `hostname`).
    Hostname,
    /// A file that may hold captured OpenStack CLI output (decided by content).
    MaybeCapture,
    /// Not read, with the reason.
    Ignored(&'static str),
}

/// Strips log-rotation suffixes: `x.log.1` → `x.log`, `x.log.2.gz` → `x.log`,
/// `x.log-20240521.gz` → `x.log`, and returns the rotation number (0 for the current file).
pub fn rotation(name: &str) -> (&str, u32) {
    let mut base = name;
    for ext in [".gz", ".xz", ".zst", ".bz2"] {
        if let Some(stripped) = base.strip_suffix(ext) {
            base = stripped;
            break;
        }
    }
    if let Some((stem, n)) = base.rsplit_once('.')
        && !n.is_empty()
        && n.len() <= 3
        && n.bytes().all(|b| b.is_ascii_digit())
    {
        return (stem, n.parse().unwrap_or(0));
    }
    // logrotate `dateext`: name-YYYYMMDD; older is smaller, so invert for ordering.
    if let Some((stem, date)) = base.rsplit_once('-')
        && date.len() == 8
        && date.bytes().all(|b| b.is_ascii_digit())
    {
        let n: u32 = date.parse().unwrap_or(0);
        return (stem, 100_000_000 - n);
    }
    (base, 0)
}

/// Service names of well-known log files, by file stem.
fn known_log_service(stem: &str) -> Option<&'static str> {
    Some(match stem {
        "masakari-engine" => "masakari-engine",
        // `masakari-manage db sync` loads the engine's taskflow code: its loggers must not
        // make it an engine log.
        "masakari-manage" => "masakari-manage",
        "nova-manage" => "nova-manage",
        "masakari-api" | "masakari_wsgi" | "masakari-wsgi" => "masakari-api",
        "masakari_error" => "masakari-api-error",
        "masakari_access" | "masakari_wsgi_access" | "masakari-api-access" => "masakari-api-access",
        "masakari-hostmonitor" => "masakari-hostmonitor",
        "masakari-instancemonitor" => "masakari-instancemonitor",
        "masakari-processmonitor" => "masakari-processmonitor",
        "masakari-introspectiveinstancemonitor" => "masakari-introspectiveinstancemonitor",
        "nova-api" | "nova-api-wsgi" | "nova-api-os-compute" | "nova-api-uwsgi" => "nova-api",
        "nova-api-os-compute_access" | "nova-api-access" | "nova_api_wsgi_access" => {
            "nova-api-access"
        }
        "nova-api-os-compute_error" | "nova-api-error" | "nova_api_wsgi_error" => "nova-api-error",
        "nova-compute" => "nova-compute",
        "nova-conductor" => "nova-conductor",
        "nova-scheduler" => "nova-scheduler",
        "nova-metadata-api" | "nova-api-metadata" => "nova-metadata",
        "nova-placement-api" | "placement-api" => "placement-api",
        "cinder-api" | "cinder-wsgi" | "cinder_api" => "cinder-api",
        "cinder_access" | "cinder-api-access" | "cinder_wsgi_access" => "cinder-api-access",
        "cinder-volume" | "volume" => "cinder-volume",
        "cinder-scheduler" => "cinder-scheduler",
        "keystone" | "keystone-wsgi-public" | "keystone-apache-public-error" => "keystone",
        "keystone_access" | "keystone-apache-public-access" => "keystone-access",
        _ => return None,
    })
}

/// A known service name inside a longer file stem, as people name the files they
/// gather from several hosts into one folder: `node02_nova-compute`,
/// `ctl1-masakari-engine`, `3_lxd_4_nova-api-os-compute_access`, `nova-compute-node02`.
/// Only names of two words or more count (`volume` or `keystone` alone say too little).
fn embedded_log_service(stem: &str) -> Option<&'static str> {
    let multi_word = |s: &str| s.contains(['-', '_']);
    // The longest known suffix that starts after a separator.
    let suffix = stem
        .char_indices()
        .filter(|&(_, c)| matches!(c, '-' | '_' | '.'))
        .find_map(|(i, _)| {
            let rest = stem.get(i + 1..)?;
            known_log_service(rest).filter(|_| multi_word(rest))
        });
    // Else the longest known prefix that ends before a separator.
    suffix.or_else(|| {
        stem.char_indices()
            .rev()
            .filter(|&(_, c)| matches!(c, '-' | '_' | '.'))
            .find_map(|(i, _)| {
                let (head, tail) = (stem.get(..i)?, stem.get(i + 1..)?);
                // `masakari_wsgi_access` is the access log, not the service's own.
                let qualifier = ["access", "error", "wsgi"].iter().any(|q| tail.contains(q));
                known_log_service(head).filter(|_| multi_word(head) && !qualifier)
            })
    })
}

/// The service of a Sunbeam pod-log container (`..._logs_nova-0_-c_nova-api`).
fn pod_container_service(container: &str) -> String {
    match container {
        // The nova-api container runs Apache: access lines and oslo lines together.
        "nova-api" => "nova-api".into(),
        other => other.to_string(),
    }
}

/// The known service a container or pod name stands for: `nova-compute`, `nova_compute`
/// (Kolla), `masakari-engine-0` (a StatefulSet pod), `nova-compute-default-abcde` or
/// `nova-api-osapi-7d9f8c6b5-x2x9k` (openstack-helm pods), trying the longest name first.
fn container_name_service(name: &str) -> Option<&'static str> {
    let name = name.replace('_', "-");
    let mut candidate = name.as_str();
    loop {
        // openstack-helm names the nova-api-osapi pod's container `nova-osapi`.
        let helm = match candidate {
            "nova-osapi" | "nova-api-osapi" => Some("nova-api"),
            "masakari-engine-api" => Some("masakari-api"),
            _ => None,
        };
        if let Some(service) = helm.or_else(|| known_log_service(candidate)) {
            return Some(service);
        }
        candidate = candidate.rsplit_once('-')?.0;
    }
}

/// The known service a line's writer stands for: a syslog program, a container, a pebble
/// service (`nova-api`, `masakari_engine`, `nova-compute-0`); `None` for any other.
pub(crate) fn source_service(name: &str) -> Option<&'static str> {
    // DevStack's systemd units: `devstack@n-cpu.service`.
    if let Some(unit) = name.strip_prefix("devstack@") {
        let unit = unit.trim_end_matches(".service");
        return devstack_service(unit).or_else(|| container_name_service(unit));
    }
    container_name_service(name)
}

/// The service of a DevStack short name (its `screen-<name>.txt` log in an upstream CI
/// job's logs, its `devstack@<name>.service` unit); `None` for names it does not shorten.
fn devstack_service(short: &str) -> Option<&'static str> {
    Some(match short {
        "n-cpu" => "nova-compute",
        "n-api" => "nova-api",
        "n-api-meta" => "nova-metadata",
        "n-sch" => "nova-scheduler",
        "c-api" => "cinder-api",
        "c-vol" => "cinder-volume",
        "c-sch" => "cinder-scheduler",
        // The super conductor and the cells' conductors (`n-cond-cell1`).
        s if s == "n-super-cond" || s.starts_with("n-cond") => "nova-conductor",
        _ => return None,
    })
}

/// The service of a container log: its container's name, else its pod's, else the
/// container name as it is (the loggers inside then name the service).
fn container_service(container: &str, pod: &str) -> Service {
    let known = container_name_service(container).or_else(|| container_name_service(pod));
    Service::new(known.unwrap_or(container))
}

/// Container log files: the kubelet's `var/log/pods/<ns>_<pod>_<uid>/<container>/<n>.log`
/// (rotated `<n>.log.<date>[.gz]`), its links `var/log/containers/<pod>_<ns>_<container>-<id>.log`,
/// and Docker's `var/lib/docker/containers/<id>/<id>-json.log[.<n>]`.
fn container_log(rel: &str) -> Option<Service> {
    let parts: Vec<&str> = rel.split('/').collect();
    let at = |dirs: [&str; 3]| parts.windows(3).position(|w| w == dirs);
    if let Some(i) = at(["var", "log", "pods"]) {
        let [pod_dir, container, file] = parts.get(i + 3..)? else {
            return None;
        };
        if !file.contains(".log") {
            return None;
        }
        let pod = pod_dir.split('_').nth(1).unwrap_or(pod_dir);
        return Some(container_service(container, pod));
    }
    if let Some(i) = at(["var", "log", "containers"]) {
        let [file] = parts.get(i + 3..)? else {
            return None;
        };
        let stem = file.strip_suffix(".log")?;
        let [pod, _namespace, container_id] = stem.split('_').collect::<Vec<_>>()[..] else {
            return None;
        };
        let (container, id) = container_id.rsplit_once('-')?;
        if id.len() < 12 || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return None;
        }
        return Some(container_service(container, pod));
    }
    if let Some(i) = at(["var", "lib", "docker"]) {
        let ["containers", id, file] = parts.get(i + 3..)? else {
            return None;
        };
        if !file.starts_with(&format!("{id}-json.log")) {
            return None;
        }
        // Docker's path names no container: the loggers inside name the service.
        return Some(Service::new(format!(
            "docker-{}",
            id.get(..12).unwrap_or(id)
        )));
    }
    None
}

/// A sos command output of the cluster evacdoc reads: a file right in
/// `sos_commands/pacemaker/` or `sos_commands/rabbitmq/`.
fn cluster_command(lower: &str) -> bool {
    ["sos_commands/pacemaker/", "sos_commands/rabbitmq/"]
        .iter()
        .filter_map(|dir| lower.strip_prefix(dir))
        .any(|name| !name.contains('/'))
}

/// True for sos's captures of the whole journal: `sos_commands/logs/journalctl_--no-pager`
/// (sos 4), `journalctl_--no-pager_--boot`, `journalctl_--all_--this-boot_--no-pager`
/// (older sos). Not the per-unit ones (`--unit_<svc>`, read as that service) nor the
/// journal's own statistics (`--disk-usage`, `--list-boots`).
pub fn is_whole_journal(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    rel.starts_with("sos_commands/logs/")
        && name.starts_with("journalctl_")
        && name.contains("--no-pager")
        && !["--unit", "--disk-usage", "--list-boots", "--output"]
            .iter()
            .any(|w| name.contains(w))
}

/// The role of `rel`, a path inside a host folder (`var/log/nova/nova-compute.log`).
pub fn role_of(rel: &str) -> Role {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let lower = rel.to_ascii_lowercase();

    if let Some(service) = container_log(rel) {
        return Role::Log(service);
    }

    // Sunbeam pod logs: sos_commands/kubernetes/.../podlogs/<pod>/k8s_kubectl_..._logs_<pod>_-c_<container>
    if let Some((_, container)) = name.rsplit_once("_-c_")
        && name.contains("_logs_")
    {
        return Role::Log(Service::new(pod_container_service(container)));
    }
    // Journal captures: journalctl_--no-pager_--unit_nova-compute
    if let Some((_, unit)) = name.split_once("--unit_") {
        let unit = unit.trim_end_matches(".service");
        let unit = unit.rsplit('.').next().unwrap_or(unit);
        return Role::Log(Service::new(unit));
    }
    if lower.starts_with("sos_commands/") {
        if is_whole_journal(rel) {
            // The whole journal (services without a log_file log only there); dropped
            // again in place_files when the host's syslog holds the same records.
            return Role::Log(Service::new("syslog"));
        }
        return match name {
            "dpkg_-l" | "installed-debs" | "rpm_-qa" => Role::Packages,
            n if n.starts_with("snap_list") || n.starts_with("installed-rpms") => Role::Packages,
            "date" | "date_--utc" | "timedatectl" | "hwclock" => Role::Clock,
            // chronyc tracking, ntpq -p: the host's own word on its clock.
            n if evacdoc_parsers::clock::tool_of(n).is_some() => Role::Clock,
            "hostname" => Role::Hostname,
            _ if lower.contains("/openstack") || lower.contains("masakari") => Role::MaybeCapture,
            // The cluster's own commands (`pcs stonith history show`, `crm_mon`), not
            // crm_report's copies of whole logs below them.
            _ if cluster_command(&lower) => Role::MaybeCapture,
            _ => Role::Ignored("sos command output evacdoc does not read"),
        };
    }
    match rel {
        "hostname" | "etc/hostname" => return Role::Hostname,
        "etc/timezone" | "etc/localtime" | "date" => return Role::Clock,
        "installed-debs" | "installed-rpms" => return Role::Packages,
        _ => {}
    }
    if name.ends_with(".conf") || name.ends_with(".ini") {
        let stem = name.trim_end_matches(".conf").trim_end_matches(".ini");
        let service = match stem {
            "masakari" | "masakarimonitors" | "nova" | "nova-compute" | "cinder" | "keystone"
            | "placement" => stem,
            // DevStack's compute reads `/etc/nova/nova-cpu.conf`.
            "nova-cpu" => "nova-compute",
            _ => return Role::Ignored("configuration evacdoc does not read"),
        };
        if lower.contains("/apache2/") || lower.contains("/httpd/") {
            return Role::Ignored("web server configuration");
        }
        return Role::Config(Service::new(service));
    }
    let in_logs = lower.starts_with("var/log/")
        || lower.contains("/var/log/")
        || lower.starts_with("var/snap/openstack-hypervisor/common/")
        || lower.starts_with("log/");
    let (base, _) = rotation(name);
    let stem = base.strip_suffix(".log").unwrap_or(base);
    if let Some(service) = known_log_service(stem).or_else(|| embedded_log_service(stem)) {
        return Role::Log(Service::new(service));
    }
    if in_logs {
        if base.ends_with(".log") || base.ends_with("_log") {
            // An unknown service's log: named after its file, read if the content fits.
            let dir = rel.rsplit('/').nth(1).unwrap_or("");
            let service = if dir.is_empty() || dir == "log" {
                stem.to_string()
            } else {
                format!("{dir}/{stem}")
            };
            return Role::Log(Service::new(service));
        }
        if matches!(base, "syslog" | "messages" | "kern.log") {
            return Role::Log(Service::new("syslog"));
        }
        return Role::Ignored("not a log file");
    }
    // An upstream CI job's DevStack logs: `logs/screen-n-cpu.txt[.gz]`, each one
    // unit's journal (read as a log of the service its short name stands for; another
    // name's loggers then say which service wrote it).
    if let Some(short) = base
        .strip_prefix("screen-")
        .and_then(|s| s.strip_suffix(".txt"))
        .filter(|s| !s.is_empty())
    {
        let known = devstack_service(short).or_else(|| known_log_service(short));
        return Role::Log(Service::new(known.unwrap_or(short)));
    }
    if name.ends_with(".txt")
        || name.ends_with(".json")
        || name.ends_with(".yaml")
        || !name.contains('.')
    {
        return Role::MaybeCapture;
    }
    if base.ends_with(".log") {
        return Role::Log(Service::new(stem));
    }
    Role::Ignored("not a log, config or capture")
}

/// Services whose names evacdoc knows from the file name (what `known_log_service`
/// gives): the loggers of their lines never rename them.
const CANONICAL: [&str; 21] = [
    "masakari-engine",
    "masakari-manage",
    "nova-manage",
    "masakari-api",
    "masakari-api-error",
    "masakari-api-access",
    "masakari-hostmonitor",
    "masakari-instancemonitor",
    "masakari-processmonitor",
    "nova-api",
    "nova-api-access",
    "nova-api-error",
    "nova-compute",
    "nova-conductor",
    "nova-scheduler",
    "cinder-api",
    "cinder-api-access",
    "cinder-volume",
    "cinder-scheduler",
    "keystone",
    "keystone-access",
];

/// True when a file's name gave one of the service names the detectors know.
pub fn is_canonical(service: &Service) -> bool {
    CANONICAL.contains(&service.name())
}

/// The service of a log whose name says nothing (a file handed over on its own, renamed),
/// from the oslo.log logger names of its first lines.
pub fn service_from_loggers(text: &str) -> Option<Service> {
    const BY_LOGGER: [(&str, &str); 12] = [
        ("masakari.engine", "masakari-engine"),
        ("masakari.compute", "masakari-engine"),
        ("masakari.api", "masakari-api"),
        ("masakari.ha", "masakari-api"),
        ("masakarimonitors", "masakari-hostmonitor"),
        ("nova.compute.manager", "nova-compute"),
        ("nova.virt", "nova-compute"),
        ("nova.api", "nova-api"),
        ("nova.osapi_compute", "nova-api"),
        ("nova.conductor", "nova-conductor"),
        ("cinder.volume", "cinder-volume"),
        ("cinder.api", "cinder-api"),
    ];
    let mut counts = [0usize; BY_LOGGER.len()];
    for line in text.lines().take(500) {
        if let evacdoc_parsers::Content::Oslo(o) = evacdoc_parsers::parse_line(line).content
            && let Some(i) = BY_LOGGER
                .iter()
                .position(|(prefix, _)| o.logger.starts_with(prefix))
        {
            counts[i] += 1;
        }
    }
    let (best, n) = counts.iter().enumerate().max_by_key(|(_, n)| **n)?;
    (*n > 0).then(|| Service::new(BY_LOGGER[best].1))
}

#[cfg(test)]
mod tests;
