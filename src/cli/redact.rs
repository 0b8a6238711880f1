//! `evacdoc redact PATH... --out DIR|FILE.tar.gz [--map FILE] [--public]`: a copy of the
//! bundle safe to post publicly, with consistent pseudonyms; the map stays private.
//! `--public` uses the engine of share links (default-deny), with its redaction report
//! in the copy and beside it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;
use evacdoc::redacted_copy::{RedactOptions, redact_bundle};

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
    /// Default-deny, as share links do: a word is kept only when known to be safe
    /// (OpenStack log vocabulary, ids, numbers), config values only for harmless options;
    /// the redaction report is written in the copy and beside it
    /// (`<out>.redaction-report.json`).
    #[arg(long)]
    public: bool,
    /// Print the report as JSON.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &RedactArgs) -> anyhow::Result<ExitCode> {
    let mut options = RedactOptions::new(args.out.clone(), args.map.clone());
    if args.public {
        // The first input's own name (`sosreport-<host>-<company>-…`) reads `bundle`.
        let upload = args.paths.first().and_then(|p| p.file_name());
        options.public = Some(
            upload
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default(),
        );
    }
    let report = redact_bundle(&args.paths, &options)?;
    if args.public {
        let mut name = args.out.file_name().unwrap_or_default().to_os_string();
        name.push(".redaction-report.json");
        let path = args.out.with_file_name(name);
        std::fs::write(&path, serde_json::to_string_pretty(&report)?)
            .map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        if !args.json {
            println!("redaction report: {}", path.display());
        }
    }
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
    if let Some(public) = &report.public {
        println!(
            "public: {} lines: {} matched a known template, {} reduced to the vocabulary ({} with words replaced), {} config values with no vocabulary; {} with a secret hidden",
            public.lines,
            public.templated,
            public.vocabulary_lines,
            public.reduced_lines,
            public
                .lines
                .saturating_sub(public.templated + public.vocabulary_lines),
            public.secrets
        );
    }
    for (path, why) in &report.skipped {
        println!("  not copied: {path}: {why}");
    }
    println!("map (private, mode 0600): {}", report.map);
    Ok(ExitCode::SUCCESS)
}
