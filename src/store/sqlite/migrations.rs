//! The schema, as an ordered list of migrations applied at open.
//!
//! A migration is never edited once released: a change is a new entry at the end. Each one
//! runs in its own transaction together with its row in `schema_migrations`, so a crash
//! leaves the database at one version or the next, never between.

use rusqlite::{Connection, OptionalExtension, TransactionBehavior};

use crate::store::error::StoreError;

/// The migrations, version 1 first. The one schema of both backends: the PostgreSQL
/// store applies the same list, its types spelled for PostgreSQL
/// (`crate::store::postgres::migrate`).
pub(in crate::store) const MIGRATIONS: &[&str] = &[
    V1_INITIAL,
    V2_SHARES,
    V3_RECOVERIES,
    V4_AUDIT_COUNTS,
    V5_LEFT_LOCKS,
    V6_LEASES,
    V7_CASE_MAPS,
];

const V1_INITIAL: &str = "
CREATE TABLE analyses (
    seq              INTEGER PRIMARY KEY AUTOINCREMENT,
    id               TEXT    NOT NULL UNIQUE,
    name             TEXT    NOT NULL,
    status           TEXT    NOT NULL CHECK (status IN ('queued', 'running', 'done', 'failed')),
    created_at       TEXT    NOT NULL,
    started_at       TEXT,
    finished_at      TEXT,
    size_bytes       INTEGER NOT NULL,
    sha256           TEXT    NOT NULL,
    bytes_done       INTEGER NOT NULL DEFAULT 0,
    bytes_total      INTEGER NOT NULL DEFAULT 0,
    files_done       INTEGER NOT NULL DEFAULT 0,
    files_total      INTEGER NOT NULL DEFAULT 0,
    index_state      TEXT    NOT NULL DEFAULT 'pending'
                     CHECK (index_state IN ('pending', 'running', 'done', 'failed')),
    index_bytes_done INTEGER NOT NULL DEFAULT 0,
    index_error      TEXT,
    error            TEXT,
    attempts         INTEGER NOT NULL DEFAULT 0,
    finding_count    INTEGER NOT NULL DEFAULT 0,
    critical_count   INTEGER NOT NULL DEFAULT 0
);
CREATE INDEX analyses_by_status ON analyses (status, seq);

CREATE TABLE results (
    analysis_id TEXT PRIMARY KEY REFERENCES analyses (id) ON DELETE CASCADE,
    report_json TEXT NOT NULL
);

CREATE TABLE findings (
    analysis_id TEXT    NOT NULL REFERENCES analyses (id) ON DELETE CASCADE,
    finding_id  TEXT    NOT NULL,
    position    INTEGER NOT NULL,
    detector    TEXT    NOT NULL,
    severity    TEXT    NOT NULL,
    title       TEXT    NOT NULL,
    json        TEXT    NOT NULL,
    PRIMARY KEY (analysis_id, finding_id)
);
CREATE INDEX findings_in_order ON findings (analysis_id, position);

CREATE TABLE sessions (
    id_hash    TEXT PRIMARY KEY,
    csrf       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    expires_at TEXT NOT NULL
);

CREATE TABLE audit_log (
    seq    INTEGER PRIMARY KEY AUTOINCREMENT,
    at     TEXT NOT NULL,
    actor  TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT NOT NULL,
    detail TEXT NOT NULL
);
";

/// Public share links (issue 10): only the hash of a link's token is kept.
const V2_SHARES: &str = "
CREATE TABLE shares (
    id          TEXT PRIMARY KEY,
    token_hash  TEXT NOT NULL UNIQUE,
    analysis_id TEXT NOT NULL REFERENCES analyses (id) ON DELETE CASCADE,
    scope_kind  TEXT NOT NULL CHECK (scope_kind IN ('finding', 'timeline', 'analysis')),
    scope_json  TEXT NOT NULL,
    note        TEXT NOT NULL DEFAULT '',
    created_at  TEXT NOT NULL,
    expires_at  TEXT NOT NULL,
    revoked_at  TEXT
);
CREATE INDEX shares_of_analysis ON shares (analysis_id, created_at);
";

/// The recovery journal (issue 11): a recovery of a host and its VM moves.
const V3_RECOVERIES: &str = "
CREATE TABLE recoveries (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    host    TEXT NOT NULL,
    status  TEXT NOT NULL
            CHECK (status IN ('planned', 'running', 'finished', 'failed', 'refused')),
    started TEXT NOT NULL,
    ended   TEXT,
    message TEXT,
    source  TEXT NOT NULL
);
CREATE INDEX recoveries_by_status ON recoveries (status);

CREATE TABLE recovery_moves (
    recovery_id INTEGER NOT NULL REFERENCES recoveries (id) ON DELETE CASCADE,
    position    INTEGER NOT NULL,
    instance    TEXT NOT NULL,
    status      TEXT NOT NULL
                CHECK (status IN ('pending', 'ongoing', 'succeeded', 'failed', 'ignored')),
    source      TEXT NOT NULL,
    destination TEXT,
    started     TEXT,
    ended       TEXT,
    message     TEXT,
    PRIMARY KEY (recovery_id, instance)
);
";

/// Repeated refusals (issue 22): one audit row per client, action and minute that counts
/// them, so that a client guessing the token cannot grow the log without bound. Rows
/// written one per event keep `bucket` NULL and `count` 1.
const V4_AUDIT_COUNTS: &str = "
ALTER TABLE audit_log ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
ALTER TABLE audit_log ADD COLUMN bucket TEXT;
CREATE UNIQUE INDEX audit_log_buckets ON audit_log (bucket) WHERE bucket IS NOT NULL;
";

/// Brings the database up to the last migration; returns the versions applied now.
pub(super) fn migrate(connection: &mut Connection) -> Result<Vec<i64>, StoreError> {
    connection.execute_batch(
        "CREATE TABLE IF NOT EXISTS schema_migrations (
             version    INTEGER PRIMARY KEY,
             applied_at TEXT NOT NULL
         )",
    )?;
    let known = MIGRATIONS.len() as i64;
    let mut applied = Vec::new();
    for (position, sql) in MIGRATIONS.iter().enumerate() {
        let version = position as i64 + 1;
        // An immediate transaction: two processes opening the same folder apply each
        // migration once, the second waits (busy timeout) then sees it done.
        let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
        let current: i64 = transaction.query_row(
            "SELECT COALESCE(MAX(version), 0) FROM schema_migrations",
            [],
            |row| row.get(0),
        )?;
        if current > known {
            return Err(StoreError::SchemaTooNew {
                path: Default::default(),
                found: current,
                known,
            });
        }
        let done = transaction
            .query_row(
                "SELECT 1 FROM schema_migrations WHERE version = ?1",
                [version],
                |_| Ok(()),
            )
            .optional()?
            .is_some();
        if done {
            continue;
        }
        transaction.execute_batch(sql)?;
        transaction.execute(
            "INSERT INTO schema_migrations (version, applied_at) VALUES (?1, ?2)",
            rusqlite::params![version, super::clock::now_rfc3339()],
        )?;
        transaction.commit()?;
        applied.push(version);
    }
    Ok(applied)
}

/// Issue 26: what an interruption left on a move, as a state the next run reads (the
/// lock its instance may still hold), not a prefix of the move's message. NULL: the move
/// was not open when evacdoc stopped.
const V5_LEFT_LOCKS: &str = "
ALTER TABLE recovery_moves ADD COLUMN left_lock TEXT
    CHECK (left_lock IN ('may-be-held', 'released', 'not-held', 'unknown'));
CREATE INDEX recovery_moves_left_locks ON recovery_moves (left_lock)
    WHERE left_lock = 'may-be-held';
";

/// Issue 27: workers in several processes claim jobs under a lease they renew while they
/// work; a job whose lease has expired (its worker died) is claimed again. `lease_expires`
/// is Unix milliseconds; the attempt a claim holds is `attempts` (a new claim increments it,
/// so results are written keyed by analysis and attempt).
const V6_LEASES: &str = "
ALTER TABLE analyses ADD COLUMN lease_owner TEXT;
ALTER TABLE analyses ADD COLUMN lease_expires INTEGER;
CREATE INDEX analyses_by_lease ON analyses (status, lease_expires);
";

/// Issue 27: the case map of an analysis's share links (its pseudonyms, JSON), kept in the
/// store so that every API process serves a link with the same pseudonyms. `version`
/// grows with each write: a writer replaces the row only at the version it read
/// (compare-and-swap), so two processes extending the map at once lose no pair.
const V7_CASE_MAPS: &str = "
CREATE TABLE case_maps (
    analysis_id TEXT PRIMARY KEY REFERENCES analyses (id) ON DELETE CASCADE,
    version     INTEGER NOT NULL,
    map_json    TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);
";
