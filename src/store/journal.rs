//! The recovery journal: what the executor did to a host, move by move, kept in the same
//! store as the service so that an interrupted recovery is found and closed at next start.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

use super::error::StoreError;
use super::types::UnknownStatus;

/// Where a recovery stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryStatus {
    Planned,
    Running,
    Finished,
    Failed,
    Refused,
}

/// Where one VM move stands (Masakari's `VMoveStatus`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MoveStatus {
    Pending,
    Ongoing,
    Succeeded,
    Failed,
    Ignored,
}

macro_rules! named_statuses {
    ($kind:ident { $($variant:ident => $name:literal),+ $(,)? }) => {
        impl $kind {
            pub const ALL: &'static [$kind] = &[$($kind::$variant),+];

            /// The lowercase name used in JSON and in the database.
            pub fn as_str(self) -> &'static str {
                match self {
                    $($kind::$variant => $name),+
                }
            }
        }

        impl fmt::Display for $kind {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl FromStr for $kind {
            type Err = UnknownStatus;

            fn from_str(text: &str) -> Result<Self, Self::Err> {
                $kind::ALL
                    .iter()
                    .copied()
                    .find(|status| status.as_str() == text)
                    .ok_or_else(|| UnknownStatus(text.to_owned()))
            }
        }
    };
}

named_statuses!(RecoveryStatus {
    Planned => "planned",
    Running => "running",
    Finished => "finished",
    Failed => "failed",
    Refused => "refused",
});

named_statuses!(MoveStatus {
    Pending => "pending",
    Ongoing => "ongoing",
    Succeeded => "succeeded",
    Failed => "failed",
    Ignored => "ignored",
});

impl MoveStatus {
    /// `succeeded`, `failed` and `ignored` end a move; the others are still open.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            MoveStatus::Succeeded | MoveStatus::Failed | MoveStatus::Ignored
        )
    }
}

/// The rule of the executor: `finished` only when every move succeeded or was ignored.
pub fn final_status(moves: &[MoveStatus]) -> RecoveryStatus {
    if moves
        .iter()
        .all(|status| matches!(status, MoveStatus::Succeeded | MoveStatus::Ignored))
    {
        RecoveryStatus::Finished
    } else {
        RecoveryStatus::Failed
    }
}

/// What an interrupted recovery left on one of its moves: the instance of a move that was
/// open when evacdoc stopped may still hold evacdoc's lock, until a later run looks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LeftLock {
    /// The move was open when evacdoc stopped; no run has looked at its instance since.
    MayBeHeld,
    /// A later run found evacdoc's lock on the instance and released it.
    Released,
    /// A later run found no lock of evacdoc's on the instance.
    NotHeld,
    /// A later run could not read or unlock the instance (logged); it is not tried again.
    Unknown,
}

named_statuses!(LeftLock {
    MayBeHeld => "may-be-held",
    Released => "released",
    NotHeld => "not-held",
    Unknown => "unknown",
});

/// A move of an interrupted recovery whose instance may still hold evacdoc's lock.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LeftMove {
    pub recovery: i64,
    pub instance: String,
}

/// A recovery as the journal keeps it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RecoveryRow {
    pub id: i64,
    pub host: String,
    pub status: RecoveryStatus,
    /// RFC 3339, UTC.
    pub started: String,
    pub ended: Option<String>,
    pub message: Option<String>,
    /// What started it: a finding id, or `cli` for `recover host`.
    pub source: String,
    pub moves: Vec<MoveRow>,
}

/// One VM move of a recovery.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct MoveRow {
    pub instance: String,
    pub status: MoveStatus,
    /// The host it was on.
    pub source: String,
    pub destination: Option<String>,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub message: Option<String>,
}

/// A change of one move: its new status (start and end times follow from it: `ongoing`
/// sets `started`, a terminal status sets `ended`), and what to record with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MoveUpdate {
    pub status: MoveStatus,
    pub destination: Option<String>,
    pub message: Option<String>,
}

/// The recovery journal. Every method is one transaction.
pub trait RecoveryJournal: Send + Sync {
    /// A new recovery of `host`, `running`, with one `pending` move per (instance, source host).
    fn begin_recovery(
        &self,
        host: &str,
        source: &str,
        moves: &[(String, String)],
    ) -> Result<i64, StoreError>;
    /// Records a move's progress. A move that has ended is not changed again
    /// ([`StoreError::MoveEnded`]).
    fn update_move(
        &self,
        recovery: i64,
        instance: &str,
        update: &MoveUpdate,
    ) -> Result<(), StoreError>;
    /// Ends a running recovery: every move still `pending` or `ongoing` becomes `failed`
    /// with `message`, then the status follows [`final_status`] (or is `refused` when
    /// `refused`); `ended` is set. Returns the recovery as it ended.
    fn end_recovery(
        &self,
        recovery: i64,
        refused: bool,
        message: Option<&str>,
    ) -> Result<RecoveryRow, StoreError>;
    fn recovery(&self, recovery: i64) -> Result<Option<RecoveryRow>, StoreError>;
    /// The last `limit` recoveries, newest first.
    fn recoveries(&self, limit: usize) -> Result<Vec<RecoveryRow>, StoreError>;
    /// At start: every recovery left `running` (evacdoc was killed) becomes `failed`, its
    /// open moves `failed`, with a message saying so, and [`LeftLock::MayBeHeld`]. Returns
    /// their ids.
    fn repair_interrupted_recoveries(&self) -> Result<Vec<i64>, StoreError>;
    /// The moves an interruption left whose lock no run has looked at yet
    /// ([`LeftLock::MayBeHeld`]), oldest recovery first.
    fn left_locks(&self) -> Result<Vec<LeftMove>, StoreError>;
    /// Records what a run found of a left move's lock.
    fn lock_looked_at(&self, left: &LeftMove, found: LeftLock) -> Result<(), StoreError>;
    /// A run that could not even plan: a recovery of `host` journaled `failed` at once,
    /// with no move and `message` (not [`final_status`] of no moves, which is
    /// `finished`). Returns its id.
    fn record_plan_failure(
        &self,
        host: &str,
        source: &str,
        message: &str,
    ) -> Result<i64, StoreError>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finished_only_when_every_move_succeeded_or_was_ignored() {
        use MoveStatus::*;
        assert_eq!(final_status(&[]), RecoveryStatus::Finished);
        assert_eq!(
            final_status(&[Succeeded, Ignored, Succeeded]),
            RecoveryStatus::Finished
        );
        for open_or_failed in [Pending, Ongoing, Failed] {
            assert_eq!(
                final_status(&[Succeeded, open_or_failed]),
                RecoveryStatus::Failed,
                "{open_or_failed}"
            );
        }
    }

    #[test]
    fn statuses_read_back_from_their_names() {
        for status in MoveStatus::ALL {
            assert_eq!(status.as_str().parse::<MoveStatus>(), Ok(*status));
        }
        for status in RecoveryStatus::ALL {
            assert_eq!(status.as_str().parse::<RecoveryStatus>(), Ok(*status));
        }
        assert!("done".parse::<MoveStatus>().is_err());
    }
}
