//! Detectors over the sample scenarios: each gives exactly the findings its README
//! expects, every evidence line exists where it says, and the JSON report is golden.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use evacdoc::detect::{DETECTORS, DetectOptions, detect};
use evacdoc::run::{Options, analyze};
use evacdoc::triage::report::json_document;
use evacdoc::triage::{Catalog, attach_known_bugs};

use crate::util::samples;

fn scenario_names() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(samples().join("scenarios"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("README.md").exists())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// The detector ids a scenario's README lists under `## Expected findings`, and those
/// under `Must not fire:`.
fn expectations(name: &str) -> (BTreeSet<String>, BTreeSet<String>) {
    let readme =
        std::fs::read_to_string(samples().join("scenarios").join(name).join("README.md")).unwrap();
    let section = readme
        .split("## Expected findings")
        .nth(1)
        .unwrap_or_else(|| panic!("{name}: README has no `## Expected findings`"));
    let ids: Vec<&str> = DETECTORS.iter().map(|d| d.id()).collect();
    let mut expected = BTreeSet::new();
    let mut forbidden = BTreeSet::new();
    for line in section.lines().take_while(|l| !l.starts_with("## ")) {
        let clean = line
            .trim()
            .trim_start_matches(['-', '*', ' '])
            .replace('`', "");
        if let Some(rest) = clean.strip_prefix("Must not fire:") {
            for id in rest.split(',').map(|s| s.trim().trim_end_matches('.')) {
                // A typo or a wrapped line would make the check pass whatever fires.
                assert!(
                    ids.contains(&id),
                    "{name}: README's `Must not fire` names {id:?}, not a detector id (one line, comma-separated ids)"
                );
                forbidden.insert(id.to_string());
            }
            continue;
        }
        if let Some(id) = ids.iter().find(|id| clean.starts_with(**id)) {
            expected.insert(id.to_string());
        }
    }
    (expected, forbidden)
}

fn findings_of(name: &str) -> (evacdoc::correlate::Analysis, Vec<evacdoc::detect::Finding>) {
    let path = samples().join("scenarios").join(name);
    let analysis = analyze(&[path], &Options::default()).unwrap();
    let mut findings = detect(&analysis, &DetectOptions::default());
    attach_known_bugs(&mut findings, &Catalog::shipped().unwrap(), &analysis);
    (analysis, findings)
}

#[test]
fn registry_ids_are_unique_documented_and_sampled() {
    let mut seen = BTreeSet::new();
    let mut sampled = BTreeSet::new();
    for name in scenario_names() {
        sampled.extend(expectations(&name).0);
    }
    for d in DETECTORS {
        let id = d.id();
        assert!(seen.insert(id), "duplicate detector id {id}");
        assert!(
            id.split('-').all(|w| !w.is_empty()
                && w.bytes()
                    .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())),
            "{id} is not kebab-case"
        );
        assert!(d.doc().len() > 40, "{id} has no real doc");
        assert!(sampled.contains(id), "no scenario expects {id}");
    }
    for fixed in [
        "evacuate-400-race",
        "pending-after-finished",
        "bfv-evacuation-delay",
    ] {
        assert!(seen.contains(fixed), "{fixed} missing from the registry");
    }
}

#[test]
fn every_scenario_gives_exactly_the_expected_findings() {
    for name in scenario_names() {
        let (expected, forbidden) = expectations(&name);
        let (_, findings) = findings_of(&name);
        let got: BTreeSet<String> = findings.iter().map(|f| f.detector.to_string()).collect();
        assert_eq!(
            got,
            expected,
            "{name}: {:#?}",
            findings.iter().map(|f| &f.title).collect::<Vec<_>>()
        );
        for id in &forbidden {
            assert!(!got.contains(id), "{name}: {id} must not fire");
        }
    }
}

fn read_text(path: &Path) -> String {
    let bytes = std::fs::read(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        flate2::read::MultiGzDecoder::new(&bytes[..])
            .read_to_end(&mut out)
            .unwrap();
        return String::from_utf8_lossy(&out).into_owned();
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

#[test]
fn every_evidence_line_is_where_it_says() {
    for name in scenario_names() {
        let root = samples().join("scenarios").join(&name);
        let (_, findings) = findings_of(&name);
        for f in &findings {
            assert!(!f.evidence.is_empty(), "{name}: {} has no evidence", f.id);
            for e in &f.evidence {
                let text = read_text(&root.join(&e.path));
                let line = text
                    .lines()
                    .nth(e.line - 1)
                    .unwrap_or_else(|| panic!("{name}: {}:{} past the end", e.path, e.line));
                assert_eq!(
                    line.trim_end_matches('\r'),
                    e.text,
                    "{name}: {}:{}",
                    e.path,
                    e.line
                );
            }
        }
    }
}

#[test]
fn json_reports_are_golden() {
    for name in scenario_names() {
        let (analysis, findings) = findings_of(&name);
        let doc = json_document(&analysis, &findings);
        assert_eq!(doc["schema"], "evacdoc.analysis/v1");
        insta::with_settings!({ snapshot_suffix => name.clone(), omit_expression => true, prepend_module_to_snapshot => false }, {
            insta::assert_json_snapshot!("analyze", doc, {
                ".stats.elapsed_ms" => "[elapsed]",
                ".analysis.inputs" => "[inputs]",
            });
        });
    }
}
