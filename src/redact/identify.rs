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
//!
//! What each kind of source gives is read in its own file: configs, JSON and flags
//! (`key_values`), CLI tables (`cli_tables`), oslo context brackets (`context`),
//! credentials in URLs, `Basic` headers and Fernet tokens (`credentials`), certificates
//! (`certificates`), base64 and escaped JSON (`decoded`); `values` weighs what they
//! find, `seen` remembers it, `sink` reads a log's records. `/etc/hosts` is read by
//! [`add_etc_hosts`].

mod certificates;
mod cli_tables;
mod context;
mod credentials;
mod decoded;
mod hints;
mod key_values;
mod seen;
mod sink;
mod values;

use regex::Regex;

use super::map::Kind;
use super::names::Seeds;
use super::seed::add_etc_hosts;
use cli_tables::Table;
use hints::{BASIC_HINT, hint_places};
use seen::Seen;

pub(super) use context::context_spans;
pub(crate) use decoded::decode_base64;
pub use sink::IdentifySink;

fn regex(pattern: &str) -> Regex {
    // The patterns are constants: a failure is a bug caught by every test.
    #[allow(clippy::expect_used)]
    Regex::new(pattern).expect("valid identify pattern")
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
    /// Scratch: where the words of [`HINTS`](hints::HINTS) are in the line read.
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

    /// [`Identifier::line`]; `open` reads it for keys even with no word of [`HINTS`](hints::HINTS) in
    /// it (another part of its line had one).
    fn line_gated(&mut self, line: &str, continued: bool, open: bool) {
        self.line_hinted(line, continued, open, None);
    }

    /// [`Identifier::line_gated`], with the places of the words of [`HINTS`](hints::HINTS) in `line`
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

    /// The steps of [`Identifier::line`] for a line with a word of [`HINTS`](hints::HINTS);
    /// `hits` are their places (start, end, which).
    fn keyed(&mut self, line: &str, hits: &[(usize, usize, usize)]) {
        self.context_names(line);
        self.fernet_tokens(line);
        self.subjects_in_text(line);
        // Nothing but `basic ` itself can hide where a `basic ` starts: a hit says whether
        // one is in the line.
        if hits.iter().any(|h| h.2 == BASIC_HINT) {
            self.basic(line);
        }
        self.pairs(line, hits);
        self.escaped_json(line);
    }
}

#[cfg(test)]
mod tests;
