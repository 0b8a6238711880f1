//! `evacdoc redact PATH... --out DIR|FILE.tar.gz [--map FILE]`: a copy of the bundle safe
//! to post publicly, with consistent pseudonyms; the map stays private.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use evacdoc::redact::{RedactOptions, redact_bundle};

#[derive(Debug, Args)]
pub struct RedactArgs {
    /// Folders, log files or archives; several make one bundle.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Where to write: a new (or empty) folder, or a `.tar.gz` / `.tgz` file.
    #[arg(long)]
    out: PathBuf,
    /// The case's pseudonym map: reused when it exists, so that later uploads of the
    /// same case get the same pseudonyms (default: `<out>.map.json` beside the output).
    #[arg(long)]
    map: Option<PathBuf>,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &RedactArgs) -> anyhow::Result<ExitCode> {
    let options = RedactOptions::new(args.out.clone(), args.map.clone());
    let report = redact_bundle(&args.paths, &options)?;
    if args.json {
        println!("{}", serde_json::to_string_pretty(&report)?);
        return Ok(ExitCode::SUCCESS);
    }
    println!(
        "wrote {} files and {} links to {} ({} of {} lines changed; {} host names and domains looked for)",
        report.files,
        report.links,
        args.out.display(),
        report.changed_lines,
        report.lines,
        report.seeded_names
    );
    for (path, why) in &report.skipped {
        println!("  not copied: {path}: {why}");
    }
    println!("map (private, mode 0600): {}", report.map);
    Ok(ExitCode::SUCCESS)
}
