//! The host names a bundle gives, gathered before any line is redacted: the hosts of
//! the analysis (hostname files, juju status, sosreport names, names services log),
//! the hosts its lines mention (`Disable nova-compute on X`), failed hosts of
//! recoveries, `host =` options, and what the analysis identified in every file it read
//! (`/etc/hosts` entries, certificates, configs, captures: [`super::identify`]).

use crate::correlate::Analysis;

use super::names::Seeds;

/// Options whose value is a host name.
const HOST_OPTIONS: &[&str] = &["host", "hostname", "my_hostname", "server_name"];

/// The seeds of an analysis.
pub fn seeds_of(analysis: &Analysis) -> Seeds {
    // What the analysis identified in every file and record it read (`/etc/hosts`,
    // certificates, configs, captures, request dumps: `redact::identify`).
    let mut seeds = analysis.identified.clone();
    for host in &analysis.hosts {
        seeds.add_host(&host.hostname);
        for alias in &host.aliases {
            // Unit aliases (`nova-compute_0`) and machine ids (`3/lxd/4`) are not names.
            if !alias.contains(['/', '_']) {
                seeds.add_host(alias);
            }
        }
    }
    for event in &analysis.events {
        for host in event.mentioned_hosts() {
            seeds.add_host(host);
        }
    }
    for recovery in &analysis.recoveries {
        if let Some(host) = &recovery.failed_host {
            seeds.add_host(host);
        }
    }
    for value in &analysis.config {
        if HOST_OPTIONS.contains(&value.option.as_str()) {
            seeds.add_host(&value.value);
        }
    }
    seeds
}

/// Adds the names of an `/etc/hosts` file (`10.0.0.5 ctl1.example.com ctl1`).
pub fn add_etc_hosts(seeds: &mut Seeds, text: &str) {
    for line in text.lines() {
        let line = line.split('#').next().unwrap_or("");
        let mut words = line.split_whitespace();
        let Some(address) = words.next() else {
            continue;
        };
        // `fe80::1%eth0`: the zone id is not part of the address.
        let address = address.split('%').next().unwrap_or(address);
        if address.parse::<std::net::IpAddr>().is_err() {
            continue;
        }
        for name in words {
            seeds.add_host(name);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn etc_hosts_names_but_not_loopback_names() {
        let mut seeds = Seeds::default();
        add_etc_hosts(
            &mut seeds,
            "127.0.0.1 localhost\n10.0.0.5 ctl1.cloud.example.com ctl1 # controller\n::1 ip6-localhost\nnot an entry\nfe80::1ff:fe23:4567:890a%ens3 backup-store\n",
        );
        assert!(
            seeds.hosts.contains("backup-store"),
            "an address with a zone id"
        );
        assert!(seeds.hosts.contains("ctl1"));
        assert!(seeds.domains.contains("cloud.example.com"));
        assert!(!seeds.hosts.contains("localhost"));
    }
}
