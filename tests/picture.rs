//! Pictures of the sample scenarios: each finding's marks, and `timeline --format svg`.

use evacdoc::correlate::timeline::SvgOptions;
use evacdoc::detect::{DetectOptions, Finding, detect, finding_picture};
use roxmltree::{Document, Node};

use crate::analysis::{analyze_scenario, scenario};
use crate::util::{evacdoc, stderr, stdout};

fn finding<'a>(findings: &'a [Finding], detector: &str) -> &'a Finding {
    findings
        .iter()
        .find(|f| f.detector == detector)
        .unwrap_or_else(|| panic!("no {detector} finding"))
}

/// The picture of the scenario's `detector` finding.
fn picture(name: &str, detector: &str) -> String {
    let analysis = analyze_scenario(name);
    let findings = detect(&analysis, &DetectOptions::default());
    let f = finding(&findings, detector);
    finding_picture(&analysis, f, &SvgOptions::default())
}

fn has_class(node: &Node<'_, '_>, class: &str) -> bool {
    node.attribute("class")
        .is_some_and(|c| c.split(' ').any(|c| c == class))
}

/// The labels of the marks of a kind (`mark-event`, `mark-gap`).
fn labels(doc: &Document<'_>, kind: &str) -> Vec<String> {
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && has_class(n, kind))
        .flat_map(|g| g.descendants().filter(|n| n.has_tag_name("text")))
        .filter_map(|t| t.text().map(str::to_string))
        .collect()
}

/// The x range of the bracket of the gap mark labelled `label`.
fn bracket(doc: &Document<'_>, label: &str) -> (f64, f64) {
    let g = doc
        .descendants()
        .find(|n| {
            has_class(n, "mark-gap")
                && n.descendants()
                    .any(|t| t.has_tag_name("text") && t.text() == Some(label))
        })
        .unwrap();
    let d = g
        .descendants()
        .find(|n| has_class(n, "gap-bracket"))
        .and_then(|p| p.attribute("d"))
        .unwrap();
    let xs: Vec<f64> = d
        .split(' ')
        .collect::<Vec<_>>()
        .chunks(3)
        .map(|c| c[1].parse().unwrap())
        .collect();
    (xs[0], xs[xs.len() - 1])
}

#[test]
fn evacuate_400_race_marks_the_refused_call_the_sleep_and_the_retry() {
    let svg = picture("2020-juju-evacuate-race", "evacuate-400-race");
    let doc = Document::parse(&svg).unwrap();
    let events = labels(&doc, "mark-event");
    assert!(events.contains(&"evacuate → 400".to_string()), "{events:?}");
    // The periodic retry evacuated the instance.
    assert!(
        events.iter().any(|l| l.starts_with("evacuate → 2")),
        "{events:?}"
    );
    let gaps = labels(&doc, "mark-gap");
    assert!(gaps.contains(&"60 s sleep".to_string()), "{gaps:?}");
    assert!(
        gaps.iter().any(|l| l.starts_with("retried after")),
        "{gaps:?}"
    );
    let (a, b) = bracket(&doc, "60 s sleep");
    assert!(b > a);
}

#[test]
fn pending_after_finished_marks_the_finish_against_the_move_that_never_came() {
    let svg = picture(
        "2022-juju-pending-after-finished-yoga",
        "pending-after-finished",
    );
    let doc = Document::parse(&svg).unwrap();
    let events = labels(&doc, "mark-event");
    assert!(
        events.contains(&"notification finished".to_string()),
        "{events:?}"
    );
    assert!(
        events.iter().any(|l| l.starts_with("last call for ")),
        "{events:?}"
    );
    let gaps = labels(&doc, "mark-gap");
    let pending = gaps
        .iter()
        .find(|l| l.ends_with("still pending"))
        .unwrap_or_else(|| panic!("{gaps:?}"));
    let (a, b) = bracket(&doc, pending);
    assert!(b > a);
}

#[test]
fn bfv_evacuation_delay_labels_the_long_wait_and_cuts_it_short() {
    let svg = picture("2023-sosreport-bfv-delay-prezed", "bfv-evacuation-delay");
    let doc = Document::parse(&svg).unwrap();
    let gaps = labels(&doc, "mark-gap");
    let wait = gaps
        .iter()
        .find(|l| l.starts_with("11 min 25 s"))
        .unwrap_or_else(|| panic!("{gaps:?}"));
    let (a, b) = bracket(&doc, wait);
    // Quiet stretches inside the wait are cut out of the axis.
    let cut: Vec<f64> = doc
        .descendants()
        .filter(|n| has_class(n, "axis-break"))
        .filter_map(|g| g.descendants().find(|n| has_class(n, "break")))
        .map(|r| r.attribute("x").unwrap().parse().unwrap())
        .filter(|&x| x > a && x < b)
        .collect();
    assert!(!cut.is_empty(), "no break inside the wait");
    let events = labels(&doc, "mark-event");
    assert!(events.contains(&"rebuilt".to_string()), "{events:?}");
}

#[test]
fn timeline_format_svg_writes_a_picture() {
    let path = scenario("2020-juju-evacuate-race");
    let output = evacdoc(&[
        "timeline",
        path.to_str().unwrap(),
        "--instance",
        "56ce6206-3659-495e-a6ea-f4d3d578cc96",
        "--format",
        "svg",
        "--width",
        "900",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let svg = stdout(&output);
    let doc = Document::parse(&svg).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "svg");
    assert_eq!(root.attribute("width"), Some("900"));
    let events = doc
        .descendants()
        .filter(|n| n.has_tag_name("g") && has_class(n, "event"))
        .count();
    assert!(events > 20, "{events} lines drawn");
    let services: Vec<&str> = doc
        .descendants()
        .filter(|n| has_class(n, "lane"))
        .filter_map(|n| n.attribute("data-service"))
        .collect();
    assert!(services.contains(&"masakari-engine"), "{services:?}");
    // Masakari's calls are joined to Nova's requests.
    assert!(doc.descendants().any(|n| has_class(&n, "join")));
}
