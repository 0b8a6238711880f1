//! What else the store keeps and removes: deletion, ids that could escape the folder,
//! sessions, the audit log, shares and counted refusals.

use super::*;

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
