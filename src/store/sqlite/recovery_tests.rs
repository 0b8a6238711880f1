//! The recovery journal on a real SQLite file: a round trip, the final status rule, and
//! the repair of a recovery interrupted by a kill.

use super::*;
use crate::store::{MoveStatus, RecoveryStatus};

const A: &str = "0f7e3c2a-9b1d-4e6f-8a2c-3d4e5f6a7b01";
const B: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

fn moves() -> Vec<(String, String)> {
    vec![
        (A.to_owned(), "compute-1".to_owned()),
        (B.to_owned(), "compute-1".to_owned()),
    ]
}

fn update(status: MoveStatus, destination: Option<&str>, message: Option<&str>) -> MoveUpdate {
    MoveUpdate {
        status,
        destination: destination.map(str::to_owned),
        message: message.map(str::to_owned),
    }
}

#[test]
fn a_recovery_round_trips_with_its_moves_in_order() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store
        .begin_recovery("compute-1", "evacuate-400-race:n1", &moves())
        .unwrap();
    let row = store.recovery(id).unwrap().unwrap();
    assert_eq!(row.status, RecoveryStatus::Running);
    assert_eq!(row.source, "evacuate-400-race:n1");
    assert_eq!(
        row.moves
            .iter()
            .map(|m| m.instance.as_str())
            .collect::<Vec<_>>(),
        [A, B]
    );
    assert!(row.moves.iter().all(|m| m.status == MoveStatus::Pending));

    store
        .update_move(id, A, &update(MoveStatus::Ongoing, None, Some("locked")))
        .unwrap();
    let ongoing = store.recovery(id).unwrap().unwrap().moves[0].clone();
    assert!(ongoing.started.is_some() && ongoing.ended.is_none());
    store
        .update_move(
            id,
            A,
            &update(MoveStatus::Succeeded, Some("compute-2"), Some("ACTIVE")),
        )
        .unwrap();
    store
        .update_move(
            id,
            B,
            &update(MoveStatus::Ignored, None, Some("in error state")),
        )
        .unwrap();
    let ended = store.end_recovery(id, false, None).unwrap();
    assert_eq!(ended.status, RecoveryStatus::Finished);
    assert!(ended.ended.is_some());
    let first = &ended.moves[0];
    assert_eq!(first.destination.as_deref(), Some("compute-2"));
    assert!(first.started <= first.ended, "{first:?}");
    assert!(
        ended
            .moves
            .iter()
            .all(|m| m.ended.is_some() && m.started.is_some())
    );

    // Reopened: the same rows; an ended move or recovery is not written again.
    drop(store);
    let store = SqliteStore::open(root.path()).unwrap();
    assert_eq!(store.recovery(id).unwrap(), Some(ended));
    assert!(matches!(
        store.update_move(id, A, &update(MoveStatus::Failed, None, None)),
        Err(StoreError::RecoveryEnded { .. })
    ));
    assert!(matches!(
        store.end_recovery(id, false, None),
        Err(StoreError::RecoveryEnded { .. })
    ));
}

#[test]
fn a_failed_or_open_move_makes_the_recovery_failed_and_nothing_stays_open() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.begin_recovery("compute-1", "cli", &moves()).unwrap();
    store
        .update_move(
            id,
            A,
            &update(MoveStatus::Succeeded, Some("compute-2"), None),
        )
        .unwrap();
    assert!(matches!(
        store.update_move(id, A, &update(MoveStatus::Failed, None, None)),
        Err(StoreError::MoveEnded { .. })
    ));
    let ended = store
        .end_recovery(id, false, Some("nova answered 503"))
        .unwrap();
    assert_eq!(ended.status, RecoveryStatus::Failed);
    let left = &ended.moves[1];
    assert_eq!(left.status, MoveStatus::Failed);
    assert_eq!(left.message.as_deref(), Some("nova answered 503"));
    assert!(left.started.is_some() && left.ended.is_some());
}

#[test]
fn a_refused_recovery_is_refused_with_no_move_left_pending() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.begin_recovery("compute-1", "cli", &moves()).unwrap();
    let ended = store
        .end_recovery(id, true, Some("refused: nova still sees compute-1 up"))
        .unwrap();
    assert_eq!(ended.status, RecoveryStatus::Refused);
    assert!(ended.moves.iter().all(|m| m.status == MoveStatus::Failed));
}

#[test]
fn an_interrupted_recovery_is_failed_at_next_start_with_its_open_moves() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let done = store.begin_recovery("compute-9", "cli", &[]).unwrap();
    store.end_recovery(done, false, None).unwrap();
    let id = store.begin_recovery("compute-1", "cli", &moves()).unwrap();
    store
        .update_move(
            id,
            A,
            &update(MoveStatus::Ongoing, None, Some("evacuate accepted")),
        )
        .unwrap();
    // Killed here: nothing ends the recovery.
    drop(store);

    let store = SqliteStore::open(root.path()).unwrap();
    assert_eq!(store.repair_interrupted_recoveries().unwrap(), vec![id]);
    let repaired = store.recovery(id).unwrap().unwrap();
    assert_eq!(repaired.status, RecoveryStatus::Failed);
    assert!(
        repaired
            .message
            .as_deref()
            .unwrap()
            .starts_with("interrupted")
    );
    for row in &repaired.moves {
        assert_eq!(row.status, MoveStatus::Failed, "{row:?}");
        assert!(row.started.is_some() && row.ended.is_some(), "{row:?}");
        assert!(row.message.as_deref().unwrap().starts_with("interrupted"));
    }
    // The recovery that had ended is untouched, and a second repair finds nothing.
    assert_eq!(
        store.recovery(done).unwrap().unwrap().status,
        RecoveryStatus::Finished
    );
    assert!(store.repair_interrupted_recoveries().unwrap().is_empty());
    assert_eq!(store.recoveries(10).unwrap()[0].id, id);
}

#[test]
fn an_interruption_leaves_typed_lock_states_that_a_later_run_settles_once() {
    use crate::store::{LeftLock, LeftMove};
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.begin_recovery("compute-1", "cli", &moves()).unwrap();
    store
        .update_move(id, A, &update(MoveStatus::Ongoing, None, None))
        .unwrap();
    store
        .update_move(
            id,
            A,
            &update(MoveStatus::Succeeded, Some("compute-2"), None),
        )
        .unwrap();
    store
        .update_move(id, B, &update(MoveStatus::Ongoing, None, None))
        .unwrap();
    // Nothing is left while the recovery runs: only a repair says what a kill left.
    assert!(store.left_locks().unwrap().is_empty());
    drop(store);

    let store = SqliteStore::open(root.path()).unwrap();
    store.repair_interrupted_recoveries().unwrap();
    // The move that had ended holds no lock of ours; the open one may.
    let left = store.left_locks().unwrap();
    let expected = LeftMove {
        recovery: id,
        instance: B.to_owned(),
    };
    assert_eq!(left, vec![expected.clone()]);
    store.lock_looked_at(&expected, LeftLock::Released).unwrap();
    assert!(store.left_locks().unwrap().is_empty(), "looked at once");
    // The journal's rows as the API serves them are unchanged by the state.
    let row = store.recovery(id).unwrap().unwrap();
    assert_eq!(row.moves[1].status, MoveStatus::Failed);
    assert!(
        row.moves[1]
            .message
            .as_deref()
            .unwrap()
            .starts_with("interrupted")
    );
}

#[test]
fn a_planning_failure_is_a_failed_recovery_without_moves() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store
        .record_plan_failure(
            "compute-1",
            "evacuate-400-race:n1",
            "planning failed: no such host",
        )
        .unwrap();
    let row = store.recovery(id).unwrap().unwrap();
    assert_eq!(row.status, RecoveryStatus::Failed);
    assert!(row.moves.is_empty());
    assert_eq!(
        row.message.as_deref(),
        Some("planning failed: no such host")
    );
    assert!(row.ended.is_some());
}
