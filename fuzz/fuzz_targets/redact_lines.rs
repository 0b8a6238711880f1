#![no_main]
//! Any text through the redaction passes. The input is host seeds (an `/etc/hosts`
//! part and bare names) before the first NUL byte, then the text. No panic; the same
//! line gets the same redaction again once the map knows its values; no two values of
//! a kind share a pseudonym.
use std::collections::HashSet;

use evacdoc::redact::PseudonymMap;
use evacdoc::redact::line::{LineRedactor, redact_path};
use evacdoc::redact::map::Kind;
use evacdoc::redact::names::{NameFinder, Seeds};
use evacdoc::redact::seed::add_etc_hosts;

const KINDS: [Kind; 9] = [
    Kind::Host,
    Kind::Domain,
    Kind::Ipv4Net,
    Kind::Ipv6,
    Kind::Mac,
    Kind::User,
    Kind::Project,
    Kind::KeystoneId,
    Kind::Email,
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (seed_text, body) = text.split_once('\0').unwrap_or(("", &text));
    let mut seeds = Seeds::default();
    add_etc_hosts(&mut seeds, seed_text);
    for name in seed_text.split_whitespace() {
        seeds.add_host(name);
    }
    let names = NameFinder::new(seeds);
    let mut map = PseudonymMap::with_key("00112233445566778899aabbccddeeff");

    let mut first = LineRedactor::new(&names);
    let once: Vec<String> = body
        .split('\n')
        .map(|line| first.line(line, &mut map).into_owned())
        .collect();
    for line in body.split('\n') {
        std::hint::black_box(redact_path(line, &names, &mut map));
    }
    let mut again = LineRedactor::new(&names);
    for (line, before) in body.split('\n').zip(&once) {
        assert_eq!(
            &again.line(line, &mut map),
            before,
            "redaction of {line:?} changed"
        );
    }
    for kind in KINDS {
        let mut seen = HashSet::new();
        for (real, pseudo) in map.pairs(kind) {
            assert!(
                seen.insert(pseudo),
                "{kind:?} pseudonym {pseudo:?} given twice ({real:?})"
            );
        }
    }
});
