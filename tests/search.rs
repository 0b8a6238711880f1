//! `evacdoc search`: every record indexed with the analysis, then one page of hits.

use std::collections::BTreeSet;
use std::io::Read;
use std::path::Path;

use evacdoc::correlate::Analysis;
use evacdoc::index::{Indexer, MAX_PER_PAGE, SearchIndex, SearchQuery};
use evacdoc::run::{RunOptions, analyze_inputs};
use serde_json::Value;

use crate::analysis::scenario;
use crate::util::{evacdoc, stderr, stdout};

/// A scenario analyzed with its index built, as the service does.
pub fn indexed(name: &str) -> (Analysis, SearchIndex, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let indexer = Indexer::create(dir.path(), 50_000_000).unwrap();
    let options = RunOptions {
        sinks: Some(indexer.sinks()),
        ..RunOptions::default()
    };
    let report = analyze_inputs(&[scenario(name)], &options).unwrap();
    indexer.finish(&report.analysis).unwrap();
    let index = SearchIndex::open(dir.path()).unwrap();
    (report.analysis, index, dir)
}

/// (path, line) of every line holding `needle` in the logs the analysis read, counted
/// as `grep -F` (`zgrep -F` for a `.gz` rotation) counts them, straight from the files.
pub fn grep_f(root: &Path, analysis: &Analysis, needle: &str) -> BTreeSet<(String, u64)> {
    let mut found = BTreeSet::new();
    for file in &analysis.files {
        let raw = std::fs::read(root.join(&file.path)).unwrap();
        let bytes = if file.path.ends_with(".gz") {
            let mut plain = Vec::new();
            flate2::read::MultiGzDecoder::new(raw.as_slice())
                .read_to_end(&mut plain)
                .unwrap();
            plain
        } else {
            raw
        };
        for (n, line) in bytes.split(|b| *b == b'\n').enumerate() {
            if memchr::memmem::find(line, needle.as_bytes()).is_some() {
                found.insert((file.path.clone(), n as u64 + 1));
            }
        }
    }
    found
}

/// Every hit of `q`, all pages.
pub fn all_hits(index: &SearchIndex, q: &str) -> evacdoc::index::SearchPage {
    let mut query = SearchQuery::new(q);
    query.per_page = MAX_PER_PAGE;
    let page = index.search(&query).unwrap();
    assert!(page.total <= MAX_PER_PAGE, "{q}: {}", page.total);
    page
}

#[test]
fn a_pasted_id_finds_every_line_grep_f_finds() {
    for (name, ids) in [
        (
            "2022-kolla-yoga-two-hosts-interleaved-race",
            &[
                // request id, instance, notification
                "req-fc71d7b6-265b-4e44-9682-88b9094ed4f8",
                "b82eba12-88bb-4d17-8558-51643dead4f7",
                "6916637e-b48a-42c6-b1ca-c1e4ee82d1e8",
            ][..],
        ),
        (
            // a global request id across three hosts' logs and a gzipped rotation
            "2025-kolla-healthy-recovery",
            &["req-3ceb3ffd-97b7-48b5-a163-ea7b5eb561a4"][..],
        ),
        (
            // a volume id in Cinder, Apache and Nova logs
            "2023-sosreport-bfv-delay-prezed",
            &["1bd66f9a-5376-49fc-9b94-be25b9dc6e45"][..],
        ),
    ] {
        let (analysis, index, _dir) = indexed(name);
        for id in ids {
            let expected = grep_f(&scenario(name), &analysis, id);
            assert!(expected.len() >= 4, "{name} {id}: {expected:?}");
            let page = all_hits(&index, id);
            assert!(page.literal, "{id}");
            assert_eq!(page.total, expected.len(), "{name} {id}");
            let got: BTreeSet<(String, u64)> =
                page.hits.iter().map(|h| (h.path.clone(), h.line)).collect();
            assert_eq!(got, expected, "{name} {id}");
            for hit in &page.hits {
                assert!(hit.text.contains(id), "{hit:?}");
                assert!(!hit.marks.is_empty(), "{hit:?}");
                for (s, e) in &hit.marks {
                    assert_eq!(&hit.text[*s..*e], *id);
                }
            }
            // The words of the id narrow the search; a field beside it filters the lines.
            let api = all_hits(&index, &format!("{id} service:nova-api"));
            let expected_api = page.hits.iter().filter(|h| h.service == "nova-api").count();
            assert_eq!(api.total, expected_api, "{name} {id}");
        }
    }
    // Quoted, any text is a literal: case and punctuation as written.
    let (analysis, index, _dir) = indexed("2022-kolla-yoga-two-hosts-interleaved-race");
    let root = scenario("2022-kolla-yoga-two-hosts-interleaved-race");
    for text in [
        "is still in use",
        "Call get server command",
        "nova - - - -] Fail",
    ] {
        let expected = grep_f(&root, &analysis, text);
        let page = all_hits(&index, &format!("\"{text}\""));
        assert_eq!(page.total, expected.len(), "{text}");
    }
    assert_eq!(all_hits(&index, "\"call GET server\"").total, 0);
}

#[test]
fn text_hits_name_file_line_utc_time_host_and_service() {
    let path = scenario("2025-kolla-healthy-recovery");
    let output = evacdoc(&[
        "search",
        path.to_str().unwrap(),
        "notification:9c1f4e2a-6b7d-4e3f-a8c5-2d1b0e9f7a63 Processing",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    // Logged 14:03:04.922 in Europe/Amsterdam summer time; no ANSI codes off a terminal.
    assert!(
        text.starts_with(
            "ctl01/var/log/kolla/masakari/masakari-engine.log:4: 2025-06-17T12:03:04.922Z ctl01 masakari-engine Processing notification 9c1f4e2a-6b7d-4e3f-a8c5-2d1b0e9f7a63 of type: COMPUTE_HOST\n"
        ),
        "{text}"
    );
    assert!(!text.contains('\x1b'));
    assert!(
        stderr(&output).contains("records match"),
        "{}",
        stderr(&output)
    );
}

#[test]
fn json_is_a_page_of_hits_in_a_utc_range() {
    let path = scenario("2024-sosreports-two-timezones");
    let output = evacdoc(&[
        "search",
        path.to_str().unwrap(),
        "instance:8acc20ac-82f7-42de-8532-14468beddf91 OR level:ERROR",
        "--format",
        "json",
        "--from",
        "2024-05-21T08:05:00Z",
        "--to",
        "2024-05-21T08:06:00Z",
        "--per-page",
        "2",
        "--page",
        "2",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let page: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(page["page"], 2);
    assert_eq!(page["per_page"], 2);
    assert!(page["total"].as_u64().unwrap() > 2, "{page}");
    let hits = page["hits"].as_array().unwrap();
    assert_eq!(hits.len(), 2);
    for hit in hits {
        let time = hit["timestamp"].as_str().unwrap();
        assert!(
            ("2024-05-21T08:05:00Z"..="2024-05-21T08:06:00Z").contains(&time),
            "{hit}"
        );
        let text = hit["text"].as_str().unwrap();
        for mark in hit["marks"].as_array().unwrap() {
            let (s, e) = (
                mark[0].as_u64().unwrap() as usize,
                mark[1].as_u64().unwrap() as usize,
            );
            assert!(text.get(s..e).is_some(), "{hit}");
        }
        assert!(hit["path"].as_str().unwrap().starts_with("sosreport-"));
        assert!(hit["line"].as_u64().unwrap() >= 1);
    }
}

#[test]
fn a_bad_query_exits_2_with_one_line() {
    let path = scenario("2025-kolla-healthy-recovery");
    let output = evacdoc(&["search", path.to_str().unwrap(), "\"unclosed phrase"]);
    assert_eq!(output.status.code(), Some(2));
    let err = stderr(&output);
    let last = err.lines().last().unwrap();
    assert!(last.starts_with("evacdoc: bad query: "), "{err}");
    assert!(stdout(&output).is_empty());
    let bad_time = evacdoc(&[
        "search",
        path.to_str().unwrap(),
        "nova",
        "--from",
        "yesterday",
    ]);
    assert_eq!(bad_time.status.code(), Some(2));
    assert!(stderr(&bad_time).contains("--from \"yesterday\""));
}
