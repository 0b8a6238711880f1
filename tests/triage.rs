//! `evacdoc triage` and `/api/v1/triage`: known-bug matches with confidence and reasons,
//! the environment read from package lists, and the Launchpad-ready bug report.

use serde_json::Value;

use crate::analysis::scenario;
use crate::serve_api::{TOKEN, TestServer, scenario_tar_gz};
use crate::util::{evacdoc, stderr, stdout};

fn triage_json(name: &str) -> Value {
    let path = scenario(name);
    let output = evacdoc(&["triage", path.to_str().unwrap()]);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_str(&stdout(&output)).unwrap()
}

fn match_of<'a>(triage: &'a Value, id: &str) -> Option<&'a Value> {
    triage["matches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["id"] == id)
}

#[test]
fn a_recovery_finished_with_pending_moves_is_a_duplicate_of_the_sru_bug() {
    let triage = triage_json("2024-sosreports-two-timezones");
    assert_eq!(triage["schema"], "evacdoc.triage/v1");
    // Masakari 17 and Nova 29 from the sosreports' dpkg lists: 2024.1.
    assert_eq!(triage["environment"]["series"], "2024.1 Caracal");
    let releases = triage["environment"]["releases"].as_array().unwrap();
    assert_eq!(releases[0]["component"], "masakari", "{releases:?}");
    assert!(releases.iter().any(|r| r["component"] == "nova"
        && r["version"] == "3:29.0.1-0ubuntu1"
        && r["series"] == "2024.1 Caracal"));

    let sru = match_of(&triage, "2158101").expect("the SRU bug is matched");
    assert_eq!(sru["confidence"], "high", "{sru}");
    assert!(sru["score"].as_f64().unwrap() >= 0.75);
    let reasons: Vec<&str> = sru["reasons"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["text"].as_str().unwrap())
        .collect();
    assert!(
        reasons
            .iter()
            .any(|r| r.contains("pending-after-finished") && r.contains("own mechanism")),
        "{reasons:?}"
    );
    assert!(reasons.iter().any(|r| r.contains("evidence lines")));
    assert_eq!(
        triage["duplicate_of"],
        serde_json::json!(["launchpad#2158101"])
    );
    assert_eq!(triage["matches"][0]["id"], "2158101");
}

#[test]
fn a_raced_evacuation_matches_the_charm_bug_without_a_duplicate_mark() {
    let triage = triage_json("2020-juju-evacuate-race");
    let matches = triage["matches"].as_array().unwrap();
    let charm = matches
        .iter()
        .find(|m| m["title"].as_str().unwrap().contains("charm-masakari"))
        .expect("the charm bug is matched");
    // A warning of the bug's own mechanism with evidence: worth a label.
    assert_eq!(charm["confidence"], "medium", "{charm}");
    assert!(
        charm["findings"][0]
            .as_str()
            .unwrap()
            .starts_with("evacuate-400-race:")
    );
    // No bug number to mark a duplicate of.
    assert_eq!(triage["duplicate_of"], serde_json::json!([]));
    assert!(match_of(&triage, "2158101").is_none());
}

#[test]
fn a_bug_about_the_remediation_is_never_a_match_and_snaps_name_the_series() {
    let triage = triage_json("2024-sunbeam-bfv-delay");
    assert_eq!(triage["environment"]["series"], "2024.1 Caracal");
    assert!(
        triage["findings"]
            .as_array()
            .unwrap()
            .iter()
            .any(|f| f["detector"] == "bfv-evacuation-delay")
    );
    // The Cinder attachment bug bears on clearing attachments, not on why it happened.
    assert!(match_of(&triage, "2004555").is_none(), "{triage}");
    // The SRU bug is matched through a symptom it causes: lower than its own mechanism.
    let sru = match_of(&triage, "2158101").expect("the SRU bug, through its symptom");
    let first = &sru["reasons"][0]["text"];
    assert!(first.as_str().unwrap().contains("symptom"), "{sru}");
    assert_eq!(sru["confidence"], "medium", "{sru}");
    assert_eq!(triage["duplicate_of"], serde_json::json!([]));
}

#[test]
fn a_failure_no_known_bug_explains_matches_nothing_but_says_its_release() {
    // Keystone refused Masakari's credentials: a failed recovery, no catalog bug.
    let triage = triage_json("2023-keystone-401-failure");
    assert_eq!(triage["environment"]["series"], "2023.1 Antelope");
    assert_eq!(triage["findings"][0]["detector"], "recovery-failed");
    assert_eq!(triage["matches"], serde_json::json!([]));
    assert_eq!(triage["duplicate_of"], serde_json::json!([]));
}

#[test]
fn a_healthy_recovery_matches_nothing() {
    let triage = triage_json("2025-kolla-healthy-recovery");
    assert_eq!(triage["matches"], serde_json::json!([]));
    let path = scenario("2025-kolla-healthy-recovery");
    let output = evacdoc(&["triage", path.to_str().unwrap(), "--format", "markdown"]);
    assert!(stdout(&output).contains("No known bug matches"));
}

#[test]
fn the_bug_template_reads_as_plain_text_within_100_columns() {
    let path = scenario("2024-sosreports-two-timezones");
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("bug.md");
    let output = evacdoc(&[
        "triage",
        path.to_str().unwrap(),
        &format!("--bug-template={}", file.display()),
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    // The triage JSON still goes to standard output.
    let triage: Value = serde_json::from_str(&stdout(&output)).unwrap();
    assert_eq!(triage["schema"], "evacdoc.triage/v1");
    let report = std::fs::read_to_string(&file).unwrap();
    assert!(report.starts_with("Title: "), "{report}");
    for section in [
        "\nSummary\n-------\n",
        "\nEnvironment\n-----------\n",
        "\nSteps to reproduce\n",
        "\nExpected result\n",
        "\nActual result\n",
        "\nFindings\n--------\n",
        "\nKnown bugs\n----------\n",
    ] {
        assert!(report.contains(section), "{section:?} missing:\n{report}");
    }
    assert!(report.contains("OpenStack series: 2024.1 Caracal"));
    assert!(report.contains("- LP #2158101: "), "{report}");
    assert!(report.contains("https://bugs.launchpad.net/bugs/2158101"));
    // Prose within 100 columns; log lines (which are as long as they were written)
    // only in indented blocks, never in tables.
    let mut evidence = 0;
    for line in report.lines() {
        if line.starts_with("        ") {
            evidence += 1;
            continue;
        }
        assert!(line.chars().count() <= 100, "too wide: {line:?}");
        assert!(!line.starts_with('|'), "a table: {line:?}");
    }
    assert!(evidence > 2, "{report}");
    // Inputs are named by their last component: the checkout's folders are not public.
    assert!(
        !report.contains(env!("CARGO_MANIFEST_DIR")),
        "a server path in the bug template:\n{report}"
    );
    // Without a file the report goes to standard output instead of the triage.
    let output = evacdoc(&["triage", path.to_str().unwrap(), "--bug-template"]);
    assert!(stdout(&output).starts_with("Title: "));
    // Redacted: the same report by default-deny, host names gone, the story kept.
    let plain = stdout(&output);
    let output = evacdoc(&[
        "triage",
        path.to_str().unwrap(),
        "--bug-template",
        "--redact",
    ]);
    let redacted = stdout(&output);
    assert!(redacted.starts_with("Title: "), "{redacted}");
    for host in ["ctl1", "cmp2", "cmp3"] {
        assert!(
            plain.contains(host) && !redacted.contains(host),
            "{host}: {redacted}"
        );
    }
    assert!(redacted.contains("host-"), "{redacted}");
    // The instance the story is about stays, and its words do.
    assert!(
        redacted.contains("8acc20ac-82f7-42de-8532-14468beddf91"),
        "{redacted}"
    );
    assert!(redacted.contains("was\nnot evacuated") || redacted.contains("was not evacuated"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_triages_a_stored_analysis_and_queues_a_posted_bundle() {
    let server = TestServer::start().await;
    let id = server
        .upload(
            "two-timezones.tar.gz",
            scenario_tar_gz("2024-sosreports-two-timezones"),
        )
        .await;
    server.wait_done(&id).await;

    let triage = server
        .get_json(&format!("/api/v1/analyses/{id}/triage"))
        .await;
    assert_eq!(triage["schema"], "evacdoc.triage/v1");
    assert_eq!(
        triage["duplicate_of"],
        serde_json::json!(["launchpad#2158101"])
    );

    // A bot posts the id and asks for the bug report.
    let response = server
        .client
        .post(server.url("/api/v1/triage"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({"analysis": id, "format": "bug-template"}))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::OK);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/markdown")
    );
    assert!(response.text().await.unwrap().contains("LP #2158101"));

    // Or posts the bundle itself: queued like an upload, triaged when done.
    let response = server
        .client
        .post(server.url("/api/v1/triage?name=race.tar.gz"))
        .bearer_auth(TOKEN)
        .header("content-type", "application/octet-stream")
        .body(scenario_tar_gz("2020-juju-evacuate-race"))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
    let created: Value = response.json().await.unwrap();
    let second = created["id"].as_str().unwrap().to_string();
    server.wait_done(&second).await;
    let triage = server
        .get_json(&format!("/api/v1/analyses/{second}/triage?format=json"))
        .await;
    assert!(!triage["matches"].as_array().unwrap().is_empty());

    // Refusals: no token, an unknown format, an unknown analysis.
    let anonymous = server
        .client
        .post(server.url("/api/v1/triage"))
        .json(&serde_json::json!({"analysis": id}))
        .send()
        .await
        .unwrap();
    assert_eq!(anonymous.status(), reqwest::StatusCode::UNAUTHORIZED);
    let bad = server
        .get(&format!("/api/v1/analyses/{id}/triage?format=xml"))
        .await;
    assert_eq!(bad.status(), reqwest::StatusCode::BAD_REQUEST);
    let unknown = server
        .client
        .post(server.url("/api/v1/triage"))
        .bearer_auth(TOKEN)
        .json(&serde_json::json!({"analysis": "00000000-0000-4000-8000-000000000000"}))
        .send()
        .await
        .unwrap();
    assert_eq!(unknown.status(), reqwest::StatusCode::NOT_FOUND);
    server.stop().await;
}
