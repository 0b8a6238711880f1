//! Runs over an in-memory cloud and a real journal: the host rules, unlock whatever
//! happens, retries, and the final status.

use std::time::Duration;

use super::*;
use crate::recovery::plan::plan;
use crate::recovery::retry::RetryPolicy;
use crate::recovery::test_cloud::{State, TestCloud, server, service, volume};
use crate::store::{MoveRow, RecoveryStatus, SqliteStore};

const WEB: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
const DB: &str = "2b6f0c8e-1d4a-4e3b-8c7d-5a9e0f1b2c01";

fn options(fenced: bool) -> RecoveryOptions {
    RecoveryOptions {
        host_fenced: fenced,
        service_down_time: Duration::from_millis(60),
        down_margin: Duration::from_millis(20),
        rebuild_timeout: Duration::from_millis(200),
        poll_interval: Duration::from_millis(5),
        retry: RetryPolicy {
            attempts: 3,
            conflict_attempts: 3,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
        },
        ..RecoveryOptions::default()
    }
}

fn cloud(up: bool) -> TestCloud {
    TestCloud::new(State {
        service: Some(service(up)),
        servers: vec![
            server(DB, "db-1", true, &["vol-db"]),
            server(WEB, "web-1", true, &[]),
        ],
        volumes: vec![volume("vol-db", DB, false)],
        ..State::default()
    })
}

async fn run(cloud: &TestCloud, options: &RecoveryOptions) -> RecoveryRow {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let plan = plan(cloud, "compute-1", options).await.unwrap();
    apply(cloud, &store, &plan, options, "cli", &Quiet)
        .await
        .unwrap()
}

fn nothing_locked(cloud: &TestCloud) -> bool {
    cloud
        .state
        .lock()
        .unwrap()
        .servers
        .iter()
        .all(|s| !s.locked)
}

#[tokio::test]
async fn a_down_host_is_disabled_and_every_instance_moved_with_its_attachment_cleared_first() {
    let cloud = cloud(false);
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Finished, "{row:#?}");
    for m in &row.moves {
        assert_eq!(m.status, MoveStatus::Succeeded);
        assert_eq!(m.destination.as_deref(), Some("compute-2"));
        assert_eq!(m.message.as_deref(), Some("ACTIVE on compute-2"));
    }
    let calls = cloud.calls();
    let db: Vec<&str> = calls
        .iter()
        .filter(|c| c.ends_with(DB) || c.contains("vol-db"))
        .map(|c| c.split(' ').next().unwrap())
        .collect();
    // The plan's volume read, then the move's.
    assert_eq!(
        db,
        [
            "volume",
            "lock",
            "volume",
            "clear_attachment",
            "evacuate",
            "server",
            "unlock"
        ]
    );
    assert!(calls.iter().any(|c| c.starts_with("disable")));
    assert!(!calls.iter().any(|c| c.starts_with("force_down")));
    assert!(nothing_locked(&cloud));
}

#[tokio::test]
async fn an_up_host_not_fenced_is_waited_for_then_refused_without_any_evacuate() {
    let cloud = cloud(true);
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Refused);
    assert!(row.message.as_deref().unwrap().contains("never evacuating"));
    assert!(
        row.moves
            .iter()
            .all(|m| m.status == MoveStatus::Failed && m.ended.is_some())
    );
    let calls = cloud.calls();
    assert!(
        calls
            .iter()
            .all(|c| !c.starts_with("evacuate") && !c.starts_with("lock"))
    );
    assert!(
        calls
            .iter()
            .all(|c| !c.starts_with("force_down") && !c.starts_with("disable"))
    );
    // It did wait: several reads of the service.
    assert!(
        calls
            .iter()
            .filter(|c| c.starts_with("compute_service"))
            .count()
            > 3
    );
}

#[tokio::test]
async fn an_up_fenced_host_is_forced_down_then_disabled_then_evacuated() {
    let cloud = cloud(true);
    let row = run(&cloud, &options(true)).await;
    assert_eq!(row.status, RecoveryStatus::Finished, "{row:#?}");
    let calls = cloud.calls();
    let position = |name: &str| calls.iter().position(|c| c.starts_with(name)).unwrap();
    assert!(position("force_down") < position("disable"));
    assert!(position("disable") < position("evacuate"));
}

/// A boot-from-volume server whose volume cannot be read (a cloud without Cinder in the
/// catalog answers no volume at all): that move fails, untouched, and the host's other
/// instances are still evacuated.
#[tokio::test]
async fn an_unreadable_volume_fails_only_its_move_and_the_others_are_evacuated() {
    let cloud = cloud(false);
    cloud
        .state
        .lock()
        .unwrap()
        .failures
        .insert("volume vol-db".into(), vec![404]);
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Failed);
    let db = row.moves.iter().find(|m| m.instance == DB).unwrap();
    let web = row.moves.iter().find(|m| m.instance == WEB).unwrap();
    assert_eq!(db.status, MoveStatus::Failed, "{row:#?}");
    assert!(db.message.as_deref().unwrap().contains("vol-db"), "{db:#?}");
    assert_eq!(web.status, MoveStatus::Succeeded, "{row:#?}");
    let calls = cloud.calls();
    assert!(
        calls.iter().any(|c| c == &format!("evacuate {WEB}")),
        "{calls:?}"
    );
    assert!(
        !calls
            .iter()
            .any(|c| c.ends_with(DB) && !c.starts_with("server")),
        "no call acts on the unmovable server: {calls:?}"
    );
    assert!(nothing_locked(&cloud));
}

#[tokio::test]
async fn a_failing_evacuate_fails_its_move_unlocks_it_and_the_recovery_fails() {
    let cloud = cloud(false);
    cloud
        .state
        .lock()
        .unwrap()
        .failures
        .insert(format!("evacuate {DB}"), vec![503, 503, 503]);
    cloud
        .state
        .lock()
        .unwrap()
        .failures
        .insert(format!("evacuate {WEB}"), vec![400]);
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Failed);
    let failed: Vec<&MoveRow> = row
        .moves
        .iter()
        .filter(|m| m.status == MoveStatus::Failed)
        .collect();
    // One exhausts its three tries on 503, the other's 400 is not retried.
    assert_eq!(failed.len(), 2, "{row:#?}");
    let evacuates = cloud
        .calls()
        .iter()
        .filter(|c| c.starts_with("evacuate"))
        .count();
    assert_eq!(evacuates, 4);
    assert!(
        failed
            .iter()
            .all(|m| m.message.as_deref().unwrap().starts_with("evacuate:"))
    );
    assert!(nothing_locked(&cloud));
}

#[tokio::test]
async fn transient_errors_within_the_bound_are_retried_and_the_recovery_finishes() {
    let cloud = cloud(false);
    {
        let mut state = cloud.state.lock().unwrap();
        state.failures.insert("lock".into(), vec![503]);
        state.failures.insert("evacuate".into(), vec![409, 502]);
        state.failures.insert("server".into(), vec![503, 503]);
        state.failures.insert("unlock".into(), vec![500]);
    }
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Finished, "{row:#?}");
    assert!(nothing_locked(&cloud));
}

#[tokio::test]
async fn an_unlock_that_keeps_failing_fails_the_move_and_says_it_is_still_locked() {
    let cloud = cloud(false);
    cloud
        .state
        .lock()
        .unwrap()
        .failures
        .insert(format!("unlock {WEB}"), vec![503, 503, 503]);
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Failed);
    let failed = row
        .moves
        .iter()
        .find(|m| m.status == MoveStatus::Failed)
        .unwrap();
    assert!(
        failed.message.as_deref().unwrap().contains("still locked"),
        "{failed:?}"
    );
    // It was evacuated all the same.
    assert_eq!(failed.destination.as_deref(), Some("compute-2"));
}

#[tokio::test]
async fn an_instance_locked_by_someone_else_is_left_locked() {
    let cloud = cloud(false);
    cloud.state.lock().unwrap().servers[1].locked = true;
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Finished);
    let calls = cloud.calls();
    assert!(!calls.contains(&format!("lock {WEB}")));
    assert!(!calls.contains(&format!("unlock {WEB}")));
    assert!(cloud.state.lock().unwrap().servers[1].locked);
}

#[test]
fn a_server_has_arrived_in_its_state_on_another_host_or_failed_in_error() {
    let mut s = server(WEB, "web-1", true, &[]);
    assert!(arrived(&s, "compute-1", "ACTIVE").is_none());
    s.host = Some("compute-2".into());
    s.task_state = Some("rebuild_spawning".into());
    assert!(arrived(&s, "compute-1", "ACTIVE").is_none());
    s.task_state = None;
    let ended = arrived(&s, "compute-1", "ACTIVE").unwrap().unwrap();
    assert_eq!(ended.destination.as_deref(), Some("compute-2"));
    s.status = "SHUTOFF".into();
    assert!(arrived(&s, "compute-1", "SHUTOFF").unwrap().is_ok());
    // A running instance that lands stopped is not back yet.
    assert!(arrived(&s, "compute-1", "ACTIVE").is_none());
    s.status = "ERROR".into();
    assert!(arrived(&s, "compute-1", "ACTIVE").unwrap().is_err());
}

#[tokio::test]
async fn a_lock_left_by_a_killed_evacdoc_run_is_released_one_of_someone_else_is_kept() {
    let cloud = cloud(false);
    {
        let mut state = cloud.state.lock().unwrap();
        state.servers[0].locked = true;
        state.servers[0].locked_reason = Some(crate::recovery::options::LOCK_REASON.to_owned());
        state.servers[1].locked = true;
        state.servers[1].locked_reason = Some("ops: do not touch".to_owned());
    }
    let row = run(&cloud, &options(false)).await;
    assert_eq!(row.status, RecoveryStatus::Finished);
    let state = cloud.state.lock().unwrap();
    assert!(!state.servers[0].locked);
    assert!(state.servers[1].locked);
}

#[tokio::test]
async fn computes_failing_between_plan_and_apply_refuse_the_run_before_any_change() {
    use crate::recovery::test_cloud::other;
    let cloud = cloud(true);
    let options = options(true);
    let plan = plan(&cloud, "compute-1", &options).await.unwrap();
    cloud.state.lock().unwrap().others = Some(vec![
        other("nova-scheduler", "controller-0", true),
        other("nova-compute", "compute-2", false),
        other("nova-compute", "compute-3", true),
    ]);
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let row = apply(&cloud, &store, &plan, &options, "cli", &Quiet)
        .await
        .unwrap();
    assert_eq!(row.status, RecoveryStatus::Refused);
    assert!(
        row.message
            .as_deref()
            .unwrap()
            .contains("2 of 3 nova-compute services are down"),
        "{row:#?}"
    );
    assert!(cloud.calls().iter().all(|c| {
        ["force_down", "disable", "lock", "evacuate"]
            .iter()
            .all(|w| !c.starts_with(w))
    }));
}
