//! The user and project of oslo context brackets (`[req-<id> <user> <project> …]`).

use std::sync::LazyLock;

use memchr::memmem;

use super::Identifier;
use crate::redact::map::Kind;

/// Every context bracket holds one.
static REQ: LazyLock<memmem::Finder<'static>> = LazyLock::new(|| memmem::Finder::new("req-"));

impl Identifier {
    /// The user and project of each context bracket of `line`.
    pub(super) fn context_names(&mut self, line: &str) {
        if REQ.find(line.as_bytes()).is_some() {
            for (user, project) in context_brackets(line) {
                self.name(user, Kind::User);
                self.name(project, Kind::Project);
            }
        }
    }
}

/// The user and project of each oslo context bracket of a line
/// (`[req-<id> <user> <project> …]`, `[req-<global id> req-<id> <user> <project> …]`,
/// `[None req-<id> <user> <project> …]`), left to right, as the regex
/// `\[(?:(?:req-[0-9a-f-]{36}|None) )?req-[0-9a-f-]{36} ([^\s\]]+) ([^\s\]]+)` finds
/// them, without running one on every line.
pub(super) fn context_brackets(line: &str) -> impl Iterator<Item = (&str, &str)> {
    context_spans(line).map(|(_, user, project)| (user, project))
}

/// [`context_brackets`] with where each match lies in `line` (from its `[` to the end of
/// the project).
pub(in crate::redact) fn context_spans(
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
