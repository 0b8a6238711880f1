//! `evacdoc triage PATH... [--format json|markdown] [--bug-template[=FILE]]`: the known bugs
//! a bundle matches, with confidence and reasons, for a bot that labels or dedupes bug
//! reports; `--bug-template` writes a complete bug report, `--redact` as a public share
//! shows it.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Args, ValueEnum};
use evacdoc::detect::DetectOptions;
use evacdoc::redact::view::public_copy;
use evacdoc::run::{Options, RunOptions, analyze_inputs};
use evacdoc::triage::launchpad::{bug_report, triage_markdown};
use evacdoc::triage::{Catalog, Triage};

#[derive(Debug, Args)]
pub struct TriageArgs {
    /// Folders, log files or archives of one bundle.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format of the triage.
    #[arg(long, value_enum, default_value_t = TriageFormat::Json)]
    format: TriageFormat,
    /// Also write a complete bug report (Markdown that reads as plain text, as Launchpad
    /// shows it) to FILE, or instead of the triage to standard output with no FILE or `-`.
    #[arg(long, value_name = "FILE", num_args = 0..=1, default_missing_value = "-")]
    bug_template: Option<PathBuf>,
    /// The bug report redacted as a public share is (default-deny: names, addresses,
    /// secrets and words outside the OpenStack log vocabulary replaced), for a public
    /// tracker.
    #[arg(long, requires = "bug_template")]
    redact: bool,
    /// Time zone for every host's local times, overriding what the bundle says.
    #[arg(long)]
    tz: Option<String>,
    /// A boot-from-volume evacuation slower than this many seconds is a finding.
    #[arg(long, default_value_t = 300)]
    bfv_delay: i64,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum TriageFormat {
    Json,
    Markdown,
}

pub fn run(args: &TriageArgs) -> anyhow::Result<ExitCode> {
    let options = RunOptions {
        analysis: Options {
            tz: args.tz.clone(),
            ..Options::default()
        },
        detect: DetectOptions {
            bfv_delay_secs: args.bfv_delay,
        },
        sinks: None,
    };
    let report = analyze_inputs(&args.paths, &options)?;
    let catalog = Catalog::shipped()?;
    let triage = Triage::new(&report.analysis, &report.findings, &catalog);
    let mut out = std::io::stdout().lock();
    if let Some(file) = &args.bug_template {
        let text = if args.redact {
            let upload = args
                .paths
                .first()
                .and_then(|p| p.file_name())
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            let (analysis, findings) = public_copy(&report.analysis, &report.findings, &upload)?;
            let triage = Triage::new(&analysis, &findings, &catalog);
            bug_report(&analysis, &findings, &triage)
        } else {
            bug_report(&report.analysis, &report.findings, &triage)
        };
        if file.as_os_str() == "-" {
            out.write_all(text.as_bytes())?;
            out.flush()?;
            return Ok(ExitCode::SUCCESS);
        }
        std::fs::write(file, text)
            .with_context(|| format!("cannot write the bug report to {}", file.display()))?;
    }
    match args.format {
        TriageFormat::Json => {
            serde_json::to_writer_pretty(&mut out, &triage)?;
            writeln!(out)?;
        }
        TriageFormat::Markdown => out.write_all(triage_markdown(&triage).as_bytes())?,
    }
    out.flush()?;
    Ok(ExitCode::SUCCESS)
}
