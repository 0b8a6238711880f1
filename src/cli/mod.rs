//! Command-line interface: one file per subcommand.

mod analyze;
mod limits;
mod parse;
mod recover;
mod recovery_run;
mod redact;
mod reenable;
mod remediate;
mod search;
mod serve;
mod serve_connections;
mod sim;
mod store_args;
mod timeline;
mod triage;
mod watch;
mod worker;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// evacdoc: find out why a Masakari instance-HA recovery went wrong, from the logs.
#[derive(Debug, Parser)]
#[command(name = "evacdoc", version, about, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Find what went wrong in the Masakari recoveries of one or more bundles: findings
    /// with evidence lines, the config behind them, known bugs and the fix.
    Analyze(analyze::AnalyzeArgs),
    /// Print each record of a log or config file as evacdoc reads it.
    Parse(parse::ParseArgs),
    /// Finish a host recovery safely: plan every API call (dry run by default), then with
    /// --apply make Nova see the host down, disable it and evacuate its instances,
    /// journaled in the store. Exit 1 when the run failed or was refused.
    Recover(recover::RecoverArgs),
    /// Run the recovery a finding asks for (evacuate-400-race, pending-after-finished,
    /// bfv-evacuation-delay): the bundle is analyzed, the finding's host and instances
    /// recovered as `recover` does.
    Remediate(remediate::RemediateArgs),
    /// A copy of the bundle safe to post publicly: host names, addresses, user and
    /// project names and ids replaced by consistent pseudonyms, secrets removed.
    Redact(redact::RedactArgs),
    /// The web service: upload bundles, see findings, timelines and search in a browser
    /// or through the JSON API.
    Serve(Box<serve::ServeArgs>),
    /// A small OpenStack (Keystone, Nova, Cinder) on one loopback port, from a scenario
    /// file: scripted host deaths, volumes, faults, and the logs it writes.
    Sim(sim::SimArgs),
    /// Every record of one or more bundles indexed in the same pass as the analysis,
    /// then searched: words, phrases, ids, levels, hosts and services, in UTC order.
    Search(search::SearchArgs),
    /// The interleaved story of an instance, request, notification or host across the
    /// hosts and services of one or more bundles.
    Timeline(timeline::TimelineArgs),
    /// The known bugs a bundle matches, with confidence and reasons, as JSON for a triage
    /// bot or Markdown; `--bug-template` writes a complete bug report.
    Triage(triage::TriageArgs),
    /// Follow live logs and folders (`tail -F`), print each finding once its evidence is
    /// complete, and act on it by a policy: signed webhooks, or remediation.
    Watch(watch::WatchArgs),
    /// Run analyses from a shared PostgreSQL store (`--store`, `--blobs`), for API
    /// processes started with `serve --store … --jobs 0`.
    Worker(worker::WorkerArgs),
}

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Analyze(args) => analyze::run(&args),
        Command::Parse(args) => parse::run(&args),
        Command::Recover(args) => recover::run(&args),
        Command::Redact(args) => redact::run(&args),
        Command::Remediate(args) => remediate::run(&args),
        Command::Serve(args) => serve::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Sim(args) => sim::run(&args),
        Command::Timeline(args) => timeline::run(&args),
        Command::Triage(args) => triage::run(&args),
        Command::Watch(args) => watch::run(&args),
        Command::Worker(args) => worker::run(&args),
    }
}
