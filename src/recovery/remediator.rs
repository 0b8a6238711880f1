//! The executor behind the trigger (`evacdoc watch --policy`, `serve --watch`): a finding
//! is planned and, when the policy says `apply = true`, run by [`super::run()`] and
//! journaled in the store the executor is given, with the same rules as `evacdoc
//! remediate`. The host counts as fenced only where the policy's rule says so; otherwise
//! a host Nova still sees up is waited for (the watched nova.conf's service_down_time),
//! then refused.

use std::path::PathBuf;
use std::sync::Arc;

use futures_util::future::BoxFuture;

use super::openstack::{ConnectOptions, OpenStack};
use super::run::{Ran, Target, run};
use super::{Quiet, RecoveryOptions};
use crate::detect::Finding;
use crate::store::{MoveStatus, RecoveryJournal, RecoveryStatus};
use crate::trigger::{RemediationError, RemediationOutcome, RemediationRequest, Remediator};

/// Plans and applies remediations on the cloud the policy names, journaled in `journal`.
#[derive(Clone)]
pub struct ExecutorRemediator {
    /// The store that journals applied recoveries, the one the caller opened (none:
    /// plans only).
    pub journal: Option<Arc<dyn RecoveryJournal>>,
    /// The executor's options; `host_fenced` comes from each request, and
    /// `service_down_time` from the request when its inputs' nova.conf sets it.
    pub options: RecoveryOptions,
    /// A clouds.yaml to read instead of the usual places.
    pub config_file: Option<PathBuf>,
}

impl std::fmt::Debug for ExecutorRemediator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecutorRemediator")
            .field("journal", &self.journal.is_some())
            .field("options", &self.options)
            .field("config_file", &self.config_file)
            .finish()
    }
}

impl ExecutorRemediator {
    /// The options of one request.
    fn options_for(&self, request: &RemediationRequest) -> RecoveryOptions {
        let mut options = self.options.clone();
        options.host_fenced = request.host_fenced;
        if let Some(percent) = request.max_down_percent {
            options.max_down_percent = percent;
        }
        if let Some((value, file)) = &request.service_down_time {
            tracing::info!(
                seconds = value.as_secs_f64(),
                file = %file,
                "remediation: Nova's service_down_time from the watched nova.conf"
            );
            options.service_down_time = *value;
        }
        options
    }

    async fn remediate_now(
        &self,
        finding: &Finding,
        request: &RemediationRequest,
    ) -> Result<RemediationOutcome, String> {
        let (target, remediation) = Target::of_finding(finding).map_err(|e| e.to_string())?;
        let options = self.options_for(request);
        let journal = match (request.apply, &self.journal) {
            (false, _) => None,
            (true, Some(journal)) => Some(journal.as_ref()),
            (true, None) => {
                return Err("applying needs a data folder (--data) to journal the recovery".into());
            }
        };
        let cloud = OpenStack::connect(ConnectOptions {
            cloud: request.cloud.clone(),
            config_file: self.config_file.clone(),
        })
        .await
        .map_err(|e| format!("cannot connect to the cloud: {e}"))?;
        let ended = match run(&target, &cloud, journal, &options, &Quiet).await {
            Ok(Ran::Planned(planned)) => {
                return Ok(RemediationOutcome {
                    applied: false,
                    summary: format!(
                        "planned: {} ({} calls, {} moves){}",
                        remediation.summary,
                        planned.steps.len(),
                        planned.moves.len(),
                        planned
                            .warnings
                            .iter()
                            .map(|w| format!("; warning: {w}"))
                            .collect::<String>()
                    ),
                });
            }
            Ok(Ran::Applied { recovery, .. }) => recovery,
            Err(error) => return Err(error.to_string()),
        };
        let moved = ended
            .moves
            .iter()
            .filter(|m| m.status == MoveStatus::Succeeded)
            .count();
        let summary = format!(
            "recovery {} of {}: {} ({moved} of {} moves succeeded)",
            ended.id,
            ended.host,
            ended.status.as_str(),
            ended.moves.len()
        );
        if ended.status == RecoveryStatus::Finished {
            Ok(RemediationOutcome {
                applied: true,
                summary,
            })
        } else {
            Err(summary)
        }
    }
}

impl Remediator for ExecutorRemediator {
    fn remediate<'a>(
        &'a self,
        finding: &'a Finding,
        request: &'a RemediationRequest,
    ) -> BoxFuture<'a, Result<RemediationOutcome, RemediationError>> {
        // The executor's run is not `Send` (its moves share borrowed state), so it gets a
        // thread and a runtime of its own; the trigger's task only awaits the answer.
        let (this, finding, request) = (self.clone(), finding.clone(), request.clone());
        Box::pin(async move {
            tokio::task::spawn_blocking(move || {
                let runtime = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .map_err(|e| format!("cannot start the executor's runtime: {e}"))?;
                runtime.block_on(this.remediate_now(&finding, &request))
            })
            .await
            .map_err(|e| RemediationError::Failed(format!("the executor stopped: {e}")))?
            .map_err(RemediationError::Failed)
        })
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn the_watched_nova_conf_sets_the_wait_else_the_configured_value_holds() {
        let remediator = ExecutorRemediator {
            journal: None,
            options: RecoveryOptions::default(),
            config_file: None,
        };
        let mut request = RemediationRequest {
            apply: false,
            cloud: None,
            host_fenced: true,
            service_down_time: None,
            max_down_percent: None,
        };
        let options = remediator.options_for(&request);
        assert_eq!(options.service_down_time, Duration::from_secs(60));
        assert!(options.host_fenced);
        request.service_down_time = Some((
            Duration::from_secs(120),
            "cmp01/etc/nova/nova.conf".to_owned(),
        ));
        assert_eq!(
            remediator.options_for(&request).service_down_time,
            Duration::from_secs(120)
        );
        assert_eq!(options.max_down_percent, 50);
        request.max_down_percent = Some(25);
        assert_eq!(remediator.options_for(&request).max_down_percent, 25);
    }
}
