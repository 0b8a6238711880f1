//! What the first pass of redaction identified in a bundle (host names, domains, users,
//! projects, secrets) and the kinds of values pseudonyms stand for: plain data that an
//! analysis carries and the redaction engine reads.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

/// Names that say nothing about the customer.
const GENERIC: &[&str] = &[
    "localhost",
    "localhost.localdomain",
    "localdomain",
    "none",
    "unknown",
    "local",
    "host",
    "compute",
    "controller",
];

/// What kind of value a pseudonym stands for (each kind has its own namespace).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Kind {
    /// A short host name (`node02ob100`).
    Host,
    /// A DNS domain (`maas`, `cloud.example.com`).
    Domain,
    /// An IPv4 /24 network (`10.159.14`).
    Ipv4Net,
    /// An IPv6 address.
    Ipv6,
    /// A MAC address.
    Mac,
    /// A user name.
    User,
    /// A project name.
    Project,
    /// A Keystone id (32 hex digits).
    KeystoneId,
    /// An e-mail address.
    Email,
    /// Any other word a public view does not know to be safe (default-deny).
    Name,
}

impl Kind {
    /// The kind's name in reports (`host`, `ipv4_net`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Host => "host",
            Kind::Domain => "domain",
            Kind::Ipv4Net => "ipv4_net",
            Kind::Ipv6 => "ipv6",
            Kind::Mac => "mac",
            Kind::User => "user",
            Kind::Project => "project",
            Kind::KeystoneId => "keystone_id",
            Kind::Email => "email",
            Kind::Name => "name",
        }
    }
}

/// The host names and domains to look for.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Seeds {
    /// Short host names, lowercase.
    pub hosts: BTreeSet<String>,
    /// Domains, lowercase (`maas`, `cloud.example.com`).
    pub domains: BTreeSet<String>,
    /// Users, projects and other names the inputs give (`username = …`, context
    /// brackets, a list's `Name` column), lowercase, with the kind of their pseudonym.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub names: BTreeMap<String, Kind>,
    /// Secret values the inputs give (a config's password, a URL's credentials, a
    /// private key's body): hidden wherever they appear.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub secrets: BTreeSet<String>,
}

impl Seeds {
    /// Adds what `other` holds (a user or project kind wins over a plain name).
    pub fn merge(&mut self, other: Seeds) {
        self.hosts.extend(other.hosts);
        self.domains.extend(other.domains);
        self.secrets.extend(other.secrets);
        for (name, kind) in other.names {
            let entry = self.names.entry(name).or_insert(kind);
            if *entry == Kind::Name {
                *entry = kind;
            }
        }
    }

    /// Adds a host name as the bundle gives it: short or fully qualified.
    pub fn add_host(&mut self, name: &str) {
        let name = name.trim().trim_end_matches('.').to_ascii_lowercase();
        let plausible = !name.is_empty()
            && name.len() <= 253
            && name.bytes().any(|b| b.is_ascii_alphabetic())
            && name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'.' || b == b'_')
            && !GENERIC.contains(&name.as_str())
            // Ids are kept or pseudonymised as ids, never as names.
            && crate::model::Uuid::parse(&name).is_none()
            && !(name.len() == 32 && name.bytes().all(|b| b.is_ascii_hexdigit()));
        if !plausible {
            return;
        }
        match name.split_once('.') {
            Some((short, domain)) => {
                if !GENERIC.contains(&short) && short.len() > 1 {
                    self.hosts.insert(short.to_string());
                }
                if !GENERIC.contains(&domain) && domain.bytes().any(|b| b.is_ascii_alphabetic()) {
                    self.domains.insert(domain.to_string());
                }
            }
            None if name.len() > 1 => {
                self.hosts.insert(name);
            }
            None => {}
        }
    }
}
