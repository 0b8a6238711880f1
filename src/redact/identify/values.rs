//! What a found value is worth: a secret, host or name is seeded unless it says nothing
//! (short, a literal, an id, a word of the vocabulary, a service account).

use super::Identifier;
use super::key_values::Class;
use super::seen::Seen;
use crate::redact::map::Kind;
use crate::redact::tokens::is_service_account;
use crate::redact::vocab;

impl Identifier {
    pub(super) fn value(&mut self, class: Class, value: &str) {
        let value = value.trim().trim_matches(['"', '\'']);
        match class {
            Class::Secret => self.secret(value),
            Class::Host => self.host(value),
            Class::Named(kind) => self.name(value, kind),
            Class::Name => {
                let kind = self.parent.unwrap_or(Kind::Name);
                self.name(value, kind);
            }
        }
    }

    /// A secret value: hidden wherever it appears. Short values and words of the
    /// vocabulary are not looked for (they would hide ordinary text).
    pub(super) fn secret(&mut self, value: &str) {
        let v = value.trim_matches(['"', '\'', ',', ';']);
        if !self.seen.first(Seen::SECRET, v) {
            return;
        }
        let mut buf = String::new();
        let says_nothing = v.len() < 6
            || v.bytes().all(|b| b == b'*')
            || v.starts_with(['{', '[', '/', '<', '$'])
            || is_literal(v)
            || crate::model::Uuid::parse(v).is_some()
            || vocab::is_word(v, &mut buf)
            || vocab::is_module(v, &mut buf);
        if !says_nothing && v.len() <= 4096 {
            self.seeds.secrets.insert(v.to_string());
        }
    }

    /// A host name: seeded; when its first label is a word of the vocabulary
    /// (`keystone.prod.acme.io`), only its domain (else every `keystone` would read as a
    /// host). A domain's parent is a domain too (`mail.acme.io` under `prod.acme.io`).
    pub(super) fn host(&mut self, value: &str) {
        if !self.seen.first(Seen::HOST, value) {
            return;
        }
        let v = value.trim().trim_end_matches('.').to_ascii_lowercase();
        if v.parse::<std::net::IpAddr>().is_ok() || !v.bytes().any(|b| b.is_ascii_alphabetic()) {
            return;
        }
        let mut buf = String::new();
        let (first, domain) = match v.split_once('.') {
            Some((first, domain)) => (first, Some(domain)),
            None => (v.as_str(), None),
        };
        let word = vocab::is_word(first, &mut buf) || vocab::is_module(first, &mut buf);
        if !word {
            self.seeds.add_host(&v);
        }
        if let Some(domain) = domain
            && domain.contains('.')
        {
            self.seeds.add_host(&format!("x.{domain}"));
            self.seeds.hosts.remove("x");
            if let Some((_, parent)) = domain.split_once('.')
                && parent.contains('.')
            {
                self.seeds.domains.insert(parent.to_string());
            }
        }
    }

    /// A user, project or other name: replaced wherever it appears, with the pseudonym of
    /// its kind. Service accounts, literals, ids, numbers and single words of the
    /// vocabulary are not names.
    pub(super) fn name(&mut self, value: &str, kind: Kind) {
        if !self.seen.first(Seen::name(kind), value) {
            return;
        }
        let v = value.trim().trim_matches(['"', '\'']).to_ascii_lowercase();
        if v.contains(char::is_whitespace) {
            for word in v.split_whitespace() {
                self.name(word, kind);
            }
            return;
        }
        let mut buf = String::new();
        let not_a_name = v.len() < 3
            || v.len() > 64
            || v == "-"
            || is_literal(&v)
            || is_service_account(&v)
            || v.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            || crate::model::Uuid::parse(&v).is_some()
            || (v.len() == 32 && v.bytes().all(|b| b.is_ascii_hexdigit()))
            || v.contains(['/', '@', ':', '=', '{', '[', '*', '<', '(', '%'])
            || vocab::is_word(&v, &mut buf)
            || vocab::is_module(&v, &mut buf);
        if not_a_name {
            return;
        }
        let entry = self.seeds.names.entry(v).or_insert(kind);
        // A user or project is more than a name: the context bracket's kind wins.
        if *entry == Kind::Name {
            *entry = kind;
        }
    }
}

fn is_literal(w: &str) -> bool {
    [
        "null", "none", "true", "false", "yes", "no", "nil", "unset", "default",
    ]
    .iter()
    .any(|l| l.eq_ignore_ascii_case(w))
}
