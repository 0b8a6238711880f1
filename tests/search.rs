//! `evacdoc search`: every record indexed with the analysis, then one page of hits.

use serde_json::Value;

use crate::analysis::scenario;
use crate::util::{evacdoc, stderr, stdout};

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
