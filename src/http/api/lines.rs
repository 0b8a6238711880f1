//! `/api/v1/analyses/{id}/files/{file}/lines?from=&to=`: raw lines of one file of an
//! analysis, by 1-based line range, read back from the search index (which holds every
//! line; the unpacked bundle is not kept).

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::{Deserialize, Serialize};

use super::analyses::row_of;
use super::timeline::loaded;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::store::IndexState;

/// The most lines one request returns.
pub const MAX_LINES: u32 = 2000;

/// A line range.
#[derive(Debug, Default, Clone, Deserialize, utoipa::IntoParams)]
pub struct LineRange {
    /// First line (1-based, default 1).
    pub from: Option<u32>,
    /// Last line (default `from` + 199; at most 2000 lines a request).
    pub to: Option<u32>,
}

/// One line.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct RawLine {
    /// 1-based line number.
    pub line: u32,
    /// The line as written.
    pub text: String,
}

/// Lines of a file.
#[derive(Debug, Clone, Serialize, Deserialize, utoipa::ToSchema)]
pub struct FileLines {
    /// The file's id in the analysis (`files[]` position).
    pub file: u32,
    /// Its path relative to the input root.
    pub path: String,
    /// Its host.
    pub host: String,
    /// Its service.
    pub service: String,
    /// Lines the file has (records read; a record may span lines).
    pub records: u64,
    /// The range asked for.
    pub from: u32,
    pub to: u32,
    /// The lines found in that range, in order.
    pub lines: Vec<RawLine>,
}

impl LineRange {
    /// The range, checked and bounded.
    pub fn bounds(&self) -> Result<(u32, u32), ApiError> {
        let from = self.from.unwrap_or(1).max(1);
        let to = self.to.unwrap_or(from.saturating_add(199));
        if to < from {
            return Err(ApiError::bad_request(format!(
                "to ({to}) is before from ({from})"
            )));
        }
        Ok((from, to.min(from.saturating_add(MAX_LINES - 1))))
    }
}

/// Reads lines `from..=to` of file `file` of analysis `id`.
pub async fn read(
    state: &AppState,
    id: &str,
    file: u32,
    range: &LineRange,
) -> Result<FileLines, ApiError> {
    let (from, to) = range.bounds()?;
    let row = row_of(state, id).await?;
    if row.index.state != IndexState::Done {
        return Err(ApiError::conflict(
            "the search index, which keeps the lines, is not built yet",
        ));
    }
    let loaded = loaded(state, &row.id).await?;
    let info = loaded
        .analysis
        .files
        .get(file as usize)
        .ok_or_else(|| ApiError::not_found("file"))?;
    let host = loaded
        .analysis
        .host(info.host)
        .map(|h| h.hostname.clone())
        .unwrap_or_default();
    let (path, service, records) = (
        info.path.clone(),
        info.service.name().to_string(),
        info.records,
    );
    let (store, searchers) = (state.store.clone(), state.searchers.clone());
    let lines = tokio::task::spawn_blocking(move || {
        searchers
            .open(store.as_ref(), &row)?
            .lines(file, from, to)
            .map_err(ApiError::internal)
    })
    .await??;
    Ok(FileLines {
        file,
        path,
        host,
        service,
        records,
        from,
        to,
        lines: lines
            .into_iter()
            .map(|(line, text)| RawLine { line, text })
            .collect(),
    })
}

/// Raw lines of one file by range.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/files/{file}/lines", tag = "files",
    params(("id" = String, Path, description = "analysis id"),
           ("file" = u32, Path, description = "file id (position in the analysis's files)"),
           LineRange),
    responses((status = 200, body = FileLines), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn lines(
    State(state): State<AppState>,
    Path((id, file)): Path<(String, u32)>,
    Query(range): Query<LineRange>,
) -> Result<Json<FileLines>, ApiError> {
    read(&state, &id, file, &range).await.map(Json)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_ranges_are_bounded() {
        let r = |from, to| LineRange { from, to }.bounds();
        assert_eq!(r(None, None).unwrap(), (1, 200));
        assert_eq!(r(Some(0), Some(5)).unwrap(), (1, 5));
        assert_eq!(r(Some(10), Some(1_000_000)).unwrap(), (10, 2009));
        assert!(r(Some(10), Some(9)).is_err());
    }
}
