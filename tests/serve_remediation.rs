//! Remediation through the service: a finding's recovery planned and applied over the
//! API against `evacdoc sim` (refused without the token, the confirmation or a
//! configured cloud; one per host; progress as server-sent events; every decision in
//! the audit log). The finding page's panel is driven in Chromium in `serve_browser`.

use std::path::Path;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use evacdoc::http::remediation::RemediationConfig;
use evacdoc::http::router;
use evacdoc::store::AuditEntry;
use futures_util::StreamExt as _;
use serde_json::{Value, json};
use tower::ServiceExt as _;

use crate::recovery::{Bench, race_in_the_sim};
use crate::serve_api::{TOKEN, TestServer, scenario_tar_gz};

/// A folder packed as a `.tar.gz`.
pub(crate) fn tar_gz(dir: &Path) -> Vec<u8> {
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    tar.append_dir_all("logs", dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

/// A path segment, percent-encoded (finding ids may hold `/`).
pub(crate) fn segment(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b':' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// POSTs `body` to the remediation route of `finding` with the token; status and JSON.
async fn remediate(server: &TestServer, id: &str, finding: &str, body: Value) -> (u16, Value) {
    let response = server
        .client
        .post(server.url(&format!(
            "/api/v1/analyses/{id}/findings/{}/remediation",
            segment(finding)
        )))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, response.json().await.unwrap_or(Value::Null))
}

pub(crate) fn audit(server: &TestServer) -> Vec<AuditEntry> {
    let store = server.service.as_ref().unwrap().state().store.clone();
    let mut entries = store.audit_log(1000).unwrap();
    entries.reverse();
    entries
}

/// Reads server-sent events from `response` until `last` is seen (or the time is up):
/// each as (event, data).
pub(crate) async fn read_events(
    response: reqwest::Response,
    last: &str,
    limit: Duration,
) -> Vec<(String, Value)> {
    let mut stream = response.bytes_stream();
    let mut text = String::new();
    let mut events = Vec::new();
    let deadline = Instant::now() + limit;
    while Instant::now() < deadline {
        let chunk = match tokio::time::timeout(deadline - Instant::now(), stream.next()).await {
            Ok(Some(Ok(chunk))) => chunk,
            _ => break,
        };
        text.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = text.find("\n\n") {
            let block: String = text.drain(..end + 2).collect();
            let mut name = String::new();
            let mut data = String::new();
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event:") {
                    name = v.trim().to_owned();
                } else if let Some(v) = line.strip_prefix("data:") {
                    data.push_str(v.trim_start());
                }
            }
            if name.is_empty() {
                continue;
            }
            let done = name == last;
            events.push((name, serde_json::from_str(&data).unwrap_or(Value::Null)));
            if done {
                return events;
            }
        }
    }
    events
}

/// The race sample's analysis on a server: (server, analysis id, race finding id,
/// a finding with no recovery).
async fn race_analysis(clouds: &[&str]) -> (TestServer, String, String, String) {
    let server = TestServer::start_with(|config| {
        config.remediation = RemediationConfig {
            clouds: clouds.iter().map(|c| (*c).to_owned()).collect(),
            ..RemediationConfig::default()
        };
    })
    .await;
    let name = "2020-juju-evacuate-race";
    let id = server
        .upload(&format!("{name}.tar.gz"), scenario_tar_gz(name))
        .await;
    server.wait_done(&id).await;
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let of = |detector: &str| {
        findings
            .as_array()
            .unwrap()
            .iter()
            .find(|f| f["detector"] == detector)
            .map(|f| f["id"].as_str().unwrap().to_owned())
    };
    let race = of("evacuate-400-race").expect("the race finding");
    let other = of("evacuation-race-risk").expect("a finding without a recovery");
    (server, id, race, other)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remediation_is_refused_without_token_confirmation_or_allowed_cloud_and_audited() {
    let (server, id, race, other) = race_analysis(&["evacdoc-sim"]).await;
    let route = format!("/api/v1/analyses/{id}/findings/{race}/remediation");
    // No token, a wrong one: 401 before anything is read.
    let app = router(server.service.as_ref().unwrap().state().clone());
    for auth in [None, Some("Bearer wrong")] {
        let mut request = Request::builder()
            .method("POST")
            .uri(&route)
            .header(header::CONTENT_TYPE, "application/json");
        if let Some(auth) = auth {
            request = request.header(header::AUTHORIZATION, auth);
        }
        let body = Body::from(json!({"apply": true, "confirm": race}).to_string());
        let status = app
            .clone()
            .oneshot(request.body(body).unwrap())
            .await
            .unwrap()
            .status();
        assert_eq!(status, StatusCode::UNAUTHORIZED, "{auth:?}");
    }
    // Applying without the confirmation, or with another id.
    let (status, error) = remediate(&server, &id, &race, json!({"apply": true})).await;
    assert_eq!(status, 422, "{error}");
    assert_eq!(error["error"], "confirmation_required");
    assert!(
        error["message"].as_str().unwrap().contains(&race),
        "{error}"
    );
    let (status, error) = remediate(
        &server,
        &id,
        &race,
        json!({"apply": true, "confirm": "evacuate-400-race:someone-else"}),
    )
    .await;
    assert_eq!(status, 422, "{error}");
    assert!(
        error["message"]
            .as_str()
            .unwrap()
            .contains("does not match")
    );
    // A cloud the service was not started with.
    let (status, error) = remediate(
        &server,
        &id,
        &race,
        json!({"apply": true, "confirm": race, "cloud": "production"}),
    )
    .await;
    assert_eq!(
        (status, error["error"].as_str()),
        (403, Some("cloud_not_allowed")),
        "{error}"
    );
    // A finding evacdoc has no recovery for.
    let (status, error) = remediate(&server, &id, &other, json!({})).await;
    assert_eq!(
        (status, error["error"].as_str()),
        (422, Some("not_remediable")),
        "{error}"
    );
    // A body that is not the request.
    let (status, error) = remediate(&server, &id, &race, json!({"apply": "yes"})).await;
    assert_eq!(status, 400, "{error}");
    // Unknown analysis or finding.
    let (status, _) = remediate(&server, &id, "evacuate-400-race:nothing", json!({})).await;
    assert_eq!(status, 404);

    let refused: Vec<AuditEntry> = audit(&server)
        .into_iter()
        .filter(|e| e.action == "remediation-refused")
        .collect();
    assert_eq!(refused.len(), 4, "{refused:#?}");
    assert!(refused.iter().all(|e| e.actor == "token"), "{refused:#?}");
    assert!(refused[0].target.ends_with(&race) && refused[0].detail.contains("confirmation"));
    assert!(refused[2].detail.contains("production"), "{refused:#?}");
    assert!(refused[3].target.ends_with(&other));
    server.stop().await;

    // A service with no cloud configured plans nothing and applies nothing.
    let (server, id, race, _) = race_analysis(&[]).await;
    for body in [json!({}), json!({"apply": true, "confirm": race})] {
        let (status, error) = remediate(&server, &id, &race, body).await;
        assert_eq!(
            (status, error["error"].as_str()),
            (409, Some("no_cloud")),
            "{error}"
        );
        assert!(error["message"].as_str().unwrap().contains("--cloud"));
    }
    assert_eq!(
        audit(&server)
            .iter()
            .filter(|e| e.action == "remediation-refused" && e.detail.contains("no cloud"))
            .count(),
        2
    );
    server.stop().await;
}

/// The race played in the simulator, its logs analysed by a service that may remediate
/// on the simulator's cloud: (bench, server, analysis id, `evacuate-400-race` finding id).
pub(crate) async fn analysed_race() -> (Bench, TestServer, String, String) {
    analysed_race_with(|_| {}).await
}

/// [`analysed_race`], the service's executor options changed by `change`.
pub(crate) async fn analysed_race_with(
    change: impl FnOnce(&mut evacdoc::recovery::RecoveryOptions),
) -> (Bench, TestServer, String, String) {
    let notification = uuid::Uuid::new_v4().hyphenated().to_string();
    let bench = race_in_the_sim(&notification).await;
    let mut options = bench.options(false);
    change(&mut options);
    let server = TestServer::start_with(|config| {
        config.remediation = RemediationConfig {
            clouds: vec!["evacdoc-sim".into()],
            config_file: Some(bench.clouds_yaml()),
            options,
        };
    })
    .await;
    let id = server
        .upload("sim-logs.tar.gz", tar_gz(&bench.log_dir()))
        .await;
    server.wait_done(&id).await;
    let finding = format!("evacuate-400-race:{notification}");
    (bench, server, id, finding)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finding_remediated_over_the_api_brings_the_instances_back_with_its_progress_streamed() {
    let (bench, server, id, finding) = analysed_race().await;
    server
        .get_json(&format!("/api/v1/analyses/{id}/findings/{finding}"))
        .await;

    // The plan: reads only, nothing moves.
    let (status, plan) = remediate(&server, &id, &finding, json!({"host_fenced": true})).await;
    assert_eq!(status, 200, "{plan}");
    assert_eq!(
        (
            plan["schema"].as_str(),
            plan["status"].as_str(),
            plan["host"].as_str()
        ),
        (
            Some("evacdoc.recovery/v1"),
            Some("planned"),
            Some("compute-1")
        )
    );
    assert!(plan["plan"].as_array().unwrap().len() > 3, "{plan}");
    let moves = plan["moves"].as_array().unwrap().len();
    assert!(moves > 0);
    let before = bench.servers().await;
    assert!(
        before
            .iter()
            .all(|s| s.host.as_deref() == Some("compute-1")),
        "{before:?}"
    );

    // Applied: 202 with the recovery; a second one on the same host is held back.
    let (status, started) = remediate(
        &server,
        &id,
        &finding,
        json!({"apply": true, "confirm": finding, "host_fenced": true}),
    )
    .await;
    assert_eq!(status, 202, "{started}");
    let recovery = started["recovery_id"].as_i64().unwrap();
    let (status, busy) = remediate(
        &server,
        &id,
        &finding,
        json!({"apply": true, "confirm": finding, "host_fenced": true}),
    )
    .await;
    assert_eq!(
        (status, busy["error"].as_str()),
        (409, Some("host_busy")),
        "{busy}"
    );

    let events = server.get(started["events"].as_str().unwrap()).await;
    assert_eq!(events.status(), reqwest::StatusCode::OK);
    assert!(
        events.headers()[header::CONTENT_TYPE.as_str()]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    let events = read_events(events, "end", Duration::from_secs(60)).await;
    let (last, end) = events.last().unwrap();
    assert_eq!(last, "end", "{events:#?}");
    assert_eq!(end["status"], "finished", "{end}");
    assert_eq!(end["recovery_id"], recovery);
    let count = |name: &str| events.iter().filter(|(n, _)| n == name).count();
    assert!(count("step-started") >= 4 && count("step-started") == count("step-finished"));
    assert!(
        events
            .iter()
            .any(|(n, d)| n == "step-started" && d["what"] == "evacuate")
    );
    let succeeded = events
        .iter()
        .filter(|(n, d)| n == "move" && d["status"] == "succeeded")
        .count();
    assert_eq!(succeeded, moves, "{events:#?}");
    for server in bench.servers().await {
        assert_eq!(server.status, "ACTIVE", "{server:?}");
        assert_ne!(server.host.as_deref(), Some("compute-1"), "{server:?}");
        assert!(!server.locked, "{server:?}");
    }
    // The journal has it, started by the finding; a late follower gets the whole run.
    let row = server
        .get_json(&format!("/api/v1/recoveries/{recovery}"))
        .await;
    assert_eq!(
        (row["status"].as_str(), row["source"].as_str()),
        (Some("finished"), Some(finding.as_str()))
    );
    let again = read_events(
        server
            .get(&format!("/api/v1/recoveries/{recovery}/events"))
            .await,
        "end",
        Duration::from_secs(5),
    )
    .await;
    assert_eq!(again.len(), events.len());

    let decisions: Vec<(String, String)> = audit(&server)
        .into_iter()
        .filter(|e| e.action.starts_with("remediation-"))
        .map(|e| (e.action, e.detail))
        .collect();
    let actions: Vec<&str> = decisions.iter().map(|(a, _)| a.as_str()).collect();
    assert_eq!(
        actions,
        [
            "remediation-plan",
            "remediation-apply",
            "remediation-refused",
            "remediation-result"
        ],
        "{decisions:#?}"
    );
    assert!(
        decisions[2].1.contains("already running on host compute-1"),
        "{decisions:#?}"
    );
    assert!(decisions[3].1.starts_with("finished"), "{decisions:#?}");
    server.stop().await;
    bench.sim.shutdown().await;
}

/// InstanceHA's guard through the service: a refusal is a 409 with its own code and the
/// executor's sentence, and nothing is changed on the cloud.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_guard_refusal_is_answered_409_with_its_code() {
    // No compute may be down: the failed host alone is 1 of 3, more than 0 %.
    let (bench, server, id, finding) = analysed_race_with(|o| o.max_down_percent = 0).await;
    let (status, body) = remediate(&server, &id, &finding, json!({"host_fenced": true})).await;
    assert_eq!(status, 409, "{body}");
    let text = body.to_string();
    assert!(text.contains("too_many_computes_down"), "{text}");
    assert!(
        text.contains("recovery of compute-1 refused: 1 of 3 nova-compute services are down"),
        "{text}"
    );
    assert!(
        bench
            .servers()
            .await
            .iter()
            .all(|s| s.host.as_deref() == Some("compute-1") && !s.locked)
    );
    bench.sim.shutdown().await;
}
