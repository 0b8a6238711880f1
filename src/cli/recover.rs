//! `evacdoc recover host HOST [--cloud NAME] [--apply] [--host-fenced] [--format text|json]
//! [--data DIR]`: finish a host recovery Masakari left undone, safely.

use std::process::ExitCode;

use clap::{Args, Subcommand};

use super::recovery_run::{RecoveryArgs, recover};

#[derive(Debug, Args)]
pub struct RecoverArgs {
    #[command(subcommand)]
    target: Target,
}

#[derive(Debug, Subcommand)]
enum Target {
    /// Every instance of a failed compute host: Nova made to see it down (forced down
    /// when fenced, else waited for, else refused), disabled, then each instance locked,
    /// its volume's dead attachment cleared, evacuated, followed and unlocked.
    Host(HostArgs),
}

#[derive(Debug, Args)]
struct HostArgs {
    /// The failed compute host, as Nova names it.
    host: String,
    #[command(flatten)]
    recovery: RecoveryArgs,
}

pub fn run(args: &RecoverArgs) -> anyhow::Result<ExitCode> {
    match &args.target {
        Target::Host(host) => recover(&host.recovery, &host.host, None, "cli", None),
    }
}
