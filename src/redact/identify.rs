//! The first of the two passes of redaction: every identifier the inputs give, found
//! before any line is replaced, so that the second pass replaces it wherever it appears,
//! even said plainly with no key before it and made of vocabulary words
//! (`project_name = storage-primary`, then `… in storage-primary …`).
//!
//! Read: values of keys that name a user, project, domain, host or secret (configs, JSON
//! and Python reprs, `--os-*` flags, `| field | value |` tables and the columns of CLI
//! list tables), oslo context brackets, credentials in URLs, `/etc/hosts`, certificates
//! (SAN, `CN=`, `O=`; PEM decoded), values hidden in base64 (`user_data`,
//! `Authorization: Basic`) and in JSON-escaped JSON, and records wrapped over lines (a
//! secret value or token continued, a private key's body). The analysis runs it over
//! every log record and every other small file it finds, and keeps what it found in
//! [`Analysis::identified`](crate::correlate::Analysis::identified).

use std::collections::HashSet;
use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};
use memchr::memmem;
use regex::Regex;

use super::map::Kind;
use super::names::Seeds;
use super::seed::add_etc_hosts;
use super::tokens::is_service_account;
use super::vocab;

/// Words a key holding an identifier contains; lines without any are not scanned for keys.
const HINTS: &[&str] = &[
    "pass",
    "secret",
    "token",
    "credential",
    "key",
    "user",
    "name",
    "project",
    "tenant",
    "domain",
    "host",
    "login",
    "owner",
    "://",
    "[req-",
    "gAAAAA",
    "-----BEGIN",
    "basic ",
    "CN=",
    "CN =",
    "O=",
    "O =",
    "DNS:",
];

static HINT: LazyLock<AhoCorasick> = LazyLock::new(|| {
    // A constant list: a failure is a bug caught by every test.
    #[allow(clippy::expect_used)]
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build(HINTS)
        .expect("valid hints")
});

fn regex(pattern: &str) -> Regex {
    // The patterns are constants: a failure is a bug caught by every test.
    #[allow(clippy::expect_used)]
    Regex::new(pattern).expect("valid identify pattern")
}

/// `user:password@host` (a URL's credentials, or a continued list of them).
static CREDENTIAL: LazyLock<Regex> =
    LazyLock::new(|| regex(r#"([A-Za-z0-9._%-]+):([^\s@/'",]+)@([A-Za-z0-9.-]+)"#));

/// Substrings looked for before any regex or parse that needs them.
static PEM_BEGIN: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("-----BEGIN "));
static URL: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("://"));
static FERNET_START: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("gAAAAA"));
static DNS_START: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("DNS:"));
static ESCAPED_QUOTE: LazyLock<memmem::Finder<'static>> =
    LazyLock::new(|| memmem::Finder::new("\\\""));
/// Every context bracket holds one.
static REQ: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("req-"));

/// The index of `basic ` in [`HINTS`].
const BASIC_HINT: usize = 17;

/// The host of a URL.
static URL_HOST: LazyLock<Regex> =
    LazyLock::new(|| regex(r"[A-Za-z][A-Za-z0-9+.-]*://(?:[^\s/@]*@)?([A-Za-z0-9.-]+)"));

/// A certificate subject's fields in text (`openssl x509 -text`, `subject=`).
static SUBJECT: LazyLock<Regex> =
    LazyLock::new(|| regex(r"(?:^|[\s,/])(CN|O|OU)\s*=\s*([^,/=]+?)\s*(?:$|[,/])"));

/// A SAN DNS name in text.
static DNS: LazyLock<Regex> = LazyLock::new(|| regex(r"DNS:([A-Za-z0-9*.-]+)"));

/// A Fernet token.
static FERNET: LazyLock<Regex> = LazyLock::new(|| regex(r"gAAAAA[A-Za-z0-9_=-]{20,}"));

/// What the value of a key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Class {
    Secret,
    Host,
    Named(Kind),
    /// `name`: a user's, project's or domain's by the object it is in, else a name.
    Name,
}

/// The class of a key (`password`, `--os-username`, `OS-EXT-SRV-ATTR:host`,
/// `keystone_authtoken.project_name`), if it holds an identifier.
fn class_of(key: &str) -> Option<Class> {
    let last = key.rsplit(['.', ':']).next().unwrap_or(key);
    let lower = last
        .trim_start_matches('-')
        .to_ascii_lowercase()
        .replace(['-', ' '], "_");
    let lower = lower.strip_prefix("os_").unwrap_or(&lower);
    // Keys that name a secret's properties, not the secret.
    let about = [
        "_at", "_id", "_type", "_method", "_methods", "_file", "_path", "_dir",
    ]
    .iter()
    .any(|s| lower.ends_with(s))
        || lower.starts_with("ssl_")
        || [
            "key_manager",
            "sort_key",
            "primary_key",
            "foreign_key",
            "routing_key",
            "partition_key",
        ]
        .contains(&lower);
    let secret = super::secrets::names_a_secret(lower) || lower.ends_with("pass");
    if secret {
        return (!about).then_some(Class::Secret);
    }
    Some(match lower {
        "user" | "username" | "user_name" | "login" | "admin_user" => Class::Named(Kind::User),
        "project" | "project_name" | "tenant" | "tenant_name" | "admin_tenant_name" => {
            Class::Named(Kind::Project)
        }
        "domain_name"
        | "user_domain_name"
        | "project_domain_name"
        | "display_name"
        | "instance_name" => Class::Named(Kind::Name),
        "host"
        | "hostname"
        | "host_name"
        | "nodename"
        | "hypervisor_hostname"
        | "my_hostname"
        | "server_name" => Class::Host,
        "name" => Class::Name,
        _ => return None,
    })
}

/// What a CLI table is: no table, its header next, or its rows under these headers.
#[derive(Debug, Default)]
enum Table {
    #[default]
    None,
    Header,
    Rows(Vec<Option<Class>>),
}

/// How many levels of base64 and escaped JSON are looked into.
const DEPTH: u8 = 2;

/// Gathers the identifiers of text given to it into [`Seeds`].
#[derive(Debug, Default)]
pub struct Identifier {
    seeds: Seeds,
    /// Values already given to [`Identifier::secret`], [`Identifier::host`] and
    /// [`Identifier::name`] (the same user, project and host come back on most lines of
    /// a log): each is weighed once.
    seen: Seen,
    /// Inside a PEM block: whether it is a certificate, and its body so far.
    pem: Option<(bool, String)>,
    /// The last line's value ran to its end as a secret: an indented (or, in a record,
    /// any) next line continues it.
    secret_open: bool,
    table: Table,
    /// The object a `name` key is in (`"user": {"name": …}`).
    parent: Option<Kind>,
    depth: u8,
    /// Scratch: where the words of [`HINTS`] are in the line read.
    hits: Vec<(usize, usize, usize)>,
}

impl Identifier {
    /// What was found.
    pub fn into_seeds(self) -> Seeds {
        self.seeds
    }

    /// A whole file: `rel` says what it is (`etc/hosts`).
    pub fn file(&mut self, rel: &str, text: &str) {
        if rel == "etc/hosts" || rel.ends_with("/etc/hosts") {
            add_etc_hosts(&mut self.seeds, text);
        }
        self.reset();
        for line in text.lines() {
            self.line(line, false);
        }
        self.reset();
    }

    /// One log record: its first line and the lines continuing it.
    pub fn record<'a>(&mut self, head: &str, rest: impl IntoIterator<Item = &'a str>) {
        self.reset();
        self.line(head, false);
        for line in rest {
            self.line(line, true);
        }
        self.reset();
    }

    fn reset(&mut self) {
        self.pem = None;
        self.secret_open = false;
        self.table = Table::None;
        self.parent = None;
    }

    /// One line; `continued` when it continues a record (its value may go on here).
    pub fn line(&mut self, line: &str, continued: bool) {
        self.line_gated(line, continued, false);
    }

    /// [`Identifier::line`]; `open` reads it for keys even with no word of [`HINTS`] in
    /// it (another part of its line had one).
    fn line_gated(&mut self, line: &str, continued: bool, open: bool) {
        self.line_hinted(line, continued, open, None);
    }

    /// [`Identifier::line_gated`], with the places of the words of [`HINTS`] in `line`
    /// when the caller has found them already (each line is scanned for them once).
    fn line_hinted(
        &mut self,
        line: &str,
        continued: bool,
        open: bool,
        found: Option<&[(usize, usize, usize)]>,
    ) {
        if self.pem_line(line) {
            return;
        }
        let trimmed = line.trim();
        let indented = line.starts_with([' ', '\t']);
        if self.secret_open && (indented || continued) && !trimmed.is_empty() {
            // The value continues: its first word is the secret's next part.
            if let Some(part) = trimmed.split([' ', ',']).next() {
                self.secret(part.trim_matches(['"', '\'']));
            }
            self.credentials(line);
            self.secret_open = trimmed.ends_with(',');
            return;
        }
        self.secret_open = false;
        if self.table_line(trimmed) {
            return;
        }
        self.credentials(line);
        if let Some(hits) = found {
            if open || !hits.is_empty() {
                self.keyed(line, hits);
            }
            return;
        }
        let mut hits = std::mem::take(&mut self.hits);
        hint_places(line, &mut hits);
        if open || !hits.is_empty() {
            self.keyed(line, &hits);
        }
        self.hits = hits;
    }

    /// The steps of [`Identifier::line`] for a line with a word of [`HINTS`]; `hits` are
    /// their places (start, end, which).
    fn keyed(&mut self, line: &str, hits: &[(usize, usize, usize)]) {
        if REQ.find(line.as_bytes()).is_some() {
            for (user, project) in context_brackets(line) {
                self.name(user, Kind::User);
                self.name(project, Kind::Project);
            }
        }
        if FERNET_START.find(line.as_bytes()).is_some() {
            for m in FERNET.find_iter(line) {
                self.secret(m.as_str());
                if line[m.end()..].trim().is_empty() {
                    self.secret_open = true;
                }
            }
        }
        if may_hold_subject(line) {
            for c in SUBJECT.captures_iter(line) {
                self.subject(&c[1], &c[2]);
            }
        }
        if DNS_START.find(line.as_bytes()).is_some() {
            for c in DNS.captures_iter(line) {
                self.host(&c[1]);
            }
        }
        // Nothing but `basic ` itself can hide where a `basic ` starts: a hit says whether
        // one is in the line.
        if hits.iter().any(|h| h.2 == BASIC_HINT) {
            self.basic(line);
        }
        self.pairs(line, hits);
        if self.depth < DEPTH && ESCAPED_QUOTE.find(line.as_bytes()).is_some() {
            let unescaped = line.replace("\\\\", "\\").replace("\\\"", "\"");
            self.nested(&unescaped);
        }
    }

    /// Text found inside a line (decoded or unescaped), read with its own state.
    fn nested(&mut self, text: &str) {
        let mut inner = Identifier {
            depth: self.depth + 1,
            ..Identifier::default()
        };
        for line in text.lines() {
            inner.line(line, false);
        }
        self.seeds.merge(inner.seeds);
    }

    /// PEM blocks: a certificate's names, a private key's body as secrets. `true` when
    /// the line belonged to a block.
    fn pem_line(&mut self, line: &str) -> bool {
        if let Some((cert, body)) = &mut self.pem {
            match line.find("-----END ") {
                Some(at) => {
                    body.push_str(&line[..at]);
                    let (cert, body) = (*cert, std::mem::take(body));
                    self.pem = None;
                    self.pem_body(cert, &body);
                }
                None => {
                    if !*cert {
                        let part = line.trim().to_string();
                        self.secret(&part);
                    }
                    if let Some((_, body)) = &mut self.pem {
                        body.push_str(line.trim());
                    }
                }
            }
            return true;
        }
        let Some(at) = PEM_BEGIN.find(line.as_bytes()) else {
            return false;
        };
        let after = &line[at + 11..];
        let Some(close) = after.find("-----") else {
            return false;
        };
        let cert = after[..close].contains("CERTIFICATE");
        if !cert && !after[..close].contains("PRIVATE KEY") {
            return false;
        }
        let rest = &after[close + 5..];
        // One line with `\n` escapes: the whole block is here.
        let rest = rest.replace("\\n", "\n");
        match rest.find("-----END ") {
            Some(end) => {
                let body: String = rest[..end].split_whitespace().collect();
                if !cert {
                    for part in rest[..end].split_whitespace() {
                        self.secret(part);
                    }
                }
                self.pem_body(cert, &body);
            }
            None => {
                if !cert {
                    for part in rest.split_whitespace() {
                        self.secret(part);
                    }
                }
                self.pem = Some((cert, rest.split_whitespace().collect()));
            }
        }
        true
    }

    fn pem_body(&mut self, cert: bool, body: &str) {
        if !cert {
            return;
        }
        let der = decode_base64(body);
        for (kind, value) in der_names(&der) {
            self.subject(kind, &value);
        }
    }

    /// A certificate's `CN`, `O`, `OU` or SAN (`DNS`) value.
    fn subject(&mut self, kind: &str, value: &str) {
        match kind {
            "CN" | "DNS" if !value.contains(' ') => self.host(value.trim_start_matches("*.")),
            _ => {
                for word in value.split_whitespace() {
                    self.name(word.trim_matches([',', '.']), Kind::Name);
                }
            }
        }
    }

    /// `Authorization: Basic <base64 of user:password>`.
    fn basic(&mut self, line: &str) {
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

    fn credentials(&mut self, line: &str) {
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

    /// A row of a CLI table: a list's cells by their column's header. `true` when the
    /// line is part of a table.
    fn table_line(&mut self, trimmed: &str) -> bool {
        if trimmed.starts_with("+-") && trimmed.ends_with('+') {
            self.table = match std::mem::take(&mut self.table) {
                Table::None => Table::Header,
                other => other,
            };
            return true;
        }
        if !(trimmed.starts_with('|') && trimmed.ends_with('|') && trimmed.len() > 1) {
            self.table = Table::None;
            return false;
        }
        let cells: Vec<&str> = trimmed[1..trimmed.len() - 1]
            .split('|')
            .map(str::trim)
            .collect();
        match &self.table {
            Table::Header => {
                let field_value = cells.len() == 2
                    && cells[0].eq_ignore_ascii_case("field")
                    && cells[1].eq_ignore_ascii_case("value");
                self.table = Table::Rows(if field_value {
                    Vec::new()
                } else {
                    cells.iter().map(|h| class_of(h)).collect()
                });
                true
            }
            Table::Rows(columns) if columns.is_empty() => {
                // `| field | value |`
                if let [key, value] = cells[..]
                    && let Some(class) = class_of(key)
                {
                    self.value(class, value);
                }
                true
            }
            Table::Rows(columns) => {
                let columns = columns.clone();
                for (class, cell) in columns.iter().zip(&cells) {
                    if let Some(class) = class {
                        self.value(*class, cell);
                    }
                }
                true
            }
            Table::None => false,
        }
    }

    /// Every `key = value`, `key: value`, `"key": "value"`, `--key value` of a line.
    fn pairs(&mut self, line: &str, hits: &[(usize, usize, usize)]) {
        let b = line.as_bytes();
        let mut done = 0;
        for &(m_start, m_end, _) in hits {
            if m_start < done {
                continue;
            }
            let mut start = m_start;
            while start > 0 && is_key_byte(b[start - 1]) {
                start -= 1;
            }
            let mut end = m_end;
            while end < b.len() && is_key_byte(b[end]) {
                end += 1;
            }
            done = end;
            if start == end || !is_key_byte(b[start]) {
                continue;
            }
            let key = &line[start..end];
            let flag = key.starts_with("--");
            // The separator: blanks, quotes, backslashes, at most one `=`, `:` or `|`.
            let mut at = end;
            let mut assigned = false;
            let mut quote = None;
            while at < b.len() {
                match b[at] {
                    b' ' | b'\t' | b'\\' => {}
                    b'"' | b'\'' => quote = Some(b[at]),
                    b'=' | b':' | b'|' if !assigned => assigned = true,
                    _ => break,
                }
                at += 1;
            }
            if !(assigned || flag && at > end) || at >= b.len() {
                continue;
            }
            let class = class_of(key);
            let value_end = match quote {
                Some(q) => line[at..]
                    .find(|c: char| c as u32 == u32::from(q) || c == '\\')
                    .map_or(b.len(), |i| at + i),
                None => line[at..]
                    .find(|c: char| {
                        c.is_whitespace()
                            || matches!(
                                c,
                                ',' | ';' | '}' | ']' | ')' | '|' | '&' | '"' | '\'' | '\\'
                            )
                    })
                    .map_or(b.len(), |i| at + i),
            };
            let value = &line[at..value_end];
            done = done.max(value_end);
            if b[at] == b'{' {
                // An object: a `name` inside it is its user's, project's, domain's.
                self.parent = match class {
                    Some(Class::Named(kind)) => Some(kind),
                    _ => match key.to_ascii_lowercase().as_str() {
                        "user" => Some(Kind::User),
                        "project" | "tenant" => Some(Kind::Project),
                        _ => Some(Kind::Name),
                    },
                };
                continue;
            }
            if let Some(class) = class {
                self.value(class, value);
                if class == Class::Secret && quote.is_none() && line[value_end..].trim().is_empty()
                {
                    self.secret_open = true;
                }
            }
            if self.depth < DEPTH && value.len() >= 16 && is_base64(value) {
                let decoded = decode_base64(value);
                if let Ok(text) = std::str::from_utf8(&decoded)
                    && text.chars().all(|c| !c.is_control() || c.is_whitespace())
                {
                    let text = text.to_string();
                    self.nested(&text);
                }
            }
        }
    }

    fn value(&mut self, class: Class, value: &str) {
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
    fn secret(&mut self, value: &str) {
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
    fn host(&mut self, value: &str) {
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
    fn name(&mut self, value: &str, kind: Kind) {
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

/// The values each of [`Identifier::secret`], [`Identifier::host`] and
/// [`Identifier::name`] (by kind) was given: what they do with a value depends on the value
/// alone, so a second call with it adds nothing.
#[derive(Debug, Default)]
struct Seen {
    sets: [HashSet<Box<str>>; 5],
    recent: Recent,
}

/// Short values given last, one per slot chosen by a cheap hash: most lines repeat the
/// values of the lines before them (the same user, project, host), and comparing a few
/// bytes costs less than hashing the value for the sets.
#[derive(Debug)]
struct Recent {
    slots: Box<[Slot; Recent::SLOTS]>,
}

#[derive(Clone, Copy, Debug)]
struct Slot {
    /// The set the value was given to, plus one (0: an empty slot).
    set: u8,
    len: u8,
    bytes: [u8; Recent::LEN],
}

impl Default for Recent {
    fn default() -> Self {
        let empty = Slot {
            set: 0,
            len: 0,
            bytes: [0; Recent::LEN],
        };
        Recent {
            slots: Box::new([empty; Recent::SLOTS]),
        }
    }
}

impl Recent {
    const SLOTS: usize = 256;
    /// Longer values are only in the sets.
    const LEN: usize = 32;

    /// The slot of `value` of set `set`, when it is short enough for one.
    fn slot(set: usize, value: &str) -> Option<usize> {
        let b = value.as_bytes();
        let (&first, &last) = (b.first()?, b.last()?);
        if b.len() > Self::LEN {
            return None;
        }
        let mix = (usize::from(first) << 3) ^ usize::from(last) ^ (b.len() << 5) ^ (set << 6);
        Some((mix.wrapping_mul(0x9e37_79b9) >> 8) & (Self::SLOTS - 1))
    }

    fn holds(&self, slot: usize, set: usize, value: &str) -> bool {
        self.slots.get(slot).is_some_and(|s| {
            usize::from(s.set) == set + 1
                && usize::from(s.len) == value.len()
                && s.bytes.get(..value.len()) == Some(value.as_bytes())
        })
    }

    fn keep(&mut self, slot: usize, set: usize, value: &str) {
        if let Some(s) = self.slots.get_mut(slot)
            && let (Ok(set), Ok(len)) = (u8::try_from(set + 1), u8::try_from(value.len()))
            && let Some(bytes) = s.bytes.get_mut(..value.len())
        {
            bytes.copy_from_slice(value.as_bytes());
            s.set = set;
            s.len = len;
        }
    }
}

impl Seen {
    const SECRET: usize = 0;
    const HOST: usize = 1;
    /// At most this many values are remembered per set (a bound on memory; a value not
    /// remembered is only weighed again).
    const MAX: usize = 65_536;
    /// Longer values are not remembered.
    const MAX_LEN: usize = 256;

    /// The set of names of `kind` (none for kinds names are never given as).
    fn name(kind: Kind) -> Option<usize> {
        match kind {
            Kind::User => Some(2),
            Kind::Project => Some(3),
            Kind::Name => Some(4),
            _ => None,
        }
    }

    /// Whether `value` is new to set `which` (and remembers it); always when `which` is
    /// none.
    fn first(&mut self, which: impl Into<Option<usize>>, value: &str) -> bool {
        let Some(which) = which.into() else {
            return true;
        };
        let Some(set) = self.sets.get_mut(which) else {
            return true;
        };
        let slot = Recent::slot(which, value);
        if let Some(slot) = slot {
            if self.recent.holds(slot, which, value) {
                return false;
            }
            // Given before or now: a value's second call adds nothing either way.
            self.recent.keep(slot, which, value);
        }
        if set.contains(value) {
            return false;
        }
        if value.len() <= Self::MAX_LEN && set.len() < Self::MAX {
            set.insert(value.into());
        }
        true
    }
}

/// The user and project of each oslo context bracket of a line
/// (`[req-<id> <user> <project> …]`, `[req-<global id> req-<id> <user> <project> …]`,
/// `[None req-<id> <user> <project> …]`), left to right, as the regex
/// `\[(?:(?:req-[0-9a-f-]{36}|None) )?req-[0-9a-f-]{36} ([^\s\]]+) ([^\s\]]+)` finds
/// them, without running one on every line.
fn context_brackets(line: &str) -> impl Iterator<Item = (&str, &str)> {
    context_spans(line).map(|(_, user, project)| (user, project))
}

/// [`context_brackets`] with where each match lies in `line` (from its `[` to the end of
/// the project).
pub(super) fn context_spans(
    line: &str,
) -> impl Iterator<Item = (std::ops::Range<usize>, &str, &str)> {
    let mut from = 0;
    std::iter::from_fn(move || {
        while let Some(i) = memchr::memchr(b'[', &line.as_bytes()[from..]) {
            let at = from + i + 1;
            if let Some((end, user, project)) = bracket_at(&line[at..]) {
                from = at + end;
                return Some((at - 1..from, user, project));
            }
            from = at;
        }
        None
    })
}

/// The bracket's user and project when `s` (the text after a `[`) starts a context, and
/// the length of what it matched.
fn bracket_at(s: &str) -> Option<(usize, &str, &str)> {
    let first = request_id(s).or_else(|| s.strip_prefix("None"));
    first
        .and_then(|rest| rest.strip_prefix(' '))
        .and_then(|rest| bracket_tail(s, rest))
        .or_else(|| bracket_tail(s, s))
}

/// `req-<id> <user> <project>` at the start of `rest`, a part of `s` that ends it: the
/// user, the project and where they end in `s`.
fn bracket_tail<'a>(s: &str, rest: &'a str) -> Option<(usize, &'a str, &'a str)> {
    let rest = request_id(rest)?.strip_prefix(' ')?;
    let user = context_word(rest)?;
    let rest = rest[user.len()..].strip_prefix(' ')?;
    let project = context_word(rest)?;
    let end = s.len() - rest.len() + project.len();
    Some((end, user, project))
}

/// The text after `req-<36 of [0-9a-f-]>` at the start of `s`.
fn request_id(s: &str) -> Option<&str> {
    let rest = s.strip_prefix("req-")?;
    let id = rest.as_bytes().get(..36)?;
    id.iter()
        .all(|&b| REQUEST_ID_BYTES[usize::from(b)])
        .then(|| &rest[36..])
}

/// Which bytes a request id's 36 characters are made of (`[0-9a-f-]`), by value: one
/// load per byte of every context bracket.
static REQUEST_ID_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_digit() || (c >= b'a' && c <= b'f') || c == b'-';
        b += 1;
    }
    table
};

/// The run of characters other than blanks and `]` at the start of `s`, if any.
fn context_word(s: &str) -> Option<&str> {
    let end = s
        .find(|c: char| c.is_whitespace() || c == ']')
        .unwrap_or(s.len());
    (end > 0).then(|| &s[..end])
}

/// Whether some `=` of the line follows `CN`, `O` or `OU` (blanks between): only then can
/// [`SUBJECT`] match.
fn may_hold_subject(line: &str) -> bool {
    memchr::memchr_iter(b'=', line.as_bytes()).any(|at| {
        let before = line[..at].trim_end();
        before.ends_with("CN") || before.ends_with('O') || before.ends_with("OU")
    })
}

/// Where `needle` (lowercase ASCII) first occurs in `hay`, in any letter case.
fn find_ascii_caseless(hay: &[u8], needle: &[u8]) -> Option<usize> {
    let first = *needle.first()?;
    memchr::memchr2_iter(first, first.to_ascii_uppercase(), hay).find(|&at| {
        hay.get(at..at + needle.len())
            .is_some_and(|w| w.eq_ignore_ascii_case(needle))
    })
}

/// The places (start, end, which) of the words of [`HINTS`] in `line`, into `hits`.
fn hint_places(line: &str, hits: &mut Vec<(usize, usize, usize)>) {
    hits.clear();
    hits.extend(
        HINT.find_iter(line)
            .map(|m| (m.start(), m.end(), m.pattern().as_usize())),
    );
}

fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}

fn is_literal(w: &str) -> bool {
    [
        "null", "none", "true", "false", "yes", "no", "nil", "unset", "default",
    ]
    .iter()
    .any(|l| l.eq_ignore_ascii_case(w))
}

fn is_base64(v: &str) -> bool {
    let v = v.trim_end_matches('=');
    v.bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'))
        && !v.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Standard or URL-safe base64, padding and unknown bytes skipped.
pub(crate) fn decode_base64(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let v = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' | b'-' => 62,
            b'/' | b'_' => 63,
            _ => continue,
        };
        acc = (acc << 6 | u32::from(v)) & 0xff_ffff;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits & 0xff) as u8);
        }
    }
    out
}

/// The `CN`, `O`, `OU` and SAN DNS names of a DER certificate, found by their object
/// ids (no full parse: a damaged certificate still gives what it holds).
fn der_names(der: &[u8]) -> Vec<(&'static str, String)> {
    const FIELDS: &[(&[u8], &str)] = &[
        (&[0x06, 0x03, 0x55, 0x04, 0x03], "CN"),
        (&[0x06, 0x03, 0x55, 0x04, 0x0a], "O"),
        (&[0x06, 0x03, 0x55, 0x04, 0x0b], "OU"),
    ];
    const SAN: &[u8] = &[0x06, 0x03, 0x55, 0x1d, 0x11];
    let mut out = Vec::new();
    let text = |bytes: &[u8]| -> Option<String> {
        let s = std::str::from_utf8(bytes).ok()?;
        (!s.is_empty() && s.chars().all(|c| !c.is_control())).then(|| s.to_string())
    };
    for i in 0..der.len() {
        for (oid, name) in FIELDS {
            if der[i..].starts_with(oid) {
                let at = i + oid.len();
                if let (Some(&tag), Some(&len)) = (der.get(at), der.get(at + 1))
                    && matches!(tag, 0x0c | 0x13 | 0x14 | 0x16)
                    && len < 0x80
                    && let Some(value) = der.get(at + 2..at + 2 + len as usize).and_then(text)
                {
                    out.push((*name, value));
                }
            }
        }
        if der[i..].starts_with(SAN) {
            let end = (i + 512).min(der.len());
            let mut j = i + SAN.len();
            while j + 2 < end {
                let len = der[j + 1] as usize;
                if der[j] == 0x82
                    && len > 0
                    && len < 0x80
                    && let Some(value) = der.get(j + 2..j + 2 + len).and_then(text)
                    && value.contains('.')
                    && value
                        .bytes()
                        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'.' | b'-' | b'*'))
                {
                    out.push(("DNS", value));
                    j += 2 + len;
                } else {
                    j += 1;
                }
            }
        }
    }
    out
}

/// Identifies every record of one log as it is read (a sink of the analysis).
///
/// An oslo.log record is read as its message: the text before it (time, pid, level,
/// logger, wrapper, context bracket) gives only the bracket's user and project, unless it
/// holds something a key or a value could be made of (then the whole line is read). A
/// one-line record whose message came before gives nothing new: most DEBUG messages
/// repeat.
#[derive(Debug, Default)]
pub struct IdentifySink {
    identify: Identifier,
    /// The messages of one-line records read so far (by hash), and whether each holds a
    /// word of [`HINTS`].
    messages: super::fasthash::FxHashMap<u64, u8>,
    /// The context bracket whose names were read last, when it was the only context of
    /// its line's prefix (the next line of the same request gives the same names).
    last_context: Option<String>,
    /// Scratch: where the words of [`HINTS`] are in a message.
    hits: Vec<(usize, usize, usize)>,
}

/// At most this many messages are remembered per log (a bound on memory).
const MESSAGES_KEPT: usize = 1 << 20;
/// What is remembered of a message: it holds a hint; it was read; it was read past the
/// hint test.
const HINTED: u8 = 1;
const READ: u8 = 2;
const READ_OPEN: u8 = 4;

impl IdentifySink {
    /// What the records gave.
    pub fn into_seeds(self) -> Seeds {
        self.identify.into_seeds()
    }

    /// The user and project of the context brackets of an oslo line's prefix, as
    /// [`context_brackets`] reads them. A prefix whose only context is the bracket read
    /// last gives the names weighed then: they are not read again.
    fn bracket_names(&mut self, prefix: &str, context: Option<&str>) {
        let alone = context.filter(|raw| only_context(prefix, raw));
        if alone.is_some() && self.last_context.as_deref() == alone {
            return;
        }
        for (user, project) in context_brackets(prefix) {
            self.identify.name(user, Kind::User);
            self.identify.name(project, Kind::Project);
        }
        match (alone, &mut self.last_context) {
            (Some(raw), Some(last)) => {
                last.clear();
                last.push_str(raw);
            }
            (alone, last) => *last = alone.map(str::to_string),
        }
    }
}

impl crate::ingest::sink::RecordSink for IdentifySink {
    fn record(
        &mut self,
        _file: &crate::ingest::sink::FileCtx<'_>,
        record: &evacdoc_parsers::Record<'_>,
        _span: crate::ingest::sink::RecordSpan,
    ) {
        let rest = record.continuation.iter().chain(&record.traceback).copied();
        let head = &record.head;
        let split = match &head.content {
            evacdoc_parsers::line::Content::Oslo(o) => split_at_message(head.raw, o.message)
                .filter(|(prefix, message)| !opens_table(message) && plain_prefix(prefix))
                .map(|(prefix, message)| (prefix, message, o.context_raw)),
            _ => None,
        };
        let Some((prefix, message, context)) = split else {
            self.identify.record(head.raw, rest);
            return;
        };
        let one_line = record.continuation.is_empty() && record.traceback.is_empty();
        let key = if one_line { message_hash(message) } else { 0 };
        let known = if one_line {
            self.messages.get(&key).copied()
        } else {
            None
        };
        // The message's hints are found once: for the test and for reading it.
        let mut hits = std::mem::take(&mut self.hits);
        hits.clear();
        let hinted = match known {
            Some(k) => k & HINTED != 0,
            None => {
                hint_places(message, &mut hits);
                !hits.is_empty()
            }
        };
        // The whole line is read past the hint test when any part of it has a hint: the
        // message is read so too when only the text before it has one.
        let open = !hinted && HINT.find(prefix).is_some();
        let done = if open { READ_OPEN } else { READ };
        // The bracket's names, first as in the whole line.
        if hinted || open {
            self.bracket_names(prefix, context);
        }
        if known.is_none_or(|k| k & done == 0) {
            if known.is_some() {
                hint_places(message, &mut hits);
            }
            self.identify.reset();
            self.identify
                .line_hinted(message, false, hinted || open, Some(&hits));
            if one_line && (known.is_some() || self.messages.len() < MESSAGES_KEPT) {
                let flags = known.unwrap_or(if hinted { HINTED } else { 0 }) | done;
                self.messages.insert(key, flags);
            }
        }
        self.hits = hits;
        for line in rest {
            self.identify.line(line, true);
        }
        self.identify.reset();
    }
}

/// Whether the context bracket `raw` (a part of `prefix`, inside `[` and `]`) is the only
/// text of `prefix` that [`context_brackets`] can read names from: no other `[` in it
/// opens with a request id or `None`.
fn only_context(prefix: &str, raw: &str) -> bool {
    let Some(start) = (raw.as_ptr() as usize).checked_sub(prefix.as_ptr() as usize) else {
        return false;
    };
    let end = start + raw.len();
    if start == 0 || end >= prefix.len() {
        return false;
    }
    let b = prefix.as_bytes();
    if b[start - 1] != b'[' || b[end] != b']' {
        return false;
    }
    let opens = |part: &[u8]| {
        memchr::memchr_iter(b'[', part).any(|at| {
            let after = &part[at + 1..];
            after.starts_with(b"req-") || after.starts_with(b"None")
        })
    };
    !opens(&b[..start - 1]) && !opens(&b[end..])
}

/// The part of `raw` before `message` and `message`, when `message` is the end of `raw`.
fn split_at_message<'a>(raw: &'a str, message: &str) -> Option<(&'a str, &'a str)> {
    let start = (message.as_ptr() as usize).checked_sub(raw.as_ptr() as usize)?;
    (start + message.len() == raw.len() && raw.is_char_boundary(start)).then(|| raw.split_at(start))
}

/// Whether the text before an oslo message can give nothing but its context bracket's
/// names: it ends with the bracket, holds no separator a key's value could follow
/// (`=`, `|`, a `:` after a word holding a hint), no quote, flag, URL, credential, `Basic`,
/// Fernet token or `DNS:` name.
fn plain_prefix(prefix: &str) -> bool {
    if !prefix.trim_end().ends_with(']') {
        return false;
    }
    // One pass: each byte that can start what is looked for is tested where it is.
    let b = prefix.as_bytes();
    b.iter().enumerate().all(|(at, &c)| match c {
        b'=' | b'|' | b'@' | b'"' | b'\'' | b'\\' => false,
        // A flag (`--`).
        b'-' => b.get(at + 1) != Some(&b'-'),
        // A Fernet token.
        b'g' => !b[at..].starts_with(b"gAAAAA"),
        b'b' | b'B' => !b
            .get(at..at + 6)
            .is_some_and(|w| w.eq_ignore_ascii_case(b"basic ")),
        // A URL, a `DNS:` name, a key.
        b':' => {
            !b[at + 1..].starts_with(b"//") && !b[..at].ends_with(b"DNS") && {
                let before = prefix[..at].trim_end_matches([' ', '\t']).as_bytes();
                let word = before
                    .iter()
                    .rposition(|&c| !is_key_byte(c))
                    .map_or(before, |i| &before[i + 1..]);
                // Times (`02:00:00`) are digits; a word with letters may be a key.
                !word.iter().any(u8::is_ascii_alphabetic) || HINT.find(word).is_none()
            }
        }
        _ => true,
    })
}

/// Whether `message` starts like a CLI table's line (read with the whole line instead).
fn opens_table(message: &str) -> bool {
    let t = message.trim_start();
    t.starts_with('|') || t.starts_with("+-")
}

/// The key a message is remembered by: [`super::fasthash::fold_hash`] instead of SipHash,
/// which cost more than the rest of a remembered line's reading.
fn message_hash(message: &str) -> u64 {
    super::fasthash::fold_hash(message.as_bytes())
}

#[cfg(test)]
mod tests;
