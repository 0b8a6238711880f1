//! Command-line interface: one file per subcommand.

mod parse;
mod timeline;

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
    /// Print each record of a log or config file as evacdoc reads it.
    Parse(parse::ParseArgs),
    /// The interleaved story of an instance, request, notification or host across the
    /// hosts and services of one or more bundles.
    Timeline(timeline::TimelineArgs),
}

/// Runs the chosen subcommand.
pub fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Parse(args) => parse::run(&args),
        Command::Timeline(args) => timeline::run(&args),
    }
}
