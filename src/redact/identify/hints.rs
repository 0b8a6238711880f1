//! The words that make a line worth reading for keys, found once per line.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind};

/// Words a key holding an identifier contains; lines without any are not scanned for keys.
pub(super) const HINTS: &[&str] = &[
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

pub(super) static HINT: LazyLock<AhoCorasick> = LazyLock::new(|| {
    // A constant list: a failure is a bug caught by every test.
    #[allow(clippy::expect_used)]
    AhoCorasickBuilder::new()
        .ascii_case_insensitive(true)
        .match_kind(MatchKind::LeftmostFirst)
        .build(HINTS)
        .expect("valid hints")
});

/// The index of `basic ` in [`HINTS`].
pub(super) const BASIC_HINT: usize = 17;

/// The places (start, end, which) of the words of [`HINTS`] in `line`, into `hits`.
pub(super) fn hint_places(line: &str, hits: &mut Vec<(usize, usize, usize)>) {
    hits.clear();
    hits.extend(
        HINT.find_iter(line)
            .map(|m| (m.start(), m.end(), m.pattern().as_usize())),
    );
}
