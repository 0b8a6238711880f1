//! `evacdoc serve [--listen 127.0.0.1:8080] [--data ./evacdoc-data]`: the web service
//! (upload, findings, timelines, search) on an embedded store.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use evacdoc::http::live::WatchConfig;
use evacdoc::http::share::limit::RateLimit;
use evacdoc::http::{ServeConfig, start};
use evacdoc::jobs::JobConfig;
use evacdoc::trigger::Policy;
use evacdoc::watch::WatchOptions;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// Address to listen on. Loopback by default: put a TLS proxy in front to serve others.
    #[arg(long, default_value = "127.0.0.1:8080")]
    listen: SocketAddr,
    /// Where analyses, uploads, indexes and the token are kept.
    #[arg(long, default_value = "./evacdoc-data")]
    data: PathBuf,
    /// The largest upload accepted, in bytes (default 8 GiB).
    #[arg(long, default_value_t = 8 << 30)]
    max_upload: u64,
    /// Uploads received at once; more are answered 429 with Retry-After.
    #[arg(long, default_value_t = 4)]
    max_uploads: usize,
    /// Analyses waiting in the queue; past them uploads are answered 503 with Retry-After.
    #[arg(long, default_value_t = 64)]
    max_queued: u64,
    /// Analyses run at once; the rest wait in the queue. With --store, 0 runs none here
    /// (`evacdoc worker` processes run them).
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    #[command(flatten)]
    store: super::store_args::StoreArgs,
    /// With an object store (--blobs s3://… or swift://…): the bytes of fetched search
    /// indexes kept in --data (default 4 GiB); the least recently used go past it.
    #[arg(long, value_name = "BYTES", default_value_t = evacdoc::jobs::remote::INDEX_CACHE_BYTES)]
    index_cache: u64,
    /// Seconds running analyses may go on after a stop is asked for (then they are
    /// queued again for the next start).
    #[arg(long, default_value_t = 10)]
    shutdown_grace: u64,
    /// Requests a client address may make at once to public share links (`/s/…`).
    #[arg(long, default_value_t = 60)]
    share_burst: u32,
    /// Requests a second a client address may make to share links after its burst.
    #[arg(long, default_value_t = 1.0)]
    share_rate: f64,
    /// A cloud (clouds.yaml entry) remediations of findings may act on; repeat for more,
    /// the first is the default. Without one the service plans and applies nothing.
    #[arg(long = "cloud", value_name = "NAME")]
    clouds: Vec<String>,
    /// Follow these live logs or folders as `evacdoc watch` does and show their findings
    /// at /watch; repeat for more.
    #[arg(long = "watch", value_name = "PATH")]
    watch: Vec<PathBuf>,
    /// What to do with the watched findings (TOML, as for `evacdoc watch`; notify only
    /// without it).
    #[arg(long, value_name = "FILE", requires = "watch")]
    policy: Option<PathBuf>,
    /// Read the watched files there at the start from their beginning.
    #[arg(long, requires = "watch")]
    watch_from_start: bool,
    /// Seconds a client may take to send a request's headers (slower ones are cut off).
    #[arg(long, default_value_t = 30)]
    header_timeout: u64,
    #[command(flatten)]
    connections: super::serve_connections::ConnectionArgs,
    #[command(flatten)]
    limits: super::limits::LimitArgs,
}

pub fn run(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(serve(args))
}

async fn serve(args: &ServeArgs) -> anyhow::Result<ExitCode> {
    let shared = args.store.shared()?;
    let data = shared.as_ref().map_or_else(
        || args.data.clone(),
        |shared| shared.blobs.data_folder(&args.data),
    );
    let mut config = ServeConfig::new(args.listen, data.clone());
    config.max_upload = args.max_upload;
    config.max_uploads = args.max_uploads;
    config.max_queued = args.max_queued;
    config.jobs = JobConfig {
        workers: args.jobs.max(1),
        limits: args.limits.limits(),
        ..JobConfig::default()
    };
    if let Some(shared) = &shared {
        config.store_url = Some(shared.url.clone());
        config.remote_blobs = shared.blobs.remote();
        config.index_cache_bytes = args.index_cache;
        config.jobs.workers = args.jobs;
        config.jobs.lease = Some(shared.lease);
    }
    config.token = std::env::var("EVACDOC_TOKEN").ok();
    config.shutdown_grace = Duration::from_secs(args.shutdown_grace);
    config.header_timeout = Duration::from_secs(args.header_timeout.max(1));
    args.connections.apply(&mut config);
    config.public_rate = RateLimit {
        burst: args.share_burst,
        per_second: args.share_rate,
    };
    config.remediation.clouds = args.clouds.clone();
    if !args.watch.is_empty() {
        let policy = args.policy.as_deref().map(Policy::load).transpose()?;
        config.watch = Some(WatchConfig {
            paths: args.watch.clone(),
            options: WatchOptions {
                from_start: args.watch_from_start,
                ..WatchOptions::default()
            },
            policy,
        });
    }
    let service = start(config)
        .await
        .with_context(|| format!("{}: cannot start the service", data.display()))?;
    if let Some(token) = &service.unused_token {
        // Kept (mode 0600) in the data folder's `token` file; printed at every start
        // until someone signs in with it.
        eprintln!("evacdoc: access token (sign in with it; shown until first used): {token}");
    }
    eprintln!("evacdoc: serving on http://{}/", service.addr);
    match &shared {
        None => eprintln!("evacdoc: data in {}", args.data.display()),
        Some(shared) => eprintln!(
            "evacdoc: store {}, files in {}",
            redact_password(&shared.url),
            shared.blobs
        ),
    }
    if !args.watch.is_empty() {
        eprintln!(
            "evacdoc: watching {} (live findings at http://{}/watch)",
            args.watch
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", "),
            service.addr
        );
    }
    if !args.clouds.is_empty() {
        eprintln!(
            "evacdoc: remediations may act on: {}",
            args.clouds.join(", ")
        );
    }
    wait_for_stop().await;
    eprintln!(
        "evacdoc: stopping (running analyses get {} s)",
        args.shutdown_grace
    );
    service.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

/// A store URL as printed: its password replaced.
fn redact_password(url: &str) -> String {
    match url::Url::parse(url) {
        Ok(mut parsed) if parsed.password().is_some() => {
            let _ = parsed.set_password(Some("***"));
            parsed.to_string()
        }
        _ => url.to_owned(),
    }
}

/// Ctrl-C or SIGTERM.
pub(super) async fn wait_for_stop() {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        let mut term =
            match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
                Ok(term) => term,
                Err(_) => {
                    let _ = ctrl_c.await;
                    return;
                }
            };
        tokio::select! {
            _ = ctrl_c => {}
            _ = term.recv() => {}
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
}
