//! The SQLite store against real folders: migrations, the job queue, crash recovery,
//! results, deletion, sessions and the audit log.

use std::collections::HashSet;
use std::sync::Arc;

use super::*;
use crate::detect::finding::{Evidence, Highlight, Remediation};
use crate::detect::{Finding, Severity};
use crate::store::{IndexState, Interrupted, read_document, write_document};

fn new_analysis(name: &str) -> NewAnalysis {
    NewAnalysis {
        id: uuid::Uuid::new_v4().hyphenated().to_string(),
        name: name.to_owned(),
        size_bytes: 4_812_331,
        sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".to_owned(),
    }
}

fn finding(id: &str, detector: &'static str, severity: Severity) -> Finding {
    Finding {
        id: id.into(),
        detector,
        severity,
        title: format!("{detector} on cmp1"),
        summary: String::new(),
        failed_host: Some("cmp1".to_owned()),
        instance_uuids: Vec::new(),
        notification_id: None,
        request_ids: Vec::new(),
        window: None,
        evidence: vec![Evidence {
            path: "ctl1/var/log/masakari/masakari-engine.log".to_owned(),
            line: 1042,
            host: "ctl1".to_owned(),
            timestamp: None,
            text: String::new(),
        }],
        explanation: String::new(),
        remediation: Remediation::default(),
        known_bugs: Vec::new(),
        highlights: vec![Highlight::Line {
            path: "ctl1/var/log/masakari/masakari-engine.log".to_owned(),
            line: 1042,
            label: "evacuate → 400".to_owned(),
        }],
    }
}

fn result_with(findings: Vec<Finding>) -> StoredResult {
    StoredResult {
        report_json: r#"{"schema":"analysis/v1","findings":[]}"#.to_owned(),
        findings,
    }
}

fn table_count(store: &SqliteStore, sql: &str, id: &str) -> i64 {
    store
        .read(|connection| Ok(connection.query_row(sql, [id], |row| row.get(0))?))
        .unwrap()
}

#[test]
fn open_creates_the_folders_and_migrations_run_once() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("evacdoc-data");
    let store = SqliteStore::open(&data).unwrap();
    assert!(data.join("evacdoc.sqlite").is_file());
    assert!(data.join("analyses").is_dir());
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&data).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o700);
    }
    let created = store
        .create_analysis(&new_analysis("first.tar.xz"))
        .unwrap();
    drop(store);

    // Re-opening applies nothing new and keeps the data.
    let store = SqliteStore::open(&data).unwrap();
    let versions: Vec<i64> = store
        .read(|connection| {
            let mut statement =
                connection.prepare("SELECT version FROM schema_migrations ORDER BY version")?;
            let rows = statement.query_map([], |row| row.get(0))?;
            Ok(rows.collect::<Result<_, _>>()?)
        })
        .unwrap();
    let expected: Vec<i64> = (1..=migrations::MIGRATIONS.len() as i64).collect();
    assert_eq!(versions, expected);
    assert_eq!(store.get_analysis(&created.id).unwrap(), Some(created));
    let applied = store.write(migrations::migrate).unwrap();
    assert!(applied.is_empty(), "migrations applied twice: {applied:?}");

    let (journal, foreign_keys): (String, i64) = store
        .read(|connection| {
            let journal = connection.query_row("PRAGMA journal_mode", [], |row| row.get(0))?;
            let keys = connection.query_row("PRAGMA foreign_keys", [], |row| row.get(0))?;
            Ok((journal, keys))
        })
        .unwrap();
    assert_eq!((journal.as_str(), foreign_keys), ("wal", 1));
}

#[test]
fn a_database_from_a_newer_evacdoc_is_refused() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    store
        .write(|connection| {
            connection.execute(
                "INSERT INTO schema_migrations (version, applied_at) VALUES (99, '2030-01-01T00:00:00Z')",
                [],
            )?;
            Ok(())
        })
        .unwrap();
    drop(store);
    let error = SqliteStore::open(root.path()).unwrap_err();
    assert!(
        matches!(error, StoreError::SchemaTooNew { found: 99, .. }),
        "{error}"
    );
    assert!(error.to_string().contains("evacdoc.sqlite"), "{error}");
}

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
fn delete_removes_the_rows_and_the_folder() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let kept = store.create_analysis(&new_analysis("kept")).unwrap().id;
    let id = store.create_analysis(&new_analysis("gone")).unwrap().id;
    store.claim_next().unwrap();
    store.claim_next().unwrap();
    store
        .finish_done(
            &id,
            &result_with(vec![finding("f1", "evacuate-400-race", Severity::Critical)]),
        )
        .unwrap();
    let paths = store.paths();
    write_document(paths, &id, b"{\"schema\":\"analysis/v1\"}").unwrap();
    std::fs::write(paths.upload(&id).unwrap(), b"archive bytes").unwrap();
    std::fs::create_dir_all(paths.index_dir(&id).unwrap()).unwrap();
    write_document(paths, &kept, b"{}").unwrap();

    assert!(store.delete_analysis(&id).unwrap());
    assert_eq!(store.get_analysis(&id).unwrap(), None);
    assert_eq!(
        table_count(
            &store,
            "SELECT COUNT(*) FROM findings WHERE analysis_id = ?1",
            &id
        ),
        0
    );
    assert_eq!(
        table_count(
            &store,
            "SELECT COUNT(*) FROM results WHERE analysis_id = ?1",
            &id
        ),
        0
    );
    assert!(!paths.analysis_dir(&id).unwrap().exists());
    assert!(!store.delete_analysis(&id).unwrap());

    assert!(store.get_analysis(&kept).unwrap().is_some());
    assert_eq!(read_document(paths, &kept).unwrap(), Some(b"{}".to_vec()));
}

#[test]
fn ids_that_could_escape_the_folder_are_refused_everywhere() {
    let root = tempfile::tempdir().unwrap();
    let data = root.path().join("data");
    let store = SqliteStore::open(&data).unwrap();
    let victim = root.path().join("victim");
    std::fs::create_dir(&victim).unwrap();
    for bad in [
        "../victim",
        "../../victim",
        "..",
        "",
        "a/b",
        "3F2B8C1E-9D4A-4E6B-8A7C-1B2C3D4E5F60",
    ] {
        let new = NewAnalysis {
            id: bad.to_owned(),
            ..new_analysis("x")
        };
        assert!(
            matches!(store.create_analysis(&new), Err(StoreError::InvalidId(_))),
            "{bad:?}"
        );
        assert!(
            matches!(store.delete_analysis(bad), Err(StoreError::InvalidId(_))),
            "{bad:?}"
        );
        assert!(
            matches!(store.get_analysis(bad), Err(StoreError::InvalidId(_))),
            "{bad:?}"
        );
        assert!(
            matches!(store.finish_failed(bad, "x"), Err(StoreError::InvalidId(_))),
            "{bad:?}"
        );
    }
    assert!(victim.is_dir());
    assert!(store.list_analyses(10).unwrap().is_empty());
}

#[test]
fn sessions_expire() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let now = jiff::Timestamp::now();
    let hour = jiff::SignedDuration::from_hours(1);
    let live = Session {
        id_hash: "a3f1".repeat(16),
        csrf: "c0ffee".to_owned(),
        created_at: clock::rfc3339(now),
        expires_at: clock::rfc3339(now.checked_add(hour).unwrap()),
    };
    let expired = Session {
        id_hash: "77b2".repeat(16),
        expires_at: clock::rfc3339(now.checked_sub(hour).unwrap()),
        ..live.clone()
    };
    store.create_session(&live).unwrap();
    store.create_session(&expired).unwrap();
    assert_eq!(store.session(&live.id_hash).unwrap(), Some(live.clone()));
    assert_eq!(store.session(&expired.id_hash).unwrap(), None);
    assert_eq!(store.session("unknown").unwrap(), None);

    store.delete_session(&live.id_hash).unwrap();
    assert_eq!(store.session(&live.id_hash).unwrap(), None);

    let garbled = Session {
        id_hash: "x".to_owned(),
        expires_at: "tomorrow".to_owned(),
        ..live
    };
    assert!(matches!(
        store.create_session(&garbled),
        Err(StoreError::InvalidTime { .. })
    ));
}

#[test]
fn audit_entries_come_back_newest_first() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = new_analysis("a").id;
    store
        .audit(
            "token",
            "upload",
            &id,
            "sosreport-cmp1.tar.xz 4812331 bytes",
        )
        .unwrap();
    store
        .audit("token", "share", &id, "finding f1, 7 days")
        .unwrap();
    store.audit("session:a3f1", "delete", &id, "").unwrap();
    let log = store.audit_log(10).unwrap();
    let actions: Vec<&str> = log.iter().map(|entry| entry.action.as_str()).collect();
    assert_eq!(actions, ["delete", "share", "upload"]);
    assert_eq!(log[2].detail, "sosreport-cmp1.tar.xz 4812331 bytes");
    assert_eq!(log[0].actor, "session:a3f1");
    assert!(
        log.iter()
            .all(|entry| entry.at.parse::<jiff::Timestamp>().is_ok())
    );
    assert_eq!(store.audit_log(1).unwrap().len(), 1);
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

/// The whole path the service takes: a real bundle analysed, its JSON report and findings
/// stored, read back unchanged, and the counts taken from the findings' severities.
#[test]
fn a_real_analysis_round_trips_through_the_store() {
    let scenario = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/scenarios/2023-kolla-evacuate-race-zed");
    let report =
        crate::run::analyze_inputs(&[scenario], &crate::run::RunOptions::default()).unwrap();
    assert!(!report.findings.is_empty(), "the scenario has findings");
    let document = crate::triage::report::json_document(&report.analysis, &report.findings);
    let findings = report.findings.clone();
    let critical = report
        .findings
        .iter()
        .filter(|finding| finding.severity == crate::detect::Severity::Critical)
        .count() as u32;

    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let id = store
        .create_analysis(&new_analysis("kolla-evacuate-race.tar.gz"))
        .unwrap()
        .id;
    store.claim_next().unwrap();
    let result = StoredResult {
        report_json: document.to_string(),
        findings,
    };
    store.finish_done(&id, &result).unwrap();

    let row = store.get_analysis(&id).unwrap().unwrap();
    assert_eq!(
        (row.finding_count as usize, row.critical_count),
        (report.findings.len(), critical)
    );
    assert_eq!(
        store.result_json(&id).unwrap().as_deref(),
        Some(result.report_json.as_str())
    );
    assert_eq!(store.findings(&id).unwrap(), result.findings);
    let first = &result.findings[0];
    assert!(
        first.id.starts_with(&format!("{}:", first.detector)),
        "{}",
        first.id
    );
    assert_eq!(store.finding(&id, &first.id).unwrap().as_ref(), Some(first));
}

fn new_share(analysis_id: &str, token_hash: &str, expires_at: &str) -> NewShare {
    NewShare {
        id: uuid::Uuid::new_v4().hyphenated().to_string(),
        token_hash: token_hash.to_owned(),
        analysis_id: analysis_id.to_owned(),
        scope_kind: "finding".to_owned(),
        scope_json: r#"{"kind":"finding","finding":"evacuate-400-race:x"}"#.to_owned(),
        note: "for the upstream bug".to_owned(),
        expires_at: expires_at.to_owned(),
    }
}

#[test]
fn shares_are_found_by_token_hash_only_while_live_and_go_with_their_analysis() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    let a = store.create_analysis(&new_analysis("a")).unwrap().id;
    let b = store.create_analysis(&new_analysis("b")).unwrap().id;
    let live = store
        .create_share(&new_share(&a, "hash-live", "2999-01-01T00:00:00+02:00"))
        .unwrap();
    assert_eq!(live.expires_at, "2998-12-31T22:00:00Z");
    assert_eq!(live.revoked_at, None);
    let expired = store
        .create_share(&new_share(&a, "hash-expired", "2001-01-01T00:00:00Z"))
        .unwrap();
    assert_eq!(store.live_share("hash-live").unwrap(), Some(live.clone()));
    assert_eq!(store.live_share("hash-expired").unwrap(), None);
    assert_eq!(store.live_share("hash-unknown").unwrap(), None);
    let listed: Vec<String> = store
        .shares(&a)
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    assert_eq!(listed.len(), 2);
    assert!(listed.contains(&expired.id));
    assert!(store.shares(&b).unwrap().is_empty());

    // Revoked through the other analysis: refused; through its own: gone for good.
    assert!(!store.revoke_share(&b, &live.id).unwrap());
    assert!(store.live_share("hash-live").unwrap().is_some());
    assert!(store.revoke_share(&a, &live.id).unwrap());
    assert_eq!(store.live_share("hash-live").unwrap(), None);
    let revoked = store.shares(&a).unwrap();
    assert!(
        revoked
            .iter()
            .any(|s| s.id == live.id && s.revoked_at.is_some())
    );

    // A share of an unknown analysis is refused; an analysis deleted takes its shares.
    let unknown = uuid::Uuid::new_v4().hyphenated().to_string();
    assert!(matches!(
        store.create_share(&new_share(&unknown, "h", "2999-01-01T00:00:00Z")),
        Err(StoreError::NotFound(_))
    ));
    assert!(store.delete_analysis(&a).unwrap());
    assert_eq!(
        table_count(
            &store,
            "SELECT COUNT(*) FROM shares WHERE analysis_id = ?1",
            &a
        ),
        0
    );
}

#[test]
fn counted_refusals_are_one_row_per_client_and_minute() {
    let root = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(root.path()).unwrap();
    for _ in 0..500 {
        store
            .audit_counted("anonymous", "login-refused", "192.0.2.7", "wrong token")
            .unwrap();
    }
    for _ in 0..3 {
        store
            .audit_counted("anonymous", "login-refused", "2001:db8::", "wrong token")
            .unwrap();
    }
    store.audit("session", "login", "", "").unwrap();
    let log = store.audit_log(10_000).unwrap();
    let refused: Vec<&AuditEntry> = log
        .iter()
        .filter(|entry| entry.action == "login-refused")
        .collect();
    // A minute may turn during the loop: then two rows for the first client.
    assert!(refused.len() <= 3, "{refused:?}");
    let count_of = |client: &str| -> u64 {
        refused
            .iter()
            .filter(|entry| entry.target == client)
            .map(|entry| entry.count)
            .sum()
    };
    assert_eq!(count_of("192.0.2.7"), 500);
    assert_eq!(count_of("2001:db8::"), 3);
    // Events written one by one stay one row each, counted once.
    assert_eq!(log[0].action, "login");
    assert_eq!(log[0].count, 1);
}

/// The contract every store keeps (`store/contract.rs`), here on SQLite.
#[test]
fn the_store_contract_holds_on_sqlite() {
    let root = tempfile::tempdir().unwrap();
    let mut made = 0;
    crate::store::contract::run_all(&mut || {
        made += 1;
        Arc::new(SqliteStore::open(&root.path().join(format!("data-{made}"))).unwrap())
    });
}
