//! `evacdoc analyze` as a user runs it: formats, exit codes, several bundles.

use serde_json::Value;

use crate::analysis::scenario;
use crate::util::{evacdoc, random_bytes, stderr, stdout};

#[test]
fn text_report_leads_with_findings() {
    let path = scenario("2020-juju-evacuate-race");
    let output = evacdoc(&["analyze", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with("1. [WARNING] Evacuation from node02ob100.maas raced"),
        "{text}"
    );
    assert!(text.contains("wait_period_after_service_update = 180 (now 60)"));
    assert!(text.contains("\nHosts:\n"));
}

#[test]
fn markdown_report_has_code_blocks_of_evidence() {
    let path = scenario("2024-sosreports-two-timezones");
    let output = evacdoc(&["analyze", path.to_str().unwrap(), "--format", "markdown"]);
    assert!(output.status.success());
    let md = stdout(&output);
    assert!(md.starts_with("## evacdoc analysis\n"));
    assert!(md.contains("### CRITICAL: Recovery of cmp2"), "{md}");
    assert!(
        md.contains(
            "\n```\nsosreport-ctl1-2024-05-21-xkqpwz/var/log/masakari/masakari-engine.log:"
        )
    );
    assert!(md.contains("[launchpad #2158101](https://bugs.launchpad.net/bugs/2158101)"));
}

#[test]
fn fail_on_sets_the_exit_code() {
    let race = scenario("2020-juju-evacuate-race");
    let healthy = scenario("2025-kolla-healthy-recovery");
    let code = |path: &std::path::Path, level: &str| {
        evacdoc(&[
            "analyze",
            path.to_str().unwrap(),
            "--format",
            "json",
            "--fail-on",
            level,
        ])
        .status
        .code()
    };
    assert_eq!(code(&race, "warning"), Some(1));
    assert_eq!(code(&race, "critical"), Some(0));
    assert_eq!(code(&healthy, "warning"), Some(0));
    let bad = evacdoc(&["analyze", "/nonexistent/bundle.tar.xz"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(stderr(&bad).contains("/nonexistent/bundle.tar.xz"));
}

#[test]
fn each_input_gets_its_own_analysis() {
    let a = scenario("2020-juju-evacuate-race");
    let b = scenario("2025-kolla-healthy-recovery");
    let output = evacdoc(&[
        "analyze",
        a.to_str().unwrap(),
        b.to_str().unwrap(),
        "--each",
        "--format",
        "json",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let docs: Vec<Value> = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(docs.len(), 2);
    assert_eq!(docs[0]["analysis"]["layout"], "juju-crashdump");
    assert_eq!(docs[1]["analysis"]["layout"], "kolla");
    assert!(docs[1]["findings"].as_array().unwrap().is_empty());
}

#[test]
fn a_lone_engine_log_with_any_name_is_read_as_the_engine() {
    let log = crate::util::samples().join("parsers/oslo/masakari_host_failure_pre_zed.log");
    let output = evacdoc(&["analyze", log.to_str().unwrap(), "--format", "json"]);
    assert!(output.status.success(), "{}", stderr(&output));
    let doc: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(doc["analysis"]["files"][0]["service"], "masakari-engine");
    assert_eq!(doc["findings"][0]["detector"], "evacuate-400-race");
}

#[test]
fn an_input_with_nothing_to_read_fails_and_says_what_it_held() {
    let dir = tempfile::tempdir().unwrap();
    let junk = dir.path().join("case.tar.gz");
    std::fs::write(&junk, b"not an archive\0\xff").unwrap();
    let output = evacdoc(&["analyze", junk.to_str().unwrap(), "--format", "json"]);
    assert!(!output.status.success(), "{}", stdout(&output));
    assert!(output.stdout.is_empty(), "no report: {}", stdout(&output));
    assert!(
        stderr(&output).contains(
            "no log, config or capture file in case.tar.gz: 1 file of unknown type, 16 bytes"
        ),
        "{}",
        stderr(&output)
    );

    // A megabyte of random bytes: not "no finding", a failure that says what was found.
    let upload = dir.path().join("upload.bin");
    std::fs::write(&upload, random_bytes(1 << 20, 22)).unwrap();
    let output = evacdoc(&["analyze", upload.to_str().unwrap()]);
    assert!(!output.status.success(), "{}", stdout(&output));
    let message = stderr(&output);
    assert!(
        message.contains(
            "no log, config or capture file in upload.bin: 1 file of unknown type, 1,048,576 bytes"
        ),
        "{message}"
    );
    assert!(!message.contains(dir.path().to_str().unwrap()), "{message}");
}
