//! Starting the simulator: bind, build the cloud, serve, and tick time forward.

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

use super::api::context::{Shared, SimState};
use super::api::router;
use super::cloud::state::Cloud;
use super::error::SimError;
use super::logs::Logs;
use super::scenario::Scenario;

/// How often (real time) evacuations are moved on.
const TICK: Duration = Duration::from_millis(20);

/// A running simulator.
#[derive(Debug)]
pub struct RunningSim {
    /// The address it listens on.
    pub addr: SocketAddr,
    /// `http://ADDR`; Keystone is under `/identity`.
    pub base_url: String,
    state: SimState,
    stop: Option<oneshot::Sender<()>>,
    server: JoinHandle<()>,
    ticker: JoinHandle<()>,
}

impl RunningSim {
    /// Keystone's URL, for `auth_url`.
    pub fn auth_url(&self) -> String {
        format!("{}/identity", self.base_url)
    }

    /// The scenario it runs.
    pub fn scenario(&self) -> Scenario {
        self.state.cloud().scenario.clone()
    }

    /// Stops serving and ticking.
    pub async fn shutdown(mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
        self.ticker.abort();
        let _ = self.server.await;
    }
}

/// Starts the simulator of `scenario` on `listen` (port 0 picks one), writing its logs
/// under `log_dir` when given.
pub async fn start(
    scenario: Scenario,
    listen: SocketAddr,
    log_dir: Option<&Path>,
) -> Result<RunningSim, SimError> {
    let listener = tokio::net::TcpListener::bind(listen)
        .await
        .map_err(|source| SimError::Listen {
            addr: listen,
            source,
        })?;
    let addr = listener.local_addr().map_err(|source| SimError::Listen {
        addr: listen,
        source,
    })?;
    let logs = match log_dir {
        Some(dir) => {
            let computes: Vec<String> = scenario.hosts.iter().map(|h| h.name.clone()).collect();
            Logs::open(dir, &scenario.nova.controller, &computes)?
        }
        None => Logs::default(),
    };
    let base_url = format!("http://{addr}");
    let state: SimState = Arc::new(Shared::new(Cloud::new(scenario, logs), base_url.clone()));
    let app = router(state.clone());
    let (stop, stopped) = oneshot::channel::<()>();
    let server = tokio::spawn(async move {
        let serve = axum::serve(listener, app).with_graceful_shutdown(async {
            let _ = stopped.await;
        });
        if let Err(error) = serve.await {
            tracing::warn!(%error, "the simulator stopped serving");
        }
    });
    let ticking = state.clone();
    let ticker = tokio::spawn(async move {
        let mut interval = tokio::time::interval(TICK);
        loop {
            interval.tick().await;
            let mut cloud = ticking.cloud();
            let now = cloud.now();
            cloud.advance(now);
        }
    });
    Ok(RunningSim {
        addr,
        base_url,
        state,
        stop: Some(stop),
        server,
        ticker,
    })
}
