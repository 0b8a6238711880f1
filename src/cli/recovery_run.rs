//! What `recover` and `remediate` share: the cloud and executor flags, connecting, the
//! plan, the journaled run with its progress, and the report.

use std::io::IsTerminal as _;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

use anyhow::Context as _;
use clap::{Args, ValueEnum};
use evacdoc::recovery::down_time::{self, DownTime};
use evacdoc::recovery::openstack::{ConnectOptions, OpenStack};
use evacdoc::recovery::{
    Observer, Plan, PlanError, Ran, RecoveryOptions, RecoveryReport, RetryPolicy, RunError,
    Selection, Target, run,
};
use evacdoc::store::{MoveStatus, RecoveryJournal, RecoveryStatus, SqliteStore};
use indicatif::{ProgressBar, ProgressStyle};

/// How a recovery is reported.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum RecoveryFormat {
    Text,
    Json,
}

/// The flags of `recover` and `remediate`.
#[derive(Debug, Args)]
pub struct RecoveryArgs {
    /// The cloud's entry in clouds.yaml (else OS_CLOUD, else the OS_* variables).
    #[arg(long)]
    pub(super) cloud: Option<String>,
    /// Act. Without it the plan is printed (every API call, in order) and nothing changes.
    #[arg(long)]
    pub(super) apply: bool,
    /// The host is powered off or isolated: if Nova still sees its compute service up,
    /// force it down instead of waiting (never evacuate from a host Nova sees up).
    #[arg(long)]
    host_fenced: bool,
    /// Output format.
    #[arg(long, value_enum, default_value_t = RecoveryFormat::Text)]
    pub(super) format: RecoveryFormat,
    /// The data folder whose store journals the recovery (the same as `serve --data`).
    #[arg(long, default_value = "./evacdoc-data")]
    data: PathBuf,
    /// Move only the instances with HA_Enabled=True metadata (Masakari's
    /// evacuate_all_instances = False).
    #[arg(long)]
    ha_only: bool,
    /// Leave instances in ERROR state where they are (Masakari's
    /// ignore_instances_in_error_state).
    #[arg(long)]
    ignore_error_instances: bool,
    /// Moves at once at most.
    #[arg(long, default_value_t = 8, value_parser = clap::value_parser!(u16).range(1..=256))]
    parallel: u16,
    /// Nova's service_down_time (seconds): an unfenced host is waited for this long, plus
    /// --down-margin, to be seen down. Default: the value of --nova-conf, else of the
    /// bundle's nova.conf (`remediate`), else Nova's default (60).
    #[arg(long)]
    service_down_time: Option<f64>,
    /// The cloud's nova.conf, read for its service_down_time (Nova's API does not give it).
    #[arg(long)]
    nova_conf: Option<PathBuf>,
    /// Seconds added to --service-down-time before refusing.
    #[arg(long, default_value_t = 20.0)]
    down_margin: f64,
    /// Seconds one instance may take from evacuate to its state on another host.
    #[arg(long, default_value_t = 600.0)]
    rebuild_timeout: f64,
    /// Seconds between two reads while waiting.
    #[arg(long, default_value_t = 2.0)]
    poll_interval: f64,
    /// Refuse to evacuate when more than this share (%) of the nova-compute services is
    /// down or forced down, the failed host included (InstanceHA's THRESHOLD).
    #[arg(long, default_value_t = 50, value_parser = clap::value_parser!(u8).range(0..=100))]
    max_down_percent: u8,
    /// Tries in all for a call that fails with 5xx or no connection.
    #[arg(long, default_value_t = 5)]
    retries: u32,
    /// Seconds before the first retry (doubling, with jitter).
    #[arg(long, default_value_t = 0.5)]
    retry_delay: f64,
}

fn seconds(flag: &str, value: f64) -> anyhow::Result<Duration> {
    Duration::try_from_secs_f64(value)
        .map_err(|_| anyhow::anyhow!("--{flag}: {value} is not a number of seconds"))
}

impl RecoveryArgs {
    /// Nova's service_down_time: the flag, else --nova-conf, else the bundle's, else 60.
    pub(super) fn down_time(&self, bundle: Option<(Duration, String)>) -> anyhow::Result<DownTime> {
        if let Some(value) = self.service_down_time {
            return Ok(DownTime {
                value: seconds("service-down-time", value)?,
                source: "--service-down-time".to_owned(),
            });
        }
        if let Some(path) = &self.nova_conf {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("--nova-conf {}: cannot read it", path.display()))?;
            let value = down_time::from_nova_conf(&text).with_context(|| {
                format!(
                    "--nova-conf {}: no [DEFAULT] service_down_time in it; pass \
                     --service-down-time",
                    path.display()
                )
            })?;
            return Ok(DownTime {
                value,
                source: format!("{} [DEFAULT] service_down_time", path.display()),
            });
        }
        Ok(down_time::bundle_or_default(bundle))
    }

    pub(super) fn options(
        &self,
        only_instances: Option<std::collections::BTreeSet<String>>,
        down: &DownTime,
    ) -> anyhow::Result<RecoveryOptions> {
        let retry_delay = seconds("retry-delay", self.retry_delay)?;
        Ok(RecoveryOptions {
            selection: Selection {
                all_instances: !self.ha_only,
                ignore_error_instances: self.ignore_error_instances,
                only_instances,
                ..Selection::default()
            },
            host_fenced: self.host_fenced,
            parallelism: usize::from(self.parallel),
            service_down_time: down.value,
            down_margin: seconds("down-margin", self.down_margin)?,
            rebuild_timeout: seconds("rebuild-timeout", self.rebuild_timeout)?,
            poll_interval: seconds("poll-interval", self.poll_interval)?,
            retry: RetryPolicy {
                attempts: self.retries.max(1),
                base_delay: retry_delay,
                max_delay: retry_delay.saturating_mul(16),
                ..RetryPolicy::default()
            },
            max_down_percent: self.max_down_percent,
            ..RecoveryOptions::default()
        })
    }
}

/// Plans the recovery of `host` and, with `--apply`, runs it journaled; prints the report.
/// Exit code 0 when planned or finished, 1 when the run failed or was refused.
pub fn recover(
    args: &RecoveryArgs,
    host: &str,
    only_instances: Option<std::collections::BTreeSet<String>>,
    source: &str,
    bundle_down_time: Option<(Duration, String)>,
) -> anyhow::Result<ExitCode> {
    let down = args.down_time(bundle_down_time)?;
    let options = args.options(only_instances.clone(), &down)?;
    if !args.host_fenced {
        // The wait before refusing an unfenced host rests on it: say where it came from.
        eprintln!(
            "evacdoc: Nova's service_down_time: {} s ({})",
            down.value.as_secs_f64(),
            down.source
        );
    }
    let target = Target {
        host: host.to_owned(),
        only_instances,
        source: source.to_owned(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let cloud = OpenStack::connect(ConnectOptions {
            cloud: args.cloud.clone(),
            ..ConnectOptions::default()
        })
        .await
        .context("cannot connect to the cloud")?;
        let store = if args.apply {
            let store = SqliteStore::open(&args.data)
                .with_context(|| format!("{}: cannot open the store", args.data.display()))?;
            for id in store.repair_interrupted_recoveries()? {
                eprintln!("evacdoc: recovery {id} had been interrupted; it is now marked failed");
            }
            Some(store)
        } else {
            None
        };
        let progress = Progress::default();
        let ran = run(&target, &cloud, store.as_ref(), &options, &progress).await;
        progress.finish();
        let (planned, ended) = match ran {
            Ok(Ran::Planned(planned)) => {
                print(args.format, &RecoveryReport::planned(&planned, source))?;
                return Ok(ExitCode::SUCCESS);
            }
            Ok(Ran::Applied { plan, recovery }) => (plan, recovery),
            // A guard's refusal is the cloud's state, not a usage error: exit 1, as a
            // refused run.
            Err(RunError::Plan {
                host,
                error: PlanError::Guard(refused),
            }) => {
                eprintln!("evacdoc: recovery of {host} {refused}");
                return Ok(ExitCode::from(1));
            }
            Err(RunError::Plan { host, error }) => {
                return Err(error).with_context(|| format!("cannot plan the recovery of {host}"));
            }
            Err(RunError::Journal(error)) => return Err(error.into()),
        };
        print(args.format, &RecoveryReport::ran(&planned, &ended))?;
        Ok(if ended.status == RecoveryStatus::Finished {
            ExitCode::SUCCESS
        } else {
            ExitCode::from(1)
        })
    })
}

fn print(format: RecoveryFormat, report: &RecoveryReport) -> anyhow::Result<()> {
    match format {
        RecoveryFormat::Json => println!("{}", serde_json::to_string_pretty(report)?),
        RecoveryFormat::Text => print!("{}", report.text()),
    }
    Ok(())
}

/// Progress on stderr: a bar on a terminal once a plan is applied, a line per event
/// otherwise.
#[derive(Default)]
struct Progress {
    bar: OnceLock<ProgressBar>,
    done: Mutex<u64>,
}

impl Progress {
    fn line(&self, text: &str) {
        match self.bar.get() {
            Some(bar) => bar.println(text),
            None => eprintln!("evacdoc: {text}"),
        }
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.get() {
            bar.finish_and_clear();
        }
    }
}

impl Observer for Progress {
    fn applying(&self, plan: &Plan) {
        if !std::io::stderr().is_terminal() {
            return;
        }
        let bar = ProgressBar::new(plan.moves.len() as u64);
        if let Ok(style) =
            ProgressStyle::with_template("{spinner} [{elapsed}] {bar:30} {pos}/{len} {msg}")
        {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(200));
        let _ = self.bar.set(bar);
    }

    fn lock_released(&self, recovery: i64, instance: &str) {
        self.line(&format!(
            "released the lock recovery {recovery} left on {instance}"
        ));
    }

    fn host_step(&self, message: &str) {
        self.line(message);
    }

    fn move_started(&self, _instance: &str, name: &str) {
        if let Some(bar) = self.bar.get() {
            bar.set_message(format!("moving {name}"));
        }
    }

    fn move_ended(&self, instance: &str, name: &str, status: MoveStatus, message: &str) {
        let mut done = self
            .done
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        *done += 1;
        if let Some(bar) = self.bar.get() {
            bar.set_position(*done);
        }
        self.line(&format!("{name} ({instance}) {status}: {message}"));
    }
}
