//! What a share keeps: the race reads like the seed with names changed, and a later upload
//! of the same case keeps its pseudonyms.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_race_share_reads_like_the_seed_with_names_changed() {
    let server = started(GENEROUS).await;
    let id = server
        .upload(
            "race.tar.gz",
            crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race"),
        )
        .await;
    server.wait_done(&id).await;
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
    // The preview gives what the link will show, before any link exists.
    let mut preview: Value = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{id}/shares/preview")))
        .bearer_auth(TOKEN)
        .json(&json!({"scope": {"kind": "finding", "finding": race["id"]}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed = server
        .get_json(&format!("/api/v1/analyses/{id}/shares"))
        .await;
    assert_eq!(listed, json!([]), "a preview makes no link");

    let created = create_share(
        &server,
        &id,
        json!({"scope": {"kind": "finding", "finding": race["id"]}}),
    )
    .await;
    let url = created["url"].as_str().unwrap();
    let shared: Value = public(&server, &format!("{url}/data.json"))
        .await
        .json()
        .await
        .unwrap();
    // The preview comes with the redaction report, which the link never shows.
    let report = preview
        .as_object_mut()
        .unwrap()
        .remove("redaction")
        .expect("the preview has its redaction report");
    assert!(report["lines"].as_u64().unwrap() > 10, "{report}");
    assert!(report["replaced"]["host"].as_u64().unwrap() > 0, "{report}");
    assert!(shared.get("redaction").is_none());
    assert_eq!(shared, preview, "the link shows what the preview showed");
    let f = &shared["finding"];
    assert_eq!(f["detector"], "evacuate-400-race");
    assert_eq!(f["severity"], race["severity"]);
    assert_eq!(
        f["instance_uuids"], race["instance_uuids"],
        "instance ids stay"
    );
    assert_eq!(f["notification_id"], RACE_NOTIFICATION);
    assert_eq!(f["request_ids"], race["request_ids"], "request ids stay");
    let failed = f["failed_host"].as_str().unwrap();
    assert!(
        failed.starts_with("host-") && failed.ends_with(".invalid"),
        "{failed}"
    );
    // The seed's key lines, word for word but for the host.
    let evidence: Vec<&str> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    let still_in_use = format!("Compute service of {failed} is still in use.");
    assert!(
        evidence
            .iter()
            .any(|t| t.contains(&still_in_use) && t.contains(EVACUATE_REQUEST)),
        "{evidence:#?}"
    );
    assert!(
        evidence.iter().any(|t| t.contains(&format!(
            "Instance compute service state on {failed} expected to be down, but it was up."
        ))),
        "{evidence:#?}"
    );
    assert_eq!(
        evidence.len(),
        race["evidence"].as_array().unwrap().len(),
        "every evidence line is shown"
    );
    // The same pseudonym in the summary, the explanation, the evidence hosts and paths.
    let short = failed.split('.').next().unwrap();
    assert!(
        f["summary"].as_str().unwrap().contains(short)
            || f["explanation"].as_str().unwrap().contains(short)
    );
    assert!(!f.to_string().contains("node02ob100"));
    // The story stays: the explanation has every word it had, names changed, none of
    // its words reduced to a pseudonym by default-deny.
    let (private_text, public_text) = (
        race["explanation"].as_str().unwrap(),
        f["explanation"].as_str().unwrap(),
    );
    assert_eq!(
        private_text.split_whitespace().count(),
        public_text.split_whitespace().count(),
        "{private_text}\n---\n{public_text}"
    );
    assert!(!public_text.contains("name-"), "{public_text}");
    assert!(!f["summary"].as_str().unwrap().contains("name-"), "{f}");
    // Evidence paths point at pseudonymous hosts' folders; the file names stay.
    assert!(f["evidence"].as_array().unwrap().iter().any(|e| {
        e["path"]
            .as_str()
            .unwrap()
            .ends_with("var/log/masakari/masakari-engine.log")
    }));
    // The page shows the same, with its picture inline.
    let page = public(&server, url).await.text().await.unwrap();
    assert!(page.contains(&still_in_use), "the page shows the 400");
    assert!(page.contains("<svg"), "the picture is inline");
    assert!(page.contains(RACE_INSTANCE));
    let svg = public(&server, &format!("{url}/picture.svg"))
        .await
        .text()
        .await
        .unwrap();
    assert!(svg.contains("is still in use") && !svg.contains("node02ob100"));
    server.stop().await;
}

/// The failed host of the race finding as analysis `id`'s finding link shows it.
async fn shared_failed_host(server: &TestServer, id: &str) -> String {
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
    let created = create_share(
        server,
        id,
        json!({"scope": {"kind": "finding", "finding": race["id"]}}),
    )
    .await;
    let url = created["url"].as_str().unwrap();
    let shared: Value = public(server, &format!("{url}/data.json"))
        .await
        .json()
        .await
        .unwrap();
    shared["finding"]["failed_host"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_upload_of_the_same_case_keeps_the_pseudonyms() {
    let server = started(GENEROUS).await;
    let bundle = crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race");
    let first = server.upload("race.tar.gz", bundle.clone()).await;
    server.wait_done(&first).await;
    let response = server
        .client
        .post(server.url(&format!(
            "/api/v1/analyses?name=race-again.tar.gz&case={first}"
        )))
        .bearer_auth(TOKEN)
        .body(bundle.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
    let second = response.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let other = server.upload("race-other-case.tar.gz", bundle).await;
    server.wait_done(&second).await;
    server.wait_done(&other).await;

    let a = shared_failed_host(&server, &first).await;
    let b = shared_failed_host(&server, &second).await;
    let c = shared_failed_host(&server, &other).await;
    assert!(a.starts_with("host-"), "{a}");
    assert_eq!(a, b, "one case map: one pseudonym");
    assert_ne!(a, c, "another case: its own map");
    // An unknown case is refused before anything is kept.
    let refused = server
        .client
        .post(server.url(&format!(
            "/api/v1/analyses?name=x.log&case={}",
            uuid::Uuid::new_v4()
        )))
        .bearer_auth(TOKEN)
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), reqwest::StatusCode::NOT_FOUND);
    server.stop().await;
}
