//! The service's own watcher (`serve --watch`): findings of lines appended to a followed
//! file streamed as server-sent events and listed at `/watch`, the policy's decisions made
//! by the same trigger as `evacdoc watch`; and the latency figure from a failed recovery's
//! last line to its finding and its remediation.

use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::{Request, StatusCode, header};
use evacdoc::http::live::WatchConfig;
use evacdoc::http::remediation::RemediationConfig;
use evacdoc::http::router;
use evacdoc::sim::Scenario;
use evacdoc::watch::WatchOptions;
use futures_util::StreamExt as _;
use tower::ServiceExt as _;

use crate::masakari_flow::{EngineLog, MasakariTimings, masakari_host_recovery};
use crate::recovery::{Bench, scenario_file};
use crate::serve_api::{TOKEN, TestServer};
use crate::serve_remediation::{audit, read_events};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_watcher_streams_a_finding_of_lines_appended_to_a_followed_file() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("ctl1");
    std::fs::create_dir_all(live.join("etc")).unwrap();
    std::fs::write(live.join("etc/hostname"), "ctl1\n").unwrap();
    let engine = live.join("var/log/masakari/masakari-engine.log");
    std::fs::create_dir_all(engine.parent().unwrap()).unwrap();
    std::fs::write(&engine, "").unwrap();
    let server = TestServer::start_with(|config| {
        config.watch = Some(WatchConfig {
            paths: vec![live.clone()],
            options: WatchOptions {
                poll: Duration::from_millis(20),
                rescan: Duration::ZERO,
                ..WatchOptions::default()
            },
            policy: None,
        });
    })
    .await;
    let stream = server.get("/api/v1/watch/events").await;
    assert_eq!(stream.status(), reqwest::StatusCode::OK);
    {
        use std::io::Write as _;
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .open(&engine)
            .unwrap();
        file.write_all(crate::watch::failed_recovery(1, 0).as_bytes())
            .unwrap();
    }
    let events = read_events(stream, "decision", Duration::from_secs(30)).await;
    let finding = events
        .iter()
        .find(|(n, _)| n == "finding")
        .unwrap_or_else(|| panic!("no finding: {events:#?}"));
    let id = finding.1["data"]["id"].as_str().unwrap().to_owned();
    assert!(id.ends_with("c5e0e0c8-1c1d-4d71-9a0e-000000000001"), "{id}");
    assert_eq!(finding.1["data"]["failed_host"], "compute-1");
    // The default policy's decision, through the same trigger as `evacdoc watch`.
    let (name, decision) = events.last().unwrap();
    assert_eq!(name, "decision");
    assert_eq!(
        (
            decision["data"]["finding"].as_str(),
            decision["data"]["action"].as_str()
        ),
        (Some(id.as_str()), Some("notify"))
    );
    let audited = audit(&server);
    assert!(
        audited
            .iter()
            .any(|e| e.actor == "watch" && e.action == "trigger-notify" && e.target == id),
        "{audited:#?}"
    );
    // The page lists it.
    let app = router(server.service.as_ref().unwrap().state().clone());
    let signed_in = app
        .clone()
        .oneshot(
            Request::builder()
                .method("POST")
                .uri("/login")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(format!("token={TOKEN}")))
                .unwrap(),
        )
        .await
        .unwrap();
    let cookie = signed_in.headers()[header::SET_COOKIE]
        .to_str()
        .unwrap()
        .split(';')
        .next()
        .unwrap()
        .to_owned();
    let page = app
        .clone()
        .oneshot(
            Request::builder()
                .uri("/watch")
                .header(header::COOKIE, &cookie)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(page.status(), StatusCode::OK);
    let html = String::from_utf8(
        axum::body::to_bytes(page.into_body(), 1 << 20)
            .await
            .unwrap()
            .to_vec(),
    )
    .unwrap();
    assert!(html.contains(&id) && html.contains("notify"), "{html}");
    // The home page links it.
    let home = app
        .clone()
        .oneshot(
            Request::builder()
                .uri("/")
                .header(header::COOKIE, &cookie)
                .body(Body::empty())
                .unwrap(),
        )
        .await
        .unwrap();
    let home = axum::body::to_bytes(home.into_body(), 1 << 20)
        .await
        .unwrap();
    assert!(String::from_utf8_lossy(&home).contains("href=\"/watch\""));
    server.stop().await;
}

/// The speed figure of issue 12, over 5 runs: from the last line of a failed recovery
/// being written (Masakari's engine log saved) to the service's watcher handing out its
/// finding, and to the policy's remediation starting (its recovery journaled). Run with
/// `cargo test --test integration serve_watch::latency -- --ignored --nocapture`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "a measurement: prints the latency figures"]
async fn latency_from_the_last_line_to_the_finding_and_the_remediation() {
    use evacdoc::store::{RecoveryJournal as _, SqliteStore};
    let mut to_finding = Vec::new();
    let mut to_remediation = Vec::new();
    for run in 0..5 {
        let toml = scenario_file("evacuate-race.toml")
            .replace("rebuild_s = 5", "rebuild_s = 1")
            .replace("service_down_time = 60", "service_down_time = 6")
            .replace("report_interval = 10", "report_interval = 2");
        let bench = Bench::start(Scenario::parse(&toml).unwrap(), true).await;
        let notification = uuid::Uuid::new_v4().hyphenated().to_string();
        let policy = evacdoc::trigger::Policy::parse(
            "[guards]\ncooldown_secs = 0\n\n[[rule]]\ndetector = \"evacuate-400-race\"\n\
             action = \"remediate\"\napply = true\ncloud = \"evacdoc-sim\"\nhost_fenced = true\n",
        )
        .unwrap();
        let log_dir = bench.log_dir();
        // Masakari's engine log is there before the failure (as on a real controller):
        // the watcher follows it from the start, and the run's lines are appended to it.
        let log = EngineLog::new(&log_dir, "controller-0", &notification);
        std::fs::create_dir_all(log.path().parent().unwrap()).unwrap();
        std::fs::write(log.path(), "").unwrap();
        let server = TestServer::start_with(|config| {
            config.remediation = RemediationConfig {
                clouds: vec!["evacdoc-sim".into()],
                config_file: Some(bench.clouds_yaml()),
                options: bench.options(false),
            };
            config.watch = Some(WatchConfig {
                paths: vec![log_dir.clone()],
                // As `serve --watch` follows: a look every 200 ms.
                options: WatchOptions {
                    from_start: true,
                    ..WatchOptions::default()
                },
                policy: Some(policy),
            });
        })
        .await;
        let journal = SqliteStore::open(&server.data.path().join("data")).unwrap();
        let stream = server.get("/api/v1/watch/events").await;
        let finding_id = format!("evacuate-400-race:{notification}");
        let seen = {
            let finding_id = finding_id.clone();
            tokio::spawn(async move {
                let mut stream = stream.bytes_stream();
                let mut text = String::new();
                while let Some(Ok(chunk)) = stream.next().await {
                    text.push_str(&String::from_utf8_lossy(&chunk));
                    if text.contains(&format!("\"id\":\"{finding_id}\"")) {
                        return Some(Instant::now());
                    }
                }
                None
            })
        };
        let timings = MasakariTimings {
            wait_after_disable: Duration::from_secs(2),
            ..MasakariTimings::defaults_at(1.0)
        };
        masakari_host_recovery(&bench.cloud, "compute-1", timings, Some(&log)).await;
        let written = Instant::now();
        let started = loop {
            if journal
                .recoveries(1)
                .unwrap()
                .first()
                .is_some_and(|r| r.source == finding_id)
            {
                break Instant::now();
            }
            assert!(
                written.elapsed() < Duration::from_secs(30),
                "no remediation"
            );
            tokio::time::sleep(Duration::from_millis(2)).await;
        };
        let found = tokio::time::timeout(Duration::from_secs(5), seen)
            .await
            .unwrap()
            .unwrap()
            .expect("the finding was streamed");
        to_finding.push(found.saturating_duration_since(written));
        to_remediation.push(started - written);
        println!(
            "run {run}: finding after {:?}, remediation started after {:?}",
            found.saturating_duration_since(written),
            started - written
        );
        // Let the run end before the simulator goes.
        let deadline = Instant::now() + Duration::from_secs(30);
        while journal.recoveries(1).unwrap()[0].status == evacdoc::store::RecoveryStatus::Running
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        server.stop().await;
        bench.sim.shutdown().await;
    }
    for (what, mut figures) in [("finding", to_finding), ("remediation", to_remediation)] {
        figures.sort();
        println!(
            "last line -> {what}: median {:?}, max {:?} over {} runs",
            figures[figures.len() / 2],
            figures[figures.len() - 1],
            figures.len()
        );
    }
}
