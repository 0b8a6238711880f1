//! The pseudonym map of a case: real value → pseudonym, per kind of value.
//!
//! Pseudonyms are derived from a keyed hash of the value (the key is random per map and
//! kept in it), so the same value gets the same pseudonym in every file whatever order
//! the files are read in, and in later uploads of the same case that reuse the map.
//! Collisions are resolved by probing; the map records every pair so that a reuse gives
//! the same answer even for a probed one.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

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

/// Why a map could not be read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum MapError {
    /// Reading or writing the file failed.
    #[error("{path}: {source}")]
    Io {
        /// The map file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// The file is not a pseudonym map.
    #[error("{path}: not an evacdoc pseudonym map: {reason}")]
    Format {
        /// The map file.
        path: String,
        /// What is wrong.
        reason: String,
    },
}

/// The schema name written into every map file.
pub const MAP_SCHEMA: &str = "evacdoc.pseudonym-map/v1";

/// A case's pseudonyms.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct PseudonymMap {
    schema: String,
    /// Hex key of the hash pseudonyms are derived from.
    key: String,
    /// Real → pseudonym, per kind.
    entries: BTreeMap<Kind, BTreeMap<String, String>>,
    /// Pseudonym → real, to refuse a second value the same pseudonym.
    #[serde(skip)]
    taken: HashMap<(Kind, String), String>,
}

impl PseudonymMap {
    /// A new map with a random key.
    pub fn new() -> PseudonymMap {
        let key: [u8; 16] = rand::random();
        PseudonymMap::with_key(&hex::encode(key))
    }

    /// A new map with a given key (tests, reproducible runs).
    pub fn with_key(key: &str) -> PseudonymMap {
        PseudonymMap {
            schema: MAP_SCHEMA.into(),
            key: key.into(),
            entries: BTreeMap::new(),
            taken: HashMap::new(),
        }
    }

    /// Reads a map written by [`PseudonymMap::save`].
    pub fn load(path: &Path) -> Result<PseudonymMap, MapError> {
        let text = std::fs::read_to_string(path).map_err(|source| MapError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let mut map: PseudonymMap = serde_json::from_str(&text).map_err(|e| MapError::Format {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        if map.schema != MAP_SCHEMA {
            return Err(MapError::Format {
                path: path.display().to_string(),
                reason: format!("schema {:?}, expected {MAP_SCHEMA:?}", map.schema),
            });
        }
        for (kind, pairs) in &map.entries {
            for (real, pseudo) in pairs {
                map.taken.insert((*kind, pseudo.clone()), real.clone());
            }
        }
        Ok(map)
    }

    /// Writes the map, readable by its owner only (it undoes the redaction).
    pub fn save(&self, path: &Path) -> Result<(), MapError> {
        let io = |source| MapError::Io {
            path: path.display().to_string(),
            source,
        };
        let text = serde_json::to_string_pretty(self).map_err(|e| MapError::Format {
            path: path.display().to_string(),
            reason: e.to_string(),
        })?;
        let tmp = path.with_extension("tmp");
        {
            use std::io::Write;
            let mut options = std::fs::OpenOptions::new();
            options.write(true).create(true).truncate(true);
            #[cfg(unix)]
            {
                use std::os::unix::fs::OpenOptionsExt;
                options.mode(0o600);
            }
            let mut file = options.open(&tmp).map_err(io)?;
            file.write_all(text.as_bytes()).map_err(io)?;
            file.sync_all().map_err(io)?;
        }
        std::fs::rename(&tmp, path).map_err(io)
    }

    /// The pseudonym already given to `real`, if any.
    pub fn get(&self, kind: Kind, real: &str) -> Option<&str> {
        self.entries.get(&kind)?.get(real).map(String::as_str)
    }

    /// Every pair of one kind.
    pub fn pairs(&self, kind: Kind) -> impl Iterator<Item = (&str, &str)> {
        self.entries
            .get(&kind)
            .into_iter()
            .flatten()
            .map(|(r, p)| (r.as_str(), p.as_str()))
    }

    /// The pseudonym of `real`, made and recorded on first use.
    pub fn pseudonym(&mut self, kind: Kind, real: &str) -> String {
        if let Some(p) = self.get(kind, real) {
            return p.to_string();
        }
        let mut probe = 0u32;
        let pseudo = loop {
            let candidate = render(kind, &self.digest(kind, real, probe));
            if !self.taken.contains_key(&(kind, candidate.clone())) {
                break candidate;
            }
            probe += 1;
        };
        self.taken.insert((kind, pseudo.clone()), real.to_string());
        self.entries
            .entry(kind)
            .or_default()
            .insert(real.to_string(), pseudo.clone());
        pseudo
    }

    fn digest(&self, kind: Kind, real: &str, probe: u32) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.key.as_bytes());
        h.update([0]);
        h.update(format!("{kind:?}").as_bytes());
        h.update([0]);
        h.update(real.as_bytes());
        h.update(probe.to_le_bytes());
        h.finalize().into()
    }
}

/// Anything that hands out a case's pseudonyms: the map itself, or a thread's view of
/// a shared one.
pub trait Pseudonyms {
    /// The pseudonym of `real`, made and recorded on first use.
    fn pseudonym(&mut self, kind: Kind, real: &str) -> String;
}

impl Pseudonyms for PseudonymMap {
    fn pseudonym(&mut self, kind: Kind, real: &str) -> String {
        PseudonymMap::pseudonym(self, kind, real)
    }
}

/// One thread's view of a map shared by threads redacting files in parallel: answers it
/// has seen are cached, new values go to the shared map (which resolves collisions once
/// for everybody).
#[derive(Debug)]
pub struct SharedMap<'a> {
    shared: &'a std::sync::Mutex<PseudonymMap>,
    /// Per kind (by its place in [`Kind`]), real → pseudonym (looked up by `&str`: no
    /// key allocated per word, and no hash of the kind).
    cache: Vec<HashMap<String, String>>,
}

impl<'a> SharedMap<'a> {
    /// A view of `shared`.
    pub fn new(shared: &'a std::sync::Mutex<PseudonymMap>) -> SharedMap<'a> {
        SharedMap {
            shared,
            cache: Vec::new(),
        }
    }
}

impl Pseudonyms for SharedMap<'_> {
    fn pseudonym(&mut self, kind: Kind, real: &str) -> String {
        let at = kind as usize;
        if let Some(p) = self.cache.get(at).and_then(|m| m.get(real)) {
            return p.clone();
        }
        let p = match self.shared.lock() {
            Ok(mut map) => map.pseudonym(kind, real),
            Err(poisoned) => poisoned.into_inner().pseudonym(kind, real),
        };
        if self.cache.len() <= at {
            self.cache.resize_with(at + 1, HashMap::new);
        }
        if let Some(m) = self.cache.get_mut(at) {
            m.insert(real.to_string(), p.clone());
        }
        p
    }
}

impl Default for PseudonymMap {
    fn default() -> Self {
        PseudonymMap::new()
    }
}

/// The pseudonym of one kind from hash bytes. Every form is still a valid value of its
/// kind, so that the redacted bundle parses and joins as the original does.
fn render(kind: Kind, d: &[u8; 32]) -> String {
    let hex6 = hex::encode(&d[..3]);
    match kind {
        Kind::Host => format!("host-{hex6}"),
        Kind::Domain => format!("domain-{hex6}.invalid"),
        // 10.0.0.0/8 has room for 65,536 networks of 256.
        Kind::Ipv4Net => format!("10.{}.{}", d[0], d[1]),
        Kind::Ipv6 => format!(
            "fd00::{:x}:{:x}",
            u16::from_be_bytes([d[0], d[1]]),
            u16::from_be_bytes([d[2], d[3]])
        ),
        // Locally administered, unicast.
        Kind::Mac => format!("02:00:{:02x}:{:02x}:{:02x}:{:02x}", d[0], d[1], d[2], d[3]),
        Kind::User => format!("user-{hex6}"),
        Kind::Project => format!("project-{hex6}"),
        Kind::KeystoneId => hex::encode(&d[..16]),
        Kind::Email => format!("user-{hex6}@example.invalid"),
        Kind::Name => format!("name-{hex6}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_value_same_pseudonym_and_kinds_apart() {
        let mut m = PseudonymMap::with_key("k");
        let a = m.pseudonym(Kind::Host, "node02ob100");
        assert_eq!(m.pseudonym(Kind::Host, "node02ob100"), a);
        assert_ne!(m.pseudonym(Kind::Host, "node03ob100"), a);
        assert!(a.starts_with("host-"));
        assert_ne!(m.pseudonym(Kind::User, "node02ob100"), a);
        // Another map with the same key gives the same answers, in any order.
        let mut n = PseudonymMap::with_key("k");
        n.pseudonym(Kind::Host, "node03ob100");
        assert_eq!(n.pseudonym(Kind::Host, "node02ob100"), a);
        let mut other = PseudonymMap::with_key("other");
        assert_ne!(other.pseudonym(Kind::Host, "node02ob100"), a);
    }

    #[test]
    fn a_saved_map_reloads_with_its_pairs_and_private_mode() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("case.map.json");
        let mut m = PseudonymMap::new();
        let ip = m.pseudonym(Kind::Ipv4Net, "172.27.100");
        m.save(&path).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&path).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        let mut back = PseudonymMap::load(&path).unwrap();
        assert_eq!(back.pseudonym(Kind::Ipv4Net, "172.27.100"), ip);
        std::fs::write(&path, "{\"schema\": \"x\"}").unwrap();
        let err = PseudonymMap::load(&path).unwrap_err().to_string();
        assert!(err.contains("case.map.json"), "{err}");
    }

    #[test]
    fn collisions_are_probed() {
        let mut m = PseudonymMap::with_key("k");
        // Force a collision: claim the pseudonym the next value would get.
        let want = render(Kind::Host, &m.digest(Kind::Host, "b", 0));
        m.taken.insert((Kind::Host, want.clone()), "a".into());
        let got = m.pseudonym(Kind::Host, "b");
        assert_ne!(got, want);
        assert_eq!(m.pseudonym(Kind::Host, "b"), got);
    }
}
