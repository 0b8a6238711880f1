//! The `evacdoc` command: parse arguments, run the subcommand, map errors to exit codes.
//!
//! Exit codes (ARCHITECTURE.md): 0 ran, 1 a `--fail-on` threshold was met, 2 usage or
//! input error with a one-line message on stderr naming the file and the reason.

mod cli;

use std::io::Write;
use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    match cli::run(args) {
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

fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
