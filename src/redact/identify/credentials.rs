//! Secrets said by their shape wherever they stand: `user:password@host` (URLs, a
//! continued `transport_url` list), `Authorization: Basic`, Fernet tokens.

use std::sync::LazyLock;

use memchr::memmem;
use regex::Regex;

use super::{Identifier, decode_base64, regex};
use crate::redact::map::Kind;

/// `user:password@host` (a URL's credentials, or a continued list of them).
static CREDENTIAL: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"([A-Za-z0-9._%-]+):([^\s@/'",]+)@([A-Za-z0-9.-]+)"#));

/// Substrings looked for before the regexes that need them.
static URL: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("://"));
static FERNET_START: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("gAAAAA"));

/// The host of a URL.
static URL_HOST: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^\s/@]*@)?([A-Za-z0-9.-]+)"));

/// A Fernet token.
static FERNET: LazyLock<Regex> = LazyLock::new(|| regex(r"gAAAAA[A-Za-z0-9_=-]{20,}"));

impl Identifier {
    /// `Authorization: Basic <base64 of user:password>`.
    pub(super) fn basic(&mut self, line: &str) {
        let Some(at) = find_ascii_caseless(line.as_bytes(), b"basic ") else {
            return;
        };
        let value = line[at + 6..].split([' ', '"', '\'']).next().unwrap_or("");
        let decoded = decode_base64(value);
        if let Ok(text) = std::str::from_utf8(&decoded)
            && let Some((user, password)) = text.split_once(':')
            && !text.contains(char::is_whitespace)
        {
            self.name(user, Kind::User);
            self.secret(password);
        }
    }

    pub(super) fn credentials(&mut self, line: &str) {
        if memchr::memchr(b'@', line.as_bytes()).is_none() && URL.find(line.as_bytes()).is_none() {
            return;
        }
        let mut any = false;
        for c in CREDENTIAL.captures_iter(line) {
            self.name(&c[1], Kind::User);
            self.secret(&c[2]);
            self.host(&c[3]);
            any = true;
        }
        // `transport_url = rabbit://u:p@h1:5672,` wrapped: the list goes on next line.
        if any && line.trim_end().ends_with(',') {
            self.secret_open = true;
        }
        for c in URL_HOST.captures_iter(line) {
            self.host(&c[1]);
        }
    }

    /// Fernet tokens; one ending its line may go on in the next.
    pub(super) fn fernet_tokens(&mut self, line: &str) {
        if FERNET_START.find(line.as_bytes()).is_some() {
            for m in FERNET.find_iter(line) {
                self.secret(m.as_str());
                if line[m.end()..].trim().is_empty() {
                    self.secret_open = true;
                }
            }
        }
    }
}

/// Where `needle` (lowercase ASCII) first occurs in `hay`, in any letter case.
fn find_ascii_caseless(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), hay).find(|&at| {
        hay.get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}
