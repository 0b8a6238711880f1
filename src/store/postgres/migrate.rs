//! The schema on PostgreSQL: the SQLite store's migrations, applied in the same order and
//! recorded in the same `schema_migrations` table, their types spelled for PostgreSQL.
//! One list for both backends, so the two schemas cannot drift (`tests` checks the tables
//! and columns are the same).

use postgres::Client;

use crate::store::error::StoreError;
use crate::store::sqlite::clock;
use crate::store::sqlite::migrations::MIGRATIONS;

/// Taken for the whole migration: processes starting at once apply each migration once.
const MIGRATION_LOCK: i64 = 0x6576_6163_646f_6327;

/// A SQLite migration as PostgreSQL reads it: 64-bit integers, `BIGSERIAL` for the
/// autoincrement keys. Every other construct the migrations use (CHECK, partial indexes,
/// ALTER TABLE ADD COLUMN, ON DELETE CASCADE) is spelled the same in both.
pub(crate) fn postgres_sql(sqlite: &str) -> String {
    sqlite
        .replace("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGSERIAL PRIMARY KEY")
        .replace("INTEGER", "BIGINT")
}

/// Brings the database up to the last migration; the versions applied now.
pub(crate) fn migrate(client: &mut Client) -> Result<Vec<i64>, StoreError> {
    let mut transaction = client.transaction()?;
    transaction.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])?;
    transaction.batch_execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    BIGINT PRIMARY KEY,
             applied_at TEXT NOT NULL
         )",
    )?;
    let known = MIGRATIONS.len() as i64;
    let current: i64 = transaction
        .query_one(
            "SELECT COALESCE(MAX(version), 0)::BIGINT FROM schema_migrations",
            &[],
        )?
        .get(0);
    if current > known {
        return Err(StoreError::SchemaTooNew {
            path: Default::default(),
            found: current,
            known,
        });
    }
    let mut applied = Vec::new();
    for (position, sql) in MIGRATIONS.iter().enumerate() {
        let version = position as i64 + 1;
        if version <= current {
            continue;
        }
        transaction.batch_execute(&postgres_sql(sql))?;
        transaction.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES ($1, $2)",
            &[&version, &clock::now_rfc3339()],
        )?;
        applied.push(version);
    }
    transaction.commit()?;
    Ok(applied)
}
