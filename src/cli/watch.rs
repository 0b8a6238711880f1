//! `evacdoc watch PATH... [--policy FILE] [--format text|json]`: follows live logs and
//! folders, prints each finding once its evidence is complete, and acts on it by the
//! policy (notify by default).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use anyhow::Context;
use clap::{Args, ValueEnum};
use evacdoc::detect::{DetectOptions, Finding};
use evacdoc::recovery::RecoveryOptions;
use evacdoc::recovery::remediator::ExecutorRemediator;
use evacdoc::store::{RecoveryJournal, SqliteStore, Store};
use evacdoc::trigger::{Policy, Remediator, Trigger, TriggerCounters};
use evacdoc::watch::{WatchOptions, Watcher};

#[derive(Debug, Args)]
pub struct WatchArgs {
    /// Log files and folders to follow (folders are read as bundles are: hosts,
    /// services, configs).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// What to do with findings (TOML; see samples/watch/policy.toml). Without it every
    /// finding is only printed.
    #[arg(long, value_name = "FILE")]
    policy: Option<PathBuf>,
    /// How findings are printed.
    #[arg(long, value_enum, default_value_t = WatchFormat::Text)]
    format: WatchFormat,
    /// Read the files there at the start from their beginning (else only what is
    /// appended from now on, as `tail -F`).
    #[arg(long)]
    from_start: bool,
    /// How often the files are looked at, in milliseconds.
    #[arg(long, default_value_t = 200)]
    poll_ms: u64,
    /// The service's data folder: trigger decisions go to its audit log.
    #[arg(long, value_name = "DIR")]
    data: Option<PathBuf>,
    /// Time zone for every host's local times, overriding what the inputs say.
    #[arg(long)]
    tz: Option<String>,
    /// A boot-from-volume evacuation slower than this many seconds is a finding.
    #[arg(long, default_value_t = 300)]
    bfv_delay: i64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum WatchFormat {
    Text,
    Json,
}

pub fn run(args: &WatchArgs) -> anyhow::Result<ExitCode> {
    let policy = args.policy.as_deref().map(Policy::load).transpose()?;
    let sqlite = match &args.data {
        Some(dir) => {
            let store = SqliteStore::open(dir)
                .with_context(|| format!("cannot open the store in {}", dir.display()))?;
            // As `recover` does at its start: what a killed run left is closed, and its
            // locks are released by the next remediation.
            for id in store.repair_interrupted_recoveries()? {
                eprintln!("evacdoc: recovery {id} had been interrupted; it is now marked failed");
            }
            Some(Arc::new(store))
        }
        None => None,
    };
    let store: Option<Arc<dyn Store>> = sqlite.clone().map(|s| s as Arc<dyn Store>);
    let journal: Option<Arc<dyn RecoveryJournal>> = sqlite.map(|s| s as Arc<dyn RecoveryJournal>);
    let options = WatchOptions {
        poll: Duration::from_millis(args.poll_ms.max(10)),
        from_start: args.from_start,
        tz: args.tz.clone(),
        detect: DetectOptions {
            bfv_delay_secs: args.bfv_delay,
        },
        ..WatchOptions::default()
    };
    let watcher = Watcher::new(&args.paths, options)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    // Remediations run with the executor's default options, Nova's service_down_time
    // from the watched nova.conf when it sets one; never as if fenced.
    let remediator: Arc<dyn Remediator> = Arc::new(ExecutorRemediator {
        journal,
        options: RecoveryOptions::default(),
        config_file: None,
    });
    let trigger = policy.map(|p| {
        Arc::new(Trigger::new(
            p,
            store,
            Some(remediator),
            Arc::new(TriggerCounters::default()),
        ))
    });
    runtime.block_on(follow(watcher, trigger, args.format))
}

async fn follow(
    watcher: Watcher,
    trigger: Option<Arc<Trigger>>,
    format: WatchFormat,
) -> anyhow::Result<ExitCode> {
    let stop = Arc::new(AtomicBool::new(false));
    let (polling, mut rx) = evacdoc::watch::spawn_polling(watcher, stop.clone());
    let mut actions = tokio::task::JoinSet::new();
    loop {
        tokio::select! {
            handed = rx.recv() => {
                let Some(handed) = handed else { break };
                print_finding(&handed.finding, format)?;
                if let Some(trigger) = &trigger {
                    let trigger = trigger.clone();
                    actions.spawn(async move {
                        let decisions = trigger
                            .handle_from(&handed.finding, handed.service_down_time)
                            .await;
                        for d in decisions {
                            eprintln!(
                                "evacdoc: {} {}: {} ({})",
                                d.action,
                                d.finding,
                                d.outcome.as_str(),
                                d.detail
                            );
                        }
                    });
                }
            }
            _ = tokio::signal::ctrl_c() => break,
        }
    }
    stop.store(true, Ordering::Relaxed);
    // Decisions already started are finished and recorded.
    while actions.join_next().await.is_some() {}
    let _ = polling.await;
    Ok(ExitCode::SUCCESS)
}

fn print_finding(finding: &Finding, format: WatchFormat) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    match format {
        WatchFormat::Json => {
            serde_json::to_writer(&mut out, finding)?;
            writeln!(out)?;
        }
        WatchFormat::Text => {
            writeln!(
                out,
                "{} {}: {}",
                finding.severity.as_str(),
                finding.id,
                finding.title
            )?;
            writeln!(out, "  {}", finding.summary)?;
        }
    }
    out.flush()?;
    Ok(())
}
