//! `evacdoc analyze PATH... [--format text|json|markdown] [--fail-on critical|warning]
//! [--each]`: what went wrong in the Masakari recoveries of the inputs, with evidence.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, ValueEnum};
use evacdoc::detect::{DetectOptions, Severity};
use evacdoc::run::{Options, Report, RunOptions, analyze_inputs};
use evacdoc::triage::report::{Style, json_document, markdown, text};
use rayon::prelude::*;

#[derive(Debug, Args)]
pub struct AnalyzeArgs {
    /// Folders, log files or archives; several make one analysis (unless --each).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output format.
    #[arg(long, value_enum, default_value_t = ReportFormat::Text)]
    format: ReportFormat,
    /// Exit with status 1 when a finding of this severity or worse is found.
    #[arg(long, value_enum)]
    fail_on: Option<FailOn>,
    /// One analysis per input, run in parallel (for triage bots); JSON output becomes
    /// an array of documents.
    #[arg(long)]
    each: bool,
    /// Time zone for every host's local times, overriding what the bundle says.
    #[arg(long)]
    tz: Option<String>,
    /// A boot-from-volume evacuation slower than this many seconds is a finding.
    #[arg(long, default_value_t = 300)]
    bfv_delay: i64,
    #[command(flatten)]
    limits: super::limits::LimitArgs,
    /// Also run the first pass of redaction (what `serve` and `redact` pay for) and
    /// write what it identified to this file as JSON: for benchmarks and checks.
    #[arg(long, hide = true, value_name = "FILE")]
    identified_to: Option<PathBuf>,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum ReportFormat {
    Text,
    Json,
    Markdown,
}

#[derive(Clone, Copy, Debug, ValueEnum)]
enum FailOn {
    Critical,
    Warning,
}

impl AnalyzeArgs {
    fn options(&self, progress: bool) -> RunOptions {
        RunOptions {
            analysis: Options {
                tz: self.tz.clone(),
                progress,
                limits: self.limits.limits(),
                // `analyze` shows the bundle as it is and never redacts.
                skip_identification: self.identified_to.is_none(),
                ..Options::default()
            },
            detect: DetectOptions {
                bfv_delay_secs: self.bfv_delay,
            },
            sinks: None,
        }
    }
}

pub fn run(args: &AnalyzeArgs) -> anyhow::Result<ExitCode> {
    let outcomes: Vec<Report> = if args.each {
        let options = args.options(false);
        args.paths
            .par_iter()
            .map(|p| analyze_inputs(std::slice::from_ref(p), &options))
            .collect::<Result<_, _>>()?
    } else {
        vec![analyze_inputs(&args.paths, &args.options(true))?]
    };
    if let Some(path) = &args.identified_to {
        let seeds: Vec<_> = outcomes.iter().map(|o| &o.analysis.identified).collect();
        let json = serde_json::to_vec_pretty(&seeds)?;
        std::fs::write(path, json)
            .map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    let mut out = std::io::stdout().lock();
    match args.format {
        ReportFormat::Json => {
            let docs: Vec<_> = outcomes
                .iter()
                .map(|o| json_document(&o.analysis, &o.findings))
                .collect();
            if args.each {
                serde_json::to_writer_pretty(&mut out, &docs)?;
            } else if let Some(doc) = docs.first() {
                serde_json::to_writer_pretty(&mut out, doc)?;
            }
            writeln!(out)?;
        }
        ReportFormat::Text => {
            let style = if std::io::stdout().is_terminal() {
                Style::COLOUR
            } else {
                Style::PLAIN
            };
            for o in &outcomes {
                out.write_all(text(&o.analysis, &o.findings, style).as_bytes())?;
            }
        }
        ReportFormat::Markdown => {
            for o in &outcomes {
                out.write_all(markdown(&o.analysis, &o.findings).as_bytes())?;
            }
        }
    }
    out.flush()?;
    let threshold = args.fail_on.map(|f| match f {
        FailOn::Critical => Severity::Critical,
        FailOn::Warning => Severity::Warning,
    });
    let met = threshold.is_some_and(|t| {
        outcomes
            .iter()
            .flat_map(|o| &o.findings)
            .any(|f| f.severity >= t)
    });
    Ok(if met {
        ExitCode::from(1)
    } else {
        ExitCode::SUCCESS
    })
}
