//! The `evacdoc` command: parse arguments, run the subcommand, map errors to exit codes.
//!
//! Exit codes: 0 ran, 1 a `--fail-on` threshold was met, 2 usage or input error with a
//! one-line message on stderr naming the file and the reason. The code map is in the
//! repository's ARCHITECTURE.md.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    init_logging();
    let args = cli::Cli::parse();
    let result = cli::run(args);
    log_peak_memory();
    match result {
        Ok(code) => code,
        Err(error) => {
            // A closed pipe (`evacdoc parse big.log | head`) is not an error.
            if is_broken_pipe(&error) {
                return ExitCode::SUCCESS;
            }
            let _ = writeln!(std::io::stderr(), "evacdoc: {error:#}");
            ExitCode::from(2)
        }
    }
}

/// The run's peak resident memory, with `EVACDOC_LOG=evacdoc::memory=info` (the
/// hostile-input tests hold `analyze` to a bound with it).
fn log_peak_memory() {
    if let Some(peak) = evacdoc::memory::peak_rss_mb() {
        tracing::info!(target: "evacdoc::memory", peak_rss_mb = peak, "peak resident memory of the run");
    }
}

/// Diagnostics on stderr when `EVACDOC_LOG` asks for them (`EVACDOC_LOG=debug`,
/// `EVACDOC_LOG=evacdoc=info`); nothing otherwise.
fn init_logging() {
    let Ok(filter) = tracing_subscriber::EnvFilter::try_from_env("EVACDOC_LOG") else {
        return;
    };
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .try_init();
}

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
