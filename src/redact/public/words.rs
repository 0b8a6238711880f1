//! One line's words judged, left to right: shaped values by their shapes, keys and the
//! values after them, every other word shown only when it is known to be safe.

use super::*;

/// What a key word says about the value after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Key {
    /// A secret (`password`, `--os-password`, `*_key`): the value is hidden.
    Secret { flag: bool },
    /// An authorization header: the scheme stays, the credential is hidden.
    Authorization,
    /// A name (`display_name`, `user`, `--os-username`): never read as vocabulary.
    Name { flag: bool },
}

pub(super) struct Words<'a, 'k> {
    pub(super) names: &'a NameFinder,
    pub(super) upload: &'a [String],
    pub(super) vocabulary: Vocabulary,
    pub(super) out: String,
    /// A word was replaced because it is not known to be safe.
    pub(super) reduced: bool,
    /// The last word was a key, and only `=`, `:`, quotes and blanks came after it.
    pub(super) key: Option<Key>,
    /// An `=` or `:` came after the key.
    pub(super) assigned: bool,
    pub(super) buf: String,
    pub(super) kept: &'k mut KeptWords,
}

pub(super) fn is_word_byte(b: u8) -> bool {
    WORD_BYTES[usize::from(b)]
}

/// Which bytes words are made of (letters, digits, `-`, `_`, `.`, non-ASCII), by value:
/// one load per byte of every line.
pub(super) static WORD_BYTES: [bool; 256] = {
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
    pub(super) fn segment(&mut self, text: &str, map: &mut dyn Pseudonyms) {
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
    pub(super) fn contexts(&mut self, text: &str, map: &mut dyn Pseudonyms) {
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

    /// [`Words::segment`] of an oslo.log line's head: when the text around its one
    /// context bracket can hold no shape (the byte pass says so), the pattern can find only
    /// the bracket there, which the bracket reader finds as the pattern does (as in
    /// [`Words::contexts`]): the head is read so, without the pattern that its bracket's
    /// 32-hex ids would otherwise send it through. Any other head is segmented whole.
    pub(super) fn head(&mut self, text: &str, map: &mut dyn Pseudonyms) {
        let mut spans = context_spans(text);
        if let (Some((bracket, _, _)), None) = (spans.next(), spans.next())
            && possible_shapes(&text[..bracket.start]) == Possible::Nothing
            && possible_shapes(&text[bracket.end..]) == Possible::Nothing
            && let Some(replaced) = replace_one(&text[bracket.clone()], map)
        {
            self.text(&text[..bracket.start], map);
            self.out.push_str(&replaced);
            self.key = None;
            self.text(&text[bracket.end..], map);
            return;
        }
        self.segment(text, map);
    }

    pub(super) fn text(&mut self, text: &str, map: &mut dyn Pseudonyms) {
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

    pub(super) fn punctuation(&mut self, p: &str) {
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
    pub(super) fn word_run(&mut self, run: &str, map: &mut dyn Pseudonyms) {
        let core = run.trim_matches(|c| matches!(c, '.' | '-' | '_'));
        if core.is_empty() {
            self.punctuation(run);
            return;
        }
        let lead = run.len() - run.trim_start_matches(['.', '-', '_']).len();
        let (head, tail) = (&run[..lead], &run[lead + core.len()..]);
        let hash = crate::redact::fasthash::fold_hash(core.as_bytes());
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
    /// the word's [`crate::redact::fasthash::fold_hash`].
    pub(super) fn judged(
        &mut self,
        w: &str,
        hash: u64,
        vocabulary: bool,
        map: &mut dyn Pseudonyms,
    ) {
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
    pub(super) fn judged_anew(
        &mut self,
        w: &str,
        vocabulary: bool,
        map: &mut dyn Pseudonyms,
    ) -> bool {
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
    pub(super) fn is_seeded(&mut self, w: &str) -> bool {
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

    pub(super) fn is_upload(&self, w: &str) -> bool {
        self.upload.iter().any(|u| u.eq_ignore_ascii_case(w))
    }

    /// Whether a word may be shown as it is.
    pub(super) fn safe(&mut self, w: &str, vocabulary: bool) -> bool {
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

    pub(super) fn safe_piece(&mut self, p: &str, vocabulary: bool) -> bool {
        p.is_empty()
            || is_number(p)
            || (vocabulary
                && ((p.len() == 1 && p.as_bytes()[0].is_ascii_alphabetic())
                    || vocab::is_word(p, &mut self.buf)))
    }

    /// The pseudonym of a word not known to be safe: a seeded host or domain gets its
    /// own, a dotted name piece by piece (`node02ob100.maas`, `ctl.acme.com`), anything
    /// else one pseudonym for the whole word, case folded.
    pub(super) fn denied(&mut self, w: &str, vocabulary: bool, map: &mut dyn Pseudonyms) -> String {
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
