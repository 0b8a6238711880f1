//! The job queue: analyses created and listed, claimed once, progress, finishing done or
//! failed, and jobs interrupted by a crash.

use super::*;

#[test]
fn analyses_are_created_queued_and_listed_newest_first() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let names = [
        "sosreport-cmp1.tar.xz",
        "juju-crashdump.tar.gz",
        "kolla-logs.zip",
    ];
    let created: Vec<AnalysisRow> = names
        .iter()
        .map(|name| store.create_analysis(&new_analysis(name)).unwrap())
        .collect();
    let first = &created[0];
    assert_eq!(first.status, JobStatus::Queued);
    assert_eq!(first.name, "sosreport-cmp1.tar.xz");
    assert_eq!(first.size_bytes, 4_812_331);
    assert_eq!(
        (first.attempts, first.finding_count, first.critical_count),
        (0, 0, 0)
    );
    assert_eq!(first.index.state, IndexState::Pending);
    assert!(first.started_at.is_none() && first.finished_at.is_none() && first.error.is_none());
    assert!(
        first.created_at.parse::<jiff::Timestamp>().is_ok(),
        "{}",
        first.created_at
    );
    assert!(first.created_at.ends_with('Z'));

    let listed: Vec<String> = store
        .list_analyses(10)
        .unwrap()
        .into_iter()
        .map(|row| row.name)
        .collect();
    assert_eq!(
        listed,
        [
            "kolla-logs.zip",
            "juju-crashdump.tar.gz",
            "sosreport-cmp1.tar.xz"
        ]
    );
    assert_eq!(store.list_analyses(2).unwrap().len(), 2);
    assert_eq!(store.get_analysis(&first.id).unwrap().as_ref(), Some(first));
    assert_eq!(store.get_analysis(&new_analysis("x").id).unwrap(), None);

    let duplicate = NewAnalysis {
        id: first.id.clone(),
        ..new_analysis("again")
    };
    assert!(matches!(
        store.create_analysis(&duplicate),
        Err(StoreError::AlreadyExists(_))
    ));

    let json = serde_json::to_value(first).unwrap();
    assert_eq!(json["status"], "queued");
    assert_eq!(json["index"]["state"], "pending");
}

#[test]
fn claim_next_takes_the_oldest_and_never_the_same_twice() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let first = store.create_analysis(&new_analysis("first")).unwrap();
    let second = store.create_analysis(&new_analysis("second")).unwrap();

    let claimed = store.claim_next().unwrap().unwrap();
    assert_eq!(claimed.id, first.id);
    assert_eq!(claimed.status, JobStatus::Running);
    assert_eq!(claimed.attempts, 1);
    assert!(claimed.started_at.is_some());
    assert_eq!(store.count_running().unwrap(), 1);

    assert_eq!(store.claim_next().unwrap().unwrap().id, second.id);
    assert_eq!(store.claim_next().unwrap(), None);
    assert_eq!(store.count_running().unwrap(), 2);

    // A graceful stop puts the job back, first in line, without spending an attempt.
    store.requeue(&first.id).unwrap();
    let again = store.claim_next().unwrap().unwrap();
    assert_eq!((again.id.as_str(), again.attempts), (first.id.as_str(), 1));
    assert!(matches!(
        store.requeue(&store.create_analysis(&new_analysis("queued")).unwrap().id),
        Err(StoreError::InvalidTransition {
            status: JobStatus::Queued,
            ..
        })
    ));
}

#[test]
fn claim_next_from_several_threads_hands_each_analysis_out_once() {
    let root = tempfile::tempdir().unwrap();
    let store = Arc::new(SqliteStore::open(root.path()).unwrap());
    let created: HashSet<String> = (0..40)
        .map(|n| {
            store
                .create_analysis(&new_analysis(&format!("bundle-{n}")))
                .unwrap()
                .id
        })
        .collect();
    let workers: Vec<_> = (0..4)
        .map(|_| {
            let store: Arc<dyn Store> = store.clone();
            std::thread::spawn(move || {
                let mut mine = Vec::new();
                while let Some(row) = store.claim_next().unwrap() {
                    mine.push(row.id);
                }
                mine
            })
        })
        .collect();
    let mut claimed = Vec::new();
    for worker in workers {
        claimed.extend(worker.join().unwrap());
    }
    assert_eq!(
        claimed.len(),
        created.len(),
        "an analysis was claimed twice or lost"
    );
    assert_eq!(claimed.into_iter().collect::<HashSet<_>>(), created);

    // And from a second store on the same folder, as a second process would.
    let other = SqliteStore::open(root.path()).unwrap();
    let late = store.create_analysis(&new_analysis("late")).unwrap();
    let (a, b) = std::thread::scope(|scope| {
        let a = scope.spawn(|| store.claim_next().unwrap());
        let b = scope.spawn(|| other.claim_next().unwrap());
        (a.join().unwrap(), b.join().unwrap())
    });
    let ids: Vec<String> = a.into_iter().chain(b).map(|row| row.id).collect();
    assert_eq!(ids, [late.id]);
}

#[test]
fn progress_and_index_state_are_kept() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.create_analysis(&new_analysis("a")).unwrap().id;
    store.claim_next().unwrap();
    let progress = Progress {
        bytes_done: 1 << 20,
        bytes_total: 3 << 20,
        files_done: 7,
        files_total: 19,
    };
    store.set_progress(&id, &progress).unwrap();
    let index = IndexProgress {
        state: IndexState::Failed,
        bytes_done: 512,
        error: Some("disk full".to_owned()),
    };
    store.set_index(&id, &index).unwrap();
    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!((row.progress, row.index), (progress, index));
    let unknown = new_analysis("unknown").id;
    assert!(matches!(
        store.set_progress(&unknown, &progress),
        Err(StoreError::NotFound(_))
    ));
}

#[test]
fn finish_done_stores_the_result_and_findings_together() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.create_analysis(&new_analysis("a")).unwrap().id;
    let result = result_with(vec![
        finding("f1", "evacuate-400-race", Severity::Critical),
        finding("f2", "pending-after-finished", Severity::Critical),
        finding("f3", "bfv-evacuation-delay", Severity::Warning),
    ]);

    // Not running yet: refused, nothing stored.
    let refused = store.finish_done(&id, &result).unwrap_err();
    assert!(
        matches!(
            refused,
            StoreError::InvalidTransition {
                status: JobStatus::Queued,
                ..
            }
        ),
        "{refused}"
    );
    assert_eq!(store.result_json(&id).unwrap(), None);

    store.claim_next().unwrap();
    store.finish_done(&id, &result).unwrap();
    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!(row.status, JobStatus::Done);
    assert!(row.finished_at.is_some());
    assert_eq!((row.finding_count, row.critical_count), (3, 2));
    assert_eq!(
        store.result_json(&id).unwrap().as_deref(),
        Some(result.report_json.as_str())
    );
    assert_eq!(store.findings(&id).unwrap(), result.findings);
    assert_eq!(
        store.finding(&id, "f3").unwrap().as_ref(),
        Some(&result.findings[2])
    );
    assert_eq!(store.finding(&id, "f9").unwrap(), None);

    // Done is final.
    assert!(store.finish_done(&id, &result).is_err());
    assert!(store.finish_failed(&id, "late").is_err());
    assert!(store.requeue(&id).is_err());
}

#[test]
fn a_failed_finish_done_leaves_nothing_behind() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.create_analysis(&new_analysis("a")).unwrap().id;
    store.claim_next().unwrap();
    // Two findings with one id: the second insert fails, the whole transaction rolls back.
    let broken = result_with(vec![
        finding("f1", "evacuate-400-race", Severity::Critical),
        finding("f1", "evacuate-400-race", Severity::Critical),
    ]);
    assert!(store.finish_done(&id, &broken).is_err());
    assert_eq!(
        store.get_analysis(&id).unwrap().unwrap().status,
        JobStatus::Running
    );
    assert_eq!(store.result_json(&id).unwrap(), None);
    assert!(store.findings(&id).unwrap().is_empty());

    store
        .finish_done(
            &id,
            &result_with(vec![finding("f1", "evacuate-400-race", Severity::Critical)]),
        )
        .unwrap();
    assert_eq!(store.findings(&id).unwrap().len(), 1);
}

#[test]
fn finish_failed_keeps_the_reason() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.create_analysis(&new_analysis("a")).unwrap().id;
    store
        .finish_failed(&id, "upload.bin: not an archive")
        .unwrap();
    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!(row.status, JobStatus::Failed);
    assert_eq!(row.error.as_deref(), Some("upload.bin: not an archive"));
    assert_eq!(store.claim_next().unwrap(), None);
}

#[test]
fn a_failed_analysis_fails_the_index_it_had_begun() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store.create_analysis(&new_analysis("a")).unwrap().id;
    store.claim_next().unwrap();
    let running = IndexProgress {
        state: IndexState::Running,
        bytes_done: 10,
        error: None,
    };
    store.set_index(&id, &running).unwrap();
    store.finish_failed(&id, "a.tar: damaged").unwrap();
    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!(row.status, JobStatus::Failed);
    assert_eq!(row.index.state, IndexState::Failed);
    assert_eq!(row.index.error.as_deref(), Some("the analysis failed"));

    // An index that was not begun stays as it was.
    let other = store.create_analysis(&new_analysis("b")).unwrap().id;
    store.finish_failed(&other, "b.tar: damaged").unwrap();
    let row = store.get_analysis(&other).unwrap().unwrap();
    assert_eq!(row.index.state, IndexState::Pending);
}

#[test]
fn jobs_interrupted_by_a_crash_are_requeued_then_failed() {
    let root = tempfile::tempdir().unwrap();
    let id = {
        let store = SqliteStore::open(root.path()).unwrap();
        let id = store.create_analysis(&new_analysis("a")).unwrap().id;
        store.claim_next().unwrap();
        store
            .set_index(
                &id,
                &IndexProgress {
                    state: IndexState::Running,
                    bytes_done: 10,
                    error: None,
                },
            )
            .unwrap();
        id
        // The store is dropped with the job running: a crash.
    };
    let store = SqliteStore::open(root.path()).unwrap();
    assert_eq!(
        store.recover_interrupted(2).unwrap(),
        Interrupted {
            requeued: vec![id.clone()],
            ..Interrupted::default()
        }
    );
    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!(
        (row.status, row.index.state, row.attempts),
        (JobStatus::Queued, IndexState::Pending, 1)
    );
    assert_eq!(store.claim_next().unwrap().unwrap().attempts, 2);
    drop(store);

    let store = SqliteStore::open(root.path()).unwrap();
    assert_eq!(
        store.recover_interrupted(2).unwrap(),
        Interrupted {
            failed: vec![id.clone()],
            ..Interrupted::default()
        }
    );
    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!(row.status, JobStatus::Failed);
    assert_eq!(row.error.as_deref(), Some("interrupted 2 times"));
    assert_eq!(
        store.recover_interrupted(2).unwrap(),
        Interrupted::default()
    );
}

#[test]
fn counts_by_status_names_every_status() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    for n in 0..3 {
        store
            .create_analysis(&new_analysis(&n.to_string()))
            .unwrap();
    }
    let running = store.claim_next().unwrap().unwrap().id;
    store.finish_failed(&running, "bad archive").unwrap();
    store.claim_next().unwrap();
    assert_eq!(
        store.counts_by_status().unwrap(),
        [
            (JobStatus::Queued, 1),
            (JobStatus::Running, 1),
            (JobStatus::Done, 0),
            (JobStatus::Failed, 1)
        ]
    );
}
