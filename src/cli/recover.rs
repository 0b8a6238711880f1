//! `evacdoc recover host HOST [--cloud NAME] [--apply] [--host-fenced] [--format text|json]
//! [--data DIR]`: finish a host recovery Masakari left undone, safely; `evacdoc recover
//! enable HOST [--apply]`: give the host back to Nova afterwards.

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
    /// Give a recovered host back to Nova in two steps: unset forced_down, wait for Nova
    /// to see nova-compute up, then enable it if a recovery disabled it. Nova refuses the
    /// first while evacuations from the host are still `done` (nova-compute must start
    /// there first): said, with the records. Without --apply, says what it would do.
    Enable(HostArgs),
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
        Target::Enable(host) => super::reenable::enable(&host.recovery, &host.host),
    }
}
