#![no_main]
//! Any text through the two passes of public redaction (share views and bundles): the
//! first identifies what the text gives (`redact::identify`), the second is the
//! default-deny public step. The input is host seeds before the first NUL byte, then the
//! text. No panic; a line gives the same output again once the map knows its values; no
//! seeded host name and no identified secret comes out as it is.
use evacdoc::redact::PseudonymMap;
use evacdoc::redact::identify::Identifier;
use evacdoc::redact::names::{NameFinder, Seeds};
use evacdoc::redact::public::{PublicStats, PublicText, Vocabulary};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let (seed_text, body) = text.split_once('\0').unwrap_or(("", &text));
    let mut seeds = Seeds::default();
    for name in seed_text.split_whitespace() {
        seeds.add_host(name);
    }
    let mut identify = Identifier::default();
    identify.file("fuzz/etc/hosts", body);
    seeds.merge(identify.into_seeds());
    let names = NameFinder::new(seeds);
    let upload = vec!["upload.tar.gz".to_string(), "upload".to_string()];
    let mut map = PseudonymMap::with_key("00112233445566778899aabbccddeeff");
    let mut stats = PublicStats::default();
    let mut first = PublicText::new(&names, &upload);
    let once: Vec<String> = body
        .split('\n')
        .map(|line| first.line(line, Vocabulary::Log, &mut map, &mut stats))
        .collect();
    let mut again = PublicText::new(&names, &upload);
    for (line, before) in body.split('\n').zip(&once) {
        let after = again.line(line, Vocabulary::Log, &mut map, &mut stats);
        assert_eq!(&after, before, "public text of {line:?} changed");
        std::hint::black_box(again.path(line, &mut map, &mut stats));
    }
    for host in &names.seeds().hosts {
        // Long enough, and not hex, not to be inside a pseudonym or a kept id by chance.
        if host.len() >= 12
            && host
                .bytes()
                .any(|b| b.is_ascii_alphabetic() && !b.is_ascii_hexdigit())
        {
            for out in &once {
                assert!(
                    !out.to_ascii_lowercase().contains(host.as_str()),
                    "{host} in {out:?}"
                );
            }
        }
    }
    for secret in &names.seeds().secrets {
        // Long enough not to be made by chance of the kept words, ids and pseudonyms.
        let plain = secret.len() >= 12
            && !secret.contains('*')
            && secret.bytes().all(|b| b.is_ascii_alphanumeric())
            && secret.bytes().any(|b| b.is_ascii_uppercase())
            && secret.bytes().any(|b| b.is_ascii_digit());
        if plain {
            for out in &once {
                assert!(!out.contains(secret.as_str()), "secret {secret} in {out:?}");
            }
        }
    }
});
