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

pub use crate::model::identified::Kind;

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
        PseudonymMap::from_json(&text, &path.display().to_string())
    }

    /// Reads a map from its JSON text (as [`PseudonymMap::to_json`] writes it); `source`
    /// names where it was kept, for errors.
    pub fn from_json(text: &str, source: &str) -> Result<PseudonymMap, MapError> {
        let mut map: PseudonymMap = serde_json::from_str(text).map_err(|e| MapError::Format {
            path: source.to_string(),
            reason: e.to_string(),
        })?;
        if map.schema != MAP_SCHEMA {
            return Err(MapError::Format {
                path: source.to_string(),
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

    /// The map as JSON text (what a store keeps).
    pub fn to_json(&self) -> String {
        // Strings and maps of strings only: serializing cannot fail.
        serde_json::to_string(self).unwrap_or_default()
    }

    /// How many pairs the map holds, all kinds together.
    pub fn len(&self) -> usize {
        self.entries.values().map(BTreeMap::len).sum()
    }

    /// Whether the map holds no pair.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Adds the pairs of `other` this map lacks (two processes extending one case's map):
    /// a value this map has keeps its pseudonym; a new value keeps the pseudonym `other`
    /// gave it unless another value here has it, then it gets one of this map's own (by
    /// probing). The key stays this map's. How many pairs were added.
    pub fn merge(&mut self, other: &PseudonymMap) -> usize {
        let mut added = 0;
        for (kind, pairs) in &other.entries {
            for (real, pseudo) in pairs {
                if self.get(*kind, real).is_some() {
                    continue;
                }
                added += 1;
                if self.taken.contains_key(&(*kind, pseudo.clone())) {
                    self.pseudonym(*kind, real);
                    continue;
                }
                self.taken.insert((*kind, pseudo.clone()), real.clone());
                self.entries
                    .entry(*kind)
                    .or_default()
                    .insert(real.clone(), pseudo.clone());
            }
        }
        added
    }

    /// Whether every value of `other` has the same pseudonym here (what was redacted
    /// with `other` reads as this map would have made it).
    pub fn agrees_with(&self, other: &PseudonymMap) -> bool {
        other.entries.iter().all(|(kind, pairs)| {
            pairs
                .iter()
                .all(|(real, pseudo)| self.get(*kind, real) == Some(pseudo.as_str()))
        })
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

    /// A pseudonym of `kind` shown again without being asked for (a word shown before
    /// is shown as it was): only a map that counts what it gives needs to know.
    fn counted(&mut self, _kind: Kind) {}
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
    fn merged_maps_keep_every_pair_and_one_pseudonym_per_value() {
        let mut stored = PseudonymMap::with_key("k");
        let a = stored.pseudonym(Kind::Host, "node02ob100");
        // Another process started from the stored map and added values of its own.
        let mut theirs = stored.clone();
        let b = theirs.pseudonym(Kind::Host, "node03ob100");
        let net = theirs.pseudonym(Kind::Ipv4Net, "172.27.100");
        // Meanwhile a third process gave another value the pseudonym `b` (a collision).
        stored.taken.insert((Kind::Host, b.clone()), "cmp9".into());
        stored
            .entries
            .entry(Kind::Host)
            .or_default()
            .insert("cmp9".into(), b.clone());
        // And the first value got another pseudonym on their side (another key).
        theirs
            .entries
            .entry(Kind::Host)
            .or_default()
            .insert("node02ob100".into(), "host-000000".into());
        assert_eq!(stored.merge(&theirs), 2);
        assert_eq!(stored.get(Kind::Host, "node02ob100"), Some(a.as_str()));
        assert_eq!(stored.get(Kind::Host, "cmp9"), Some(b.as_str()));
        let moved = stored.get(Kind::Host, "node03ob100").unwrap().to_string();
        assert_ne!(moved, b, "a taken pseudonym is made again");
        assert_eq!(stored.get(Kind::Ipv4Net, "172.27.100"), Some(net.as_str()));
        assert!(!stored.agrees_with(&theirs));
        assert_eq!(stored.merge(&theirs), 0, "nothing new the second time");
        let back = PseudonymMap::from_json(&stored.to_json(), "stored").unwrap();
        assert!(back.agrees_with(&stored) && stored.agrees_with(&back));
        assert_eq!(back.len(), 4);
        let err = PseudonymMap::from_json("{}", "case map of x").unwrap_err();
        assert!(err.to_string().contains("case map of x"), "{err}");
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
