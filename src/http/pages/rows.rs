//! An analysis as the home and analysis pages show it: status, progress, counts, error.

use super::format::{count, human_bytes, readable_time};
use crate::store::{AnalysisRow, IndexState, JobStatus};

/// One analysis, formatted.
#[derive(Debug, Clone)]
pub struct RowView {
    pub id: String,
    pub name: String,
    /// `queued`, `running`, `done`, `failed`.
    pub status: String,
    /// When it was uploaded (UTC).
    pub created: String,
    /// When it ended (UTC), if it has.
    pub finished: String,
    /// The upload's size.
    pub size: String,
    pub sha256: String,
    /// How far it is, while it runs (`120 MiB of 2.0 GiB read · 14 files`).
    pub progress: String,
    /// The share of bytes read, 0 to 100, when known.
    pub percent: Option<u64>,
    pub findings: u32,
    pub critical: u32,
    /// Why it failed.
    pub error: Option<String>,
    /// Where its search index is (`ready`, `building`, ...).
    pub index: String,
    /// Whether its search index can be searched.
    pub searchable: bool,
    /// Whether it is still going (pages refresh).
    pub live: bool,
}

impl RowView {
    pub fn of(row: &AnalysisRow) -> RowView {
        let p = &row.progress;
        let percent =
            (p.bytes_total > 0).then(|| (p.bytes_done.min(p.bytes_total) * 100) / p.bytes_total);
        let progress = match row.status {
            JobStatus::Running if p.bytes_total > 0 => format!(
                "{} of {} read · {} files",
                human_bytes(p.bytes_done),
                human_bytes(p.bytes_total),
                count(p.files_done)
            ),
            JobStatus::Running => format!("unpacking · {} files read", count(p.files_done)),
            JobStatus::Queued => "waiting for a free worker".to_string(),
            _ => String::new(),
        };
        let index = match (row.index.state, &row.index.error) {
            (IndexState::Done, _) => "ready".to_string(),
            (IndexState::Running, _) => {
                format!("building · {} indexed", human_bytes(row.index.bytes_done))
            }
            (IndexState::Pending, _) => "waiting".to_string(),
            (IndexState::Failed, Some(e)) => format!("failed: {e}"),
            (IndexState::Failed, None) => "failed".to_string(),
        };
        RowView {
            id: row.id.clone(),
            name: row.name.clone(),
            status: row.status.to_string(),
            created: readable_time(&row.created_at),
            finished: row
                .finished_at
                .as_deref()
                .map(readable_time)
                .unwrap_or_default(),
            size: human_bytes(row.size_bytes),
            sha256: row.sha256.clone(),
            progress,
            percent: percent.filter(|_| row.status == JobStatus::Running),
            findings: row.finding_count,
            critical: row.critical_count,
            error: row.error.clone(),
            searchable: row.index.state == IndexState::Done,
            index,
            live: matches!(row.status, JobStatus::Queued | JobStatus::Running)
                || (row.status == JobStatus::Done
                    && matches!(row.index.state, IndexState::Pending | IndexState::Running)),
        }
    }
}
