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

/// A map that counts what it is asked for.
struct Counting<'m> {
    inner: &'m mut dyn Pseudonyms,
    stats: &'m mut PublicStats,
}

impl Pseudonyms for Counting<'_> {
    fn pseudonym(&mut self, kind: Kind, real: &str) -> String {
        self.stats.count(kind.as_str());
        self.inner.pseudonym(kind, real)
    }

    fn counted(&mut self, kind: Kind) {
        self.stats.count(kind.as_str());
        self.inner.counted(kind);
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
    kept: KeptWords,
    /// Scratch space for lowercase copies, kept across lines.
    buf: String,
}

/// Words already judged safe to show as they are, by whether vocabulary words were
/// allowed: the text of a file repeats its words, and judging one takes several
/// lookups (ids, names, seeds, vocabulary pieces). Only words kept verbatim are
/// remembered (a replaced word counts in the report each time). The standard keyed
/// hash, not the Fx hash of the fixed word sets: these sets grow from the input, which must not be able to
/// pick colliding words.
///
/// In front of the sets, a small direct-mapped cache by a fast unkeyed hash
/// ([`super::fasthash::fold_hash`]): a word found there
/// (compared byte for byte) is in its set; a word not found there is looked up in the
/// set as before, and put in its slot. Colliding words only evict each other: the cost
/// per word stays bounded whatever the input picks, and the keyed hash is paid once per
/// run of a word rather than at every occurrence.
#[derive(Debug, Default)]
struct KeptWords {
    sets: [std::collections::HashSet<std::sync::Arc<str>>; 2],
    recent: Vec<Option<std::sync::Arc<str>>>,
    /// What the other words were shown as: see [`Verdict`].
    verdicts: Vec<Option<Verdict>>,
    /// What words say about the value after them ([`key_of`] with no `--` before them),
    /// by the same kind of direct-mapped cache: a word found in its slot (compared byte
    /// for byte) has the key it had, anything else is judged by [`key_of`] again.
    keys: Vec<Option<(Box<str>, Option<Key>)>>,
}

/// A word not kept as it is (a pseudonym, a hidden value, the upload's neutral name) as
/// it was shown, with the pseudonyms it asked for (counted again when it is shown
/// again) and whether it reduced its line. All of it follows from the word, whether
/// vocabulary words were allowed, the seeds and the upload's names (fixed for a run) and
/// the map, which never changes a pseudonym once given: showing it again as it was
/// shown is what judging it again gives. In a direct-mapped cache by
/// [`super::fasthash::fold_hash`], as [`KeptWords::recent`]: a colliding word only
/// evicts another, and the bound on memory holds whatever the input.
#[derive(Debug)]
struct Verdict {
    word: Box<str>,
    vocabulary: bool,
    shown: Box<str>,
    kinds: Vec<Kind>,
    reduced: bool,
}

/// Words remembered per [`KeptWords`] set: a bound on memory whatever the input.
const KEPT_WORDS: usize = 1 << 14;

/// Slots of the cache in front of each [`KeptWords`] set: 2^10.
const RECENT_BITS: u32 = 10;

/// Slots of [`KeptWords::verdicts`] and of [`KeptWords::keys`]: 2^10 each.
const VERDICT_BITS: u32 = 10;

impl KeptWords {
    fn slot(hash: u64, vocabulary: bool) -> usize {
        let at = (hash >> (64 - RECENT_BITS)) as usize;
        (usize::from(vocabulary) << RECENT_BITS) | at
    }

    fn contains(&mut self, w: &str, hash: u64, vocabulary: bool) -> bool {
        let slot = KeptWords::slot(hash, vocabulary);
        if self
            .recent
            .get(slot)
            .is_some_and(|r| r.as_deref() == Some(w))
        {
            return true;
        }
        let Some(kept) = self.sets[usize::from(vocabulary)].get(w) else {
            return false;
        };
        if self.recent.is_empty() {
            // Made on the first word found: a path or a short text may need none.
            self.recent = vec![None; 2 << RECENT_BITS];
        }
        if let Some(r) = self.recent.get_mut(slot) {
            *r = Some(kept.clone());
        }
        true
    }

    fn insert(&mut self, w: &str, vocabulary: bool) {
        let set = &mut self.sets[usize::from(vocabulary)];
        if set.len() < KEPT_WORDS {
            set.insert(w.into());
        }
    }

    fn verdict_slot(hash: u64) -> usize {
        (hash >> (64 - VERDICT_BITS)) as usize
    }

    fn verdict(&self, w: &str, hash: u64, vocabulary: bool) -> Option<&Verdict> {
        self.verdicts
            .get(KeptWords::verdict_slot(hash))?
            .as_ref()
            .filter(|v| v.vocabulary == vocabulary && &*v.word == w)
    }

    fn remember(&mut self, hash: u64, verdict: Verdict) {
        if self.verdicts.is_empty() {
            self.verdicts.resize_with(1 << VERDICT_BITS, || None);
        }
        if let Some(slot) = self.verdicts.get_mut(KeptWords::verdict_slot(hash)) {
            *slot = Some(verdict);
        }
    }

    /// [`key_of`]`(w, flag)`, the part that does not depend on `flag` remembered.
    fn key_of(&mut self, w: &str, hash: u64, flag: bool, buf: &mut String) -> Option<Key> {
        if !may_be_key(w) {
            return None;
        }
        let slot = KeptWords::verdict_slot(hash);
        let key = match self.keys.get(slot) {
            Some(Some((word, key))) if &**word == w => *key,
            _ => {
                let key = key_of(w, false, buf);
                if self.keys.is_empty() {
                    self.keys.resize_with(1 << VERDICT_BITS, || None);
                }
                if let Some(s) = self.keys.get_mut(slot) {
                    *s = Some((w.into(), key));
                }
                key
            }
        };
        // `key_of(w, true)` is `key_of(w, false)` with the flag set (`bearer` and
        // `basic` have it set either way).
        match key {
            Some(Key::Secret { .. }) if flag => Some(Key::Secret { flag: true }),
            Some(Key::Name { .. }) if flag => Some(Key::Name { flag: true }),
            key => key,
        }
    }
}

/// The longest word judged: a longer one is hidden whole (a key, a token, a blob).
const LONGEST_WORD: usize = 64;

impl<'a> PublicText<'a> {
    /// A step looking for `names`, reading `upload` (the upload's names, lowercase) as
    /// [`NEUTRAL_NAME`].
    pub fn new(names: &'a NameFinder, upload: &'a [String]) -> PublicText<'a> {
        PublicText {
            names,
            upload,
            secrets: SecretState::default(),
            kept: KeptWords::default(),
            buf: String::new(),
        }
    }

    /// Forgets every word judged (tests: what the caches give is what judging gives).
    #[cfg(test)]
    fn forget_words(&mut self) {
        self.kept = KeptWords::default();
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
        let line = match self.secrets.redact(line) {
            Some(hidden) => {
                stats.secrets += 1;
                Cow::Owned(hidden)
            }
            None if known.is_some() => {
                stats.secrets += 1;
                Cow::Borrowed(line)
            }
            None => Cow::Borrowed(line),
        };
        let mut words = Words {
            names: self.names,
            upload: self.upload,
            vocabulary,
            out: String::with_capacity(line.len() + 16),
            reduced: false,
            key: None,
            assigned: false,
            buf: std::mem::take(&mut self.buf),
            kept: &mut self.kept,
        };
        let mut map = Counting { inner: map, stats };
        let parts = match vocabulary {
            Vocabulary::Log => super::templates::find(&line),
            Vocabulary::None => None,
        };
        match &parts {
            Some(parts) => {
                // The template's constant text as it is; each argument judged as a value
                // (vocabulary only where its placeholder allows), not as a reduced line.
                let start = parts.first().map_or(0, |p| p.range().start);
                let end = parts.last().map_or(0, |p| p.range().end);
                words.segment(&line[..start], &mut map);
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
                            words.segment(&line[r.clone()], &mut map);
                            words.vocabulary = vocabulary;
                            words.reduced = reduced;
                        }
                    }
                }
                words.key = None;
                words.segment(&line[end..], &mut map);
                map.stats.templated += 1;
            }
            None => {
                words.segment(&line, &mut map);
                if vocabulary == Vocabulary::Log {
                    map.stats.vocabulary_lines += 1;
                }
            }
        }
        let stats = map.stats;
        stats.lines += 1;
        if words.reduced {
            stats.reduced_lines += 1;
            if stats.examples.len() < EXAMPLES {
                stats.examples.push(words.out.clone());
            }
        }
        self.buf = words.buf;
        words.out
    }
}

/// What a key word says about the value after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    /// A secret (`password`, `--os-password`, `*_key`): the value is hidden.
    Secret { flag: bool },
    /// An authorization header: the scheme stays, the credential is hidden.
    Authorization,
    /// A name (`display_name`, `user`, `--os-username`): never read as vocabulary.
    Name { flag: bool },
}

struct Words<'a, 'k> {
    names: &'a NameFinder,
    upload: &'a [String],
    vocabulary: Vocabulary,
    out: String,
    /// A word was replaced because it is not known to be safe.
    reduced: bool,
    /// The last word was a key, and only `=`, `:`, quotes and blanks came after it.
    key: Option<Key>,
    /// An `=` or `:` came after the key.
    assigned: bool,
    buf: String,
    kept: &'k mut KeptWords,
}

fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[usize::from(b)]
}

/// Which bytes words are made of (letters, digits, `-`, `_`, `.`, non-ASCII), by value:
/// one load per byte of every line.
static WORD_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.' || c >= 0x80;
        b += 1;
    }
    table
};

impl Words<'_, '_> {
    /// A piece of a line: shaped values by their shapes, the words between them judged.
    fn segment(&mut self, text: &str, map: &mut dyn Pseudonyms) {
        match possible_shapes(text) {
            Possible::Nothing => return self.text(text, map),
            Possible::Contexts => return self.contexts(text, map),
            Possible::Any => {}
        }
        let mut copied = 0;
        for m in shape_matches(text) {
            // A dashed address inside a word (`dhcp-10-0-0-5`): the word is judged whole.
            if Shape::of(m.as_str()) == Shape::Dashed {
                continue;
            }
            let Some(replaced) = replace_one(m.as_str(), map) else {
                continue;
            };
            self.text(&text[copied..m.start()], map);
            self.out.push_str(&replaced);
            self.key = None;
            copied = m.end();
        }
        self.text(&text[copied..], map);
    }

    /// [`Words::segment`] of a text whose only shapes are context brackets: found by
    /// the bracket reader as the pattern finds them.
    fn contexts(&mut self, text: &str, map: &mut dyn Pseudonyms) {
        let mut copied = 0;
        for (bracket, _, _) in context_spans(text) {
            let Some(replaced) = replace_one(&text[bracket.clone()], map) else {
                continue;
            };
            self.text(&text[copied..bracket.start], map);
            self.out.push_str(&replaced);
            self.key = None;
            copied = bracket.end;
        }
        self.text(&text[copied..], map);
    }

    fn text(&mut self, text: &str, map: &mut dyn Pseudonyms) {
        let b = text.as_bytes();
        let mut i = 0;
        while i < b.len() {
            let start = i;
            let word = is_word_byte(b[i]);
            while i < b.len() && is_word_byte(b[i]) == word {
                i += 1;
            }
            if word {
                self.word_run(&text[start..i], map);
            } else {
                self.punctuation(&text[start..i]);
            }
        }
    }

    fn punctuation(&mut self, p: &str) {
        self.out.push_str(p);
        if self.key.is_some() {
            let only_assignment = p.len() <= 6
                && p.bytes()
                    .all(|b| matches!(b, b' ' | b'\t' | b'=' | b':' | b'\'' | b'"'));
            if only_assignment {
                self.assigned |= p.bytes().any(|b| b == b'=' || b == b':');
            } else {
                self.key = None;
            }
        }
    }

    /// A run of word bytes: leading and trailing `.`, `-`, `_` are punctuation.
    fn word_run(&mut self, run: &str, map: &mut dyn Pseudonyms) {
        let core = run.trim_matches(|c| matches!(c, '.' | '-' | '_'));
        if core.is_empty() {
            self.punctuation(run);
            return;
        }
        let lead = run.len() - run.trim_start_matches(['.', '-', '_']).len();
        let (head, tail) = (&run[..lead], &run[lead + core.len()..]);
        let hash = super::fasthash::fold_hash(core.as_bytes());
        self.out.push_str(head);
        let flag = head.starts_with("--");
        let key = self.key.take();
        let applies = self.assigned
            || matches!(
                key,
                Some(Key::Secret { flag: true } | Key::Name { flag: true })
            );
        self.assigned = false;
        match key.filter(|_| applies || key == Some(Key::Authorization)) {
            Some(Key::Secret { .. }) if !is_literal(core) => {
                self.out.push_str(HIDDEN);
                self.reduced = true;
            }
            Some(Key::Authorization) if is_auth_scheme(core) => {
                // `Authorization: Basic <credential>`: the scheme, then the credential hidden.
                self.out.push_str(core);
                self.key = Some(Key::Secret { flag: true });
            }
            Some(Key::Authorization) if !is_literal(core) => {
                self.out.push_str(HIDDEN);
                self.reduced = true;
            }
            Some(Key::Name { .. }) => self.judged(core, hash, false, map),
            _ => self.judged(core, hash, true, map),
        }
        if self.key.is_none() {
            self.key = self.kept.key_of(core, hash, flag, &mut self.buf);
        }
        self.punctuation(tail);
    }

    /// One word: kept when safe (`vocabulary` allowing), else its pseudonym. `hash` is
    /// the word's [`super::fasthash::fold_hash`].
    fn judged(&mut self, w: &str, hash: u64, vocabulary: bool, map: &mut dyn Pseudonyms) {
        // Ids and literals before the remembered words: they are never remembered, and
        // a line holds many ids (one hash of 36 bytes less for each).
        if is_uuid(w) || w.strip_prefix("req-").is_some_and(is_uuid) || is_literal(w) {
            self.out.push_str(w);
            return;
        }
        let vocabulary = vocabulary && self.vocabulary == Vocabulary::Log;
        // Judged safe before, with the same vocabulary: nothing below depends on more.
        if self.kept.contains(w, hash, vocabulary) {
            self.out.push_str(w);
            return;
        }
        if w.len() > LONGEST_WORD {
            self.out.push_str(HIDDEN);
            self.reduced = true;
            return;
        }
        // A number (`8656`, `0.087217`; nearly every one new) is shown as it is, as
        // below, unless it is a name or a seeded host: not remembered, which costs more
        // than judging it. Not 32 digits (a Keystone id), nor the lengths of a MAC.
        if !matches!(w.len(), 14 | 17 | 32)
            && w.bytes().all(|b| b.is_ascii_digit() || b == b'.')
            && w.bytes().any(|b| b.is_ascii_digit())
            && (!self.names.may_name_a_number()
                || (self.names.identified(w).is_none() && !self.is_seeded(w)))
        {
            self.out.push_str(w);
            return;
        }
        // Shown before (not as it is): shown again as it was.
        if let Some(v) = self.kept.verdict(w, hash, vocabulary) {
            self.out.push_str(&v.shown);
            for &kind in &v.kinds {
                map.counted(kind);
            }
            self.reduced |= v.reduced;
            return;
        }
        let start = self.out.len();
        let reduced = std::mem::replace(&mut self.reduced, false);
        let mut asked = Asked {
            inner: map,
            kinds: Vec::new(),
        };
        let kept = self.judged_anew(w, vocabulary, &mut asked);
        if !kept {
            let verdict = Verdict {
                word: w.into(),
                vocabulary,
                shown: self.out[start..].into(),
                kinds: asked.kinds,
                reduced: self.reduced,
            };
            self.kept.remember(hash, verdict);
        }
        self.reduced |= reduced;
    }

    /// [`Words::judged`] of a word not remembered, by every test; whether it was kept
    /// as it is.
    fn judged_anew(&mut self, w: &str, vocabulary: bool, map: &mut dyn Pseudonyms) -> bool {
        if w.len() == 32 && w.bytes().all(|b| b.is_ascii_hexdigit()) {
            let id = map.pseudonym(Kind::KeystoneId, &w.to_ascii_lowercase());
            self.out.push_str(&id);
            return false;
        }
        if let Some(mac) = mac_of(w) {
            let pseudo = map.pseudonym(Kind::Mac, &mac);
            self.out.push_str(&pseudo);
            return false;
        }
        // A user, project or name the inputs gave: its pseudonym even when it is made
        // of vocabulary words (`storage-primary`), the same as where a key named it.
        if let Some(kind) = self.names.identified(w) {
            let pseudo = map.pseudonym(kind, &w.to_ascii_lowercase());
            self.out.push_str(&pseudo);
            return false;
        }
        // A seeded host made of safe words (`compute-01`, `compute-01.log`) is still a host.
        if !self.is_seeded(w) && self.safe(w, vocabulary) {
            self.kept.insert(w, vocabulary);
            self.out.push_str(w);
            return true;
        }
        // The upload's name (`sosreport-<host>-<company>-case-<n>`), unless made of
        // safe words only (`race` stays a word).
        if self.is_upload(w) {
            self.out.push_str(NEUTRAL_NAME);
            return false;
        }
        let replaced = self.denied(w, vocabulary, map);
        self.out.push_str(&replaced);
        false
    }

    /// Whether `w`, or a `.`-separated part of it, is a seeded host or domain.
    fn is_seeded(&mut self, w: &str) -> bool {
        let names = self.names;
        let seeds = names.seeds();
        if seeds.hosts.is_empty() && seeds.domains.is_empty() {
            return false;
        }
        self.buf.clear();
        self.buf.push_str(w);
        self.buf.make_ascii_lowercase();
        let lower = self.buf.as_str();
        names.is_host(lower)
            || names.is_domain(lower)
            || (lower.contains('.') && lower.split('.').any(|p| names.is_host(p)))
    }

    fn is_upload(&self, w: &str) -> bool {
        self.upload.iter().any(|u| u.eq_ignore_ascii_case(w))
    }

    /// Whether a word may be shown as it is.
    fn safe(&mut self, w: &str, vocabulary: bool) -> bool {
        if !w.contains('.') {
            // A vocabulary word with `_` (`sos_commands`), or one made of safe pieces.
            return (vocabulary && w.contains(['_', '-']) && vocab::is_word(w, &mut self.buf))
                || w.split(['-', '_']).all(|p| self.safe_piece(p, vocabulary));
        }
        let pieces = || w.split('.');
        // Versions: `2.95`, `v2.1`, `21.0.0`.
        let version = w.strip_prefix(['v', 'V']).unwrap_or(w);
        if version.split('.').all(|p| p.is_empty() || is_number(p)) {
            return true;
        }
        if !vocabulary {
            return false;
        }
        if vocab::is_module(w, &mut self.buf) {
            return true;
        }
        if pieces().any(|p| TLDS.iter().any(|t| t.eq_ignore_ascii_case(p))) {
            return false;
        }
        let first = pieces().next().unwrap_or("");
        let last = pieces().next_back().unwrap_or("");
        let module_like = vocab::is_module(first, &mut self.buf);
        let file_like = EXTENSIONS.iter().any(|e| e.eq_ignore_ascii_case(last));
        (module_like || file_like)
            && pieces().all(|p| p.split(['-', '_']).all(|q| self.safe_piece(q, true)))
    }

    fn safe_piece(&mut self, p: &str, vocabulary: bool) -> bool {
        p.is_empty()
            || is_number(p)
            || (vocabulary
                && ((p.len() == 1 && p.as_bytes()[0].is_ascii_alphabetic())
                    || vocab::is_word(p, &mut self.buf)))
    }

    /// The pseudonym of a word not known to be safe: a seeded host or domain gets its
    /// own, a dotted name piece by piece (`node02ob100.maas`, `ctl.acme.com`), anything
    /// else one pseudonym for the whole word, case folded.
    fn denied(&mut self, w: &str, vocabulary: bool, map: &mut dyn Pseudonyms) -> String {
        let lower = w.to_ascii_lowercase();
        let names = self.names;
        if names.is_host(&lower) {
            return map.pseudonym(Kind::Host, &lower);
        }
        if names.is_domain(&lower) {
            return map.pseudonym(Kind::Domain, &lower);
        }
        if !lower.contains('.') {
            self.reduced = true;
            return map.pseudonym(Kind::Name, &lower);
        }
        // The longest known domain the name ends with.
        let mut domain_at = None;
        let mut at = 0;
        while let Some(dot) = lower[at..].find('.') {
            let rest = &lower[at + dot + 1..];
            if names.is_domain(rest) {
                domain_at = Some(at + dot);
                break;
            }
            at += dot + 1;
        }
        let (head, domain) = match domain_at {
            Some(dot) => (&lower[..dot], Some(&lower[dot + 1..])),
            None => (lower.as_str(), None),
        };
        let mut parts: Vec<String> = Vec::new();
        for (n, piece) in head.split('.').enumerate() {
            let part = if piece.is_empty() {
                String::new()
            } else if names.is_host(piece) || (n == 0 && domain.is_some()) {
                map.pseudonym(Kind::Host, piece)
            } else if piece
                .split(['-', '_'])
                .all(|q| self.safe_piece(q, vocabulary))
            {
                piece.to_string()
            } else {
                self.reduced = true;
                map.pseudonym(Kind::Name, piece)
            };
            parts.push(part);
        }
        if let Some(domain) = domain {
            parts.push(map.pseudonym(Kind::Domain, domain));
        }
        parts.join(".")
    }
}

/// Top-level domains and the like: a dotted word holding one is a host name.
const TLDS: &[&str] = &[
    "com",
    "net",
    "org",
    "io",
    "local",
    "internal",
    "lan",
    "corp",
    "intra",
    "home",
    "arpa",
    "example",
    "localdomain",
    "edu",
    "gov",
    "cloud",
];

/// File name endings a dotted word of known words may have (`nova-compute.log`).
const EXTENSIONS: &[&str] = &[
    "log", "conf", "cfg", "ini", "py", "pyc", "gz", "xz", "zst", "bz2", "json", "yaml", "yml",
    "txt", "sh", "service", "socket", "pid", "lock", "html", "svg", "tar", "tgz", "xml", "d",
    "err", "out", "journal", "target", "timer",
];

/// Words that say nothing whatever key they follow.
fn is_literal(w: &str) -> bool {
    ["null", "none", "true", "false", "yes", "no", "nil", "unset"]
        .iter()
        .any(|l| l.eq_ignore_ascii_case(w))
}

fn is_auth_scheme(w: &str) -> bool {
    ["basic", "bearer", "digest", "negotiate", "token"]
        .iter()
        .any(|l| l.eq_ignore_ascii_case(w))
}

/// Words whose next value is a secret or a name (options, JSON keys, CLI flags).
/// `buf` is scratch space (this runs for every word: no allocation).
fn key_of(word: &str, flag: bool, buf: &mut String) -> Option<Key> {
    if !may_be_key(word) {
        return None;
    }
    buf.clear();
    if word.contains('-') {
        buf.extend(word.chars().map(|c| match c {
            '-' => '_',
            c => c.to_ascii_lowercase(),
        }));
    } else {
        // The same text: a copy and an ASCII fold, with no decoding char by char.
        buf.push_str(word);
        buf.make_ascii_lowercase();
    }
    let lower = buf.as_str();
    if lower == "authorization" || lower == "proxy_authorization" {
        return Some(Key::Authorization);
    }
    if lower == "bearer" || lower == "basic" {
        return Some(Key::Secret { flag: true });
    }
    let secret = super::secrets::names_a_secret(lower) || lower.ends_with("_pass");
    if secret {
        return Some(Key::Secret { flag });
    }
    let name = [
        "display_name",
        "name",
        "hostname",
        "host_name",
        "instance_name",
        "user",
        "username",
        "user_name",
        "project",
        "project_name",
        "tenant",
        "tenant_name",
        "domain",
        "domain_name",
        "user_domain_name",
        "project_domain_name",
        "os_username",
        "os_project_name",
        "os_user_domain_name",
        "os_project_domain_name",
        "nodename",
        "server_name",
        "owner",
        "login",
    ]
    .contains(&lower);
    name.then_some(Key::Name { flag })
}

/// Whether [`key_of`] may find a key in `word`: every key is at least `key` long, and
/// holds an ASCII letter past `f` (ids, numbers, addresses and versions, most words of a
/// line, hold none and are no key).
fn may_be_key(word: &str) -> bool {
    word.len() >= 3
        && word
            .bytes()
            .any(|b| b.is_ascii_alphabetic() && !b.is_ascii_hexdigit())
}

/// A dashed UUID (8-4-4-4-12 hex digits, any case).
fn is_uuid(w: &str) -> bool {
    let b = w.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| match i {
            8 | 13 | 18 | 23 => c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

/// A MAC written with dashes (`fa-16-3e-4b-9c-21`) or dotted (`fa16.3e4b.9c21`), in the
/// colon form the map keys MACs by.
fn mac_of(w: &str) -> Option<String> {
    let hex: String = match w.len() {
        17 if w.split('-').count() == 6 && w.split('-').all(|p| p.len() == 2) => w.replace('-', ""),
        14 if w.split('.').count() == 3 && w.split('.').all(|p| p.len() == 4) => w.replace('.', ""),
        _ => return None,
    };
    if hex.len() != 12 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    let hex = hex.to_ascii_lowercase();
    let pairs: Vec<&str> = (0..6).filter_map(|i| hex.get(2 * i..2 * i + 2)).collect();
    Some(pairs.join(":"))
}

/// Units a number may carry (`12ms`, `3.5s`, `512MiB`, `19:51:12Z`).
const UNITS: &[&str] = &[
    "s", "ms", "us", "ns", "m", "h", "d", "sec", "secs", "min", "mins", "z", "k", "kb", "mb", "gb",
    "tb", "kib", "mib", "gib", "tib", "b", "g", "t", "x", "st", "nd", "rd", "th",
];

/// Digits, maybe with a unit, or a date and a time joined by `T` (`08T19`).
fn is_number(p: &str) -> bool {
    let digits = p.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return false;
    }
    let rest = &p[digits..];
    rest.is_empty()
        || UNITS.iter().any(|u| u.eq_ignore_ascii_case(rest))
        || rest
            .strip_prefix(['T', 't'])
            .is_some_and(|t| !t.is_empty() && is_number(t))
}

#[cfg(test)]
mod tests;
