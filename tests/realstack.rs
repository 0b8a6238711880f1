//! Bundles produced by real Keystone, Nova and Masakari (`scripts/realstack/`), kept
//! under `samples/realstack/<scenario>/` with the ground truth the services' own APIs gave:
//! `evacdoc analyze` must find exactly what that truth implies, read every file with the
//! role its path gives it, and leave no line unparsed.

use std::collections::BTreeSet;
use std::path::PathBuf;

use serde_json::Value;

use crate::util::{analysis_json, samples};

fn realstack_samples() -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(samples().join("realstack"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("ground_truth.json").exists())
        .collect();
    dirs.sort();
    dirs
}

fn strings(v: &Value) -> BTreeSet<String> {
    v.as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn analysis_of(dir: &std::path::Path) -> Value {
    analysis_json(&dir.join("bundle"))
}

#[test]
fn real_bundles_agree_with_their_ground_truth() {
    let dirs = realstack_samples();
    assert!(!dirs.is_empty(), "no sample under samples/realstack");
    for dir in dirs {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let truth: Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join("ground_truth.json")).unwrap())
                .unwrap();
        let doc = analysis_of(&dir);
        let findings = doc["findings"].as_array().unwrap();

        let mut known = BTreeSet::new();
        for r in truth["recoveries"].as_array().unwrap() {
            let n = r["notification_id"].as_str().unwrap();
            known.insert(n.to_string());
            let mine: Vec<&Value> = findings
                .iter()
                .filter(|f| f["notification_id"].as_str() == Some(n))
                .collect();
            let got: BTreeSet<String> = mine
                .iter()
                .map(|f| f["detector"].as_str().unwrap().to_string())
                .collect();
            assert_eq!(got, strings(&r["expected_detectors"]), "{name}: {n}");
            for f in mine {
                assert_eq!(f["failed_host"], r["failed_host"], "{name}");
                assert_eq!(
                    strings(&f["instance_uuids"]),
                    strings(&r["instances_concerned"]),
                    "{name}"
                );
                let status = r["final_status"].as_str().unwrap();
                let summary = f["summary"].as_str().unwrap();
                assert!(
                    summary.contains(&format!("ended `{status}`")),
                    "{name}: {summary}"
                );
                // Where the services say every server left the failed host, the story
                // must not say they stayed.
                let moved = truth["servers_after"]
                    .as_object()
                    .is_some_and(|m| m.values().all(|s| s["host"] != r["failed_host"]));
                let text = f["explanation"].as_str().unwrap();
                if f["detector"] == r["expected"] {
                    for words in strings(&r["explanation_mentions"]) {
                        assert!(text.contains(&words), "{name}: no {words:?} in {text}");
                    }
                }
                if moved {
                    assert!(!text.contains("were not evacuated"), "{name}: {text}");
                }
            }
        }
        for f in findings {
            match f["notification_id"].as_str() {
                Some(n) => assert!(known.contains(n), "{name}: finding on unknown {n}"),
                None => assert!(
                    strings(&truth["expected_global"]).contains(f["detector"].as_str().unwrap()),
                    "{name}: unexpected {}",
                    f["detector"]
                ),
            }
        }

        let files = doc["analysis"]["files"].as_array().unwrap();
        let roles: BTreeSet<(String, String)> = files
            .iter()
            .map(|f| {
                (
                    f["path"].as_str().unwrap().to_string(),
                    f["service"].as_str().unwrap_or("").to_string(),
                )
            })
            .collect();
        let want: BTreeSet<(String, String)> = truth["files"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(p, s)| (p.clone(), s.as_str().unwrap().to_string()))
            .collect();
        assert_eq!(roles, want, "{name}: file roles");
        assert_eq!(doc["stats"]["unparsed"], 0, "{name}: unparsed lines");
        assert_eq!(
            doc["analysis"]["skipped"].as_array().map(Vec::len),
            Some(0),
            "{name}"
        );
    }
}
