//! The index over real scenarios: what a search finds, in UTC, paged and marked.

use std::collections::{BTreeSet, HashMap};
use std::path::Path;

use super::*;
use crate::run::{Report, RunOptions, analyze_inputs};

fn build(scenario: &str) -> (Report, SearchIndex, tempfile::TempDir) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/scenarios")
        .join(scenario);
    let dir = tempfile::tempdir().unwrap();
    let indexer = Indexer::create(dir.path(), 50_000_000).unwrap();
    let progress = indexer.progress();
    let options = RunOptions {
        sinks: Some(indexer.sinks()),
        ..RunOptions::default()
    };
    let report = analyze_inputs(&[path], &options).unwrap();
    let mut told = Vec::new();
    let stats = indexer
        .finish_reporting(&report.analysis, &mut |done| told.push(done))
        .unwrap();
    assert_eq!(stats.documents, report.analysis.stats.records);
    // The build tells how far it got, last when every record is in.
    assert!(told.is_sorted() && !told.is_empty(), "{told:?}");
    let last = told.last().copied().unwrap_or_default();
    assert!(
        last <= stats.bytes && last * 10 >= stats.bytes * 9,
        "{told:?} {stats:?}"
    );
    assert!(
        stats.bytes > 1000 && stats.bytes == progress.load(std::sync::atomic::Ordering::Relaxed)
    );
    assert!(stats.unresolved_zones.is_empty(), "{stats:?}");
    let index = SearchIndex::open(dir.path()).unwrap();
    assert_eq!(index.documents(), stats.documents);
    (report, index, dir)
}

fn search(index: &SearchIndex, q: &str) -> SearchPage {
    let mut query = SearchQuery::new(q);
    query.per_page = MAX_PER_PAGE;
    index.search(&query).unwrap()
}

fn ns(s: &str) -> i64 {
    s.parse::<jiff::Timestamp>().unwrap().as_nanosecond() as i64
}

/// Every hit that is also an event of the analysis has the event's UTC time: the
/// index's zone and clock handling agrees with the analysis'.
fn times_agree_with_the_analysis(report: &Report, page: &SearchPage) -> usize {
    let a = &report.analysis;
    let events: HashMap<(&str, u64), i64> = a
        .events
        .iter()
        .map(|e| {
            (
                (a.files[e.file as usize].path.as_str(), u64::from(e.line)),
                e.time,
            )
        })
        .collect();
    let mut checked = 0;
    for hit in &page.hits {
        if let Some(time) = events.get(&(hit.path.as_str(), hit.line)) {
            let utc = hit.timestamp.as_deref().map(ns);
            assert_eq!(utc, Some(*time), "{hit:?}");
            checked += 1;
        }
    }
    checked
}

fn in_order(page: &SearchPage) -> bool {
    page.hits.windows(2).all(|w| {
        let t = |h: &SearchHit| h.timestamp.as_deref().map(ns);
        match (t(&w[0]), t(&w[1])) {
            (Some(a), Some(b)) => a <= b,
            _ => true,
        }
    })
}

#[test]
fn every_record_is_found_in_utc_order_with_the_analysis_times() {
    for scenario in [
        "2025-kolla-healthy-recovery",
        "2024-sosreports-two-timezones",
    ] {
        let (report, index, _dir) = build(scenario);
        let all = search(&index, "");
        assert_eq!(
            all.total as u64, report.analysis.stats.records,
            "{scenario}"
        );
        assert!(in_order(&all), "{scenario}");
        let checked = times_agree_with_the_analysis(&report, &all);
        assert!(checked > 20, "{scenario}: {checked}");
    }
}

#[test]
fn local_times_of_a_cest_host_come_back_in_utc() {
    let (_, index, _dir) = build("2025-kolla-healthy-recovery");
    let page = search(&index, "notification:9c1f4e2a-6b7d-4e3f-a8c5-2d1b0e9f7a63");
    let processing = page
        .hits
        .iter()
        .find(|h| h.text.starts_with("Processing notification 9c1f4e2a"))
        .unwrap();
    // Logged 14:03:04.922 CEST.
    assert_eq!(
        processing.timestamp.as_deref(),
        Some("2025-06-17T12:03:04.922Z")
    );
    assert_eq!(processing.host, "ctl01");
    assert_eq!(processing.service, "masakari-engine");
    assert_eq!(processing.level.as_deref(), Some("INFO"));
    assert_eq!(
        processing.path,
        "ctl01/var/log/kolla/masakari/masakari-engine.log"
    );
    assert_eq!(processing.line, 4);
    // The id is marked where the text says it.
    let (s, e) = processing.marks[0];
    assert_eq!(
        &processing.text[s..e],
        "9c1f4e2a-6b7d-4e3f-a8c5-2d1b0e9f7a63"
    );
}

#[test]
fn a_utc_range_on_a_non_utc_host_selects_what_the_utc_times_say() {
    let (_, index, _dir) = build("2025-kolla-healthy-recovery");
    let all = search(&index, "");
    let (from, to) = (ns("2025-06-17T12:03:04.9Z"), ns("2025-06-17T12:03:05.3Z"));
    let expected: BTreeSet<(String, u64)> = all
        .hits
        .iter()
        .filter(|h| {
            h.timestamp
                .as_deref()
                .map(ns)
                .is_some_and(|t| t >= from && t <= to)
        })
        .map(|h| (h.path.clone(), h.line))
        .collect();
    assert!(expected.len() >= 3, "{expected:?}");
    let mut query = SearchQuery::new("");
    query.per_page = MAX_PER_PAGE;
    (query.from, query.to) = (Some(from), Some(to));
    let ranged = index.search(&query).unwrap();
    let got: BTreeSet<(String, u64)> = ranged
        .hits
        .iter()
        .filter(|h| h.timestamp.is_some())
        .map(|h| (h.path.clone(), h.line))
        .collect();
    assert_eq!(got, expected);
    // 14:03:04.922 local is in; the same wall clock read as UTC would not be.
    assert!(got.contains(&("ctl01/var/log/kolla/masakari/masakari-engine.log".into(), 4)));
    query.q = "host:ctl01 level:INFO".into();
    let narrowed = index.search(&query).unwrap();
    assert!(narrowed.total > 0 && narrowed.total < ranged.total);
    assert!(narrowed.hits.iter().all(|h| h.host == "ctl01"));
}

#[test]
fn ids_levels_phrases_and_fields_combine() {
    let (report, index, _dir) = build("2024-sosreports-two-timezones");
    // The global request id of the masakari-api request: the engine's lines and Nova's.
    let page = search(&index, "request:req-c9966a7e-7166-42c6-9cf6-81e501b54559");
    let services: BTreeSet<&str> = page.hits.iter().map(|h| h.service.as_str()).collect();
    assert!(page.total >= 3, "{page:?}");
    assert!(services.contains("masakari-engine"), "{services:?}");
    assert!(in_order(&page));
    assert!(times_agree_with_the_analysis(&report, &page) > 0);

    let instance = search(&index, "instance:8ACC20AC-82F7-42DE-8532-14468BEDDF91");
    assert!(instance.total >= 2, "{instance:?}");
    assert!(instance.hits.iter().any(|h| {
        h.text
            .contains("Call get server command for instance 8acc20ac")
    }));

    let errors = search(&index, "level:ERROR");
    assert!(errors.total >= 3);
    assert!(
        errors
            .hits
            .iter()
            .all(|h| h.level.as_deref() == Some("ERROR"))
    );

    let phrase = search(&index, "\"Bad response code while validating token\"");
    assert!(phrase.total >= 2);
    assert!(
        phrase
            .hits
            .iter()
            .all(|h| h.text.contains("Bad response code while validating token"))
    );
    assert_eq!(search(&index, "\"validating response token\"").total, 0);
    assert!(search(&index, "validating response token").total >= 2);

    let combined = search(&index, "service:nova-api level:ERROR 503");
    assert!(
        combined.total >= 2 && combined.total < errors.total,
        "{combined:?}"
    );
    assert!(
        combined
            .hits
            .iter()
            .all(|h| h.service == "nova-api" && h.text.contains("503"))
    );
    // Every word marked where it stands.
    for hit in &combined.hits {
        assert!(!hit.marks.is_empty());
        for &(s, e) in &hit.marks {
            assert_eq!(&hit.text[s..e], "503", "{hit:?}");
        }
    }
    let by_host = search(&index, "host:cmp3 OR host:cmp2.example.com");
    let hosts: BTreeSet<&str> = by_host.hits.iter().map(|h| h.host.as_str()).collect();
    assert_eq!(
        hosts,
        BTreeSet::from(["cmp2.example.com", "cmp3.example.com"])
    );
    assert_eq!(search(&index, "host:nowhere").total, 0);
}

#[test]
fn pages_follow_each_other() {
    let (_, index, _dir) = build("2024-sosreports-two-timezones");
    let mut query = SearchQuery::new("instance OR notification");
    query.per_page = 10;
    let ten = index.search(&query).unwrap();
    assert!(ten.total > 10);
    query.per_page = 5;
    let first = index.search(&query).unwrap();
    query.page = 2;
    let second = index.search(&query).unwrap();
    assert_eq!(first.total, ten.total);
    let joined: Vec<_> = first
        .hits
        .iter()
        .chain(second.hits.iter())
        .cloned()
        .collect();
    assert_eq!(joined, ten.hits);
    query.page = ten.total / 5 + 2;
    assert!(index.search(&query).unwrap().hits.is_empty());
}

#[test]
fn bad_queries_are_typed_errors() {
    let (_, index, _dir) = build("2025-kolla-healthy-recovery");
    for q in ["\"unclosed phrase", "level:(", "nosuchfield:x", "AND OR"] {
        let error = index.search(&SearchQuery::new(q)).unwrap_err();
        assert!(matches!(error, IndexError::Query(_)), "{q}: {error:?}");
        assert!(error.is_bad_request());
        assert!(error.to_string().starts_with("bad query: "), "{error}");
    }
    let mut page_zero = SearchQuery::new("nova");
    page_zero.page = 0;
    assert!(matches!(
        index.search(&page_zero),
        Err(IndexError::Request(_))
    ));
}

#[test]
fn hostile_queries_and_pages_are_refused_naming_the_bound() {
    let (_, index, _dir) = build("2025-kolla-healthy-recovery");
    // 3,000 nested groups overflowed the stack inside tantivy's parser.
    let deep = format!("{}nova{}", "(".repeat(3000), ")".repeat(3000));
    let error = index.search(&SearchQuery::new(deep)).unwrap_err();
    assert!(matches!(
        error,
        IndexError::QueryLimit(QueryLimit::Depth { depth: 3000, .. })
    ));
    assert!(error.is_bad_request());
    assert_eq!(
        error.to_string(),
        "the query nests parentheses and NOTs 3000 deep; at most 32"
    );
    // `host:` resolved away cannot uncover groups its value's quote seemed to hide.
    let hidden = format!("host:a\"b {}nova \"", "(".repeat(100));
    let error = index.search(&SearchQuery::new(hidden)).unwrap_err();
    assert!(
        matches!(error, IndexError::QueryLimit(QueryLimit::Depth { .. })),
        "{error:?}"
    );
    // The deepest query allowed is searched.
    let deepest = format!(
        "{}nova{}",
        "(".repeat(MAX_QUERY_DEPTH),
        ")".repeat(MAX_QUERY_DEPTH)
    );
    assert!(index.search(&SearchQuery::new(deepest)).unwrap().total > 0);
    // A page far past the hits tantivy would have to hold is refused before searching.
    let mut far = SearchQuery::new("nova");
    far.page = 10_000_000;
    far.per_page = 500;
    let error = index.search(&far).unwrap_err();
    assert!(matches!(error, IndexError::Request(_)), "{error:?}");
    assert!(error.to_string().contains("first 10000 hits"), "{error}");
    far.page = usize::MAX;
    assert!(index.search(&far).is_err());
    // The last page within the bound is answered (empty past the hits).
    far.page = MAX_HITS_SHOWN / 500;
    assert!(index.search(&far).unwrap().hits.is_empty());
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(512))]

    /// Whatever the text, the check and the parser answer (an error or a query).
    #[test]
    fn no_query_text_panics_the_parser(q in "[()\"' \\\\:a-zA-Z0-9*+^~\\[\\]{}/-]{0,200}|(NOT |\\(|\\)|\"|AND |OR |host:|-|a ){0,80}") {
        let _ = parse_alone(&q);
    }

    /// Nesting past the bound is refused, however it is spelled.
    #[test]
    fn deep_nesting_is_always_refused(depth in 33usize..2000, word in "[a-z]{1,8}", not in proptest::bool::ANY) {
        let open = if not { "NOT (" } else { "(" };
        let q = format!("{}{word}{}", open.repeat(depth), ")".repeat(depth));
        let refused = matches!(parse_alone(&q), Err(IndexError::QueryLimit(_)));
        proptest::prop_assert!(refused, "{}", q);
    }
}

#[test]
fn the_raw_view_shows_the_files_real_lines() {
    let scenario = "2023-keystone-401-failure";
    let (report, index, _dir) = build(scenario);
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/scenarios")
        .join(scenario);
    let hit = search(&index, "Traceback")
        .hits
        .into_iter()
        .find(|h| h.text.lines().count() > 2)
        .expect("a record with a traceback");
    let file = report
        .analysis
        .files
        .iter()
        .position(|f| f.path == hit.path)
        .unwrap() as u32;
    let on_disk = std::fs::read_to_string(root.join(&hit.path)).unwrap();
    let file_lines: Vec<&str> = on_disk.lines().collect();
    let from = hit.line as u32;
    let shown = index
        .lines(file, from.saturating_sub(1).max(1), from + 1)
        .unwrap();
    let (_, record) = shown.iter().find(|(line, _)| *line == from).unwrap();
    let lines: Vec<&str> = record.lines().collect();
    assert!(lines.len() > 2, "{record}");
    let at = from as usize - 1;
    assert_eq!(lines, file_lines[at..at + lines.len()], "{hit:?}");
    // Each neighbour is its own lines too, starting where the file says.
    for (line, text) in &shown {
        let first = text.lines().next().unwrap_or_default();
        assert_eq!(first, file_lines[*line as usize - 1]);
    }
}

/// The doc stores are read, not mapped (`index::read_store`): a search reading every
/// record's stored lines leaves no map of a `.store` file in the process, while the
/// other files of the index are mapped as tantivy maps them; the hits are whole.
#[test]
fn the_stored_lines_are_read_not_mapped() {
    let (report, index, dir) = build("2023-keystone-401-failure");
    let page = search(&index, "*");
    assert!(!page.hits.is_empty() && page.hits.iter().all(|h| !h.text.is_empty()));
    let all = index
        .lines(0, 1, u32::try_from(report.analysis.stats.records).unwrap())
        .unwrap();
    assert!(!all.is_empty());
    let root = dir.path().to_str().unwrap().to_string();
    let maps = std::fs::read_to_string("/proc/self/maps").unwrap();
    let ours: Vec<&str> = maps.lines().filter(|l| l.contains(&root)).collect();
    assert!(!ours.is_empty(), "the index's other files are mapped");
    assert!(
        ours.iter().all(|l| !l.trim_end().ends_with(".store")),
        "{ours:#?}"
    );
}
