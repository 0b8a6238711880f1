//! Starting and stopping the service: the listener bound first (a busy port fails before
//! anything is made), the store opened (migrations), the token had, jobs a crash left
//! running recovered; on shutdown, requests drained and
//! running jobs given a grace period, then queued again.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::auth::{TokenSource, hash_secret, load_or_create_token};
use super::client::ClientPolicy;
use super::live::{LiveWatch, WatchConfig};
use super::metrics::Metrics;
use super::remediation::{RemediationConfig, Remediations};
use super::share::limit::{RateLimit, RateLimiter};
use super::state::AppState;
use super::token_use::TokenUse;
use super::upload_rate::MinRate;
use crate::jobs::{AnalysisCache, JobConfig, JobRunner};
use crate::recovery::remediator::ExecutorRemediator;
use crate::store::{PgStore, RecoveryJournal as _, SqliteStore, Store, StoreError, token_used};
use crate::trigger::{Remediator, Trigger};

/// How to serve.
#[derive(Debug, Clone)]
pub struct ServeConfig {
    /// Address to listen on (loopback by default).
    pub listen: SocketAddr,
    /// Where everything is kept (with `store_url`, the files only: uploads, documents,
    /// indexes, the token, in a folder every process shares).
    pub data: PathBuf,
    /// `postgres://USER:PASS@HOST:PORT/DB`: analyses, the job queue, sessions and the
    /// audit log in PostgreSQL, shared with other API and worker processes (issue 27).
    /// None: the embedded SQLite store in `data`.
    pub store_url: Option<String>,
    /// With `store_url`: an object store (`s3://…`, `swift://…`) that keeps uploads,
    /// documents and indexes; `data` is then this process's work folder and cache.
    pub remote_blobs: Option<String>,
    /// With `remote_blobs`: the bytes of fetched search indexes kept on local disk (the
    /// least recently used removed past it).
    pub index_cache_bytes: u64,
    /// The largest upload accepted, in bytes.
    pub max_upload: u64,
    /// Uploads received at once (more get 429 with `Retry-After`).
    pub max_uploads: usize,
    /// Analyses waiting in the queue (past them, uploads get 503 with `Retry-After`).
    pub max_queued: u64,
    /// Analyses at once, retries after a crash.
    pub jobs: JobConfig,
    /// The token given in the environment (`EVACDOC_TOKEN`).
    pub token: Option<String>,
    /// How long running jobs may go on after a shutdown is asked for.
    pub shutdown_grace: Duration,
    /// Requests a client address may make to the public share routes.
    pub public_rate: RateLimit,
    /// The clouds remediations may act on, and the executor's options.
    pub remediation: RemediationConfig,
    /// Logs to watch live (`--watch`), with the policy for their findings.
    pub watch: Option<WatchConfig>,
    /// How long a client may take to send a request's headers; slower ones are cut off.
    pub header_timeout: Duration,
    /// The least rate an upload must keep (slower ones are cut with 408).
    pub upload_min_rate: MinRate,
    /// Wrong tokens a client address may send at once, then how many a second (429 with
    /// `Retry-After` past them).
    pub sign_in_limit: RateLimit,
    /// The address the service is reached at (`https://…` makes its cookies `Secure`).
    pub public_url: Option<url::Url>,
    /// Proxies whose `X-Forwarded-For` and `X-Forwarded-Proto` are believed.
    pub trusted_proxies: Vec<IpAddr>,
}

impl ServeConfig {
    /// The defaults of `evacdoc serve`.
    pub fn new(listen: SocketAddr, data: PathBuf) -> ServeConfig {
        ServeConfig {
            listen,
            data,
            store_url: None,
            remote_blobs: None,
            index_cache_bytes: crate::jobs::remote::INDEX_CACHE_BYTES,
            max_upload: 8 << 30,
            max_uploads: 4,
            max_queued: 64,
            jobs: JobConfig::default(),
            token: None,
            shutdown_grace: Duration::from_secs(10),
            public_rate: RateLimit::default(),
            remediation: RemediationConfig::default(),
            watch: None,
            header_timeout: Duration::from_secs(30),
            upload_min_rate: MinRate::default(),
            sign_in_limit: default_sign_in_limit(),
            public_url: None,
            trusted_proxies: Vec::new(),
        }
    }
}

/// Ten wrong tokens at once, then ten a minute, per client address.
pub fn default_sign_in_limit() -> RateLimit {
    RateLimit {
        burst: 10,
        per_second: 10.0 / 60.0,
    }
}

/// Why the service could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot start: {0}")]
    Start(String),
    // The cause is in the message, not a `source`: printed with the chain, it came twice.
    #[error("cannot listen on {addr}: {cause}{}", listen_hint(cause))]
    Listen {
        addr: SocketAddr,
        cause: std::io::Error,
    },
}

/// What to do about a port that cannot be had.
fn listen_hint(error: &std::io::Error) -> &'static str {
    match error.kind() {
        std::io::ErrorKind::AddrInUse => {
            " (another program listens there: stop it or choose another address with --listen)"
        }
        std::io::ErrorKind::PermissionDenied => {
            " (ports below 1024 need privileges: choose another with --listen)"
        }
        _ => "",
    }
}

/// A running service.
#[derive(Debug)]
pub struct Service {
    /// The address it listens on (the port chosen when 0 was asked).
    pub addr: SocketAddr,
    /// The token to print: made now, or made at an earlier start and not used to sign
    /// in yet (never the environment's).
    pub unused_token: Option<String>,
    state: AppState,
    grace: Duration,
    stop: Option<oneshot::Sender<()>>,
    server: JoinHandle<std::io::Result<()>>,
}

/// Starts the service on the current tokio runtime.
pub async fn start(config: ServeConfig) -> Result<Service, ServeError> {
    let listen_error = |cause| ServeError::Listen {
        addr: config.listen,
        cause,
    };
    // First: a start that cannot listen makes nothing, the token included.
    let listener = tokio::net::TcpListener::bind(config.listen)
        .await
        .map_err(listen_error)?;
    let addr = listener.local_addr().map_err(listen_error)?;
    let data = config.data.clone();
    let sqlite = tokio::task::spawn_blocking(move || SqliteStore::open(&data))
        .await
        .map_err(|e| ServeError::Start(e.to_string()))??;
    let sqlite = Arc::new(sqlite);
    let store: Arc<dyn Store> = match &config.store_url {
        // The recovery journal of remediations stays in the SQLite file of the shared
        // folder; analyses, sessions and the queue are PostgreSQL's.
        Some(url) => {
            let (url, data) = (url.clone(), config.data.clone());
            let remote = config.remote_blobs.clone();
            let postgres = tokio::task::spawn_blocking(move || {
                let store = PgStore::open(&url, &data)?;
                Ok::<_, ServeError>(match remote {
                    Some(remote) => store.with_remote_blobs(
                        crate::blobs::open(&remote)
                            .map_err(|e| ServeError::Start(format!("--blobs: {e}")))?,
                    ),
                    None => store,
                })
            })
            .await
            .map_err(|e| ServeError::Start(e.to_string()))??;
            Arc::new(postgres)
        }
        None => {
            sweep_orphans(sqlite.as_ref());
            sqlite.clone()
        }
    };
    repair_recoveries(&sqlite);
    let (token, source) = load_or_create_token(config.token.clone(), store.paths())?;
    let token_hash = hash_secret(&token);
    let used = token_used(store.paths(), &token_hash)?;
    let unused_token = (source != TokenSource::Environment && !used).then(|| token.clone());
    let token_use = Arc::new(TokenUse::new(
        store.paths().clone(),
        token_hash.clone(),
        used,
    ));
    let cache = Arc::new(AnalysisCache::new(4));
    let jobs = JobRunner::start(store.clone(), cache.clone(), config.jobs.clone())?;
    let metrics = Arc::new(Metrics::default());
    let trigger = service_trigger(&config, &sqlite, &metrics);
    let live = match config.watch.clone() {
        Some(watch) => Some(
            LiveWatch::start(watch, trigger.clone())
                .await
                .map_err(ServeError::Start)?,
        ),
        None => None,
    };
    let state = AppState {
        store,
        token_hash: token_hash.into(),
        metrics,
        jobs,
        cache,
        searchers: Arc::new(super::api::search::Searchers::with_cache_bytes(
            config.index_cache_bytes,
        )),
        max_upload: config.max_upload,
        uploads: Arc::new(tokio::sync::Semaphore::new(config.max_uploads.max(1))),
        upload_rate: config.upload_min_rate,
        max_queued: config.max_queued,
        shares: Arc::new(crate::share::ShareViews::new(4)),
        public_limit: Arc::new(RateLimiter::new(config.public_rate)),
        sign_in_limit: Arc::new(RateLimiter::new(config.sign_in_limit)),
        clients: Arc::new(ClientPolicy::new(
            config.public_url.as_ref(),
            config.trusted_proxies.clone(),
        )),
        token_use,
        remediations: Arc::new(Remediations::new(
            config.remediation.clone(),
            sqlite,
            trigger,
        )),
        live,
    };
    let (stop, stopped) = oneshot::channel::<()>();
    let app = super::router(state.clone());
    let header_timeout = config.header_timeout;
    let server = tokio::spawn(async move {
        super::listen::serve_until(listener, app, header_timeout, async move {
            let _ = stopped.await;
        })
        .await;
        Ok(())
    });
    tracing::info!(%addr, "evacdoc serving");
    Ok(Service {
        addr,
        unused_token,
        state,
        grace: config.shutdown_grace,
        stop: Some(stop),
        server,
    })
}

impl Service {
    /// The shared state (for tests and embedding).
    pub fn state(&self) -> &AppState {
        &self.state
    }

    /// Stops taking requests, lets the running ones end, gives running jobs their grace
    /// period and queues again those still running.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        if let Some(live) = &self.state.live {
            live.stop();
        }
        self.state.jobs.shutdown(self.grace).await;
        match tokio::time::timeout(Duration::from_secs(10), &mut self.server).await {
            Ok(Ok(Ok(()))) => {}
            Ok(Ok(Err(e))) => tracing::error!(error = %e, "server stopped with an error"),
            Ok(Err(e)) => tracing::error!(error = %e, "server task failed"),
            Err(_) => tracing::warn!("requests still open after 10 s: stopping anyway"),
        }
    }
}

/// The service's trigger: the watcher's policy (notify only without one), decisions to
/// the audit log and `/metrics`, remediations by the executor journaled in the service's
/// store. Its guards also hold the remediations asked for through the API.
fn service_trigger(
    config: &ServeConfig,
    sqlite: &Arc<SqliteStore>,
    metrics: &Metrics,
) -> Arc<Trigger> {
    let policy = config
        .watch
        .as_ref()
        .and_then(|w| w.policy.clone())
        .unwrap_or_default();
    let remediator: Arc<dyn Remediator> = Arc::new(ExecutorRemediator {
        journal: Some(sqlite.clone()),
        options: config.remediation.options.clone(),
        config_file: config.remediation.config_file.clone(),
    });
    let store: Arc<dyn Store> = sqlite.clone();
    Arc::new(Trigger::new(
        policy,
        Some(store),
        Some(remediator),
        metrics.trigger.clone(),
    ))
}

/// Recoveries a stop or a crash left running are closed `failed`, as `recover` does.
fn repair_recoveries(store: &SqliteStore) {
    match store.repair_interrupted_recoveries() {
        Ok(ids) => {
            for id in ids {
                tracing::warn!(
                    recovery = id,
                    "a recovery had been interrupted; now marked failed"
                );
            }
        }
        Err(error) => tracing::warn!(%error, "cannot repair interrupted recoveries"),
    }
}

/// Removes analysis folders without a row: what an upload cut short by a crash left (its
/// row is written only once the upload is whole). Nothing else is touched.
fn sweep_orphans(store: &dyn Store) {
    let Ok(entries) = std::fs::read_dir(store.paths().analyses_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if crate::store::validate_id(&name).is_err() {
            continue;
        }
        if let Ok(None) = store.get_analysis(&name) {
            match std::fs::remove_dir_all(entry.path()) {
                Ok(()) => tracing::info!(folder = %name, "removed an upload a stop cut short"),
                Err(e) => {
                    tracing::warn!(folder = %name, error = %e, "cannot remove an unfinished upload")
                }
            }
        }
    }
}
