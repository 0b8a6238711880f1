//! Default-deny text for public views (issue 23): a line is cut into words and a word is
//! shown only when it is known to be safe; every other word gets a pseudonym.
//!
//! Safe: words of the vocabulary of OpenStack log messages ([`vocab`]), numbers, times
//! and durations, dashed UUIDs and `req-<uuid>` ids (a reader follows the failure by
//! them), module names of the services, file names of known kinds, `null`/`true`/….
//! Values of a known shape keep their shaped pseudonyms (IPv4 by network, IPv6, MAC,
//! e-mail, Keystone ids, context user and project: [`super::tokens`]), seeded host
//! names and domains theirs ([`super::names`]); secrets are hidden outright
//! ([`super::secrets`]), and so is the value after a secret key (`--os-password X`,
//! `Authorization: Basic …`). The value after a name key (`display_name=`, `user:`) is
//! never taken from the vocabulary. The upload's own file name reads `bundle`.
//!
//! A word is a run of letters, digits, `-`, `_`, `.` and non-ASCII characters; anything
//! else is punctuation and kept. No pattern runs per word: the shapes are found by one
//! pass of `tokens::SHAPES` over the line (only where a byte pass finds a shape may be
//! there; context brackets alone are read without it), words by one byte scan, and each
//! is classified by hash lookups.

use std::borrow::Cow;
use std::collections::BTreeMap;

use super::identify::context_spans;
use super::map::{Kind, Pseudonyms};
use super::names::NameFinder;
use super::secrets::{HIDDEN, SecretState};
use super::templates::Part;
use super::tokens::{Possible, Shape, possible_shapes, replace_one, shape_matches};
use super::vocab;

mod kept;
mod messages;
mod word_kinds;
mod words;
use kept::*;
use messages::*;
use word_kinds::*;
use words::*;

/// The name a public view gives the upload.
pub const NEUTRAL_NAME: &str = "bundle";

/// The names of an upload a public view reads as [`NEUTRAL_NAME`]: its file name and
/// that name without its archive suffix (the folder its content appears under),
/// lowercase.
pub fn upload_names(upload: &str) -> Vec<String> {
    let upload = upload.trim();
    let mut names: Vec<String> = Vec::new();
    if !upload.is_empty() {
        names.push(upload.to_ascii_lowercase());
        let stem = crate::ingest::discover::archive_stem(upload).to_ascii_lowercase();
        if !names.contains(&stem) && !stem.is_empty() {
            names.push(stem);
        }
    }
    names
}

/// Which words a text may keep as they are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Vocabulary {
    /// Log text: the words of the vocabulary.
    Log,
    /// A value that must not be read as words (a config option not on the allow-list):
    /// numbers, ids and `true`/`false` only.
    None,
}

/// Examples of lines reduced to the vocabulary kept in a report.
const EXAMPLES: usize = 5;

/// What the public step did to a view or a bundle: the engineer reads it before sharing.
#[derive(Debug, Default, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct PublicStats {
    /// Lines (and other texts) shown.
    pub lines: u64,
    /// Lines with at least one word outside the vocabulary replaced (outside a known
    /// template's arguments).
    pub reduced_lines: u64,
    /// Lines whose message matched a known Masakari or Nova format string: its constant
    /// text kept, its arguments judged as values.
    #[serde(default)]
    pub templated: u64,
    /// Lines of log text with no known template: every word judged by the vocabulary.
    /// (`lines - templated - vocabulary_lines` are config values not on the allow-list,
    /// read with no vocabulary at all.)
    #[serde(default)]
    pub vocabulary_lines: u64,
    /// Lines with a secret hidden.
    pub secrets: u64,
    /// Replacements by kind of value (`host`, `ipv4_net`, `name`, …, `hidden`).
    pub replaced: BTreeMap<String, u64>,
    /// A few reduced lines, as shown.
    pub examples: Vec<String>,
}

impl PublicStats {
    /// Adds `other`'s counts (examples up to the limit).
    pub fn merge(&mut self, other: PublicStats) {
        self.lines += other.lines;
        self.reduced_lines += other.reduced_lines;
        self.templated += other.templated;
        self.vocabulary_lines += other.vocabulary_lines;
        self.secrets += other.secrets;
        for (kind, n) in other.replaced {
            *self.replaced.entry(kind).or_default() += n;
        }
        for example in other.examples {
            if self.examples.len() < EXAMPLES {
                self.examples.push(example);
            }
        }
    }

    fn count(&mut self, kind: &str) {
        // No key allocated per replacement: a kind is counted once it is in the map.
        match self.replaced.get_mut(kind) {
            Some(n) => *n += 1,
            None => {
                self.replaced.insert(kind.to_string(), 1);
            }
        }
    }
}

/// A map that notes the kinds it is asked for, in order (what a [`Verdict`] counts
/// again).
struct Asked<'m> {
    inner: &'m mut dyn Pseudonyms,
    kinds: Vec<Kind>,
}

impl Pseudonyms for Asked<'_> {
    fn pseudonym(&mut self, kind: Kind, real: &str) -> String {
        self.kinds.push(kind);
        self.inner.pseudonym(kind, real)
    }

    fn counted(&mut self, kind: Kind) {
        self.kinds.push(kind);
        self.inner.counted(kind);
    }
}

/// The public step for the lines of one text (secrets can span lines).
#[derive(Debug)]
pub struct PublicText<'a> {
    names: &'a NameFinder,
    upload: &'a [String],
    secrets: SecretState,
    judged: Judged,
    /// Scratch space for lowercase copies, kept across lines.
    buf: String,
    /// Scratch space for the kinds a line asks for, kept across lines.
    kinds: Vec<Kind>,
}

/// What the public step judged already: the words (kept or not) and the messages of
/// oslo.log lines shown. None of it depends on the text it was judged in (only on the
/// seeds, the upload's names and the map, fixed or never changed once given), so it is
/// carried from one file to the next a worker copies: a bundle repeats its messages
/// across files (each host's nova-compute, each rotation). Bounded by the caches' slots
/// whatever the input.
#[derive(Debug, Default)]
pub struct Judged {
    kept: KeptWords,
    messages: Remembered,
}

/// How [`PublicText::words_into`] reads a text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reading {
    /// A line or a message: a known template is looked for.
    Line,
    /// The head of an oslo.log line: no template, its context bracket read as
    /// [`Words::head`] reads it.
    Head,
}

/// The longest word judged: a longer one is hidden whole (a key, a token, a blob).
const LONGEST_WORD: usize = 64;

impl<'a> PublicText<'a> {
    /// A step looking for `names`, reading `upload` (the upload's names, lowercase) as
    /// [`NEUTRAL_NAME`].
    pub fn new(names: &'a NameFinder, upload: &'a [String]) -> PublicText<'a> {
        PublicText::resuming(names, upload, Judged::default())
    }

    /// A step for another text that goes on from what an earlier step `judged` (see
    /// [`Judged`]); the secret state starts anew.
    pub fn resuming(names: &'a NameFinder, upload: &'a [String], judged: Judged) -> PublicText<'a> {
        PublicText {
            names,
            upload,
            secrets: SecretState::default(),
            judged,
            buf: String::new(),
            kinds: Vec::new(),
        }
    }

    /// What this step judged, for the next text's step ([`PublicText::resuming`]).
    pub fn into_judged(self) -> Judged {
        self.judged
    }

    /// Forgets every word judged (tests: what the caches give is what judging gives).
    #[cfg(test)]
    fn forget_words(&mut self) {
        self.judged = Judged::default();
    }

    /// A `/`-separated path as a public view shows it: its first part, when it is the
    /// upload's own name, is [`NEUTRAL_NAME`] whatever words it is made of.
    pub fn path(
        &mut self,
        path: &str,
        map: &mut dyn Pseudonyms,
        stats: &mut PublicStats,
    ) -> String {
        let (first, rest) = match path.split_once('/') {
            Some((first, rest)) => (first, Some(rest)),
            None => (path, None),
        };
        if !self.upload.iter().any(|u| u.eq_ignore_ascii_case(first)) {
            return self.path_parts(path, map, stats);
        }
        match rest {
            Some(rest) => format!("{NEUTRAL_NAME}/{}", self.path_parts(rest, map, stats)),
            None => NEUTRAL_NAME.to_string(),
        }
    }

    /// A path's parts by default-deny. A part too long to be judged as one word (hidden
    /// whole, so that two such files got one name) is a command line sos joined with
    /// `_` for its spaces (`k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_…`):
    /// it is judged as that command line and joined again, so it stays readable and
    /// distinct. A path with no such part is judged whole, as a line is.
    fn path_parts(
        &mut self,
        path: &str,
        map: &mut dyn Pseudonyms,
        stats: &mut PublicStats,
    ) -> String {
        let long =
            |part: &str| part.len() > LONGEST_WORD && part.contains('_') && !part.contains(' ');
        if !path.split('/').any(long) {
            return self.line(path, Vocabulary::Log, map, stats);
        }
        let parts: Vec<String> = path
            .split('/')
            .map(|part| {
                if !long(part) {
                    return self.line(part, Vocabulary::Log, map, stats);
                }
                // Judged as the command line it was, so `--password_<value>` still hides
                // the value; no output word holds a space.
                self.line(&part.replace('_', " "), Vocabulary::Log, map, stats)
                    .replace(' ', "_")
            })
            .collect();
        parts.join("/")
    }

    /// `line` as a public view shows it.
    pub fn line(
        &mut self,
        line: &str,
        vocabulary: Vocabulary,
        map: &mut dyn Pseudonyms,
        stats: &mut PublicStats,
    ) -> String {
        let known = self.names.hide_secrets(line);
        let line = known.as_deref().unwrap_or(line);
        let oslo = match vocabulary {
            Vocabulary::Log => message_start(line),
            Vocabulary::None => None,
        };
        // An oslo.log line whose parts hold no piece of a secret (remembered with the
        // parts) is left as it is by the secret step: it is not searched again.
        let clean = match oslo {
            Some(at) => known.is_none() && self.secrets.idle() && self.clean(line, at),
            None => false,
        };
        let (line, oslo) = if clean {
            (Cow::Borrowed(line), oslo)
        } else {
            match self.secrets.redact(line) {
                Some(hidden) => {
                    stats.secrets += 1;
                    let oslo = oslo.and_then(|_| message_start(&hidden));
                    (Cow::Owned(hidden), oslo)
                }
                None if known.is_some() => {
                    stats.secrets += 1;
                    (Cow::Borrowed(line), oslo)
                }
                None => (Cow::Borrowed(line), oslo),
            }
        };
        let mut asked = Asked {
            inner: map,
            kinds: std::mem::take(&mut self.kinds),
        };
        let mut out = String::with_capacity(line.len() + 16);
        let facts = match oslo {
            Some(at) => self.oslo_shown(&line, at, clean, &mut asked, &mut out),
            None => self.words_into(&line, vocabulary, Reading::Line, &mut asked, &mut out),
        };
        for kind in asked.kinds.drain(..) {
            stats.count(kind.as_str());
        }
        self.kinds = asked.kinds;
        if facts.templated {
            stats.templated += 1;
        } else if vocabulary == Vocabulary::Log {
            stats.vocabulary_lines += 1;
        }
        stats.lines += 1;
        if facts.reduced {
            stats.reduced_lines += 1;
            if stats.examples.len() < EXAMPLES {
                stats.examples.push(out.clone());
            }
        }
        out
    }

    /// `line`'s words shown into `out` by default-deny: a known template's constant text
    /// as it is (when a line of log text is read), every other word judged.
    fn words_into(
        &mut self,
        line: &str,
        vocabulary: Vocabulary,
        reading: Reading,
        map: &mut dyn Pseudonyms,
        out: &mut String,
    ) -> Facts {
        let mut words = Words {
            names: self.names,
            upload: self.upload,
            vocabulary,
            out: std::mem::take(out),
            reduced: false,
            key: None,
            assigned: false,
            buf: std::mem::take(&mut self.buf),
            kept: &mut self.judged.kept,
        };
        let parts = match (vocabulary, reading) {
            (Vocabulary::Log, Reading::Line) => super::templates::find(line),
            _ => None,
        };
        if let Some(parts) = &parts {
            // The template's constant text as it is; each argument judged as a value
            // (vocabulary only where its placeholder allows), not as a reduced line.
            let start = parts.first().map_or(0, |p| p.range().start);
            let end = parts.last().map_or(0, |p| p.range().end);
            words.segment(&line[..start], map);
            for part in parts {
                words.key = None;
                match part {
                    Part::Text(r) => words.out.push_str(&line[r.clone()]),
                    Part::Arg(r, _, keeps_words) => {
                        let reduced = words.reduced;
                        words.vocabulary = if *keeps_words {
                            Vocabulary::Log
                        } else {
                            Vocabulary::None
                        };
                        words.segment(&line[r.clone()], map);
                        words.vocabulary = vocabulary;
                        words.reduced = reduced;
                    }
                }
            }
            words.key = None;
            words.segment(&line[end..], map);
        } else if reading == Reading::Head {
            words.head(line, map);
        } else {
            words.segment(line, map);
        }
        self.buf = words.buf;
        *out = words.out;
        Facts {
            reduced: words.reduced,
            templated: parts.is_some(),
            ends_on_key: words.key.is_some(),
        }
    }
}

#[cfg(test)]
mod tests;
