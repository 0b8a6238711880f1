//! The trigger of `evacdoc watch`: the default policy POSTs one signed webhook per
//! finding; redirects are not followed; the guards hold under a burst; remediation runs
//! one per host; every decision is in the audit log; the `watch` command end to end.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode};
use evacdoc::detect::Finding;
use evacdoc::run::{RunOptions, analyze_inputs};
use evacdoc::store::{SqliteStore, Store};
use evacdoc::trigger::{
    Outcome, Policy, RemediationError, RemediationOutcome, RemediationRequest, Remediator,
    SIGNATURE_HEADER, Trigger, TriggerCounters, verify,
};
use evacdoc::watch::Watcher;

use crate::util::samples;
use crate::watch::{SCENARIO, append, copy_small_files, fast_options};

/// A webhook receiver on a loopback port: every POST's body and whether its signature
/// checked out; answers `fail_first` 503s before its 200s.
#[derive(Clone, Default)]
struct Receiver {
    posts: Arc<Mutex<Vec<(String, bool)>>>,
    fail_first: Arc<Mutex<u32>>,
}

const SECRET: &str = "webhook-secret-for-tests";

async fn receive(
    axum::extract::State(r): axum::extract::State<Receiver>,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    {
        let mut fail = r.fail_first.lock().unwrap();
        if *fail > 0 {
            *fail -= 1;
            return StatusCode::SERVICE_UNAVAILABLE;
        }
    }
    let signature = headers
        .get(SIGNATURE_HEADER)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let signed = verify(SECRET.as_bytes(), &body, signature);
    r.posts
        .lock()
        .unwrap()
        .push((String::from_utf8_lossy(&body).into_owned(), signed));
    if signed {
        StatusCode::NO_CONTENT
    } else {
        StatusCode::UNAUTHORIZED
    }
}

async fn start_receiver(receiver: Receiver) -> String {
    let app = axum::Router::new()
        .route("/hook", axum::routing::post(receive))
        .with_state(receiver);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    format!("http://{addr}/hook")
}

/// The findings of the scenario, as the watcher hands them out.
fn scenario_findings() -> Vec<Finding> {
    let report = analyze_inputs(&[samples().join(SCENARIO)], &RunOptions::default()).unwrap();
    assert!(report.findings.len() >= 2);
    report.findings
}

fn policy(text: &str, url: &str) -> Policy {
    Policy::parse(&format!(
        "{text}\n[webhook]\nurls = [\"{url}\"]\nsecret = \"{SECRET}\"\nbackoff_ms = 10\n"
    ))
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_policy_posts_one_signed_webhook_per_finding_and_audits_it() {
    let receiver = Receiver::default();
    *receiver.fail_first.lock().unwrap() = 1;
    let url = start_receiver(receiver.clone()).await;
    let data = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(data.path()).unwrap());
    let counters = Arc::new(TriggerCounters::default());
    let trigger = Trigger::new(
        policy("", &url),
        Some(store.clone()),
        None,
        counters.clone(),
    );
    let findings = scenario_findings();
    for f in &findings {
        let decisions = trigger.handle(f).await;
        assert_eq!(decisions.len(), 1, "{decisions:?}");
        assert_eq!(decisions[0].outcome, Outcome::Delivered, "{decisions:?}");
        assert_eq!(decisions[0].action, "notify");
    }
    let posts = receiver.posts.lock().unwrap().clone();
    assert_eq!(posts.len(), findings.len(), "one POST per finding");
    for ((body, signed), finding) in posts.iter().zip(&findings) {
        assert!(signed, "the signature checks out");
        let json: serde_json::Value = serde_json::from_str(body).unwrap();
        assert_eq!(json["id"], finding.id.as_str());
        assert_eq!(json["detector"], finding.detector);
    }
    // The first POST met a 503 and was retried.
    let log = store.audit_log(100).unwrap();
    assert_eq!(log.len(), findings.len());
    assert!(log.iter().all(|e| e.action == "trigger-notify"), "{log:?}");
    assert!(
        log.iter()
            .any(|e| e.detail.contains("delivered") && e.detail.contains("after 2 attempt")),
        "{log:?}"
    );
    assert_eq!(counters.get("notify", "delivered"), findings.len() as u64);
    assert!(
        counters
            .render()
            .contains("evacdoc_trigger_decisions_total{action=\"notify\",outcome=\"delivered\"} ")
    );

    // A receiver that does not know the secret is told so by the signature.
    let other = Trigger::new(
        Policy::parse(&format!(
            "[webhook]\nurls = [\"{url}\"]\nsecret = \"wrong\"\nattempts = 1\n"
        ))
        .unwrap(),
        None,
        None,
        Arc::new(TriggerCounters::default()),
    );
    let refused = other.handle(&findings[0]).await;
    assert_eq!(refused[0].outcome, Outcome::Failed);
    assert!(refused[0].detail.contains("401"), "{refused:?}");
    assert!(!receiver.posts.lock().unwrap().last().unwrap().1);
}

/// A webhook URL that redirects elsewhere is not followed: the finding goes only to the
/// URLs the policy names, and the host the redirect points at is never contacted.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_that_redirects_is_not_followed() {
    let tripwire = crate::util::Tripwire::start().await;
    let target = format!("{}/stolen", tripwire.url);
    let redirect = axum::Router::new().route(
        "/moved",
        axum::routing::post(move || {
            let target = target.clone();
            async move { axum::response::Redirect::temporary(&target) }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let _ = axum::serve(listener, redirect).await;
    });
    let trigger = Trigger::new(
        policy("", &format!("http://{addr}/moved")),
        None,
        None,
        Arc::new(TriggerCounters::default()),
    );
    let decisions = trigger.handle(&scenario_findings()[0]).await;
    assert_eq!(decisions[0].outcome, Outcome::Failed, "{decisions:?}");
    assert!(decisions[0].detail.contains("307"), "{decisions:?}");
    assert_eq!(tripwire.connections(), 0, "followed the redirect");
}

/// `n` findings on `hosts` failed hosts, as a burst of recoveries would give.
fn burst(n: usize, hosts: usize) -> Vec<Finding> {
    let base = scenario_findings()
        .into_iter()
        .find(|f| f.detector == "evacuate-400-race")
        .unwrap();
    (0..n)
        .map(|i| {
            let mut f = base.clone();
            f.id = format!("evacuate-400-race:00000000-0000-4000-8000-{i:012}").into();
            f.notification_id = Some(format!("00000000-0000-4000-8000-{i:012}"));
            f.failed_host = Some(format!("cmp{:02}", i % hosts));
            f
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cooldown_and_rate_limit_hold_under_a_burst_and_every_decision_is_audited() {
    let receiver = Receiver::default();
    let url = start_receiver(receiver.clone()).await;
    let data = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(data.path()).unwrap());
    let policy = policy(
        "[guards]\ncooldown_secs = 600\nrate_limit = 3\nrate_window_secs = 600\n",
        &url,
    );
    let trigger = Arc::new(Trigger::new(
        policy,
        Some(store.clone()),
        None,
        Arc::new(TriggerCounters::default()),
    ));
    let findings = burst(40, 5);
    let mut tasks = tokio::task::JoinSet::new();
    for f in findings.clone() {
        let trigger = trigger.clone();
        tasks.spawn(async move { trigger.handle(&f).await });
    }
    let mut decisions = Vec::new();
    while let Some(done) = tasks.join_next().await {
        decisions.extend(done.unwrap());
    }
    assert_eq!(decisions.len(), 40);
    let delivered: Vec<_> = decisions
        .iter()
        .filter(|d| d.outcome == Outcome::Delivered)
        .collect();
    assert_eq!(delivered.len(), 3, "the rate limit: {decisions:#?}");
    assert_eq!(receiver.posts.lock().unwrap().len(), 3);
    let skipped_for = |word: &str| {
        decisions
            .iter()
            .filter(|d| d.outcome == Outcome::Skipped && d.detail.starts_with(word))
            .count()
    };
    // Three hosts were acted on: their other findings meet the cooldown, the other two
    // hosts' findings the rate limit.
    assert_eq!(skipped_for("cooldown"), 3 * 8 - 3);
    assert_eq!(skipped_for("rate limit"), 2 * 8);
    // Every decision, with why.
    let log = store.audit_log(100).unwrap();
    assert_eq!(log.len(), 40);
    assert_eq!(
        log.iter()
            .filter(|e| e.detail.starts_with("skipped: cooldown"))
            .count(),
        21
    );
    assert_eq!(
        log.iter()
            .filter(|e| e.detail.starts_with("skipped: rate limit"))
            .count(),
        16
    );
}

/// An executor stand-in that takes a while and counts what it was asked.
struct SlowPlanner {
    calls: Mutex<Vec<(String, RemediationRequest)>>,
}

impl Remediator for SlowPlanner {
    fn remediate<'a>(
        &'a self,
        finding: &'a Finding,
        request: &'a RemediationRequest,
    ) -> futures_util::future::BoxFuture<'a, Result<RemediationOutcome, RemediationError>> {
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            self.calls
                .lock()
                .unwrap()
                .push((finding.id.to_string(), request.clone()));
            Ok(RemediationOutcome {
                applied: request.apply,
                summary: format!("{} actions planned", finding.remediation.actions.len()),
            })
        })
    }
}

/// Issue 25/26: a remediation of a watched finding waits for Nova as long as the watched
/// nova.conf says (`[DEFAULT] service_down_time`), not Nova's default 60 s: the value goes
/// with the finding from the watcher to the executor's request.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watched_nova_conf_gives_the_remediation_its_service_down_time() {
    let scenario = samples().join(SCENARIO);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut logs = Vec::new();
    copy_small_files(&scenario, Path::new(""), &live, &mut logs);
    let conf = live.join("ctl01/etc/kolla/nova-api/nova.conf");
    let text = std::fs::read_to_string(&conf).unwrap();
    assert!(text.contains("service_down_time = 60\n"), "{text}");
    std::fs::write(
        &conf,
        text.replace("service_down_time = 60\n", "service_down_time = 75\n"),
    )
    .unwrap();

    let watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let stop = Arc::new(std::sync::atomic::AtomicBool::new(false));
    let (polling, mut rx) = evacdoc::watch::spawn_polling(watcher, stop.clone());
    // The configuration alone gives the race-risk finding.
    let handed = tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a finding within 20 s")
        .expect("the watcher runs");
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    assert_eq!(handed.finding.detector, "evacuation-race-risk");
    let expected = (
        Duration::from_secs(75),
        "ctl01/etc/kolla/nova-api/nova.conf".to_owned(),
    );
    assert_eq!(handed.service_down_time, Some(expected.clone()));

    let planner = Arc::new(SlowPlanner {
        calls: Mutex::new(Vec::new()),
    });
    let rules = "[guards]\ncooldown_secs = 0\n\n[[rule]]\ndetector = \"evacuation-race-risk\"\n\
                 action = \"remediate\"\ncloud = \"sim\"\n";
    let trigger = Trigger::new(
        policy(rules, "http://127.0.0.1:9/never"),
        None,
        Some(planner.clone()),
        Arc::new(TriggerCounters::default()),
    );
    let decisions = trigger
        .handle_from(&handed.finding, handed.service_down_time.clone())
        .await;
    assert_eq!(decisions.len(), 1, "{decisions:?}");
    let calls = planner.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1, "{decisions:?}");
    assert_eq!(calls[0].1.service_down_time, Some(expected));
    let _ = polling.await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn remediation_runs_one_per_host_is_unavailable_without_an_executor_and_dry_run_acts_not() {
    let url = "http://127.0.0.1:9/never";
    let rules = "[guards]\ncooldown_secs = 0\n\n[[rule]]\ndetector = \"evacuate-400-race\"\naction = \"remediate\"\napply = true\ncloud = \"sim\"\n";
    let findings = burst(2, 1);

    // Without an executor: recorded as not available, nothing else.
    let data = tempfile::tempdir().unwrap();
    let store: Arc<dyn Store> = Arc::new(SqliteStore::open(data.path()).unwrap());
    let alone = Trigger::new(
        policy(rules, url),
        Some(store.clone()),
        None,
        Arc::new(TriggerCounters::default()),
    );
    let d = alone.handle(&findings[0]).await;
    assert_eq!(d[0].outcome, Outcome::Unavailable);
    let log = store.audit_log(10).unwrap();
    assert_eq!(log[0].action, "trigger-remediate");
    assert!(
        log[0]
            .detail
            .starts_with("unavailable: remediation not available"),
        "{log:?}"
    );

    // With one: one remediation per host at a time.
    let planner = Arc::new(SlowPlanner {
        calls: Mutex::new(Vec::new()),
    });
    let trigger = Arc::new(Trigger::new(
        policy(rules, url),
        None,
        Some(planner.clone()),
        Arc::new(TriggerCounters::default()),
    ));
    let (a, b) = tokio::join!(trigger.handle(&findings[0]), trigger.handle(&findings[1]));
    let mut outcomes = vec![a[0].outcome.clone(), b[0].outcome.clone()];
    outcomes.sort_by_key(|o| format!("{o:?}"));
    assert_eq!(outcomes, vec![Outcome::Applied, Outcome::Skipped]);
    let skipped = if a[0].outcome == Outcome::Skipped {
        &a[0]
    } else {
        &b[0]
    };
    assert!(
        skipped.detail.contains("already running on host cmp00"),
        "{skipped:?}"
    );
    let calls = planner.calls.lock().unwrap().clone();
    assert_eq!(calls.len(), 1);
    assert_eq!(
        calls[0].1,
        RemediationRequest {
            apply: true,
            cloud: Some("sim".into()),
            host_fenced: false,
            service_down_time: None,
            max_down_percent: None,
        }
    );
    // Done: the host is free again.
    assert_eq!(
        trigger.handle(&findings[1]).await[0].outcome,
        Outcome::Applied
    );

    // Dry run: decided, recorded, not done.
    let dry = Trigger::new(
        policy(&format!("dry_run = true\n{rules}"), url),
        None,
        Some(planner.clone()),
        Arc::new(TriggerCounters::default()),
    );
    let d = dry.handle(&findings[0]).await;
    assert_eq!(d[0].outcome, Outcome::DryRun);
    assert!(d[0].detail.contains("would apply the remediation on sim"));
    assert_eq!(planner.calls.lock().unwrap().len(), 2);
    let notify = Trigger::new(
        policy("dry_run = true\n", url),
        None,
        None,
        Arc::new(TriggerCounters::default()),
    );
    let d = notify.handle(&findings[0]).await;
    assert_eq!(d[0].outcome, Outcome::DryRun);
    assert!(d[0].detail.contains("would POST to"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_watch_command_prints_findings_as_json_notifies_and_audits_by_its_policy() {
    let receiver = Receiver::default();
    let url = start_receiver(receiver.clone()).await;
    let scenario = samples().join(SCENARIO);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut logs = Vec::new();
    copy_small_files(&scenario, Path::new(""), &live, &mut logs);
    // The logs exist, empty, before the watcher starts: everything is appended later.
    for rel in &logs {
        append(&live.join(rel), "");
    }
    let policy = dir.path().join("policy.toml");
    std::fs::write(
        &policy,
        format!(
            "[webhook]\nurls = [\"{url}\"]\nsecret_env = \"EVACDOC_TEST_WEBHOOK_SECRET\"\n\n\
             [[rule]]\ndetector = \"evacuation-race-risk\"\naction = \"none\"\n"
        ),
    )
    .unwrap();
    let data = dir.path().join("data");
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .arg("watch")
        .arg(&live)
        .args(["--format", "json", "--poll-ms", "50", "--policy"])
        .arg(&policy)
        .arg("--data")
        .arg(&data)
        .env("EVACDOC_TEST_WEBHOOK_SECRET", SECRET)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut child = KillOnDrop(child);
    let stdout = child.0.stdout.take().unwrap();
    let (tx, mut lines) = tokio::sync::mpsc::unbounded_channel::<String>();
    std::thread::spawn(move || {
        use std::io::BufRead;
        for line in std::io::BufReader::new(stdout)
            .lines()
            .map_while(Result::ok)
        {
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    let first = tokio::time::timeout(Duration::from_secs(20), lines.recv())
        .await
        .expect("the configuration finding comes at once")
        .unwrap();
    let first: serde_json::Value = serde_json::from_str(&first).unwrap();
    assert_eq!(first["detector"], "evacuation-race-risk");
    for rel in &logs {
        let text = std::fs::read_to_string(scenario.join(rel)).unwrap();
        append(&live.join(rel), &text);
    }
    let second = tokio::time::timeout(Duration::from_secs(20), lines.recv())
        .await
        .expect("the race is found")
        .unwrap();
    let second: serde_json::Value = serde_json::from_str(&second).unwrap();
    assert_eq!(
        second["id"],
        "evacuate-400-race:3330353d-4f69-4f1d-b1f9-3977329fb2cd"
    );
    // The webhook went out, signed, for the race only.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    while receiver.posts.lock().unwrap().is_empty() && tokio::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // Nothing more comes.
    assert!(
        tokio::time::timeout(Duration::from_millis(600), lines.recv())
            .await
            .is_err(),
        "a finding came twice"
    );
    drop(child);
    let posts = receiver.posts.lock().unwrap().clone();
    assert_eq!(posts.len(), 1, "{posts:?}");
    assert!(posts[0].1, "signed with the secret from the environment");
    assert!(posts[0].0.contains("\"detector\":\"evacuate-400-race\""));
    let store = SqliteStore::open(&data).unwrap();
    let mut log: Vec<(String, String, String)> = store
        .audit_log(10)
        .unwrap()
        .into_iter()
        .map(|e| {
            (
                e.action,
                e.target,
                e.detail.split(':').next().unwrap().to_string(),
            )
        })
        .collect();
    log.sort();
    assert_eq!(
        log,
        vec![
            (
                "trigger-none".to_string(),
                "evacuation-race-risk:ctl01/etc/kolla/masakari-engine/masakari.conf".to_string(),
                "ignored".to_string()
            ),
            (
                "trigger-notify".to_string(),
                "evacuate-400-race:3330353d-4f69-4f1d-b1f9-3977329fb2cd".to_string(),
                "delivered".to_string()
            ),
        ]
    );
}

/// A child process killed when the test ends, passed or not.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
