//! Literal search against `grep -F` on texts nobody chose: pieces cut at random from the
//! scenarios' real lines (heads with times, process ids and request ids, messages,
//! container wrappers), whole or from inside a word, and with their case changed. The
//! index narrows the records to check by the words it holds; whatever it leaves out of
//! which field, every line `grep -F` finds must be found.

use std::collections::BTreeMap;
use std::path::Path;

use evacdoc::correlate::Analysis;
use evacdoc::index::{SearchIndex, SearchQuery};

use crate::analysis::scenario;
use crate::search::{grep_f, indexed};

/// A small deterministic generator (no dependency).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

/// The analysed files' lines, as `grep_f` reads them.
fn lines_of(root: &Path, analysis: &Analysis) -> Vec<String> {
    let mut lines = Vec::new();
    for file in &analysis.files {
        let path = root.join(&file.path);
        let Ok(raw) = std::fs::read(&path) else {
            continue;
        };
        let bytes = if file.path.ends_with(".gz") {
            let mut plain = Vec::new();
            let mut gz = flate2::read::MultiGzDecoder::new(raw.as_slice());
            std::io::Read::read_to_end(&mut gz, &mut plain).unwrap();
            plain
        } else {
            raw
        };
        lines.extend(
            String::from_utf8_lossy(&bytes)
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(str::to_string),
        );
    }
    lines
}

/// A piece of `line` from a random character to at most `max` bytes further.
fn cut(line: &str, rng: &mut Lcg, max: usize) -> Option<String> {
    let starts: Vec<usize> = line.char_indices().map(|(i, _)| i).collect();
    let start = *starts.get(rng.below(starts.len()))?;
    let want = start + 2 + rng.below(max);
    let end = (want..=line.len().min(want + 4))
        .find(|&e| line.is_char_boundary(e))
        .unwrap_or(line.len());
    let piece = line.get(start..end.min(line.len()))?.to_string();
    Some(piece)
}

/// The literals to try on one scenario: random pieces, the pieces of each line's head
/// an engineer pastes (time, request id and its start), and case-changed copies.
fn literals(lines: &[String], rng: &mut Lcg, count: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..count {
        let line = &lines[rng.below(lines.len())];
        if let Some(piece) = cut(line, rng, 40) {
            if rng.below(5) == 0 {
                out.push(piece.to_uppercase());
            }
            out.push(piece);
        }
        if let Some(time) = line.get(..19) {
            out.push(time.to_string());
            out.push(time[11..].to_string());
        }
        if let Some(at) = line.find("req-") {
            let rest = &line[at..];
            for len in [40, 12, 17, 8] {
                if let Some(id) = rest.get(..len) {
                    out.push(id.to_string());
                }
            }
            if let Some(group) = rest.get(4..12) {
                out.push(group.to_string());
            }
            if let Some(tail) = rest.get(28..40) {
                out.push(tail.to_string());
            }
        }
    }
    out.retain(|l| {
        !l.contains('"') && l.trim() == l && !l.is_empty() && !l.chars().any(char::is_control)
    });
    out
}

fn literal_total(index: &SearchIndex, literal: &str) -> usize {
    let mut query = SearchQuery::new(format!("\"{literal}\""));
    query.per_page = 1;
    match index.search(&query) {
        Ok(page) => {
            assert!(page.literal, "{literal:?}");
            page.total
        }
        Err(e) => panic!("{literal:?}: {e}"),
    }
}

#[test]
fn every_literal_cut_from_the_lines_finds_the_lines_grep_f_finds() {
    let mut rng = Lcg(24);
    let mut checked = 0;
    for name in [
        "2022-kolla-yoga-two-hosts-interleaved-race",
        "2025-kolla-healthy-recovery",
        "2023-sosreport-bfv-delay-prezed",
        "2024-sunbeam-bfv-delay",
        "2026-helm-k8s-monitor-host-status",
        "2020-juju-evacuate-race",
        "2024-sosreport-fenced-before-evacuation-syslog",
    ] {
        let root = scenario(name);
        let (analysis, index, _dir) = indexed(name);
        let lines = lines_of(&root, &analysis);
        assert!(lines.len() > 20, "{name}");
        let mut seen = BTreeMap::new();
        for literal in literals(&lines, &mut rng, 60) {
            if seen.contains_key(&literal) {
                continue;
            }
            let expected = grep_f(&root, &analysis, &literal).len();
            let got = literal_total(&index, &literal);
            assert_eq!(got, expected, "{name}: {literal:?}");
            seen.insert(literal, expected);
            checked += 1;
        }
        // Not a test that cannot fail: most pieces are found, some (a changed case) not.
        assert!(
            seen.values().filter(|&&n| n > 0).count() > seen.len() / 2,
            "{name}"
        );
    }
    assert!(checked > 400, "{checked}");
}
