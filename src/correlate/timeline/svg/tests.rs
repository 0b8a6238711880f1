//! Pictures of an inline bundle, read back as XML: a host recovery of one instance on a
//! controller and a compute host, with a poll loop, a refused evacuation, a line full of
//! markup characters and a ten-minute wait.

use std::collections::BTreeSet;

use roxmltree::{Document, Node};

use crate::correlate::Analysis;
use crate::correlate::timeline::{Row, Subject, fold, select};
use crate::detect::context::testing::{analysis_of, engine, start};

use super::{Mark, MarkAt, SvgOptions, render_svg};

const N: &str = "3330353d-4f69-4f1d-b1f9-3977329fb2cd";
const G: &str = "5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a";
const I: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
const NOVA: &str = "masakari.compute.nova";
const HOST_FLOW: &str = "masakari.engine.drivers.taskflow.host_failure";
const MARKUP: &str =
    "failed: {'context': <masakari.context.RequestContext object at 0x7f6d8c4a2f98>} & \"quoted\"";

fn access(time: &str, method: &str, path: &str, status: u16) -> String {
    format!(
        "10.0.0.5 - - [21/May/2024:{time} +0000] \"{method} {path} HTTP/1.1\" {status} 512 \"-\" \"python-novaclient\"\n"
    )
}

fn bundle() -> Vec<(&'static str, String)> {
    let mut log = start(N, G, "cmp01", 30);
    let mut web = String::new();
    let server = format!("/v2.1/servers/{I}");
    let action = format!("{server}/action");
    log += &engine(
        "10:03:18.500",
        G,
        "INFO",
        NOVA,
        &format!("Call evacuate command for instance {I} on host None"),
    );
    web += &access("10:03:18", "POST", &action, 400);
    log += &engine(
        "10:03:18.900",
        G,
        "WARNING",
        HOST_FLOW,
        &format!("Instance {I} {MARKUP}"),
    );
    // A retry, polled a while, and the instance rebuilt ten minutes later.
    log += &engine(
        "10:03:40.000",
        G,
        "INFO",
        NOVA,
        &format!("Call evacuate command for instance {I} on host None"),
    );
    web += &access("10:03:40", "POST", &action, 200);
    for s in 41..47 {
        let t = format!("10:03:{s}.100");
        log += &engine(
            &t,
            G,
            "INFO",
            NOVA,
            &format!("Call get server command for instance {I}"),
        );
        web += &access(&format!("10:03:{s}"), "GET", &server, 200);
    }
    let compute = format!(
        "2024-05-21 10:14:01.000 77 INFO nova.compute.manager [req-{G} req-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {I}] Instance spawned successfully.\n"
    );
    vec![
        ("ctl01/var/log/masakari/masakari-engine.log", log),
        ("ctl01/var/log/apache2/nova-api-os-compute_access.log", web),
        ("cmp01/var/log/nova/nova-compute.log", compute),
    ]
}

fn analysis() -> Analysis {
    let files = bundle();
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    analysis_of(&borrowed)
}

fn rows(analysis: &Analysis) -> Vec<Row> {
    let subject = Subject::Instance(crate::model::Uuid::parse(I).unwrap());
    fold(analysis, &select(analysis, &subject))
}

fn has_class(node: &Node<'_, '_>, class: &str) -> bool {
    node.attribute("class")
        .is_some_and(|c| c.split(' ').any(|c| c == class))
}

fn groups<'a, 'i>(doc: &'a Document<'i>, class: &str) -> Vec<Node<'a, 'i>> {
    doc.descendants()
        .filter(|n| n.has_tag_name("g") && has_class(n, class))
        .collect()
}

/// The lines' groups in time order (they are painted errors last).
fn events<'a, 'i>(doc: &'a Document<'i>) -> Vec<Node<'a, 'i>> {
    let mut events = groups(doc, "event");
    events.sort_by_key(|g| {
        g.attribute("data-row")
            .and_then(|r| r.parse::<usize>().ok())
            .unwrap()
    });
    events
}

fn title_of(node: &Node<'_, '_>) -> String {
    node.children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text())
        .unwrap_or_default()
        .to_string()
}

fn texts(node: &Node<'_, '_>) -> Vec<String> {
    node.descendants()
        .filter(|n| n.has_tag_name("text"))
        .filter_map(|n| n.text().map(str::to_string))
        .collect()
}

fn x_of(node: &Node<'_, '_>) -> f64 {
    node.descendants()
        .find(|n| n.has_tag_name("circle"))
        .and_then(|c| c.attribute("cx"))
        .and_then(|x| x.parse().ok())
        .unwrap()
}

#[test]
fn one_lane_per_host_and_service_and_every_line_with_its_tooltip() {
    let analysis = analysis();
    let rows = rows(&analysis);
    assert!(rows.iter().any(|r| r.repeated.is_some()), "the poll folds");
    let svg = render_svg(&analysis, &rows, &[], &SvgOptions::default());
    let doc = Document::parse(&svg).unwrap();
    assert_eq!(doc.root_element().tag_name().name(), "svg");

    let expected: BTreeSet<(String, String)> = rows
        .iter()
        .map(|r| {
            let e = &analysis.events[r.event.index()];
            (
                analysis.host(e.host).unwrap().hostname.clone(),
                analysis.file(e.file).unwrap().service.name().to_string(),
            )
        })
        .collect();
    let lanes: BTreeSet<(String, String)> = groups(&doc, "lane")
        .iter()
        .map(|g| {
            (
                g.attribute("data-host").unwrap().to_string(),
                g.attribute("data-service").unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(lanes, expected);
    assert_eq!(groups(&doc, "lane").len(), expected.len());
    assert!(lanes.iter().any(|(h, _)| h == "cmp01"), "{lanes:?}");

    let events = events(&doc);
    assert_eq!(events.len(), rows.len());
    for (g, row) in events.iter().zip(&rows) {
        let e = &analysis.events[row.event.index()];
        let tooltip = title_of(g);
        let path = &analysis.file(e.file).unwrap().path;
        assert!(tooltip.contains(&format!("{path}:{}", e.line)), "{tooltip}");
        assert!(tooltip.contains(&*e.text()), "{tooltip}");
        assert!(tooltip.contains(&analysis.host(e.host).unwrap().hostname));
    }
    // The engine's polls and Nova's answers fold apart, each a bar with its count.
    let repeats = groups(&doc, "repeat");
    assert_eq!(repeats.len(), 2);
    for g in &repeats {
        let count = g.attribute("data-count").unwrap();
        assert!(texts(g).contains(&format!("×{count}")), "{:?}", texts(g));
    }
}

#[test]
fn markup_in_lines_is_escaped_and_reads_back() {
    let analysis = analysis();
    let svg = render_svg(&analysis, &rows(&analysis), &[], &SvgOptions::default());
    assert!(!svg.contains("<masakari.context"), "raw markup in the SVG");
    let doc = Document::parse(&svg).unwrap();
    let tooltips: Vec<String> = groups(&doc, "event").iter().map(title_of).collect();
    assert!(tooltips.iter().any(|t| t.contains(MARKUP)), "{tooltips:#?}");
}

#[test]
fn lines_run_left_to_right_in_time_and_the_wait_is_cut_out() {
    let analysis = analysis();
    let svg = render_svg(&analysis, &rows(&analysis), &[], &SvgOptions::default());
    let doc = Document::parse(&svg).unwrap();
    let placed: Vec<(String, f64)> = events(&doc)
        .iter()
        .map(|g| (g.attribute("data-time").unwrap().to_string(), x_of(g)))
        .collect();
    // In the rows' order (Apache's lines stamped to the second at its end), and the
    // same time at the same x.
    assert!(placed.windows(2).all(|p| p[0].1 <= p[1].1), "{placed:?}");
    for a in &placed {
        for b in &placed {
            if a.0 < b.0 && !a.0.ends_with(".000Z") && !b.0.ends_with(".000Z") {
                assert!(a.1 < b.1, "{a:?} {b:?}");
            }
        }
    }
    // The ten minutes before the rebuild are one break, labelled.
    let breaks = groups(&doc, "axis-break");
    let long: Vec<&Node<'_, '_>> = breaks
        .iter()
        .filter(|b| b.attribute("data-seconds").unwrap().parse::<i64>().unwrap() >= 600)
        .collect();
    assert_eq!(long.len(), 1, "{breaks:?}");
    assert!(
        texts(long[0]).iter().any(|t| t.ends_with("min")),
        "{:?}",
        texts(long[0])
    );
    // The retry's polls (five seconds, folded) are drawn wider than the cut of ten
    // minutes.
    let bars: Vec<f64> = groups(&doc, "repeat")
        .iter()
        .flat_map(|g| g.descendants().filter(|n| n.has_tag_name("rect")))
        .map(|r| r.attribute("width").unwrap().parse().unwrap())
        .collect();
    let cut = long[0]
        .descendants()
        .find(|n| has_class(n, "break"))
        .and_then(|r| r.attribute("width"))
        .and_then(|w| w.parse::<f64>().ok())
        .unwrap();
    assert!(bars.iter().all(|&w| w > cut), "{bars:?} {cut}");
}

#[test]
fn marks_are_drawn_with_their_labels_and_output_is_stable() {
    let analysis = analysis();
    let rows = rows(&analysis);
    let refused = rows
        .iter()
        .map(|r| r.event)
        .find(|&id| {
            analysis.events[id.index()]
                .http()
                .is_some_and(|h| h.status == 400)
        })
        .unwrap();
    let sleep = analysis
        .events
        .iter()
        .find(|e| e.message().starts_with("Sleeping 30 sec"))
        .unwrap()
        .time;
    let marks = [
        Mark {
            label: "POST → 400".into(),
            at: MarkAt::Event(refused),
        },
        Mark {
            label: "30 s <sleep> & \"wait\"".into(),
            at: MarkAt::Span {
                from: sleep,
                to: sleep + 30_000_000_000,
            },
        },
    ];
    let options = SvgOptions {
        title: Some("Instance <x> & \"y\"".into()),
        ..SvgOptions::default()
    };
    let svg = render_svg(&analysis, &rows, &marks, &options);
    assert_eq!(svg, render_svg(&analysis, &rows, &marks, &options));
    let doc = Document::parse(&svg).unwrap();
    let event_marks = groups(&doc, "mark-event");
    assert_eq!(event_marks.len(), 1);
    assert_eq!(texts(&event_marks[0]), ["POST → 400"]);
    let gaps = groups(&doc, "mark-gap");
    assert_eq!(gaps.len(), 1);
    assert_eq!(texts(&gaps[0]), ["30 s <sleep> & \"wait\""]);
    let title = doc
        .root_element()
        .children()
        .find(|c| c.has_tag_name("title"))
        .and_then(|t| t.text());
    assert_eq!(title, Some("Instance <x> & \"y\""));
    // The ring sits on the refused line's dot.
    let ring = event_marks[0]
        .descendants()
        .find(|n| n.has_tag_name("circle"))
        .unwrap();
    let dot = groups(&doc, "event")
        .into_iter()
        .find(|g| title_of(g).contains("\" 400 "))
        .unwrap();
    assert_eq!(ring.attribute("cx"), Some(x_of(&dot).to_string().as_str()));
}

#[test]
fn warnings_are_drawn_over_info_and_each_line_links_to_its_place() {
    let analysis = analysis();
    let options = SvgOptions {
        line_links: Some("/analyses/a1/files/".into()),
        ..SvgOptions::default()
    };
    let svg = render_svg(&analysis, &rows(&analysis), &[], &options);
    let doc = Document::parse(&svg).unwrap();
    let rank = |g: &Node<'_, '_>| {
        let dot = g.descendants().find(|n| n.has_tag_name("circle")).unwrap();
        ["debug", "info", "warning", "error"]
            .iter()
            .position(|t| has_class(&dot, t))
            .unwrap()
    };
    // Painted in document order: every warning (the refused evacuation, the warning
    // line) after every info dot, so none is hidden under one.
    let painted: Vec<usize> = groups(&doc, "event").iter().map(rank).collect();
    assert!(painted.windows(2).all(|w| w[0] <= w[1]), "{painted:?}");
    assert!(painted.iter().any(|&r| r >= 2), "{painted:?}");
    // Each line is a link to its raw line.
    for g in groups(&doc, "event") {
        let a = g.parent().unwrap();
        assert!(a.has_tag_name("a"), "{:?}", a.tag_name());
        let line = g.attribute("data-line").unwrap();
        let href = a.attribute("href").unwrap();
        assert!(href.starts_with("/analyses/a1/files/"), "{href}");
        assert!(href.ends_with(&format!("?line={line}#L{line}")), "{href}");
    }
    // Without a prefix (shares, the CLI): no links.
    let plain = render_svg(&analysis, &rows(&analysis), &[], &SvgOptions::default());
    assert!(!plain.contains("<a "));
}

#[test]
fn no_lines_is_still_a_picture() {
    let analysis = analysis();
    let svg = render_svg(&analysis, &[], &[], &SvgOptions::default());
    let doc = Document::parse(&svg).unwrap();
    assert!(groups(&doc, "event").is_empty());
    assert!(svg.contains("No lines"));
}
