//! `evacdoc watch` and the trigger: real-format lines appended over time (with a
//! rotation and a truncation) give exactly the findings a batch analysis gives, once,
//! when their recovery ends; memory stays bounded over many recoveries; the default
//! policy POSTs one signed webhook per finding; the guards hold under a burst; every
//! decision is in the audit log.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
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
use evacdoc::watch::{WatchOptions, Watcher};

use crate::util::samples;

const SCENARIO: &str = "scenarios/2023-kolla-evacuate-race-zed";
const ENGINE: &str = "ctl01/var/log/kolla/masakari/masakari-engine.log";
const ACCESS: &str = "ctl01/var/log/kolla/nova/nova-api-access.log";

fn fast_options() -> WatchOptions {
    WatchOptions {
        poll: Duration::from_millis(10),
        rescan: Duration::ZERO,
        ..WatchOptions::default()
    }
}

fn append(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// A log's lines cut into `n` slices, each cut before a line that starts a record (a
/// timestamp or an access line's address), so that a record is never split by a cut.
fn slices(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let per = lines.len().div_ceil(n).max(1);
    let mut out = vec![String::new(); n];
    let mut slice = 0;
    for (i, line) in lines.iter().enumerate() {
        let starts_record = line.as_bytes().first().is_some_and(|b| b.is_ascii_digit());
        if i >= per * (slice + 1) && starts_record && slice + 1 < n {
            slice += 1;
        }
        out[slice].push_str(line);
    }
    out
}

/// Every file of the scenario that is not a log, copied into `live` (configs, zones).
fn copy_small_files(from: &Path, rel: &Path, live: &Path, logs: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(from.join(rel)).unwrap() {
        let entry = entry.unwrap();
        let rel = rel.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_small_files(from, &rel, live, logs);
        } else if rel.to_string_lossy().contains("/var/log/") {
            logs.push(rel);
        } else if !rel.ends_with("README.md") {
            std::fs::create_dir_all(live.join(&rel).parent().unwrap()).unwrap();
            std::fs::copy(from.join(&rel), live.join(&rel)).unwrap();
        }
    }
}

fn poll_until_quiet(watcher: &mut Watcher, into: &mut Vec<Finding>) {
    // Two looks: the first reads, the second finds the writer quiet and hands out the
    // record the assembler held.
    for _ in 0..3 {
        into.extend(watcher.poll());
    }
}

fn ids(findings: &[Finding]) -> Vec<String> {
    let mut ids: Vec<String> = findings.iter().map(|f| f.id.to_string()).collect();
    ids.sort();
    ids
}

#[test]
fn appended_lines_with_a_rotation_and_a_truncation_give_the_batch_findings_once() {
    let scenario = samples().join(SCENARIO);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut logs = Vec::new();
    copy_small_files(&scenario, Path::new(""), &live, &mut logs);
    logs.sort();
    assert!(logs.len() >= 5, "{logs:?}");
    let rounds = 6;
    let sliced: BTreeMap<PathBuf, Vec<String>> = logs
        .iter()
        .map(|rel| {
            let text = std::fs::read_to_string(scenario.join(rel)).unwrap();
            (rel.clone(), slices(&text, rounds))
        })
        .collect();

    let mut watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let mut found: Vec<Finding> = Vec::new();
    // The configuration alone says the race is likely: handed out at once.
    poll_until_quiet(&mut watcher, &mut found);
    assert_eq!(
        ids(&found),
        vec!["evacuation-race-risk:ctl01/etc/kolla/masakari-engine/masakari.conf"]
    );
    let mut engine_written = String::new();
    let mut race_seen_after: Option<String> = None;
    for round in 0..rounds {
        for (rel, parts) in &sliced {
            append(&live.join(rel), &parts[round]);
            if rel.ends_with("masakari-engine.log") {
                engine_written.push_str(&parts[round]);
            }
        }
        let before = found.len();
        poll_until_quiet(&mut watcher, &mut found);
        if found[before..]
            .iter()
            .any(|f| f.detector == "evacuate-400-race")
        {
            race_seen_after = Some(engine_written.clone());
        }
        if round == 1 {
            // logrotate by rename: the engine's log moves away, a new one takes its name.
            std::fs::rename(live.join(ENGINE), live.join(format!("{ENGINE}.1"))).unwrap();
        }
        if round == 2 {
            // copytruncate: the access log is copied and cut to nothing.
            std::fs::copy(live.join(ACCESS), live.join(format!("{ACCESS}.1"))).unwrap();
            std::fs::write(live.join(ACCESS), "").unwrap();
        }
    }
    for _ in 0..5 {
        poll_until_quiet(&mut watcher, &mut found);
    }

    let batch = analyze_inputs(&[scenario], &RunOptions::default()).unwrap();
    assert_eq!(
        ids(&found),
        ids(&batch.findings),
        "exactly the batch findings"
    );
    let unique: BTreeSet<String> = found.iter().map(|f| f.id.to_string()).collect();
    assert_eq!(
        unique.len(),
        found.len(),
        "each finding once: {:?}",
        ids(&found)
    );
    assert!(
        ids(&found).contains(&"evacuate-400-race:3330353d-4f69-4f1d-b1f9-3977329fb2cd".to_string())
    );

    // Not before the recovery's run had ended.
    let written = race_seen_after.expect("the race was found");
    assert!(
        written.contains("Notification 3330353d-4f69-4f1d-b1f9-3977329fb2cd exits with status"),
        "the finding came before its recovery ended"
    );
    let race = found
        .iter()
        .find(|f| f.detector == "evacuate-400-race")
        .unwrap();
    assert_eq!(race.failed_host.as_deref(), Some("cmp02"));
    assert!(
        race.evidence.iter().any(
            |e| e.path == ENGINE && e.text.contains("Compute service of cmp02 is still in use")
        ),
        "{:#?}",
        race.evidence
    );
    // Evidence cites lines as the files were written.
    let rotated = std::fs::read_to_string(live.join(format!("{ENGINE}.1"))).unwrap();
    let current = std::fs::read_to_string(live.join(ENGINE)).unwrap();
    for e in race.evidence.iter().filter(|e| e.path == ENGINE) {
        let in_rotated = rotated.lines().nth(e.line - 1) == Some(e.text.lines().next().unwrap());
        let in_current = current.lines().nth(e.line - 1) == Some(e.text.lines().next().unwrap());
        assert!(
            in_rotated || in_current,
            "line {} is not {:?}",
            e.line,
            e.text
        );
    }
    let stats = watcher.stats();
    assert_eq!(stats.findings, found.len() as u64);
    assert!(stats.records > 200, "{stats:?}");
}

/// One failed host recovery in Masakari's exact lines (oslo.log defaults, Zed+).
pub(crate) fn failed_recovery(n: usize, minute: usize) -> String {
    let notification = format!("c5e0e0c8-1c1d-4d71-9a0e-{n:012x}");
    let instance = format!("7d1e5f0a-0000-4000-8000-{n:012x}");
    let request = format!("req-11111111-2222-3333-4444-{n:012x}");
    let t = |s: usize| {
        format!(
            "2026-11-30 {:02}:{:02}:{:02}.845",
            9 + minute / 60,
            minute % 60,
            s
        )
    };
    let mut text = String::new();
    text += &format!(
        "{} 7502 INFO masakari.engine.manager [None {request} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {notification} of type: COMPUTE_HOST\n",
        t(1)
    );
    text += &format!(
        "{} 7502 INFO masakari.compute.nova [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Disable nova-compute on compute-{n}\n",
        t(2)
    );
    text += &format!(
        "{} 7502 WARNING masakari.engine.drivers.taskflow.host_failure [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Failed to evacuate instance {instance}: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance {instance}\n",
        t(3)
    );
    text += &format!(
        "{} 7502 ERROR masakari.engine.manager [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Failed to process notification '{notification}'. Reason: Failed to evacuate instances '{instance}' from host 'compute-{n}': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{instance}' from host 'compute-{n}'\n",
        t(4)
    );
    text += &format!(
        "{} 7502 INFO masakari.engine.manager [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Notification {notification} exits with status: error.\n",
        t(5)
    );
    text += &format!(
        "{} 7502 ERROR masakari.engine.manager [None req-a49b59c8-ae66-4306-938a-{n:012x} - - - - - -] Periodic task 'process_unfinished_notifications': Notification {notification} exits with status: failed.\n",
        t(30)
    );
    text
}

#[test]
fn many_recoveries_give_one_finding_each_and_the_window_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("ctl1");
    std::fs::create_dir_all(live.join("etc")).unwrap();
    std::fs::write(live.join("etc/hostname"), "ctl1\n").unwrap();
    let engine = live.join("var/log/masakari/masakari-engine.log");
    append(&engine, "");
    let options = WatchOptions {
        window: Duration::from_secs(120),
        grace: Duration::from_secs(10),
        ..fast_options()
    };
    let mut watcher = Watcher::new(std::slice::from_ref(&live), options).unwrap();
    let recoveries = 60;
    let mut found = Vec::new();
    let mut most_held = 0;
    let mut all = String::new();
    for n in 0..recoveries {
        let text = failed_recovery(n, n);
        all.push_str(&text);
        append(&engine, &text);
        poll_until_quiet(&mut watcher, &mut found);
        most_held = most_held.max(watcher.stats().held_events);
    }
    for _ in 0..3 {
        poll_until_quiet(&mut watcher, &mut found);
    }
    // The same lines in one file, analyzed at once.
    let batch_dir = tempfile::tempdir().unwrap();
    let batch_root = batch_dir.path().join("ctl1");
    std::fs::create_dir_all(batch_root.join("etc")).unwrap();
    std::fs::write(batch_root.join("etc/hostname"), "ctl1\n").unwrap();
    append(
        &batch_root.join("var/log/masakari/masakari-engine.log"),
        &all,
    );
    let batch = analyze_inputs(&[batch_root], &RunOptions::default()).unwrap();
    assert_eq!(
        batch.findings.len(),
        recoveries,
        "{:?}",
        ids(&batch.findings)
    );
    assert_eq!(ids(&found), ids(&batch.findings));
    // A recovery is six events; an ended one is dropped within its grace, and the
    // recoveries are a minute apart: a few recoveries' worth at most.
    assert!(most_held <= 6 * 4, "held {most_held} events");
    assert!(watcher.stats().held_events <= 6 * 4);
}

/// Masakari's lines for a notification it ignores (the host's status is `UNKNOWN`).
fn ignored_notification(k: usize) -> String {
    let notification = format!("{:08x}-4a8d-4d3e-b7c5-1f0a9e2d8b46", 0x1000_0000 + k);
    let ctx = format!(
        "[None req-{:08x}-3b9d-4e2a-a7f5-0d6c2b8e9f13 b4e7c1a9d2f8460c8e3a5b7d9f1c2e06 2e9f4c1a7b3d45e8a6c0f2d4b8e1a937 - - default default]",
        0x2000_0000 + k
    );
    let t = format!("2026-11-30 10:{:02}:{:02}", k / 60 % 60, k % 60);
    format!(
        "{t}.452 33 INFO masakari.engine.manager {ctx} Processing notification {notification} of type: COMPUTE_HOST\n\
         {t}.480 33 WARNING masakari.engine.manager {ctx} Notification '{notification}' ignored as host_status is 'UNKNOWN'\n\
         {t}.484 33 INFO masakari.engine.manager {ctx} Notification {notification} exits with status: ignored.\n"
    )
}

/// Repeated findings of one cause go out merged, and the merged finding still names a
/// notification (the first it covers), so that a follower can look it up.
#[test]
fn a_merged_finding_of_ignored_notifications_names_the_first_notification() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("ctl1");
    std::fs::create_dir_all(live.join("etc")).unwrap();
    std::fs::write(live.join("etc/hostname"), "ctl1\n").unwrap();
    let engine = live.join("var/log/masakari/masakari-engine.log");
    append(&engine, "");
    let mut watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let all: String = (0..40).map(ignored_notification).collect();
    append(&engine, &all);
    let mut found = Vec::new();
    for _ in 0..3 {
        poll_until_quiet(&mut watcher, &mut found);
    }
    let merged: Vec<&Finding> = found
        .iter()
        .filter(|f| f.id.contains(":repeated:"))
        .collect();
    assert_eq!(merged.len(), 1, "{:?}", ids(&found));
    assert!(merged[0].title.contains("40 times"), "{}", merged[0].title);
    assert_eq!(
        merged[0].notification_id.as_deref(),
        Some("10000000-4a8d-4d3e-b7c5-1f0a9e2d8b46")
    );
}

/// A sosreport whose syslog tells Pacemaker's fencing of compute-1 two minutes before
/// Masakari's first evacuate call; its `pcs stonith history show` is empty (the cluster
/// restarted since, and the history lives in the fencers' memory).
const FENCED_SYSLOG: &str = "scenarios/2024-sosreport-fenced-before-evacuation-syslog";
const SOS_ROOT: &str = "sosreport-ctl-1-2024-05-21-hk3vqa";

/// The findings of watching the scenario's logs written after the watcher started, the
/// system log among them or not, and those of a batch analysis of the same folder.
fn watch_fencing(with_syslog: bool) -> (Vec<Finding>, Vec<Finding>) {
    let scenario = samples().join(FENCED_SYSLOG);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut logs = Vec::new();
    copy_small_files(&scenario, Path::new(""), &live, &mut logs);
    let history = live
        .join(SOS_ROOT)
        .join("sos_commands/pacemaker/pcs_stonith_history_show");
    append(&history, "");
    logs.retain(|rel| with_syslog || !rel.ends_with("var/log/syslog"));
    logs.sort();
    let mut watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let mut found = Vec::new();
    poll_until_quiet(&mut watcher, &mut found);
    for rel in &logs {
        append(
            &live.join(rel),
            &std::fs::read_to_string(scenario.join(rel)).unwrap(),
        );
    }
    for _ in 0..3 {
        poll_until_quiet(&mut watcher, &mut found);
    }
    let batch = analyze_inputs(&[live], &RunOptions::default()).unwrap();
    (found, batch.findings)
}

/// The watcher reads Pacemaker's fencing results in the system log as `analyze` does: a
/// host the log shows fenced before the first evacuation gives no evacuated-unfenced
/// warning; without the log (only the empty history) the warning appears.
#[test]
fn the_watched_system_log_tells_the_fencing_before_the_evacuation() {
    let unfenced = |findings: &[Finding]| {
        findings
            .iter()
            .filter(|f| f.detector == "evacuated-unfenced")
            .map(|f| f.failed_host.clone())
            .collect::<Vec<_>>()
    };
    let (watched, batch) = watch_fencing(true);
    assert_eq!(
        unfenced(&watched),
        Vec::<Option<String>>::new(),
        "{:?}",
        ids(&watched)
    );
    assert_eq!(ids(&watched), ids(&batch));

    let (watched, batch) = watch_fencing(false);
    assert_eq!(
        unfenced(&watched),
        [Some("compute-1".to_string())],
        "{:?}",
        ids(&watched)
    );
    assert_eq!(ids(&watched), ids(&batch));
    let warning = watched
        .iter()
        .find(|f| f.detector == "evacuated-unfenced")
        .unwrap();
    assert!(
        warning
            .evidence
            .iter()
            .any(|e| e.text.contains("Call evacuate command for instance")),
        "{:#?}",
        warning.evidence
    );
}

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
