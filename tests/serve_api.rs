//! `evacdoc serve` through its HTTP API: in-process (`oneshot`) and on a real loopback
//! port, with a real sample bundle uploaded as a `.tar.gz`.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode};
use evacdoc::http::{ServeConfig, Service, router, start};
use serde_json::Value;
use tower::ServiceExt as _;

use crate::analysis::scenario;

pub const TOKEN: &str = "test-token-0123456789";
pub const RACE_INSTANCE: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
pub const RACE_REQUEST: &str = "req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35";

/// A scenario folder packed as a `.tar.gz` (links kept as links, as collectors pack them).
pub fn scenario_tar_gz(name: &str) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    tar.follow_symlinks(false);
    tar.append_dir_all(name, scenario(name)).unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

/// A service on a free loopback port over a fresh data folder.
pub struct TestServer {
    pub service: Option<Service>,
    pub base: String,
    pub client: reqwest::Client,
    pub data: tempfile::TempDir,
}

impl TestServer {
    pub async fn start() -> TestServer {
        TestServer::start_with(|_| {}).await
    }

    pub async fn start_with(adjust: impl FnOnce(&mut ServeConfig)) -> TestServer {
        let data = tempfile::tempdir().unwrap();
        let mut config = ServeConfig::new("127.0.0.1:0".parse().unwrap(), data.path().join("data"));
        config.token = Some(TOKEN.to_string());
        adjust(&mut config);
        let service = start(config).await.unwrap();
        let base = format!("http://{}", service.addr);
        TestServer {
            service: Some(service),
            base,
            client: reqwest::Client::new(),
            data,
        }
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    pub async fn get(&self, path: &str) -> reqwest::Response {
        self.client
            .get(self.url(path))
            .bearer_auth(TOKEN)
            .send()
            .await
            .unwrap()
    }

    pub async fn get_json(&self, path: &str) -> Value {
        let response = self.get(path).await;
        let status = response.status();
        let text = response.text().await.unwrap();
        assert_eq!(status, reqwest::StatusCode::OK, "{path}: {text}");
        serde_json::from_str(&text).unwrap()
    }

    /// Uploads `bytes` as `name`; the new analysis id.
    pub async fn upload(&self, name: &str, bytes: Vec<u8>) -> String {
        let response = self
            .client
            .post(self.url(&format!("/api/v1/analyses?name={name}")))
            .bearer_auth(TOKEN)
            .header("content-type", "application/octet-stream")
            .body(bytes)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
        let created: Value = response.json().await.unwrap();
        assert_eq!(created["status"], "queued");
        created["id"].as_str().unwrap().to_string()
    }

    /// Polls until the analysis and its index have ended; the last answer.
    pub async fn wait_done(&self, id: &str) -> Value {
        let started = Instant::now();
        loop {
            let view = self.get_json(&format!("/api/v1/analyses/{id}")).await;
            let status = view["status"].as_str().unwrap().to_string();
            let index = view["index"]["state"].as_str().unwrap_or("").to_string();
            if status == "failed" || (status == "done" && (index == "done" || index == "failed")) {
                return view;
            }
            assert!(
                started.elapsed() < Duration::from_secs(120),
                "analysis {id} still {status} (index {index})"
            );
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    pub async fn stop(mut self) {
        if let Some(service) = self.service.take() {
            service.shutdown().await;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn private_routes_refuse_missing_and_wrong_tokens_in_process() {
    let server = TestServer::start().await;
    let app = router(server.service.as_ref().unwrap().state().clone());
    let call = |auth: Option<&str>, method: &str, uri: &str| {
        let mut request = Request::builder().method(method).uri(uri);
        if let Some(auth) = auth {
            request = request.header("authorization", auth);
        }
        app.clone().oneshot(request.body(Body::empty()).unwrap())
    };
    for (method, uri) in [
        ("GET", "/api/v1/analyses"),
        ("POST", "/api/v1/analyses"),
        (
            "GET",
            "/api/v1/analyses/5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11",
        ),
        (
            "DELETE",
            "/api/v1/analyses/5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11",
        ),
        (
            "GET",
            "/api/v1/analyses/5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11/search?q=x",
        ),
    ] {
        for auth in [None, Some("Bearer wrong"), Some("Basic dGVzdA==")] {
            let response = call(auth, method, uri).await.unwrap();
            assert_eq!(
                response.status(),
                StatusCode::UNAUTHORIZED,
                "{method} {uri} {auth:?}"
            );
            assert_eq!(response.headers()["www-authenticate"], "Bearer");
            let body = axum::body::to_bytes(response.into_body(), 1 << 20)
                .await
                .unwrap();
            let error: Value = serde_json::from_slice(&body).unwrap();
            assert_eq!(error["error"], "unauthorized");
            // The error names the request, so that it can be found in the log.
            assert_eq!(error["request_id"].as_str().unwrap().len(), 36, "{error}");
        }
    }
    let bearer = format!("Bearer {TOKEN}");
    let ok = call(Some(&bearer), "GET", "/api/v1/analyses")
        .await
        .unwrap();
    assert_eq!(ok.status(), StatusCode::OK);
    // Public routes need nothing.
    for uri in ["/healthz", "/metrics", "/api/v1/openapi.json"] {
        let response = call(None, "GET", uri).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK, "{uri}");
    }
    let unknown = call(Some(&bearer), "GET", "/api/v1/analyses/not-a-uuid")
        .await
        .unwrap();
    assert_eq!(unknown.status(), StatusCode::NOT_FOUND);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_uploaded_bundle_is_analysed_searched_and_deleted() {
    let server = TestServer::start().await;
    let bundle = scenario_tar_gz("2020-juju-evacuate-race");
    let id = server
        .upload("juju-crashdump-race.tar.gz", bundle.clone())
        .await;

    let view = server.wait_done(&id).await;
    assert_eq!(view["status"], "done", "{view}");
    assert_eq!(view["index"]["state"], "done", "{view}");
    assert_eq!(view["size_bytes"], bundle.len() as u64);
    assert_eq!(view["sha256"].as_str().unwrap().len(), 64);
    assert_eq!(view["result"]["schema"], "evacdoc.analysis/v1");
    assert_eq!(view["result"]["analysis"]["layout"], "juju-crashdump");
    assert!(
        view["progress"]["files_done"].as_u64().unwrap() > 3,
        "{view}"
    );

    // The same findings as `evacdoc analyze` gives on the folder.
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let findings = findings.as_array().unwrap();
    let race = findings
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .expect("the race is found");
    assert_eq!(race["instance_uuids"][0], RACE_INSTANCE);
    assert!(race["evidence"].as_array().unwrap().iter().any(|e| {
        e["text"]
            .as_str()
            .unwrap()
            .contains("Compute service of node02ob100.maas is still in use")
    }));
    let finding_id = race["id"].as_str().unwrap();
    let one = server
        .get_json(&format!("/api/v1/analyses/{id}/findings/{finding_id}"))
        .await;
    assert_eq!(&one, race);

    // The instance's timeline: Masakari's evacuate call, Nova's 400, then node01's rebuild.
    let timeline = server
        .get_json(&format!(
            "/api/v1/analyses/{id}/timeline?instance={RACE_INSTANCE}"
        ))
        .await;
    let rows = timeline.as_array().unwrap();
    let texts: Vec<&str> = rows.iter().map(|r| r["text"].as_str().unwrap()).collect();
    let first_400 = texts
        .iter()
        .position(|t| t.contains("is still in use"))
        .expect("the 400 answer");
    let spawned = texts
        .iter()
        .position(|t| t.contains("Instance spawned successfully"))
        .expect("the rebuild");
    assert!(first_400 < spawned, "{texts:#?}");
    // In time order (to the second: Apache's %t lines carry no fraction).
    let times: Vec<&str> = rows
        .iter()
        .map(|r| &r["timestamp"].as_str().unwrap()[..19])
        .collect();
    assert!(times.windows(2).all(|w| w[0] <= w[1]), "{times:?}");
    // The same story as a picture, and the finding's picture with its marks.
    for path in [
        format!("/api/v1/analyses/{id}/timeline?instance={RACE_INSTANCE}&format=svg"),
        format!("/api/v1/analyses/{id}/findings/{finding_id}/picture"),
    ] {
        let response = server.get(&path).await;
        assert_eq!(response.status(), reqwest::StatusCode::OK, "{path}");
        assert!(
            response.headers()["content-type"]
                .to_str()
                .unwrap()
                .starts_with("image/svg+xml")
        );
        let svg = response.text().await.unwrap();
        assert!(
            svg.starts_with("<svg") || svg.starts_with("<?xml"),
            "{path}"
        );
        assert!(svg.contains("is still in use"), "{path}");
        assert!(!svg.contains("<script"), "{path}");
    }
    let bad = server
        .get(&format!("/api/v1/analyses/{id}/timeline?instance=nope"))
        .await;
    assert_eq!(bad.status(), reqwest::StatusCode::BAD_REQUEST);

    // Search every line: by request id and level, phrases, a time range.
    let page = server
        .get_json(&format!(
            "/api/v1/analyses/{id}/search?q=request:{RACE_REQUEST}%20AND%20level:ERROR"
        ))
        .await;
    let hits = page["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{page}");
    assert!(hits.iter().all(|h| h["level"] == "ERROR"), "{page}");
    assert!(
        hits.iter()
            .any(|h| h["text"].as_str().unwrap().contains("expected to be down"))
    );
    let phrase = server
        .get_json(&format!(
            "/api/v1/analyses/{id}/search?q=%22still%20in%20use%22&per_page=5"
        ))
        .await;
    assert!(phrase["total"].as_u64().unwrap() >= 2, "{phrase}");
    let hit = &phrase["hits"][0];
    let text = hit["text"].as_str().unwrap();
    let marks = hit["marks"].as_array().unwrap();
    assert!(!marks.is_empty(), "{hit}");
    for mark in marks {
        let (a, b) = (
            mark[0].as_u64().unwrap() as usize,
            mark[1].as_u64().unwrap() as usize,
        );
        // A quoted text is a literal: marked whole, as written.
        assert_eq!(&text[a..b], "still in use", "{text}");
    }
    let later = server
        .get_json(&format!(
            "/api/v1/analyses/{id}/search?q=%22still%20in%20use%22&from=2020-12-08T19:52:00Z"
        ))
        .await;
    assert_eq!(later["total"], 0, "{later}");
    let syntax = server
        .get(&format!("/api/v1/analyses/{id}/search?q=level:(ERROR"))
        .await;
    assert_eq!(syntax.status(), reqwest::StatusCode::BAD_REQUEST);

    // Raw lines of the file a hit points to, by range (a record's hit: its message).
    let hit = &hits[0];
    let files = view["result"]["analysis"]["files"].as_array().unwrap();
    let path = hit["path"].as_str().unwrap();
    let file = files.iter().position(|f| f["path"] == path).unwrap();
    let line = hit["line"].as_u64().unwrap();
    let lines = server
        .get_json(&format!(
            "/api/v1/analyses/{id}/files/{file}/lines?from={}&to={}",
            line.saturating_sub(2).max(1),
            line + 2
        ))
        .await;
    let found = lines["lines"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["line"] == line)
        .expect("the hit's line");
    // The file's real line: its time, level and context before the message.
    let raw = found["text"].as_str().unwrap();
    let message = hit["text"].as_str().unwrap().lines().next().unwrap();
    assert!(raw.lines().next().unwrap().ends_with(message), "{lines}");
    assert!(raw.len() > message.len(), "{lines}");
    assert!(raw.starts_with(|c: char| c.is_ascii_digit()), "{lines}");
    assert!(raw.contains(hit["level"].as_str().unwrap()), "{lines}");

    // Deleted: gone from the list, 404 after, its folder removed.
    let listed = server.get_json("/api/v1/analyses").await;
    assert!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["id"] == id.as_str())
    );
    let deleted = server
        .client
        .delete(server.url(&format!("/api/v1/analyses/{id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(deleted.status(), reqwest::StatusCode::NO_CONTENT);
    let gone = server.get(&format!("/api/v1/analyses/{id}")).await;
    assert_eq!(gone.status(), reqwest::StatusCode::NOT_FOUND);
    let error: Value = gone.json().await.unwrap();
    assert_eq!(error["error"], "not_found");
    assert!(!server.data.path().join("data/analyses").join(&id).exists());
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_past_the_limit_and_broken_bundles_are_refused_or_failed_with_the_reason() {
    let server = TestServer::start_with(|c| c.max_upload = 1000).await;
    let big = server
        .client
        .post(server.url("/api/v1/analyses?name=big.log"))
        .bearer_auth(TOKEN)
        .body(vec![b'x'; 5000])
        .send()
        .await
        .unwrap();
    assert_eq!(big.status(), reqwest::StatusCode::PAYLOAD_TOO_LARGE);
    let listed = server.get_json("/api/v1/analyses").await;
    assert_eq!(
        listed.as_array().unwrap().len(),
        0,
        "nothing is kept of a refused upload"
    );

    // Bytes that claim to be gzip and are not: the job fails, naming the file and why.
    let broken = server
        .upload("broken.tar.gz", b"\x1f\x8b\x08\x00not gzip at all".to_vec())
        .await;
    let view = server.wait_done(&broken).await;
    assert_eq!(view["status"], "failed", "{view}");
    let error = view["error"].as_str().unwrap();
    assert!(
        error.starts_with("broken.tar.gz: gzip stream unreadable"),
        "{view}"
    );
    // Where the service keeps uploads is not told.
    assert!(!error.contains("/analyses/"), "{error}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn openapi_health_and_metrics_describe_the_service() {
    let server = TestServer::start().await;
    let id = server
        .upload("race.tar.gz", scenario_tar_gz("2020-juju-evacuate-race"))
        .await;
    server.wait_done(&id).await;
    let openapi: Value = server
        .client
        .get(server.url("/api/v1/openapi.json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    for path in [
        "/api/v1/analyses",
        "/api/v1/analyses/{id}",
        "/api/v1/analyses/{id}/findings",
        "/api/v1/analyses/{id}/timeline",
        "/api/v1/analyses/{id}/search",
        "/api/v1/analyses/{id}/files/{file}/lines",
        "/api/v1/analyses/{id}/findings/{finding}/remediation",
        "/api/v1/recoveries/{recovery}",
        "/api/v1/recoveries/{recovery}/events",
        "/api/v1/watch/events",
    ] {
        assert!(openapi["paths"][path].is_object(), "{path} missing");
    }
    assert!(openapi["components"]["schemas"]["ErrorBody"].is_object());
    let health = server
        .client
        .get(server.url("/healthz"))
        .send()
        .await
        .unwrap();
    assert_eq!(health.status(), reqwest::StatusCode::OK);
    let metrics = server
        .client
        .get(server.url("/metrics"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(
        metrics.contains("evacdoc_jobs{state=\"done\"} 1"),
        "{metrics}"
    );
    let ingested = metrics
        .lines()
        .find_map(|l| l.strip_prefix("evacdoc_ingested_lines_total "))
        .unwrap();
    assert!(ingested.parse::<u64>().unwrap() > 100, "{metrics}");
    assert!(metrics.contains(
        "evacdoc_http_request_duration_seconds_count{method=\"GET\",route=\"/api/v1/analyses/{id}\",status=\"200\"}"
    ));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upload_cut_short_by_a_stop_is_swept_at_the_next_start() {
    let server = TestServer::start().await;
    let kept = server
        .upload("race.tar.gz", scenario_tar_gz("2020-juju-evacuate-race"))
        .await;
    server.wait_done(&kept).await;
    let data = server.data.path().join("data");
    // A folder with a partial upload and no row, as a crash mid-upload leaves it.
    let orphan = data.join("analyses/0b8e0f8e-6f1c-4b7e-9d2a-3c4b5a6d7e8f");
    std::fs::create_dir_all(orphan.join("input")).unwrap();
    std::fs::write(orphan.join("input/big.tar.xz.part"), b"partial").unwrap();
    let TestServer {
        service, data: dir, ..
    } = server;
    service.unwrap().shutdown().await;

    let mut config = ServeConfig::new("127.0.0.1:0".parse().unwrap(), data.clone());
    config.token = Some(TOKEN.to_string());
    let again = start(config).await.unwrap();
    assert!(!orphan.exists(), "the orphan folder is swept");
    assert!(
        data.join("analyses").join(&kept).exists(),
        "a stored analysis is kept"
    );
    again.shutdown().await;
    drop(dir);
}
