//! Who reaches a share: guessed, expired and revoked links, other analyses, the rate limit.

use super::*;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessed_expired_and_revoked_links_and_other_analyses_are_one_404() {
    let server = started(GENEROUS).await;
    let a = server
        .upload(
            "race.tar.gz",
            crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race"),
        )
        .await;
    let b = server
        .upload(
            "keystone.tar.gz",
            crate::serve_api::scenario_tar_gz("2023-keystone-401-failure"),
        )
        .await;
    server.wait_done(&a).await;
    server.wait_done(&b).await;
    let b_findings = server
        .get_json(&format!("/api/v1/analyses/{b}/findings"))
        .await;
    let b_titles: Vec<String> = b_findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["detector"].as_str().unwrap().to_string())
        .filter(|d| d != "evacuate-400-race")
        .collect();
    assert!(!b_titles.is_empty());

    let unknown = public(&server, &format!("/s/{}", "ab".repeat(32))).await;
    assert_public_headers("unknown", &unknown);
    assert_eq!(unknown.status(), reqwest::StatusCode::NOT_FOUND);
    let not_found = unknown.text().await.unwrap();
    let same_404 = |what: &'static str| {
        let expected = not_found.clone();
        move |status: reqwest::StatusCode, body: String| {
            assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "{what}");
            assert_eq!(body, expected, "{what}");
        }
    };
    for path in [
        "/s/short".to_string(),
        format!("/s/{}", "AB".repeat(32)),
        format!("/s/{}/data.json", "0".repeat(64)),
    ] {
        let r = public(&server, &path).await;
        same_404("malformed")(r.status(), r.text().await.unwrap());
    }

    // Expired: stored with a past expiry.
    let token = "e".repeat(64);
    let store = server.service.as_ref().unwrap().state().store.clone();
    store
        .create_share(&NewShare {
            id: uuid::Uuid::new_v4().hyphenated().to_string(),
            token_hash: evacdoc::http::auth::hash_secret(&token),
            analysis_id: a.clone(),
            scope_kind: "analysis".into(),
            scope_json: r#"{"kind":"analysis"}"#.into(),
            note: String::new(),
            expires_at: "2020-01-01T00:00:00Z".into(),
        })
        .unwrap();
    let r = public(&server, &format!("/s/{token}")).await;
    same_404("expired")(r.status(), r.text().await.unwrap());

    // A finding link of A: no analysis routes, no bundle, nothing of B.
    let race_id = server
        .get_json(&format!("/api/v1/analyses/{a}/findings"))
        .await[0]["id"]
        .clone();
    let finding_link = create_share(
        &server,
        &a,
        json!({"scope": {"kind": "finding", "finding": race_id}}),
    )
    .await;
    let url = finding_link["url"].as_str().unwrap().to_string();
    for tail in [
        "/findings/0",
        "/bundle.tar.gz",
        "/files/0",
        "/search?q=x",
        "/map.json",
        "/../../api/v1/analyses",
    ] {
        let r = public(&server, &format!("{url}{tail}")).await;
        assert_ne!(r.status(), reqwest::StatusCode::OK, "{tail}");
    }
    // A finding of B is not a finding of A.
    let b_race = b_findings[0]["id"].clone();
    let refused = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{a}/shares")))
        .bearer_auth(TOKEN)
        .json(&json!({"scope": {"kind": "finding", "finding": b_race}}))
        .send()
        .await
        .unwrap();
    if b_findings[0]["id"] != race_id {
        assert_eq!(refused.status(), reqwest::StatusCode::NOT_FOUND);
    }
    let whole_a = create_share(&server, &a, json!({"scope": {"kind": "analysis"}})).await;
    let whole_url = whole_a["url"].as_str().unwrap();
    let data = public(&server, &format!("{whole_url}/data.json"))
        .await
        .text()
        .await
        .unwrap();
    for detector in &b_titles {
        assert!(
            !data.contains(detector.as_str()) || detector == "evacuate-400-race",
            "{detector} of B in A's link"
        );
    }
    assert!(!data.contains(&b), "B's id");

    // No raw file, search or analysis route answers without signing in.
    for path in [
        format!("/api/v1/analyses/{a}/files/0/lines"),
        format!("/api/v1/analyses/{a}/search?q=x"),
        format!("/api/v1/analyses/{a}/shares"),
        format!("/analyses/{a}/files/0"),
        format!("/analyses/{a}/share?scope=analysis"),
    ] {
        let r = no_redirects().get(server.url(&path)).send().await.unwrap();
        assert!(
            matches!(r.status().as_u16(), 401 | 303 | 404),
            "{path}: {}",
            r.status()
        );
    }

    // Revoked: the same 404 from then on; listed as revoked.
    let share_id = finding_link["id"].as_str().unwrap();
    assert_eq!(
        public(&server, &url).await.status(),
        reqwest::StatusCode::OK
    );
    let revoked = server
        .client
        .delete(server.url(&format!("/api/v1/analyses/{b}/shares/{share_id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(
        revoked.status(),
        reqwest::StatusCode::NOT_FOUND,
        "through another analysis"
    );
    let revoked = server
        .client
        .delete(server.url(&format!("/api/v1/analyses/{a}/shares/{share_id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), reqwest::StatusCode::NO_CONTENT);
    for path in [
        url.clone(),
        format!("{url}/data.json"),
        format!("{url}/picture.svg"),
    ] {
        let r = public(&server, &path).await;
        same_404("revoked")(r.status(), r.text().await.unwrap());
    }
    let listed = server
        .get_json(&format!("/api/v1/analyses/{a}/shares"))
        .await;
    let states: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["state"].as_str().unwrap())
        .collect();
    assert!(
        states.contains(&"revoked") && states.contains(&"expired") && states.contains(&"live"),
        "{states:?}"
    );
    assert!(
        !listed
            .to_string()
            .contains(whole_url.trim_start_matches("/s/")),
        "tokens are never listed"
    );

    // Bad scopes and lifetimes are refused.
    for body in [
        json!({"scope": {"kind": "timeline"}}),
        json!({"scope": {"kind": "timeline", "instance": "nope"}}),
        json!({"scope": {"kind": "timeline", "host": "x", "from": "yesterday"}}),
        json!({"scope": {"kind": "analysis"}, "expires_in_days": 0}),
        json!({"scope": {"kind": "analysis"}, "expires_in_days": 1000}),
    ] {
        let r = server
            .client
            .post(server.url(&format!("/api/v1/analyses/{a}/shares")))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), reqwest::StatusCode::BAD_REQUEST, "{body}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_routes_are_rate_limited_per_client() {
    let server = started(RateLimit {
        burst: 3,
        per_second: 0.01,
    })
    .await;
    let path = format!("/s/{}", "ab".repeat(32));
    for _ in 0..3 {
        assert_eq!(
            public(&server, &path).await.status(),
            reqwest::StatusCode::NOT_FOUND
        );
    }
    let limited = public(&server, &path).await;
    assert_eq!(limited.status(), reqwest::StatusCode::TOO_MANY_REQUESTS);
    assert_public_headers("429", &limited);
    let wait: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=100).contains(&wait), "{wait}");
    // Signed-in routes are not limited.
    assert_eq!(
        server.get("/api/v1/analyses").await.status(),
        reqwest::StatusCode::OK
    );
    server.stop().await;
}
