#![no_main]
//! Any bytes as a pseudonym map file (`evacdoc redact --map`): loading is an error or a
//! map that then redacts without panic and never gives two values one pseudonym.
use std::collections::{HashMap, HashSet};

use evacdoc::redact::PseudonymMap;
use evacdoc::redact::line::LineRedactor;
use evacdoc::redact::map::Kind;
use evacdoc::redact::names::{NameFinder, Seeds};

/// Real lines of the reference formats, with every kind of shaped value.
const LINES: &[&str] = &[
    "2020-12-08 19:51:12.309 235 INFO masakari.engine.manager [req-6b3c2e4f-0c3d-4a54-a7ab-3a2a0e4f0d11 req-7c4d3f50-1d4e-4b65-b8bc-4b3b1f501e22 alice demo-project - - -] Processing notification on node02ob100.maas 10.159.14.23",
    "2020-12-08 19:51:12.309 235 INFO nova.compute.manager [-] fe80::5054:ff:fe12:3456 52:54:00:12:34:56 bob@example.com 0123456789abcdef0123456789abcdef dhcp-192-168-0-66",
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let path = dir.path().join("case.map.json");
    std::fs::write(&path, data).expect("write the map");
    let Ok(mut map) = PseudonymMap::load(&path) else {
        return;
    };
    let kinds = [
        Kind::Host,
        Kind::Ipv4Net,
        Kind::User,
        Kind::Project,
        Kind::Email,
    ];
    let loaded: HashSet<(Kind, String)> = kinds
        .iter()
        .flat_map(|&k| map.pairs(k).map(move |(real, _)| (k, real.to_string())))
        .collect();
    let mut seeds = Seeds::default();
    seeds.add_host("node02ob100.maas");
    let names = NameFinder::new(seeds);
    let mut lines = LineRedactor::new(&names);
    for line in LINES {
        std::hint::black_box(lines.line(line, &mut map));
    }
    // The file may pair two values with one pseudonym; a value this run added must
    // not take a pseudonym the map already gives another value.
    for kind in kinds {
        let mut count: HashMap<&str, usize> = HashMap::new();
        for (_, pseudo) in map.pairs(kind) {
            *count.entry(pseudo).or_default() += 1;
        }
        for (real, pseudo) in map.pairs(kind) {
            if !loaded.contains(&(kind, real.to_string())) {
                assert_eq!(
                    count[pseudo], 1,
                    "{kind:?} pseudonym {pseudo:?} of {real:?} shared"
                );
            }
        }
    }
});
