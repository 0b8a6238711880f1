//! The recovery journal's rows: a recovery, its moves, and the repair of interrupted ones.

use rusqlite::{Connection, OptionalExtension, Row, TransactionBehavior, params};

use super::clock;
use crate::store::error::StoreError;
use crate::store::journal::{
    LeftLock, LeftMove, MoveRow, MoveStatus, MoveUpdate, RecoveryRow, RecoveryStatus, final_status,
};

/// What an interrupted recovery's open moves and itself are closed with.
const INTERRUPTED: &str =
    "interrupted: evacdoc stopped before this recovery ended; check the instance's host and lock";

/// Journal times carry milliseconds (moves start and end within seconds of each other);
/// the fixed width keeps them sorting as text.
fn now() -> String {
    clock::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

fn move_row(row: &Row<'_>) -> rusqlite::Result<(MoveRow, String)> {
    let status: String = row.get(1)?;
    Ok((
        MoveRow {
            instance: row.get(0)?,
            status: MoveStatus::Pending,
            source: row.get(2)?,
            destination: row.get(3)?,
            started: row.get(4)?,
            ended: row.get(5)?,
            message: row.get(6)?,
        },
        status,
    ))
}

pub(super) fn begin(
    connection: &mut Connection,
    host: &str,
    source: &str,
    moves: &[(String, String)],
) -> Result<i64, StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    transaction.execute(
        "INSERT INTO recoveries (host, status, started, source) VALUES (?1, 'running', ?2, ?3)",
        params![host, now(), source],
    )?;
    let id = transaction.last_insert_rowid();
    for (position, (instance, from)) in moves.iter().enumerate() {
        transaction.execute(
            "INSERT INTO recovery_moves (recovery_id, position, instance, status, source)
             VALUES (?1, ?2, ?3, 'pending', ?4)",
            params![id, position as i64, instance, from],
        )?;
    }
    transaction.commit()?;
    Ok(id)
}

pub(super) fn plan_failed(
    connection: &Connection,
    host: &str,
    source: &str,
    message: &str,
) -> Result<i64, StoreError> {
    let at = now();
    connection.execute(
        "INSERT INTO recoveries (host, status, started, ended, message, source)
         VALUES (?1, 'failed', ?2, ?2, ?3, ?4)",
        params![host, at, message, source],
    )?;
    Ok(connection.last_insert_rowid())
}

fn status_of(connection: &Connection, recovery: i64) -> Result<RecoveryStatus, StoreError> {
    let status: Option<String> = connection
        .query_row(
            "SELECT status FROM recoveries WHERE id = ?1",
            [recovery],
            |row| row.get(0),
        )
        .optional()?;
    let status = status.ok_or(StoreError::RecoveryNotFound(recovery))?;
    Ok(status.parse()?)
}

pub(super) fn update_move(
    connection: &mut Connection,
    recovery: i64,
    instance: &str,
    update: &MoveUpdate,
) -> Result<(), StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if status_of(&transaction, recovery)? != RecoveryStatus::Running {
        return Err(StoreError::RecoveryEnded { recovery });
    }
    let current: Option<String> = transaction
        .query_row(
            "SELECT status FROM recovery_moves WHERE recovery_id = ?1 AND instance = ?2",
            params![recovery, instance],
            |row| row.get(0),
        )
        .optional()?;
    let current: MoveStatus = current
        .ok_or_else(|| StoreError::MoveNotFound {
            recovery,
            instance: instance.to_owned(),
        })?
        .parse()?;
    if current.is_terminal() {
        return Err(StoreError::MoveEnded {
            recovery,
            instance: instance.to_owned(),
        });
    }
    let at = now();
    let started = (update.status == MoveStatus::Ongoing).then_some(at.as_str());
    let ended = update.status.is_terminal().then_some(at.as_str());
    transaction.execute(
        "UPDATE recovery_moves
         SET status = ?3,
             destination = COALESCE(?4, destination),
             message = COALESCE(?5, message),
             started = COALESCE(started, ?6),
             ended = COALESCE(?7, ended)
         WHERE recovery_id = ?1 AND instance = ?2",
        params![
            recovery,
            instance,
            update.status.as_str(),
            update.destination,
            update.message,
            // A move that ends without having started (refused, not attempted) gets its
            // end time as start time, so every closed move has both.
            started.or(ended),
            ended
        ],
    )?;
    transaction.commit()?;
    Ok(())
}

/// Closes the open moves of `recovery` as failed with `message`.
fn fail_open_moves(
    connection: &Connection,
    recovery: i64,
    message: &str,
    at: &str,
) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE recovery_moves
         SET status = 'failed', message = ?2, started = COALESCE(started, ?3), ended = ?3
         WHERE recovery_id = ?1 AND status IN ('pending', 'ongoing')",
        params![recovery, message, at],
    )?;
    Ok(())
}

pub(super) fn end(
    connection: &mut Connection,
    recovery: i64,
    refused: bool,
    message: Option<&str>,
) -> Result<RecoveryRow, StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    if status_of(&transaction, recovery)? != RecoveryStatus::Running {
        return Err(StoreError::RecoveryEnded { recovery });
    }
    let at = now();
    fail_open_moves(
        &transaction,
        recovery,
        message.unwrap_or("not attempted: the recovery ended before this move"),
        &at,
    )?;
    let moves = moves_of(&transaction, recovery)?;
    let status = if refused {
        RecoveryStatus::Refused
    } else {
        final_status(&moves.iter().map(|row| row.status).collect::<Vec<_>>())
    };
    transaction.execute(
        "UPDATE recoveries SET status = ?2, ended = ?3, message = ?4 WHERE id = ?1",
        params![recovery, status.as_str(), at, message],
    )?;
    let row = get(&transaction, recovery)?.ok_or(StoreError::RecoveryNotFound(recovery))?;
    transaction.commit()?;
    Ok(row)
}

fn moves_of(connection: &Connection, recovery: i64) -> Result<Vec<MoveRow>, StoreError> {
    let mut statement = connection.prepare(
        "SELECT instance, status, source, destination, started, ended, message
         FROM recovery_moves WHERE recovery_id = ?1 ORDER BY position",
    )?;
    let rows = statement.query_map([recovery], move_row)?;
    let mut moves = Vec::new();
    for row in rows {
        let (mut row, status) = row?;
        row.status = status.parse()?;
        moves.push(row);
    }
    Ok(moves)
}

pub(super) fn get(
    connection: &Connection,
    recovery: i64,
) -> Result<Option<RecoveryRow>, StoreError> {
    let row = connection
        .query_row(
            "SELECT id, host, status, started, ended, message, source FROM recoveries
             WHERE id = ?1",
            [recovery],
            |row| {
                Ok((
                    row.get::<_, i64>(0)?,
                    row.get::<_, String>(1)?,
                    row.get::<_, String>(2)?,
                    row.get::<_, String>(3)?,
                    row.get::<_, Option<String>>(4)?,
                    row.get::<_, Option<String>>(5)?,
                    row.get::<_, String>(6)?,
                ))
            },
        )
        .optional()?;
    let Some((id, host, status, started, ended, message, source)) = row else {
        return Ok(None);
    };
    Ok(Some(RecoveryRow {
        id,
        host,
        status: status.parse()?,
        started,
        ended,
        message,
        source,
        moves: moves_of(connection, id)?,
    }))
}

pub(super) fn list(connection: &Connection, limit: usize) -> Result<Vec<RecoveryRow>, StoreError> {
    let ids: Vec<i64> = {
        let mut statement =
            connection.prepare("SELECT id FROM recoveries ORDER BY id DESC LIMIT ?1")?;
        let rows = statement.query_map([limit as i64], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    let mut recoveries = Vec::new();
    for id in ids {
        if let Some(row) = get(connection, id)? {
            recoveries.push(row);
        }
    }
    Ok(recoveries)
}

pub(super) fn repair_interrupted(connection: &mut Connection) -> Result<Vec<i64>, StoreError> {
    let transaction = connection.transaction_with_behavior(TransactionBehavior::Immediate)?;
    let ids: Vec<i64> = {
        let mut statement = transaction
            .prepare("SELECT id FROM recoveries WHERE status = 'running' ORDER BY id")?;
        let rows = statement.query_map([], |row| row.get(0))?;
        rows.collect::<Result<_, _>>()?
    };
    let at = now();
    for id in &ids {
        // Typed, before the open moves are failed: their instances may hold our lock.
        transaction.execute(
            "UPDATE recovery_moves SET left_lock = ?2
             WHERE recovery_id = ?1 AND status IN ('pending', 'ongoing')",
            params![id, LeftLock::MayBeHeld.as_str()],
        )?;
        fail_open_moves(&transaction, *id, INTERRUPTED, &at)?;
        transaction.execute(
            "UPDATE recoveries SET status = 'failed', ended = ?2, message = ?3 WHERE id = ?1",
            params![id, at, INTERRUPTED],
        )?;
    }
    transaction.commit()?;
    Ok(ids)
}

pub(super) fn left_locks(connection: &Connection) -> Result<Vec<LeftMove>, StoreError> {
    let mut statement = connection.prepare(
        "SELECT recovery_id, instance FROM recovery_moves WHERE left_lock = ?1
         ORDER BY recovery_id, position",
    )?;
    let rows = statement.query_map([LeftLock::MayBeHeld.as_str()], |row| {
        Ok(LeftMove {
            recovery: row.get(0)?,
            instance: row.get(1)?,
        })
    })?;
    Ok(rows.collect::<Result<_, _>>()?)
}

pub(super) fn lock_looked_at(
    connection: &Connection,
    left: &LeftMove,
    found: LeftLock,
) -> Result<(), StoreError> {
    connection.execute(
        "UPDATE recovery_moves SET left_lock = ?3 WHERE recovery_id = ?1 AND instance = ?2",
        params![left.recovery, left.instance, found.as_str()],
    )?;
    Ok(())
}
