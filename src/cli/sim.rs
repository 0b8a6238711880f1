//! `evacdoc sim --scenario FILE [--listen 127.0.0.1:PORT] [--log-dir DIR]`: a small
//! OpenStack (Keystone, Nova, Cinder) on one loopback port, for demos and tests of the
//! recovery executor.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use evacdoc::sim::clouds_yaml::clouds_yaml;
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
}

pub fn run(args: &SimArgs) -> anyhow::Result<ExitCode> {
    let scenario = Scenario::load(&args.scenario)?;
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
        println!("\n# clouds.yaml (then: export OS_CLOUD=evacdoc-sim)");
        print!("{}", clouds_yaml(&sim.scenario(), &sim.auth_url()));
        let _ = tokio::signal::ctrl_c().await;
        eprintln!("evacdoc sim: stopping");
        sim.shutdown().await;
        Ok(ExitCode::SUCCESS)
    })
}
