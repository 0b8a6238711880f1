//! `evacdoc recover enable HOST`: give a recovered host back to Nova in two steps (unset
//! forced_down, wait for nova-compute `up`, then enable), or say what stops it.

use std::process::ExitCode;

use anyhow::Context as _;
use evacdoc::recovery::openstack::{ConnectOptions, OpenStack};
use evacdoc::recovery::reenable::set_by_a_recovery;
use evacdoc::recovery::{Cloud, Quiet, ReenableError, Reenabled, reenable};
use serde_json::json;

use super::recovery_run::{RecoveryArgs, RecoveryFormat};

/// Without `--apply`, reads the service and says what would be done; with it, does it.
/// Exit code 0 when the host is (or stays, by the operator's reason) as it should, 1 when
/// Nova refused or nova-compute did not come up.
pub fn enable(args: &RecoveryArgs, host: &str) -> anyhow::Result<ExitCode> {
    let down = args.down_time(None)?;
    let options = args.options(None, &down)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let cloud = OpenStack::connect(ConnectOptions {
            cloud: args.cloud.clone(),
            ..ConnectOptions::default()
        })
        .await
        .context("cannot connect to the cloud")?;
        if !args.apply {
            let service = cloud
                .compute_service(host)
                .await?
                .with_context(|| format!("nova has no nova-compute service on host {host}"))?;
            let ours = set_by_a_recovery(service.disabled_reason.as_deref(), &options);
            let plan = match (service.forced_down, service.enabled, ours) {
                (false, true, _) => "nothing to do: not forced down, enabled".to_owned(),
                (forced, _, _) => format!(
                    "{}wait up to {}s for nova to see nova-compute up, then {}",
                    if forced { "unset forced_down, " } else { "" },
                    options.wait_for_down().as_secs(),
                    if service.enabled {
                        "nothing more (enabled already)".to_owned()
                    } else if ours {
                        "enable it".to_owned()
                    } else {
                        format!(
                            "leave it disabled (its reason {:?} is not a recovery's)",
                            service.disabled_reason.as_deref().unwrap_or("")
                        )
                    }
                ),
            };
            report(args.format, host, "planned", &plan, None);
            return Ok(ExitCode::SUCCESS);
        }
        match reenable(&cloud, host, &options, &Quiet).await {
            Ok(done) => {
                let (outcome, text) = match &done {
                    Reenabled::AlreadyEnabled => ("already-enabled", "nothing to do".to_owned()),
                    Reenabled::Enabled {
                        forced_up,
                        waited_s,
                    } => (
                        "enabled",
                        format!(
                            "{}nova saw it up after {waited_s}s, enabled",
                            if *forced_up {
                                "forced_down unset, "
                            } else {
                                ""
                            }
                        ),
                    ),
                    Reenabled::LeftDisabled { reason } => (
                        "left-disabled",
                        format!(
                            "up, left disabled: its reason {:?} is not a recovery's",
                            reason.as_deref().unwrap_or("")
                        ),
                    ),
                };
                report(args.format, host, outcome, &text, None);
                Ok(ExitCode::SUCCESS)
            }
            Err(ReenableError::Cloud(error)) => {
                Err(error).with_context(|| format!("cannot give {host} back to nova"))
            }
            Err(error) => {
                report(
                    args.format,
                    host,
                    "refused",
                    &error.to_string(),
                    Some(&error),
                );
                Ok(ExitCode::from(1))
            }
        }
    })
}

fn report(
    format: RecoveryFormat,
    host: &str,
    outcome: &str,
    text: &str,
    error: Option<&ReenableError>,
) {
    match format {
        RecoveryFormat::Text => println!("{host}: {outcome}: {text}"),
        RecoveryFormat::Json => {
            let mut document = json!({
                "schema": "evacdoc.reenable/v1",
                "host": host,
                "outcome": outcome,
                "message": text,
            });
            if let Some(error) = error {
                document["code"] = json!(error.code());
                if let ReenableError::EvacuationsRemain { remaining, .. } = error {
                    document["remaining"] = json!(remaining);
                }
            }
            println!("{document:#}");
        }
    }
}
