//! The analysis document round-trips: every scenario serialized, read back and detected
//! again gives the same findings and the same report.

use evacdoc::correlate::Analysis;
use evacdoc::correlate::document::{DOCUMENT_SCHEMA, DocumentError};
use evacdoc::detect::{DetectOptions, detect};
use evacdoc::run::{Options, analyze};
use evacdoc::triage::report::json_document;

use crate::util::samples;

fn scenarios() -> Vec<std::path::PathBuf> {
    let mut dirs: Vec<_> = std::fs::read_dir(samples().join("scenarios"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs
}

#[test]
fn every_scenario_round_trips_to_the_same_findings() {
    let dirs = scenarios();
    assert!(dirs.len() >= 10, "{dirs:?}");
    let mut joins = 0;
    let mut recoveries = 0;
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let analysis = analyze(std::slice::from_ref(&dir), &Options::default()).unwrap();
        let findings = detect(&analysis, &DetectOptions::default());
        let text = serde_json::to_string(&analysis).unwrap();
        let doc: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(doc["schema"], DOCUMENT_SCHEMA, "{name}");
        assert_eq!(
            doc["events"].as_array().unwrap().len(),
            analysis.events.len()
        );

        let back: Analysis = serde_json::from_str(&text).unwrap();
        let again = detect(&back, &DetectOptions::default());
        assert_eq!(
            serde_json::to_value(&findings).unwrap(),
            serde_json::to_value(&again).unwrap(),
            "{name}: findings after reload"
        );
        assert_eq!(
            json_document(&analysis, &findings),
            json_document(&back, &again),
            "{name}: report after reload"
        );
        assert_eq!(back.recoveries, analysis.recoveries, "{name}");
        assert_eq!(back.joins, analysis.joins, "{name}");
        assert_eq!(
            back.index.notification, analysis.index.notification,
            "{name}"
        );
        assert_eq!(back.index.host, analysis.index.host, "{name}");
        // Written again, the document is the same text.
        assert_eq!(serde_json::to_string(&back).unwrap(), text, "{name}");
        joins += analysis.joins.len();
        recoveries += analysis.recoveries.len();
    }
    assert!(joins > 0 && recoveries > 0);
}

#[test]
fn the_streamed_document_is_the_document() {
    let dir = samples().join("scenarios").join("2020-juju-evacuate-race");
    let analysis = analyze(&[dir], &Options::default()).unwrap();
    let mut streamed = Vec::new();
    analysis.write_document(&mut streamed).unwrap();
    let streamed: serde_json::Value = serde_json::from_slice(&streamed).unwrap();
    assert!(streamed["events"].as_array().is_some_and(|e| !e.is_empty()));
    assert_eq!(streamed, analysis.to_document().unwrap());
}

#[test]
fn joins_point_at_events_by_file_and_line() {
    let dir = samples().join("scenarios").join("2020-juju-evacuate-race");
    let analysis = analyze(&[dir], &Options::default()).unwrap();
    let doc = analysis.to_document().unwrap();
    let join = &doc["joins"][0];
    let call = &analysis.events[analysis.joins[0].call.index()];
    assert_eq!(join["call"]["file"], call.file);
    assert_eq!(join["call"]["line"], call.line);
    let mention = &doc["recoveries"][0]["mentions"][0];
    assert!(
        mention["file"].is_u64() && mention["line"].is_u64(),
        "{mention}"
    );
}

#[test]
fn a_document_of_another_schema_or_with_a_dangling_ref_is_refused() {
    let dir = samples().join("scenarios").join("2020-juju-evacuate-race");
    let analysis = analyze(&[dir], &Options::default()).unwrap();
    let mut doc = analysis.to_document().unwrap();
    let mut other = doc.clone();
    other["schema"] = "evacdoc.analysis-document/v0".into();
    assert!(matches!(
        Analysis::from_document(other),
        Err(DocumentError::Schema(_))
    ));
    doc["joins"][0]["call"]["line"] = 999_999.into();
    let err = Analysis::from_document(doc).unwrap_err();
    assert!(err.to_string().contains("line 999999"), "{err}");
}
