//! The values the store keeps and hands out; the HTTP API serializes the public ones as is.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use utoipa::ToSchema;

/// Where an analysis stands in the job queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum JobStatus {
    Queued,
    Running,
    Done,
    Failed,
}

impl JobStatus {
    /// Every status, in the order a job goes through them.
    pub const ALL: [JobStatus; 4] = [
        JobStatus::Queued,
        JobStatus::Running,
        JobStatus::Done,
        JobStatus::Failed,
    ];

    /// The lowercase name used in JSON and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            JobStatus::Queued => "queued",
            JobStatus::Running => "running",
            JobStatus::Done => "done",
            JobStatus::Failed => "failed",
        }
    }
}

impl fmt::Display for JobStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A status name that is none of `queued`, `running`, `done`, `failed`.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown status {0:?}")]
pub struct UnknownStatus(pub String);

impl FromStr for JobStatus {
    type Err = UnknownStatus;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        JobStatus::ALL
            .into_iter()
            .find(|status| status.as_str() == text)
            .ok_or_else(|| UnknownStatus(text.to_owned()))
    }
}

/// How far the analysis of one upload has gone.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct Progress {
    pub bytes_done: u64,
    pub bytes_total: u64,
    pub files_done: u64,
    pub files_total: u64,
}

/// Where the search index of an analysis stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum IndexState {
    Pending,
    Running,
    Done,
    Failed,
}

impl IndexState {
    /// Every state, in the order an index goes through them.
    pub const ALL: [IndexState; 4] = [
        IndexState::Pending,
        IndexState::Running,
        IndexState::Done,
        IndexState::Failed,
    ];

    /// The lowercase name used in JSON and in the database.
    pub fn as_str(self) -> &'static str {
        match self {
            IndexState::Pending => "pending",
            IndexState::Running => "running",
            IndexState::Done => "done",
            IndexState::Failed => "failed",
        }
    }
}

impl fmt::Display for IndexState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for IndexState {
    type Err = UnknownStatus;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        IndexState::ALL
            .into_iter()
            .find(|state| state.as_str() == text)
            .ok_or_else(|| UnknownStatus(text.to_owned()))
    }
}

/// The search index's state, how much it has read, and why it failed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct IndexProgress {
    pub state: IndexState,
    pub bytes_done: u64,
    pub error: Option<String>,
}

impl Default for IndexProgress {
    fn default() -> Self {
        IndexProgress {
            state: IndexState::Pending,
            bytes_done: 0,
            error: None,
        }
    }
}

/// What a start found left behind by a crash (see [`crate::store::Store::recover_interrupted`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interrupted {
    /// Jobs left running, queued again.
    pub requeued: Vec<String>,
    /// Jobs left running too often, failed.
    pub failed: Vec<String>,
    /// Done analyses whose index was being built: the index is failed (its folder holds
    /// a half-built index and its spool, for the caller to remove).
    pub index_failed: Vec<String>,
}

/// An upload the caller has received and wants analysed; `id` is a UUID v4 it made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewAnalysis {
    pub id: String,
    pub name: String,
    pub size_bytes: u64,
    pub sha256: String,
}

/// One analysis as the API shows it. Times are RFC 3339 in UTC.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AnalysisRow {
    pub id: String,
    pub name: String,
    pub status: JobStatus,
    pub created_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub size_bytes: u64,
    pub sha256: String,
    pub progress: Progress,
    pub index: IndexProgress,
    pub error: Option<String>,
    pub attempts: u32,
    pub finding_count: u32,
    pub critical_count: u32,
}

/// What a finished analysis leaves: the whole `analyze --format json` output and its findings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredResult {
    pub report_json: String,
    /// The findings as the API serves them and the pages show them.
    pub findings: Vec<crate::detect::Finding>,
}

/// A browser session: the hash of its cookie, its CSRF token and its lifetime (RFC 3339).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Session {
    pub id_hash: String,
    pub csrf: String,
    pub created_at: String,
    pub expires_at: String,
}

/// A share link to be stored: only the hash of its token is kept.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NewShare {
    /// A lowercase UUID made by the caller.
    pub id: String,
    /// SHA-256 (hex) of the link's token.
    pub token_hash: String,
    pub analysis_id: String,
    /// `finding`, `timeline` or `analysis`.
    pub scope_kind: String,
    /// The scope as JSON (what the link shows).
    pub scope_json: String,
    pub note: String,
    /// RFC 3339; kept normalized to UTC seconds.
    pub expires_at: String,
}

/// A stored share link (never its token).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareRow {
    pub id: String,
    pub analysis_id: String,
    pub scope_kind: String,
    pub scope_json: String,
    pub note: String,
    pub created_at: String,
    pub expires_at: String,
    /// When it was revoked, if it was.
    pub revoked_at: Option<String>,
}

/// One line of the audit log: who did what to what, and when (RFC 3339 UTC). A line of
/// counted refusals ([`Store::audit_counted`](crate::store::Store::audit_counted)) stands
/// for `count` of them in the minute of `at`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
pub struct AuditEntry {
    pub at: String,
    pub actor: String,
    pub action: String,
    pub target: String,
    pub detail: String,
    /// How many times it happened (1 but for counted refusals).
    pub count: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_round_trip_through_text_and_json() {
        for status in JobStatus::ALL {
            assert_eq!(status.to_string().parse::<JobStatus>(), Ok(status));
            let json = serde_json::to_string(&status).unwrap_or_default();
            assert_eq!(json, format!("\"{status}\""));
        }
        for state in IndexState::ALL {
            assert_eq!(state.to_string().parse::<IndexState>(), Ok(state));
        }
        assert_eq!(
            "Running".parse::<JobStatus>(),
            Err(UnknownStatus("Running".to_owned()))
        );
    }
}
