//! `/api/v1/analyses/{id}/search?q=&from=&to=&host=&service=&level=&page=`: search over
//! every line of an analysis, in time order, paged, matched words marked, with the hits
//! counted per host, service and level and over time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;

use super::analyses::row_of;
use crate::http::error::{ApiError, ErrorBody};
use crate::http::state::AppState;
use crate::index::{End, SearchIndex, SearchPage, SearchQuery, parse_time_bound};
use crate::store::{AnalysisRow, IndexState, Store};

/// Search parameters.
#[derive(Debug, Default, Clone, Deserialize, utoipa::IntoParams)]
pub struct SearchParams {
    /// Words, "phrases" and fields: `instance:UUID level:ERROR service:nova-api host:cmp1`
    /// (at most 4096 bytes, 256 terms, parentheses and NOTs nested 32 deep; past them: 400).
    /// A pasted id (`req-…`, a UUID) or a "quoted text", alone or beside fields, finds
    /// every line holding it byte for byte, as `grep -F`. Empty: every line (of the
    /// range and filters).
    #[serde(default)]
    pub q: String,
    /// Only lines at or after this time: RFC 3339, or UTC as the pages show it
    /// (`2024-10-08 06:25:03.120`), or a date.
    pub from: Option<String>,
    /// Only lines at or before this time (as `from`).
    pub to: Option<String>,
    /// Only lines of this host.
    pub host: Option<String>,
    /// Only lines of this service.
    pub service: Option<String>,
    /// Only lines of this level (`ERROR`, `WARNING`, ...).
    pub level: Option<String>,
    /// Only lines of this request (local or global id).
    pub request: Option<String>,
    /// Only lines naming this instance.
    pub instance: Option<String>,
    /// Page, from 1; a search pages through its first 10 000 hits (past them: 400).
    pub page: Option<usize>,
    /// Hits per page (at most 500).
    pub per_page: Option<usize>,
}

/// The open search indexes, one per analysis, and with an object store the byte budget
/// of the local folder indexes are fetched into.
#[derive(Debug)]
pub struct Searchers(Mutex<HashMap<String, Arc<SearchIndex>>>, u64);

impl Default for Searchers {
    fn default() -> Searchers {
        Searchers::with_cache_bytes(crate::jobs::remote::INDEX_CACHE_BYTES)
    }
}

impl Searchers {
    /// No index open yet; fetched indexes kept within `cache_bytes` on local disk.
    pub fn with_cache_bytes(cache_bytes: u64) -> Searchers {
        Searchers(Mutex::default(), cache_bytes)
    }

    /// Forgets an analysis's index (deleted).
    pub fn remove(&self, id: &str) {
        if let Ok(mut map) = self.0.lock() {
            map.remove(id);
        }
    }

    /// The open index of `row` (done). Blocking: with an object store, an index not in
    /// the local cache is fetched first (`jobs::remote::fetch_index`).
    pub(crate) fn open(
        &self,
        store: &dyn Store,
        row: &AnalysisRow,
    ) -> Result<Arc<SearchIndex>, ApiError> {
        let id = row.id.as_str();
        if let Some(found) = self.0.lock().ok().and_then(|m| m.get(id).cloned()) {
            return Ok(found);
        }
        let dir = match store.remote_blobs() {
            Some(remote) => crate::jobs::remote::fetch_index(store, remote.as_ref(), row, self.1)?,
            None => store.paths().index_dir(id)?,
        };
        let index = Arc::new(SearchIndex::open(&dir).map_err(ApiError::internal)?);
        if let Ok(mut map) = self.0.lock() {
            map.insert(id.to_string(), index.clone());
        }
        Ok(index)
    }
}

/// A time bound in UTC nanoseconds.
fn nanos(name: &str, value: Option<&str>, end: End) -> Result<Option<i64>, ApiError> {
    let Some(v) = value.map(str::trim).filter(|v| !v.is_empty()) else {
        return Ok(None);
    };
    parse_time_bound(v, end)
        .map(Some)
        .map_err(|e| ApiError::bad_request(format!("{name} {e}")))
}

/// A filter's value, none when empty.
fn filter(value: &Option<String>) -> Option<String> {
    value
        .as_deref()
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

impl SearchParams {
    /// The query for the index.
    pub fn query(&self) -> Result<SearchQuery, ApiError> {
        let mut query = SearchQuery::new(self.q.clone());
        query.from = nanos("from", self.from.as_deref(), End::Start)?;
        query.to = nanos("to", self.to.as_deref(), End::Finish)?;
        query.host = filter(&self.host);
        query.service = filter(&self.service);
        query.level = filter(&self.level);
        query.request = filter(&self.request);
        query.instance = filter(&self.instance);
        query.page = self.page.unwrap_or(1).max(1);
        query.per_page = self.per_page.unwrap_or(50).clamp(1, 500);
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
    let (store, searchers) = (state.store.clone(), state.searchers.clone());
    tokio::task::spawn_blocking(move || {
        let index = searchers.open(store.as_ref(), &row)?;
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

/// Search over every line of the analysis: words, fields, a pasted id (every line
/// holding it, as `grep -F`), a time range alone; the hits counted per host, service
/// and level (`facets`) and over time (`histogram`).
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
