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

/// The job queue.
mod queue;
/// Deletion, sessions, audit, shares.
mod records;
