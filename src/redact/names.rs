//! Host names, FQDNs and domains, found from what the bundle says about its hosts (the
//! seeds), wherever they appear: log text, config values, captures, file paths. A short
//! name and its FQDN map together (`node02ob100` → `host-1a2b3c`, `node02ob100.maas` →
//! `host-1a2b3c.domain-4d5e6f.invalid`), an unknown host under a known domain gets a
//! pseudonym too, and a name inside a longer one (`sosreport-ctl-1-2024-09-12-x`) is
//! replaced in place.

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

use super::fasthash::{FxHashMap, FxHashSet};

#[cfg(test)]
use super::map::PseudonymMap;
use super::map::{Kind, Pseudonyms};
pub use crate::model::identified::Seeds;

/// Finds seeded names in text.
#[derive(Debug)]
pub struct NameFinder {
    seeds: Seeds,
    /// Every host, domain and name, longest first where they overlap.
    automaton: Option<AhoCorasick>,
    /// Every secret.
    secrets: Option<AhoCorasick>,
    /// The names, for one hash lookup per word (the public step asks for every word).
    names: FxHashMap<String, Kind>,
    /// The hosts and the domains again, for one hash lookup per word.
    hosts: FxHashSet<String>,
    domains: FxHashSet<String>,
    /// Whether a host, domain or name is made of digits and dots only (a number could
    /// be one).
    numeric: bool,
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'.'
}

impl NameFinder {
    /// A finder of `seeds`.
    pub fn new(mut seeds: Seeds) -> NameFinder {
        // A host or domain keeps its own pseudonym wherever a key also called it a name.
        let (hosts, domains) = (&seeds.hosts, &seeds.domains);
        seeds.names.retain(|name, _| match name.split_once('.') {
            Some((first, rest)) => !hosts.contains(first) && !domains.contains(rest),
            None => !hosts.contains(name) && !domains.contains(name),
        });
        let patterns: Vec<&String> = seeds
            .hosts
            .iter()
            .chain(seeds.domains.iter())
            .chain(seeds.names.keys())
            .collect();
        let automaton = AhoCorasickBuilder::new()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::LeftmostLongest)
            .build(&patterns)
            .ok()
            .filter(|_| !patterns.is_empty());
        let secrets = AhoCorasickBuilder::new()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&seeds.secrets)
            .ok()
            .filter(|_| !seeds.secrets.is_empty());
        let names = seeds.names.iter().map(|(n, k)| (n.clone(), *k)).collect();
        let numeric = seeds
            .hosts
            .iter()
            .chain(&seeds.domains)
            .chain(seeds.names.keys())
            .any(|s| s.bytes().all(|b| b.is_ascii_digit() || b == b'.'));
        NameFinder {
            numeric,
            hosts: seeds.hosts.iter().cloned().collect(),
            domains: seeds.domains.iter().cloned().collect(),
            seeds,
            automaton,
            secrets,
            names,
        }
    }

    /// The kind of pseudonym `word` gets as a name the inputs gave (any letter case).
    pub fn identified(&self, word: &str) -> Option<Kind> {
        if self.names.is_empty() {
            return None;
        }
        if word.bytes().any(|b| b.is_ascii_uppercase()) {
            return self.names.get(&word.to_ascii_lowercase()).copied();
        }
        self.names.get(word).copied()
    }

    /// `text` with every secret the inputs gave hidden; `None` when it holds none.
    pub fn hide_secrets(&self, text: &str) -> Option<String> {
        let ac = self.secrets.as_ref()?;
        let mut out = String::new();
        let mut copied = 0;
        for m in ac.find_iter(text) {
            out.push_str(&text[copied..m.start()]);
            out.push_str(super::secrets::HIDDEN);
            copied = m.end();
        }
        if copied == 0 {
            return None;
        }
        out.push_str(&text[copied..]);
        Some(out)
    }

    /// Whether a word of digits and dots may be a seeded host, domain or name: `false`
    /// when none of them is made of digits and dots only, so that such a word (or a
    /// `.`-separated part of it) cannot be one.
    pub fn may_name_a_number(&self) -> bool {
        self.numeric
    }

    /// Whether `lower` (lowercase) is a seeded host name.
    pub fn is_host(&self, lower: &str) -> bool {
        self.hosts.contains(lower)
    }

    /// Whether `lower` (lowercase) is a seeded domain.
    pub fn is_domain(&self, lower: &str) -> bool {
        self.domains.contains(lower)
    }

    /// The seeds looked for.
    pub fn seeds(&self) -> &Seeds {
        &self.seeds
    }

    /// `text` with every seeded name replaced; `None` when it holds none.
    pub fn redact(&self, text: &str, map: &mut dyn Pseudonyms) -> Option<String> {
        let ac = self.automaton.as_ref()?;
        let bytes = text.as_bytes();
        let mut out = String::new();
        let mut copied = 0usize;
        let mut changed = false;
        for m in ac.find_iter(text) {
            if m.start() < copied {
                continue;
            }
            // The whole name the match lies in: a run of name bytes around it.
            let mut start = m.start();
            while start > 0 && is_name_byte(bytes[start - 1]) {
                start -= 1;
            }
            let mut end = m.end();
            while end < bytes.len() && is_name_byte(bytes[end]) {
                end += 1;
            }
            if start < copied {
                continue;
            }
            let token = &text[start..end];
            let trimmed = token.trim_end_matches('.');
            let Some(replaced) = self.token(trimmed, map) else {
                continue;
            };
            out.push_str(&text[copied..start]);
            out.push_str(&replaced);
            out.push_str(&token[trimmed.len()..]);
            copied = end;
            changed = true;
        }
        if !changed {
            return None;
        }
        out.push_str(&text[copied..]);
        Some(out)
    }

    /// The pseudonymous form of a name-like token, if it holds a seeded name.
    pub(crate) fn token(&self, token: &str, map: &mut dyn Pseudonyms) -> Option<String> {
        let lower = token.to_ascii_lowercase();
        if self.seeds.hosts.contains(&lower) {
            return Some(map.pseudonym(Kind::Host, &lower));
        }
        if self.seeds.domains.contains(&lower) {
            return Some(map.pseudonym(Kind::Domain, &lower));
        }
        if let Some(kind) = self.seeds.names.get(&lower) {
            return Some(map.pseudonym(*kind, &lower));
        }
        if let Some((first, rest)) = lower.split_once('.') {
            let known_host = self.seeds.hosts.contains(first);
            if let Some(domain) = self.domain_of(rest) {
                let host = map.pseudonym(Kind::Host, first);
                return Some(format!("{host}.{}", map.pseudonym(Kind::Domain, &domain)));
            }
            if known_host {
                // `node02ob100.log`, `node02ob100.service`: a file or unit named after
                // the host, not a domain.
                let host = map.pseudonym(Kind::Host, first);
                return Some(format!("{host}.{}", &token[first.len() + 1..]));
            }
        }
        self.inside(token, map)
    }

    /// The known domain `rest` is, or ends with (`ctl.maas` ends with `maas`).
    fn domain_of(&self, rest: &str) -> Option<String> {
        if self.seeds.domains.contains(rest) {
            return Some(rest.to_string());
        }
        let mut at = rest;
        while let Some((_, parent)) = at.split_once('.') {
            if self.seeds.domains.contains(parent) {
                return Some(rest.to_string());
            }
            at = parent;
        }
        None
    }

    /// A seeded host inside a longer token, at `-`, `_` or `.` boundaries:
    /// `sosreport-ctl-1-2024-09-12-hqzpwa`, `nova-compute_node02ob100`.
    fn inside(&self, token: &str, map: &mut dyn Pseudonyms) -> Option<String> {
        let ac = self.automaton.as_ref()?;
        let bytes = token.as_bytes();
        let boundary = |i: usize| matches!(bytes.get(i), None | Some(b'-' | b'_' | b'.'));
        let mut out = String::new();
        let mut copied = 0;
        for m in ac.find_iter(token) {
            let lower = token[m.range()].to_ascii_lowercase();
            let bounded = (m.start() == 0 || boundary(m.start() - 1)) && boundary(m.end());
            if !bounded || m.start() < copied {
                continue;
            }
            let kind = if self.seeds.hosts.contains(&lower) {
                Kind::Host
            } else if self.seeds.domains.contains(&lower) {
                Kind::Domain
            } else {
                // A name (`web`) is replaced as a whole word only.
                continue;
            };
            out.push_str(&token[copied..m.start()]);
            out.push_str(&map.pseudonym(kind, &lower));
            copied = m.end();
        }
        if copied == 0 {
            return None;
        }
        out.push_str(&token[copied..]);
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn finder(hosts: &[&str]) -> NameFinder {
        let mut seeds = Seeds::default();
        for h in hosts {
            seeds.add_host(h);
        }
        NameFinder::new(seeds)
    }

    #[test]
    fn short_and_fqdn_map_together() {
        let f = finder(&["node02ob100", "juju-4f2a1c-3-lxd-4.maas"]);
        let mut m = PseudonymMap::with_key("k");
        let out = f
            .redact(
                "Compute service of node02ob100.maas is still in use; node02ob100 down.",
                &mut m,
            )
            .unwrap();
        let host = m.get(Kind::Host, "node02ob100").unwrap().to_string();
        let domain = m.get(Kind::Domain, "maas").unwrap().to_string();
        assert_eq!(
            out,
            format!("Compute service of {host}.{domain} is still in use; {host} down.")
        );
        // An unknown host under a known domain, and a file named after a host.
        let out = f
            .redact("ping cmp-9.maas; see node02ob100.log", &mut m)
            .unwrap();
        assert!(!out.contains("cmp-9") && !out.contains("maas"), "{out}");
        assert!(out.ends_with(&format!("{host}.log")), "{out}");
    }

    #[test]
    fn names_inside_longer_names_but_not_inside_words() {
        let f = finder(&["ctl-1", "nova"]);
        let mut m = PseudonymMap::with_key("k");
        let out = f
            .redact("sosreport-ctl-1-2024-09-12-hqzpwa", &mut m)
            .unwrap();
        assert!(out.starts_with("sosreport-host-"), "{out}");
        assert!(out.ends_with("-2024-09-12-hqzpwa"), "{out}");
        // "nova" is too generic to have been seeded? It was: still only whole parts.
        assert_eq!(f.redact("supernovae", &mut m), None);
        // Generic names are never seeds.
        let g = finder(&[
            "localhost",
            "compute",
            "ed851b21-dd10-46a2-8a1d-752c5dea594a",
        ]);
        assert!(g.seeds().hosts.is_empty());
    }
}
