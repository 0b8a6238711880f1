//! `/api/v1/analyses/{id}/search?q=&from=&to=&page=`: full-text search over every line of
//! an analysis, in time order, paged, matched words marked.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;

use super::analyses::row_of;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::index::{SearchIndex, SearchPage, SearchQuery};
use crate::store::IndexState;

/// Search parameters.
#[derive(Debug, Default, Clone, Deserialize, utoipa::IntoParams)]
pub struct SearchParams {
    /// Words, "phrases" and fields: `instance:UUID level:ERROR service:nova-api host:cmp1`
    /// (at most 4096 bytes, 256 terms, parentheses and NOTs nested 32 deep; past them: 400).
    pub q: String,
    /// Only lines at or after this time (RFC 3339).
    pub from: Option<String>,
    /// Only lines at or before this time (RFC 3339).
    pub to: Option<String>,
    /// Page, from 1; a search pages through its first 10 000 hits (past them: 400).
    pub page: Option<usize>,
    /// Hits per page (at most 500).
    pub per_page: Option<usize>,
}

/// The open search indexes, one per analysis.
#[derive(Debug, Default)]
pub struct Searchers(Mutex<HashMap<String, Arc<SearchIndex>>>);

impl Searchers {
    /// Forgets an analysis's index (deleted).
    pub fn remove(&self, id: &str) {
        if let Ok(mut map) = self.0.lock() {
            map.remove(id);
        }
    }

    pub(crate) fn open(
        &self,
        dir: &std::path::Path,
        id: &str,
    ) -> Result<Arc<SearchIndex>, ApiError> {
        if let Some(found) = self.0.lock().ok().and_then(|m| m.get(id).cloned()) {
            return Ok(found);
        }
        let index = Arc::new(SearchIndex::open(dir).map_err(ApiError::internal)?);
        if let Ok(mut map) = self.0.lock() {
            map.insert(id.to_string(), index.clone());
        }
        Ok(index)
    }
}

/// A time given as RFC 3339, in UTC nanoseconds.
fn nanos(name: &str, value: Option<&str>) -> Result<Option<i64>, ApiError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    let ts: jiff::Timestamp = v.parse().map_err(|_| {
        ApiError::bad_request(format!(
            "{name} {v:?} is not an RFC 3339 time (2024-10-08T06:25:03Z)"
        ))
    })?;
    Ok(Some(ts.as_nanosecond() as i64))
}

impl SearchParams {
    /// The query for the index.
    pub fn query(&self) -> Result<SearchQuery, ApiError> {
        if self.q.trim().is_empty() {
            return Err(ApiError::bad_request(
                "q is empty: give words, \"a phrase\" or field:value",
            ));
        }
        let query = SearchQuery {
            q: self.q.clone(),
            from: nanos("from", self.from.as_deref())?,
            to: nanos("to", self.to.as_deref())?,
            page: self.page.unwrap_or(1).max(1),
            per_page: self.per_page.unwrap_or(50).clamp(1, 500),
        };
        // Refused before the analysis is looked up or its index opened.
        query
            .check()
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok(query)
    }
}

/// Runs a search of analysis `id`.
pub async fn run(
    state: &AppState,
    id: &str,
    params: &SearchParams,
) -> Result<SearchPage, ApiError> {
    let query = params.query()?;
    let row = row_of(state, id).await?;
    if row.index.state != IndexState::Done {
        return Err(ApiError::conflict(format!(
            "the search index is {}: search when it is done",
            row.index.state
        )));
    }
    let dir = state.store.paths().index_dir(&row.id)?;
    let searchers = state.searchers.clone();
    tokio::task::spawn_blocking(move || {
        let index = searchers.open(&dir, &row.id)?;
        index.search(&query).map_err(|e| {
            if e.is_bad_request() {
                ApiError::bad_request(e.to_string())
            } else {
                ApiError::internal(e)
            }
        })
    })
    .await?
}

/// Full-text search over every line of the analysis.
#[utoipa::path(get, path = "/api/v1/analyses/{id}/search", tag = "search",
    params(("id" = String, Path, description = "analysis id"), SearchParams),
    responses((status = 200, body = SearchPage), (status = 400, body = ErrorBody),
              (status = 404, body = ErrorBody), (status = 409, body = ErrorBody)))]
pub async fn search(
    State(state): State<AppState>,
    Path(id): Path<String>,
    Query(params): Query<SearchParams>,
) -> Result<Json<SearchPage>, ApiError> {
    run(&state, &id, &params).await.map(Json)
}
