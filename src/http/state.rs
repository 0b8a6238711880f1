//! What every handler shares.

use std::sync::Arc;

use super::metrics::Metrics;
use crate::jobs::{AnalysisCache, JobRunner};
use crate::store::Store;

/// The service's shared state (cheap to clone: all behind `Arc`).
#[derive(Clone)]
pub struct AppState {
    /// Analyses, findings, sessions, audit log.
    pub store: Arc<dyn Store>,
    /// SHA-256 of the bearer token (hex).
    pub token_hash: Arc<str>,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// The analysis jobs.
    pub jobs: Arc<JobRunner>,
    /// Finished analyses loaded for timelines and pages.
    pub cache: Arc<AnalysisCache>,
    /// The open search indexes.
    pub searchers: Arc<super::api::search::Searchers>,
    /// The largest upload accepted, in bytes.
    pub max_upload: u64,
    /// Uploads received at once; past them, 429 with `Retry-After`.
    pub uploads: Arc<tokio::sync::Semaphore>,
    /// The least rate an upload must keep; slower ones are cut with 408.
    pub upload_rate: super::upload_rate::MinRate,
    /// Analyses waiting in the queue; past them, uploads get 503 with `Retry-After`.
    pub max_queued: u64,
    /// The redacted views share links are served from.
    pub shares: Arc<crate::share::ShareViews>,
    /// The rate limit of the public share routes, per client address.
    pub public_limit: Arc<super::share::limit::RateLimiter>,
    /// Wrong tokens a client address may send (sign-in form, bearer), then 429.
    pub sign_in_limit: Arc<super::share::limit::RateLimiter>,
    /// Who a request comes from and whether it came over HTTPS (trusted proxies).
    pub clients: Arc<super::client::ClientPolicy>,
    /// Whether anyone has signed in with the token yet.
    pub token_use: Arc<super::token_use::TokenUse>,
    /// Remediations of findings: the clouds allowed, the runs and their progress.
    pub remediations: Arc<super::remediation::Remediations>,
    /// The live watcher (`serve --watch`), when there is one.
    pub live: Option<Arc<super::live::LiveWatch>>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("max_upload", &self.max_upload)
            .finish_non_exhaustive()
    }
}
