//! The PostgreSQL store on a throwaway cluster (skipped, saying why, where PostgreSQL is
//! not installed, unless `EVACDOC_REQUIRE_POSTGRES=1`): the store contract, and the
//! schema, which must be the SQLite store's.

use std::collections::BTreeSet;
use std::sync::Arc;

use super::*;
use crate::store::SqliteStore;
use crate::store::throwaway::ThrowawayCluster;

/// The contract every store keeps (`store/contract.rs`), each check on a new database.
#[test]
fn the_store_contract_holds_on_postgres() {
    let Some(cluster) = ThrowawayCluster::start_or_skip().unwrap() else {
        return;
    };
    let blobs = tempfile::tempdir().unwrap();
    let mut made = 0;
    crate::store::contract::run_all(&mut || {
        made += 1;
        let url = cluster
            .create_database(&format!("contract_{made}"))
            .unwrap();
        Arc::new(PgStore::open(&url, &blobs.path().join(format!("blobs-{made}"))).unwrap())
    });
}

/// Both backends have the same tables with the same columns: one schema, two spellings.
/// Opening twice applies nothing the second time; from many threads at once, each
/// migration once.
#[test]
fn both_backends_have_the_same_tables_and_columns() {
    let Some(cluster) = ThrowawayCluster::start_or_skip().unwrap() else {
        return;
    };
    let url = cluster.create_database("schema").unwrap();
    let blobs = tempfile::tempdir().unwrap();
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| PgStore::open(&url, blobs.path()).unwrap());
        }
    });
    let store = PgStore::open(&url, blobs.path()).unwrap();
    let applied = store.with(migrate::migrate).unwrap();
    assert!(applied.is_empty(), "{applied:?}");
    let pg: BTreeSet<(String, String)> = store
        .with(|client| {
            Ok(client
                .query(
                    "SELECT table_name::TEXT, column_name::TEXT FROM information_schema.columns
                     WHERE table_schema = current_schema()",
                    &[],
                )?
                .iter()
                .map(|row| (row.get(0), row.get(1)))
                .collect())
        })
        .unwrap();
    let versions: Vec<i64> = store
        .with(|client| {
            Ok(client
                .query(
                    "SELECT version FROM schema_migrations ORDER BY version",
                    &[],
                )?
                .iter()
                .map(|row| row.get(0))
                .collect())
        })
        .unwrap();
    let expected: Vec<i64> =
        (1..=crate::store::sqlite::migrations::MIGRATIONS.len() as i64).collect();
    assert_eq!(versions, expected);

    let data = tempfile::tempdir().unwrap();
    SqliteStore::open(data.path()).unwrap();
    let connection = rusqlite::Connection::open(data.path().join("evacdoc.sqlite")).unwrap();
    let mut statement = connection
        .prepare(
            "SELECT m.name, p.name FROM sqlite_master m, pragma_table_info(m.name) p
             WHERE m.type = 'table' AND m.name != 'sqlite_sequence'",
        )
        .unwrap();
    let sqlite: BTreeSet<(String, String)> = statement
        .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    assert!(sqlite.contains(&("analyses".to_owned(), "lease_owner".to_owned())));
    assert!(sqlite.contains(&("analyses".to_owned(), "lease_expires".to_owned())));
    assert_eq!(pg, sqlite);
}
