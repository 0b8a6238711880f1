//! Host names from a host's own lines, for hosts whose folder gave only a juju machine
//! id ([`crate::ingest::layout::MACHINE_ID`]).
//!
//! Reading counts, per file, the names a host writes about itself ([`HostNameVotes`]);
//! after reading, [`HostNames`] gathers them per host with the `host =` options of its
//! configs and renames the hosts that have nothing better. In order of trust:
//! 1. the host field of its syslog and journal lines (the system's own host name);
//! 2. the names its services log for themselves: nova-compute's
//!    `Compute_service record updated for <host>:<node>`, masakari-monitors'
//!    `Libvirt Event: type=VM, hostname=<host>, ...`, the `'hostname'` of the VM and
//!    PROCESS notifications it sends (a COMPUTE_HOST notification names another host),
//!    `'<host>' is unstable state on cluster.`;
//! 3. `host = ` in the `[DEFAULT]` section of its nova, masakari or masakari-monitors
//!    config (what those services call themselves).
//!
//! Within one kind the most frequent name wins.

use std::collections::BTreeMap;

use evacdoc_parsers::Record;
use evacdoc_parsers::line::{Content, Wrapper};

use super::layout::MACHINE_ID;

/// The most distinct names kept per kind (a central syslog file names many hosts; the
/// host's own name is among the first and the most frequent).
const MAX_NAMES: usize = 64;

/// Names a file's records give their host, counted per kind of evidence.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct HostNameVotes {
    /// Host fields of syslog and journal prefixes.
    journal: BTreeMap<String, u64>,
    /// Names services log for themselves.
    service: BTreeMap<String, u64>,
    /// `host = ` options of the host's configs.
    config: BTreeMap<String, u64>,
}

impl HostNameVotes {
    /// Counts the names `record` gives its own host.
    pub fn feed(&mut self, record: &Record<'_>) {
        self.feed_journal(&record.head);
        if let Content::Oslo(o) = &record.head.content
            && let Some(name) = own_name(o.logger, o.message)
        {
            count(&mut self.service, name);
        }
    }

    /// Counts the host field of `head`'s journal or syslog prefix, if it has one: what
    /// [`HostNameVotes::feed`] counts of a record besides its service's own name.
    pub fn feed_journal(&mut self, head: &evacdoc_parsers::Line<'_>) {
        if let Some(Wrapper::Syslog(s)) = &head.wrapper {
            count(&mut self.journal, s.host);
        }
    }

    /// True when [`HostNameVotes::feed`] of a record whose first line is `head` counts
    /// nothing but what [`HostNameVotes::feed_journal`] counts, whatever was fed before:
    /// no wrapper or a journal one, and no name of its own in an oslo line. False when
    /// unsure.
    pub fn counts_nothing(head: &evacdoc_parsers::Line<'_>) -> bool {
        if !matches!(head.wrapper, None | Some(Wrapper::Syslog(_))) {
            return false;
        }
        match &head.content {
            Content::Oslo(o) => own_name(o.logger, o.message).is_none(),
            _ => false,
        }
    }

    /// Counts an option of the host's configs, if it is a service's `host`.
    pub fn config_option(&mut self, service: &str, section: &str, option: &str, value: &str) {
        let named = matches!(
            service,
            "nova" | "nova-compute" | "masakari" | "masakarimonitors"
        );
        if named && section.eq_ignore_ascii_case("DEFAULT") && option == "host" {
            count(&mut self.config, value.trim());
        }
    }

    /// Adds the counts of `other`.
    pub fn merge(&mut self, other: &HostNameVotes) {
        for (mine, theirs) in [
            (&mut self.journal, &other.journal),
            (&mut self.service, &other.service),
            (&mut self.config, &other.config),
        ] {
            for (name, n) in theirs {
                if mine.len() < MAX_NAMES || mine.contains_key(name) {
                    *mine.entry(name.clone()).or_default() += n;
                }
            }
        }
    }

    /// The most trusted name and where it came from.
    pub fn winner(&self) -> Option<(&str, &'static str)> {
        fn best(names: &BTreeMap<String, u64>) -> Option<&str> {
            // Most votes; on a tie the first name in order, for a stable answer.
            names
                .iter()
                .max_by(|a, b| a.1.cmp(b.1).then_with(|| b.0.cmp(a.0)))
                .map(|(name, _)| name.as_str())
        }
        best(&self.journal)
            .map(|n| (n, "journal host field"))
            .or_else(|| best(&self.service).map(|n| (n, "service log lines")))
            .or_else(|| best(&self.config).map(|n| (n, "host option of its config")))
    }
}

fn count(names: &mut BTreeMap<String, u64>, name: &str) {
    // Called for every journal line: a name seen before costs one lookup.
    if let Some(n) = names.get_mut(name) {
        *n += 1;
    } else if names.len() < MAX_NAMES && plausible(name) {
        names.insert(name.to_string(), 1);
    }
}

/// A host name a host could have: not an address, not a placeholder.
fn plausible(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 253
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'))
        && name.bytes().any(|b| b.is_ascii_alphabetic())
        && !["localhost", "localhost.localdomain", "none", "(none)"]
            .iter()
            .any(|p| name.eq_ignore_ascii_case(p))
        && name.parse::<std::net::IpAddr>().is_err()
}

/// The name a service's message gives its own host, if it gives one.
fn own_name<'a>(logger: &str, message: &'a str) -> Option<&'a str> {
    if logger.starts_with("nova.compute") {
        // `Compute_service record updated for cmp1:cmp1.maas` (host:node).
        let rest = message.strip_prefix("Compute_service record updated for ")?;
        return rest.split(':').next().map(str::trim);
    }
    if !logger.starts_with("masakarimonitors") {
        return None;
    }
    let value_after = |key: &str, end: &[char]| {
        let at = message.find(key)? + key.len();
        message[at..].split(end).next().map(str::trim)
    };
    if message.starts_with("Libvirt Event: ") {
        return value_after("hostname=", &[',', ' ']);
    }
    if message.starts_with("libvirt Event Received.") {
        return value_after("hostname = ", &[' ']);
    }
    if message.starts_with("Send a notification.") {
        // The instance and process monitors report their own host; the host monitor
        // reports the host that failed.
        let own = [
            "'type': 'VM'",
            "'type': 'PROCESS'",
            "\"type\": \"VM\"",
            "\"type\": \"PROCESS\"",
        ]
        .iter()
        .any(|t| message.contains(t));
        if !own {
            return None;
        }
        return value_after("'hostname': '", &['\''])
            .or_else(|| value_after("\"hostname\": \"", &['"']));
    }
    message
        .strip_suffix("' is unstable state on cluster.")?
        .strip_prefix('\'')
}

/// What the hosts' records and configs say about their names, gathered after reading.
#[derive(Debug, Default)]
pub struct HostNames {
    by_host: BTreeMap<u32, HostNameVotes>,
}

impl HostNames {
    /// Gathers each file's votes (by the host id of the file) and each config option (by
    /// host id, service, section, option and value).
    pub fn gather<'a, 'c>(
        files: impl IntoIterator<Item = (u32, &'a HostNameVotes)>,
        config: impl IntoIterator<Item = (u32, &'c str, &'c str, &'c str, &'c str)>,
    ) -> HostNames {
        let mut names = HostNames::default();
        for (host, votes) in files {
            names.by_host.entry(host).or_default().merge(votes);
        }
        for (host, service, section, option, value) in config {
            names
                .by_host
                .entry(host)
                .or_default()
                .config_option(service, section, option, value);
        }
        names
    }

    /// Renames host `id`, if only its machine id named it and its lines or configs give
    /// a name. The machine id stays among its aliases (the layout put it there).
    pub fn rename(&self, id: u32, hostname: &mut String, source: &mut String) {
        if *source != MACHINE_ID {
            return;
        }
        if let Some((name, from)) = self.by_host.get(&id).and_then(HostNameVotes::winner) {
            *hostname = name.to_string();
            *source = from.to_string();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use evacdoc_parsers::Records;

    fn votes(text: &str) -> HostNameVotes {
        let mut votes = HostNameVotes::default();
        for record in Records::new(text) {
            votes.feed(&record);
        }
        votes
    }

    #[test]
    fn journal_host_fields_win_over_service_lines() {
        let v = votes(concat!(
            "2020-12-08 19:47:38.112 2211 INFO nova.compute.resource_tracker [req-7a1c2e40-1b2d-4c3e-9f40-5a6b7c8d9e0f - - - - -] Compute_service record updated for node02ob100.maas:node02ob100.maas\n",
            "Dec  8 19:47:39 juju-4f2a1c-1 systemd[1]: Started Session 12 of user ubuntu.\n",
            "Dec  8 19:47:40 juju-4f2a1c-1 nova-compute[2211]: 2020-12-08 19:47:40.001 2211 INFO nova.compute.manager [-] Running instance usage audit\n",
        ));
        assert_eq!(v.winner(), Some(("juju-4f2a1c-1", "journal host field")));
        let v = votes(
            "2020-12-08 19:47:38.112 2211 INFO nova.compute.resource_tracker [req-7a1c2e40-1b2d-4c3e-9f40-5a6b7c8d9e0f - - - - -] Compute_service record updated for node02ob100.maas:node02ob100.maas\n",
        );
        assert_eq!(v.winner(), Some(("node02ob100.maas", "service log lines")));
    }

    #[test]
    fn masakari_monitors_name_their_own_host_not_the_failed_one() {
        let v = votes(concat!(
            "2024-10-08 15:42:17.301 1093 INFO masakarimonitors.instancemonitor.libvirt_handler.callback [-] Libvirt Event: type=VM, hostname=cmp1, uuid=e3b1f7c2-5a94-4d0e-b8f6-2c7a9d1e4f58, time=2024-10-08 06:42:17.300874, event_id=LIFECYCLE, detail=STOPPED_FAILED)\n",
            "2024-10-08 15:42:17.302 1093 INFO masakarimonitors.ha.masakari [-] Send a notification. {'notification': {'type': 'VM', 'hostname': 'cmp1', 'generated_time': datetime.datetime(2024, 10, 8, 6, 42, 17, 300874), 'payload': {'event': 'LIFECYCLE', 'instance_uuid': 'e3b1f7c2-5a94-4d0e-b8f6-2c7a9d1e4f58', 'vir_domain_event': 'STOPPED_FAILED'}}}\n",
        ));
        assert_eq!(v.winner(), Some(("cmp1", "service log lines")));
        assert_eq!(v.service.get("cmp1"), Some(&2));

        let hostmonitor = votes(concat!(
            "2025-06-17 14:03:04.104 19 INFO masakarimonitors.hostmonitor.host_handler.handle_host [-] 'cmp02' is 'offline'.\n",
            "2025-06-17 14:03:04.414 19 INFO masakarimonitors.ha.masakari [-] Send a notification. {'notification': {'type': 'COMPUTE_HOST', 'hostname': 'cmp02', 'generated_time': datetime.datetime(2025, 6, 17, 12, 3, 4, 106512), 'payload': {'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}}}\n",
        ));
        assert_eq!(hostmonitor.winner(), None);
        let unstable = votes(
            "2025-06-17 14:03:04.104 19 WARNING masakarimonitors.hostmonitor.host_handler.handle_host [-] 'cmp01' is unstable state on cluster.\n",
        );
        assert_eq!(unstable.winner(), Some(("cmp01", "service log lines")));
    }

    #[test]
    fn addresses_and_placeholders_are_no_names() {
        let v = votes(concat!(
            "Dec  8 19:47:39 10.5.0.12 systemd[1]: Started Session 12 of user ubuntu.\n",
            "Dec  8 19:47:39 localhost systemd[1]: Started Session 13 of user ubuntu.\n",
        ));
        assert_eq!(v.winner(), None);
    }

    #[test]
    fn config_host_options_come_last_and_only_from_named_services() {
        let mut v = HostNameVotes::default();
        v.config_option("cinder", "DEFAULT", "host", "cinder@rbd");
        v.config_option("nova", "libvirt", "host", "x");
        assert_eq!(v.winner(), None);
        v.config_option("nova", "DEFAULT", "host", "cmp02");
        assert_eq!(v.winner(), Some(("cmp02", "host option of its config")));
    }

    #[test]
    fn only_hosts_named_by_machine_id_are_renamed() {
        let file = votes(
            "Dec  8 19:47:39 juju-4f2a1c-3-lxd-4 systemd[1]: Started Session 12 of user ubuntu.\n",
        );
        let names = HostNames::gather(
            [(4, &file), (5, &file)],
            [(6, "nova", "DEFAULT", "host", "cmp9")],
        );
        let (mut name, mut source) = ("3/lxd/4".to_string(), MACHINE_ID.to_string());
        names.rename(4, &mut name, &mut source);
        assert_eq!(
            (name.as_str(), source.as_str()),
            ("juju-4f2a1c-3-lxd-4", "journal host field")
        );
        let (mut name, mut source) = ("ctl01".to_string(), "etc/hostname".to_string());
        names.rename(5, &mut name, &mut source);
        assert_eq!(name, "ctl01");
        let (mut name, mut source) = ("2".to_string(), MACHINE_ID.to_string());
        names.rename(6, &mut name, &mut source);
        assert_eq!(name, "cmp9");
        let (mut name, mut source) = ("7".to_string(), MACHINE_ID.to_string());
        names.rename(7, &mut name, &mut source);
        assert_eq!((name.as_str(), source.as_str()), ("7", MACHINE_ID));
    }
}
