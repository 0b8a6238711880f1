//! `evacdoc sim --scenario FILE [--listen 127.0.0.1:PORT] [--log-dir DIR]`: a small
//! OpenStack (Keystone, Nova, Cinder) on one loopback port, for demos and tests of the
//! recovery executor; `--masakari HOST` also plays Masakari's host-failure flow against
//! it, writing Masakari's engine log beside the simulator's.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use anyhow::Context as _;
use clap::Args;
use evacdoc::recovery::openstack::{ConnectOptions, OpenStack};
use evacdoc::sim::clouds_yaml::clouds_yaml;
use evacdoc::sim::masakari::{EngineLog, MasakariTimings, masakari_host_recovery};
use evacdoc::sim::{Scenario, start};

#[derive(Debug, Args)]
pub struct SimArgs {
    /// The scenario (TOML): credentials, Nova settings, hosts, instances, timings,
    /// faults. Examples in samples/sim/.
    #[arg(long)]
    scenario: PathBuf,
    /// Address to listen on (port 0 picks a free one).
    #[arg(long, default_value = "127.0.0.1:0")]
    listen: SocketAddr,
    /// Where to write the logs (Apache access logs, nova-api, conductor, compute), one
    /// folder per host, as `evacdoc analyze` reads them.
    #[arg(long)]
    log_dir: Option<PathBuf>,
    /// Also write the clouds.yaml entry (`evacdoc-sim`) to this file.
    #[arg(long, value_name = "FILE")]
    clouds_yaml: Option<PathBuf>,
    /// Once serving, play Masakari's host-failure flow for HOST against the simulator
    /// (disable, sleep --masakari-wait, evacuate 3 at a time, unlock), its engine log
    /// written under --log-dir (controller-0/var/log/masakari/masakari-engine.log).
    #[arg(long, value_name = "HOST", requires = "log_dir")]
    masakari: Option<String>,
    /// Masakari's wait_period_after_service_update, in seconds: shorter than Nova's
    /// service_down_time, the evacuations race Nova and fail with HTTP 400.
    #[arg(long, default_value_t = 180.0, value_name = "SECS")]
    masakari_wait: f64,
}

pub fn run(args: &SimArgs) -> anyhow::Result<ExitCode> {
    let scenario = Scenario::load(&args.scenario)?;
    let masakari_wait = Duration::try_from_secs_f64(args.masakari_wait)
        .map_err(|_| anyhow::anyhow!("--masakari-wait: {} is not seconds", args.masakari_wait))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let sim = start(scenario, args.listen, args.log_dir.as_deref()).await?;
        println!("evacdoc sim: serving on {}", sim.base_url);
        println!("evacdoc sim: Keystone at {}", sim.auth_url());
        if let Some(dir) = &args.log_dir {
            println!("evacdoc sim: logs under {}", dir.display());
        }
        let yaml = clouds_yaml(&sim.scenario(), &sim.auth_url());
        if let Some(file) = &args.clouds_yaml {
            std::fs::write(file, &yaml)
                .with_context(|| format!("{}: cannot write clouds.yaml", file.display()))?;
            println!("evacdoc sim: clouds.yaml written to {}", file.display());
        }
        println!("\n# clouds.yaml (then: export OS_CLOUD=evacdoc-sim)");
        print!("{yaml}");
        if let (Some(host), Some(log_dir)) = (&args.masakari, &args.log_dir) {
            // The client reads a config file by its extension.
            let config = tempfile::Builder::new()
                .prefix("evacdoc-sim-clouds")
                .suffix(".yaml")
                .tempfile()
                .context("cannot make a clouds.yaml for masakari's flow")?;
            std::fs::write(config.path(), &yaml)
                .with_context(|| format!("{}: cannot write", config.path().display()))?;
            let cloud = OpenStack::connect_with_env(
                &ConnectOptions {
                    cloud: Some("evacdoc-sim".into()),
                    config_file: Some(config.path().to_path_buf()),
                },
                &BTreeMap::new(),
            )
            .await
            .context("masakari: cannot connect to the simulator")?;
            let notification = uuid::Uuid::new_v4().hyphenated().to_string();
            let log = EngineLog::new(log_dir, "controller-0", &notification);
            eprintln!(
                "evacdoc sim: masakari: notification {notification}: recovering {host} \
                 (waiting {masakari_wait:?} after disabling it)"
            );
            let timings = MasakariTimings {
                wait_after_disable: masakari_wait,
                ..MasakariTimings::defaults_at(1.0)
            };
            let outcome = masakari_host_recovery(&cloud, host, timings, Some(&log)).await;
            let left = outcome.iter().filter(|(_, back)| back.is_none()).count();
            eprintln!(
                "evacdoc sim: masakari: {} of {} instances evacuated, {left} left on {host}; \
                 engine log {}",
                outcome.len() - left,
                outcome.len(),
                log.path().display()
            );
        }
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("evacdoc sim: stopping");
        sim.shutdown().await;
        Ok(ExitCode::SUCCESS)
    })
}
