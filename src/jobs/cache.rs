//! Finished analyses kept loaded for timelines and pages: the stored analysis document
//! read back with the findings the store holds (typed, the ones the API serves: never
//! computed again), the most recently used few kept in memory.

use std::sync::{Arc, Mutex};

use crate::correlate::Analysis;
use crate::correlate::document::DocumentError;
use crate::detect::Finding;
use crate::store::{Store, StoreError, read_document};

/// An analysis and its findings.
#[derive(Debug)]
pub struct Loaded {
    pub analysis: Analysis,
    pub findings: Vec<Finding>,
}

/// Why a stored analysis could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Json(#[from] serde_json::Error),
    #[error(transparent)]
    Document(#[from] DocumentError),
}

/// The last few analyses used, most recent last.
#[derive(Debug)]
pub struct AnalysisCache {
    capacity: usize,
    entries: Mutex<Vec<(String, Arc<Loaded>)>>,
}

impl AnalysisCache {
    pub fn new(capacity: usize) -> AnalysisCache {
        AnalysisCache {
            capacity: capacity.max(1),
            entries: Mutex::new(Vec::new()),
        }
    }

    /// Keeps `loaded` as analysis `id` (the oldest one leaves when full).
    pub fn insert(&self, id: &str, loaded: Arc<Loaded>) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.retain(|(k, _)| k != id);
            entries.push((id.to_string(), loaded));
            while entries.len() > self.capacity {
                entries.remove(0);
            }
        }
    }

    /// Forgets analysis `id` (deleted).
    pub fn remove(&self, id: &str) {
        if let Ok(mut entries) = self.entries.lock() {
            entries.retain(|(k, _)| k != id);
        }
    }

    fn cached(&self, id: &str) -> Option<Arc<Loaded>> {
        let mut entries = self.entries.lock().ok()?;
        let at = entries.iter().position(|(k, _)| k == id)?;
        let entry = entries.remove(at);
        let loaded = entry.1.clone();
        entries.push(entry);
        Some(loaded)
    }

    /// The analysis `id`, loaded from the store if it is not in memory; `None` when it
    /// has no stored document (not done, or unknown). Blocking: call from a blocking task.
    pub fn get(&self, store: &dyn Store, id: &str) -> Result<Option<Arc<Loaded>>, LoadError> {
        if let Some(loaded) = self.cached(id) {
            return Ok(Some(loaded));
        }
        if let Some(remote) = store.remote_blobs()
            && !super::remote::fetch_document(store, remote.as_ref(), id)?
        {
            return Ok(None);
        }
        let Some(bytes) = read_document(store.paths(), id)? else {
            return Ok(None);
        };
        let value: serde_json::Value = serde_json::from_slice(&bytes)?;
        let analysis = Analysis::from_document(value)?;
        let findings = store.findings(id)?;
        let loaded = Arc::new(Loaded { analysis, findings });
        self.insert(id, loaded.clone());
        Ok(Some(loaded))
    }
}
