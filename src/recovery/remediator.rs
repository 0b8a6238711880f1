//! The executor behind the trigger (`evacdoc watch --policy`): a finding is planned and,
//! when the policy says `apply = true`, run and journaled, with the same rules as
//! `evacdoc remediate`. The host counts as fenced only where the policy's rule says so;
//! otherwise a host Nova still sees up is waited for, then refused.

use std::path::PathBuf;

use futures_util::future::BoxFuture;

use super::openstack::{ConnectOptions, OpenStack};
use super::remediation::remediation_for;
use super::{Quiet, RecoveryOptions, apply, plan};
use crate::detect::Finding;
use crate::store::{MoveStatus, RecoveryStatus, SqliteStore};
use crate::trigger::{RemediationError, RemediationOutcome, RemediationRequest, Remediator};

/// Plans and applies remediations on the cloud the policy names, journaled in the store
/// of `data`.
#[derive(Debug, Clone)]
pub struct ExecutorRemediator {
    /// The data folder whose store journals applied recoveries (none: plans only).
    pub data: Option<PathBuf>,
    /// The executor's options; `host_fenced` comes from each request.
    pub options: RecoveryOptions,
    /// A clouds.yaml to read instead of the usual places.
    pub config_file: Option<PathBuf>,
}

impl ExecutorRemediator {
    async fn run(
        &self,
        finding: &Finding,
        request: &RemediationRequest,
    ) -> Result<RemediationOutcome, String> {
        let remediation = remediation_for(finding).map_err(|e| e.to_string())?;
        let mut options = self.options.clone();
        options.host_fenced = request.host_fenced;
        options.selection.only_instances = remediation.only_instances.clone();
        let cloud = OpenStack::connect(ConnectOptions {
            cloud: request.cloud.clone(),
            config_file: self.config_file.clone(),
        })
        .await
        .map_err(|e| format!("cannot connect to the cloud: {e}"))?;
        let planned = plan(&cloud, &remediation.host, &options)
            .await
            .map_err(|e| format!("cannot plan the recovery of {}: {e}", remediation.host))?;
        if !request.apply {
            return Ok(RemediationOutcome {
                applied: false,
                summary: format!(
                    "planned: {} ({} calls, {} moves)",
                    remediation.summary,
                    planned.steps.len(),
                    planned.moves.len()
                ),
            });
        }
        let data = self
            .data
            .as_ref()
            .ok_or("applying needs a data folder (--data) to journal the recovery")?;
        let store = SqliteStore::open(data)
            .map_err(|e| format!("{}: cannot open the store: {e}", data.display()))?;
        let ended = apply(&cloud, &store, &planned, &options, &finding.id, &Quiet)
            .await
            .map_err(|e| e.to_string())?;
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
                runtime.block_on(this.run(&finding, &request))
            })
            .await
            .map_err(|e| RemediationError::Failed(format!("the executor stopped: {e}")))?
            .map_err(RemediationError::Failed)
        })
    }
}
