//! `evacdoc remediate PATH... --finding ID [--cloud NAME] [--apply] [--format text|json]`:
//! the recovery a finding asks for, planned (or run) against the cloud.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context as _;
use clap::Args;
use evacdoc::recovery::down_time;
use evacdoc::recovery::remediation::remediation_for;
use evacdoc::run::analyze_inputs;

use super::recovery_run::{RecoveryArgs, recover};

#[derive(Debug, Args)]
pub struct RemediateArgs {
    /// The bundle the finding comes from (folders, log files or archives).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// The finding's id, as `analyze` prints it (`evacuate-400-race:<notification>`).
    #[arg(long)]
    finding: String,
    #[command(flatten)]
    recovery: RecoveryArgs,
}

pub fn run(args: &RemediateArgs) -> anyhow::Result<ExitCode> {
    let report = analyze_inputs(&args.paths, &Default::default())?;
    let finding = report
        .findings
        .iter()
        .find(|f| f.id == args.finding)
        .with_context(|| {
            let known: Vec<&str> = report.findings.iter().map(|f| f.id.as_str()).collect();
            format!(
                "no finding {} in this analysis (found: {})",
                args.finding,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known.join(", ")
                }
            )
        })?;
    let remediation = remediation_for(finding)?;
    eprintln!("evacdoc: {}: {}", finding.id, remediation.summary);
    recover(
        &args.recovery,
        &remediation.host,
        remediation.only_instances,
        &finding.id,
        down_time::from_bundle(&report.analysis.config),
    )
}
