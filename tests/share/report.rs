//! The redaction report a share preview shows before the link exists.

use super::*;

/// The preview's report of `scope` (the share's `redaction`).
async fn preview_report(server: &TestServer, id: &str, scope: Value) -> Value {
    let mut preview: Value = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{id}/shares/preview")))
        .bearer_auth(TOKEN)
        .json(&json!({ "scope": scope }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    preview
        .as_object_mut()
        .unwrap()
        .remove("redaction")
        .expect("the preview has its redaction report")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_counts_lines_of_a_known_template_and_lines_reduced_to_the_vocabulary() {
    let server = started(GENEROUS).await;
    let id = server
        .upload(
            "race.tar.gz",
            crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race"),
        )
        .await;
    server.wait_done(&id).await;

    // The whole analysis: every line is either of a known Masakari or Nova message or
    // reduced to the vocabulary, and the known ones are the lines whose message a
    // template matches, counted here from the unredacted analysis.
    let report = preview_report(&server, &id, json!({"kind": "analysis"})).await;
    let count = |key: &str| {
        report[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {report}"))
    };
    let analysis = evacdoc::run::analyze(
        &[scenario("2020-juju-evacuate-race")],
        &evacdoc::run::Options::default(),
    )
    .unwrap();
    let known = analysis
        .events
        .iter()
        .filter(|e| evacdoc::redact::templates::find(&e.message()).is_some())
        .count() as u64;
    assert_eq!(count("lines"), analysis.events.len() as u64, "{report}");
    assert_eq!(count("templated"), known, "{report}");
    assert_eq!(
        count("templated") + count("vocabulary_lines"),
        count("lines"),
        "{report}"
    );
    assert!(
        count("templated") > 0 && count("vocabulary_lines") > 0,
        "{report}"
    );
    assert!(count("reduced_lines") <= count("lines"), "{report}");

    // A finding's link: its lines only, split the same way.
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let race = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .unwrap()
        .clone();
    let finding = preview_report(
        &server,
        &id,
        json!({"kind": "finding", "finding": race["id"]}),
    )
    .await;
    let n = |key: &str| {
        finding[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {finding}"))
    };
    assert!(n("lines") > 0 && n("lines") < count("lines"), "{finding}");
    assert_eq!(
        n("templated") + n("vocabulary_lines"),
        n("lines"),
        "{finding}"
    );
    // The race's story is told by known messages (`Call evacuate command for instance
    // …`, `Compute service of … is still in use.`).
    assert!(n("templated") > 0, "{finding}");
    assert!(n("templated") <= count("templated"), "{finding}");
    server.stop().await;
}
