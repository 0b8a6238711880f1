//! The [`Store`] trait's contract, as checks generic over the store: run against the
//! SQLite store (`sqlite/tests.rs`) and the PostgreSQL store on a throwaway cluster
//! (`postgres/tests.rs`) alike, each check on a fresh store.

use std::collections::HashSet;
use std::sync::Arc;
use std::time::Duration;

use crate::detect::finding::{Evidence, Remediation};
use crate::detect::{Finding, Severity};
use crate::store::{
    IndexProgress, IndexState, JobStatus, NewAnalysis, NewShare, Progress, Session, Store,
    StoreError, StoredResult,
};

/// One check of the contract, on a fresh store.
type Check = fn(&Arc<dyn Store>);

/// Every check, by name, each given a fresh store by `fresh`.
pub(crate) fn run_all(fresh: &mut dyn FnMut() -> Arc<dyn Store>) {
    let checks: [(&str, Check); 10] = [
        (
            "analyses are created, listed, refused twice",
            created_and_listed,
        ),
        ("the queue hands out each job once", queue_order),
        (
            "progress, index, results and findings are kept",
            results_kept,
        ),
        (
            "failures, requeues and crash recovery",
            failures_and_recovery,
        ),
        ("leases: renewed, expired, reclaimed, superseded", leases),
        (
            "leased claims from threads: each job once",
            leased_claims_from_threads,
        ),
        ("sessions and the audit log", sessions_and_audit),
        ("share links", shares),
        (
            "case maps: merged, none lost by concurrent writers",
            case_maps,
        ),
        ("counts and deletion", counts_and_deletion),
    ];
    for (name, check) in checks {
        eprintln!("store contract: {name}");
        check(&fresh());
    }
}

fn new_analysis(name: &str) -> NewAnalysis {
    NewAnalysis {
        id: uuid::Uuid::new_v4().hyphenated().to_string(),
        name: name.to_owned(),
        size_bytes: 4_812_331,
        sha256: "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08".to_owned(),
    }
}

fn finding(id: &str, severity: Severity) -> Finding {
    Finding {
        id: id.into(),
        detector: "evacuate-400-race",
        severity,
        title: "evacuate-400-race on cmp1".to_owned(),
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
        highlights: Vec::new(),
    }
}

fn result_with(findings: Vec<Finding>) -> StoredResult {
    StoredResult {
        report_json: r#"{"schema":"analysis/v1","findings":[]}"#.to_owned(),
        findings,
    }
}

fn created_and_listed(store: &Arc<dyn Store>) {
    let first = store.create_analysis(&new_analysis("a.tar.xz")).unwrap();
    let second = store.create_analysis(&new_analysis("b.tar.gz")).unwrap();
    assert_eq!(first.status, JobStatus::Queued);
    assert_eq!((first.attempts, first.finding_count), (0, 0));
    let listed: Vec<String> = store
        .list_analyses(10)
        .unwrap()
        .into_iter()
        .map(|row| row.id)
        .collect();
    assert_eq!(listed, vec![second.id.clone(), first.id.clone()]);
    assert_eq!(store.list_analyses(1).unwrap().len(), 1);
    assert_eq!(store.get_analysis(&first.id).unwrap(), Some(first.clone()));
    let again = NewAnalysis {
        id: first.id.clone(),
        ..new_analysis("again")
    };
    assert!(matches!(
        store.create_analysis(&again),
        Err(StoreError::AlreadyExists(_))
    ));
    assert!(matches!(
        store.get_analysis("../etc"),
        Err(StoreError::InvalidId(_))
    ));
    let unknown = uuid::Uuid::new_v4().hyphenated().to_string();
    assert_eq!(store.get_analysis(&unknown).unwrap(), None);
}

fn queue_order(store: &Arc<dyn Store>) {
    let a = store.create_analysis(&new_analysis("a")).unwrap();
    let b = store.create_analysis(&new_analysis("b")).unwrap();
    let first = store.claim_next().unwrap().unwrap();
    assert_eq!(first.id, a.id);
    assert_eq!(first.status, JobStatus::Running);
    assert_eq!(first.attempts, 1);
    assert!(first.started_at.is_some());
    assert_eq!(store.claim_next().unwrap().unwrap().id, b.id);
    assert_eq!(store.claim_next().unwrap(), None);
    assert_eq!(store.count_running().unwrap(), 2);
}

fn results_kept(store: &Arc<dyn Store>) {
    let row = store.create_analysis(&new_analysis("r")).unwrap();
    let unknown = uuid::Uuid::new_v4().hyphenated().to_string();
    assert!(matches!(
        store.finish_done(&row.id, &result_with(Vec::new())),
        Err(StoreError::InvalidTransition { .. })
    ));
    store.claim_next().unwrap();
    let progress = Progress {
        bytes_done: 10,
        bytes_total: 20,
        files_done: 1,
        files_total: 3,
    };
    store.set_progress(&row.id, &progress).unwrap();
    assert!(matches!(
        store.set_progress(&unknown, &progress),
        Err(StoreError::NotFound(_))
    ));
    let index = IndexProgress {
        state: IndexState::Running,
        bytes_done: 7,
        error: None,
    };
    store.set_index(&row.id, &index).unwrap();
    let back = store.get_analysis(&row.id).unwrap().unwrap();
    assert_eq!((back.progress, back.index), (progress, index));
    let findings = vec![
        finding("f-2", Severity::Critical),
        finding("f-1", Severity::Warning),
    ];
    store
        .finish_done(&row.id, &result_with(findings.clone()))
        .unwrap();
    let done = store.get_analysis(&row.id).unwrap().unwrap();
    assert_eq!(done.status, JobStatus::Done);
    assert_eq!((done.finding_count, done.critical_count), (2, 1));
    assert!(done.finished_at.is_some());
    assert_eq!(store.findings(&row.id).unwrap(), findings);
    assert_eq!(
        store.finding(&row.id, "f-1").unwrap(),
        Some(findings[1].clone())
    );
    assert_eq!(store.finding(&row.id, "nope").unwrap(), None);
    assert_eq!(
        store.result_json(&row.id).unwrap().as_deref(),
        Some(r#"{"schema":"analysis/v1","findings":[]}"#)
    );
    assert!(matches!(
        store.finish_done(&row.id, &result_with(Vec::new())),
        Err(StoreError::InvalidTransition { .. })
    ));
}

fn failures_and_recovery(store: &Arc<dyn Store>) {
    let queued = store.create_analysis(&new_analysis("q")).unwrap();
    store.finish_failed(&queued.id, "unreadable").unwrap();
    let failed = store.get_analysis(&queued.id).unwrap().unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    assert_eq!(failed.error.as_deref(), Some("unreadable"));
    assert!(matches!(
        store.requeue(&queued.id),
        Err(StoreError::InvalidTransition { .. })
    ));

    let job = store.create_analysis(&new_analysis("j")).unwrap();
    store.claim_next().unwrap();
    store.requeue(&job.id).unwrap();
    let back = store.get_analysis(&job.id).unwrap().unwrap();
    assert_eq!((back.status, back.attempts), (JobStatus::Queued, 0));

    // A crash: running once is re-run, running twice (max 2) fails.
    store.claim_next().unwrap();
    let interrupted = store.recover_interrupted(2).unwrap();
    assert_eq!(interrupted.requeued, vec![job.id.clone()]);
    store.claim_next().unwrap();
    let interrupted = store.recover_interrupted(2).unwrap();
    assert_eq!(interrupted.failed, vec![job.id.clone()]);
    let row = store.get_analysis(&job.id).unwrap().unwrap();
    assert_eq!(row.status, JobStatus::Failed);
    assert_eq!(row.error.as_deref(), Some("interrupted 2 times"));
}

fn leases(store: &Arc<dyn Store>) {
    let long = Duration::from_secs(60);
    let job = store.create_analysis(&new_analysis("leased")).unwrap();
    let other = store.create_analysis(&new_analysis("other")).unwrap();
    let a = store.claim_leased("worker-a", long, 2).unwrap().unwrap();
    assert_eq!((a.id.as_str(), a.attempts), (job.id.as_str(), 1));
    // A live lease is not taken: the next worker gets the next job.
    let b = store.claim_leased("worker-b", long, 2).unwrap().unwrap();
    assert_eq!(b.id, other.id);
    assert_eq!(store.claim_leased("worker-c", long, 2).unwrap(), None);
    store.renew_lease(&job.id, "worker-a", 1, long).unwrap();
    assert!(matches!(
        store.renew_lease(&job.id, "worker-b", 1, long),
        Err(StoreError::Superseded { .. })
    ));

    // worker-a's lease runs out (as if it died): worker-c takes the job as attempt 2.
    store
        .renew_lease(&job.id, "worker-a", 1, Duration::ZERO)
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let c = store.claim_leased("worker-c", long, 2).unwrap().unwrap();
    assert_eq!((c.id.as_str(), c.attempts), (job.id.as_str(), 2));
    assert_eq!(c.status, JobStatus::Running);
    assert!(matches!(
        store.renew_lease(&job.id, "worker-a", 1, long),
        Err(StoreError::Superseded { attempt: 1, .. })
    ));
    assert!(matches!(
        store.finish_done_attempt(&job.id, 1, &result_with(Vec::new())),
        Err(StoreError::Superseded { attempt: 1, .. })
    ));
    assert!(matches!(
        store.finish_failed_attempt(&job.id, 1, "stale"),
        Err(StoreError::Superseded { .. })
    ));
    let findings = vec![finding("f-1", Severity::Critical)];
    store
        .finish_done_attempt(&job.id, 2, &result_with(findings.clone()))
        .unwrap();
    // Done once: the same attempt cannot finish again.
    assert!(matches!(
        store.finish_done_attempt(&job.id, 2, &result_with(Vec::new())),
        Err(StoreError::Superseded { .. })
    ));
    let done = store.get_analysis(&job.id).unwrap().unwrap();
    assert_eq!((done.status, done.attempts), (JobStatus::Done, 2));
    assert_eq!(store.findings(&job.id).unwrap(), findings);

    // An expired claim that has used every attempt fails rather than running a third time.
    store
        .renew_lease(&other.id, "worker-b", 1, Duration::ZERO)
        .unwrap();
    std::thread::sleep(Duration::from_millis(20));
    let retaken = store
        .claim_leased("worker-d", Duration::ZERO, 2)
        .unwrap()
        .unwrap();
    assert_eq!(
        (retaken.id.as_str(), retaken.attempts),
        (other.id.as_str(), 2)
    );
    std::thread::sleep(Duration::from_millis(20));
    assert_eq!(store.claim_leased("worker-e", long, 2).unwrap(), None);
    let failed = store.get_analysis(&other.id).unwrap().unwrap();
    assert_eq!(failed.status, JobStatus::Failed);
    assert_eq!(failed.error.as_deref(), Some("interrupted 2 times"));
}

fn leased_claims_from_threads(store: &Arc<dyn Store>) {
    let ids: HashSet<String> = (0..24)
        .map(|n| {
            store
                .create_analysis(&new_analysis(&format!("t{n}")))
                .unwrap()
                .id
        })
        .collect();
    let claimed: Vec<String> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..4)
            .map(|worker| {
                let store = store.clone();
                scope.spawn(move || {
                    let owner = format!("worker-{worker}");
                    let mut mine = Vec::new();
                    while let Some(row) = store
                        .claim_leased(&owner, Duration::from_secs(60), 2)
                        .unwrap()
                    {
                        store
                            .finish_done_attempt(&row.id, row.attempts, &result_with(Vec::new()))
                            .unwrap();
                        mine.push(row.id);
                    }
                    mine
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|worker| worker.join().unwrap())
            .collect()
    });
    assert_eq!(claimed.len(), ids.len(), "each job claimed exactly once");
    assert_eq!(claimed.into_iter().collect::<HashSet<_>>(), ids);
}

fn sessions_and_audit(store: &Arc<dyn Store>) {
    let live = Session {
        id_hash: "live".to_owned(),
        csrf: "c1".to_owned(),
        created_at: "2026-01-01T00:00:00Z".to_owned(),
        expires_at: "2999-01-01T00:00:00+02:00".to_owned(),
    };
    store.create_session(&live).unwrap();
    let expired = Session {
        id_hash: "old".to_owned(),
        expires_at: "2001-01-01T00:00:00Z".to_owned(),
        ..live.clone()
    };
    store.create_session(&expired).unwrap();
    let back = store.session("live").unwrap().unwrap();
    assert_eq!(back.expires_at, "2998-12-31T22:00:00Z");
    assert_eq!(store.session("old").unwrap(), None);
    store.delete_session("live").unwrap();
    assert_eq!(store.session("live").unwrap(), None);

    store.audit("token", "upload", "a", "1 MB").unwrap();
    store.audit("token", "delete", "a", "").unwrap();
    for _ in 0..3 {
        store
            .audit_counted("anonymous", "sign-in refused", "10.0.0.9", "wrong token")
            .unwrap();
    }
    let log = store.audit_log(10).unwrap();
    // One counted row (two if the calls straddled a minute), after the two others.
    let (refused, others): (Vec<_>, Vec<_>) = log
        .iter()
        .partition(|entry| entry.action == "sign-in refused");
    assert_eq!(
        refused.iter().map(|entry| entry.count).sum::<u64>(),
        3,
        "{log:?}"
    );
    assert!(refused.len() <= 2, "{log:?}");
    assert_eq!(log[0].action, "sign-in refused");
    let others: Vec<&str> = others.iter().map(|entry| entry.action.as_str()).collect();
    assert_eq!(others, vec!["delete", "upload"]);
}

fn shares(store: &Arc<dyn Store>) {
    let row = store.create_analysis(&new_analysis("s")).unwrap();
    let share = |token: &str, expires: &str| NewShare {
        id: uuid::Uuid::new_v4().hyphenated().to_string(),
        token_hash: token.to_owned(),
        analysis_id: row.id.clone(),
        scope_kind: "analysis".to_owned(),
        scope_json: "{}".to_owned(),
        note: "for the vendor".to_owned(),
        expires_at: expires.to_owned(),
    };
    let live = store
        .create_share(&share("t-live", "2999-01-01T00:00:00Z"))
        .unwrap();
    store
        .create_share(&share("t-old", "2001-01-01T00:00:00Z"))
        .unwrap();
    assert_eq!(store.shares(&row.id).unwrap().len(), 2);
    assert_eq!(store.live_share("t-live").unwrap(), Some(live.clone()));
    assert_eq!(store.live_share("t-old").unwrap(), None);
    assert!(store.revoke_share(&row.id, &live.id).unwrap());
    assert_eq!(store.live_share("t-live").unwrap(), None);
    let unknown = uuid::Uuid::new_v4().hyphenated().to_string();
    assert!(!store.revoke_share(&row.id, &unknown).unwrap());
    let mut orphan = share("t-orphan", "2999-01-01T00:00:00Z");
    orphan.analysis_id = unknown;
    assert!(matches!(
        store.create_share(&orphan),
        Err(StoreError::NotFound(_))
    ));
}

fn counts_and_deletion(store: &Arc<dyn Store>) {
    let kept = store.create_analysis(&new_analysis("k")).unwrap();
    let gone = store.create_analysis(&new_analysis("g")).unwrap();
    store.claim_next().unwrap();
    let counts = store.counts_by_status().unwrap();
    assert_eq!(
        counts,
        vec![
            (JobStatus::Queued, 1),
            (JobStatus::Running, 1),
            (JobStatus::Done, 0),
            (JobStatus::Failed, 0)
        ]
    );
    let folder = store.paths().analysis_dir(&gone.id).unwrap();
    std::fs::create_dir_all(folder.join("input")).unwrap();
    assert!(store.delete_analysis(&gone.id).unwrap());
    assert!(!folder.exists());
    assert!(!store.delete_analysis(&gone.id).unwrap());
    assert_eq!(store.get_analysis(&gone.id).unwrap(), None);
    assert!(store.get_analysis(&kept.id).unwrap().is_some());
}

fn case_maps(store: &Arc<dyn Store>) {
    use crate::redact::{Kind, PseudonymMap};
    let unknown = uuid::Uuid::new_v4().hyphenated().to_string();
    assert!(matches!(
        store.case_map(&unknown),
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.merge_case_map(&unknown, &PseudonymMap::with_key("k")),
        Err(StoreError::NotFound(_))
    ));
    let new = new_analysis("c");
    let row = store.create_analysis(&new).unwrap();
    assert!(store.case_map(&row.id).unwrap().is_none());

    // The first map is stored as is.
    let mut first = PseudonymMap::with_key("k");
    let node = first.pseudonym(Kind::Host, "node02ob100");
    let stored = store.merge_case_map(&row.id, &first).unwrap();
    assert!(stored.agrees_with(&first) && first.agrees_with(&stored));
    // A map made with another key: a stored value keeps its pseudonym, a new one is
    // added, and the stored key makes the next ones.
    let mut other = PseudonymMap::with_key("other");
    let theirs = other.pseudonym(Kind::Host, "node02ob100");
    assert_ne!(theirs, node);
    let net = other.pseudonym(Kind::Ipv4Net, "172.27.100");
    let merged = store.merge_case_map(&row.id, &other).unwrap();
    assert_eq!(merged.get(Kind::Host, "node02ob100"), Some(node.as_str()));
    assert_eq!(merged.get(Kind::Ipv4Net, "172.27.100"), Some(net.as_str()));
    assert!(!merged.agrees_with(&other));
    let mut again = store.case_map(&row.id).unwrap().unwrap();
    assert_eq!(again.len(), 2);
    assert_eq!(
        again.pseudonym(Kind::User, "alice"),
        PseudonymMap::with_key("k").pseudonym(Kind::User, "alice")
    );

    // Writers in threads (connections of their own), each from the map it read: a value
    // of everybody's and values of each one's own. Every pair is kept, once.
    let results: Vec<(PseudonymMap, PseudonymMap)> = std::thread::scope(|scope| {
        let writers: Vec<_> = (0..6)
            .map(|writer| {
                let (store, id) = (store.clone(), row.id.clone());
                scope.spawn(move || {
                    let mut rounds = Vec::new();
                    for round in 0..4 {
                        let mut mine = store.case_map(&id).unwrap().unwrap();
                        mine.pseudonym(Kind::Host, "ctl1");
                        mine.pseudonym(Kind::Host, &format!("cmp{writer}-{round}"));
                        mine.pseudonym(Kind::User, &format!("user{writer}"));
                        let merged = store.merge_case_map(&id, &mine).unwrap();
                        rounds.push((mine, merged));
                    }
                    rounds
                })
            })
            .collect();
        writers
            .into_iter()
            .flat_map(|writer| writer.join().unwrap())
            .collect()
    });
    let last = store.case_map(&row.id).unwrap().unwrap();
    assert_eq!(last.len(), 2 + 1 + 6 * 4 + 6, "no pair lost");
    for (mine, merged) in &results {
        assert!(merged.agrees_with(mine), "a value kept its pseudonym");
        assert!(last.agrees_with(merged));
    }

    // Deleting the analysis deletes its map.
    assert!(store.delete_analysis(&row.id).unwrap());
    assert!(matches!(
        store.case_map(&row.id),
        Err(StoreError::NotFound(_))
    ));
    store.create_analysis(&new).unwrap();
    assert!(store.case_map(&new.id).unwrap().is_none());
}
