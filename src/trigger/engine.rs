//! The trigger: for each finding, the policy's rule, the guards, then the action, each
//! decision recorded in the audit log (when a store is given) and counted.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use serde::Serialize;

use crate::detect::Finding;
use crate::model::FindingId;
use crate::store::Store;
use crate::trigger::counters::TriggerCounters;
use crate::trigger::guards::GuardState;
use crate::trigger::policy::{ActionKind, Policy};
use crate::trigger::remediator::{RemediationRequest, Remediator};
use crate::trigger::webhook::deliver;

/// How a decision ended.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// The policy says to do nothing.
    Ignored,
    /// A guard held the action back (the reason says which).
    Skipped,
    /// Dry run: what would have been done.
    DryRun,
    /// The webhook took the finding.
    Delivered,
    /// The webhook could not be reached or refused it, after the retries.
    Failed,
    /// The executor planned the remediation (not applied).
    Planned,
    /// The executor applied the remediation.
    Applied,
    /// No executor is wired to this trigger: nothing was done.
    Unavailable,
}

impl Outcome {
    /// Its name, as in the audit log and the counters.
    pub fn as_str(&self) -> &'static str {
        match self {
            Outcome::Ignored => "ignored",
            Outcome::Skipped => "skipped",
            Outcome::DryRun => "dry-run",
            Outcome::Delivered => "delivered",
            Outcome::Failed => "failed",
            Outcome::Planned => "planned",
            Outcome::Applied => "applied",
            Outcome::Unavailable => "unavailable",
        }
    }
}

/// One decision about one finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Decision {
    /// The finding's id.
    pub finding: FindingId,
    /// The action the policy chose.
    pub action: &'static str,
    /// How it ended.
    pub outcome: Outcome,
    /// Why, in a few words (the webhook URL and status, the guard, the executor's word).
    pub detail: String,
}

/// Acts on findings by a policy.
pub struct Trigger {
    policy: Policy,
    secret: Option<String>,
    /// The webhook client; it follows no redirect, so a finding goes only to the URLs
    /// the policy names (`Err`: the client could not be made, every delivery fails).
    client: Result<reqwest::Client, String>,
    guards: Mutex<GuardState>,
    store: Option<Arc<dyn Store>>,
    remediator: Option<Arc<dyn Remediator>>,
    counters: Arc<TriggerCounters>,
}

impl std::fmt::Debug for Trigger {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Trigger")
            .field("policy", &self.policy)
            .field("store", &self.store.is_some())
            .field("remediator", &self.remediator.is_some())
            .finish_non_exhaustive()
    }
}

/// What an action is about, for the cooldown: the failed host, else the notification,
/// else the finding.
fn subject(finding: &Finding) -> String {
    finding
        .failed_host
        .clone()
        .or_else(|| finding.notification_id.clone())
        .unwrap_or_else(|| finding.id.to_string())
}

impl Trigger {
    /// A trigger of `policy`; decisions go to `store`'s audit log when given, and
    /// remediations to `remediator` (recorded as not available without one).
    pub fn new(
        policy: Policy,
        store: Option<Arc<dyn Store>>,
        remediator: Option<Arc<dyn Remediator>>,
        counters: Arc<TriggerCounters>,
    ) -> Trigger {
        let guards = GuardState::new(
            policy.cooldown(),
            policy.guards.rate_limit,
            std::time::Duration::from_secs(policy.guards.rate_window_secs),
        );
        Trigger {
            secret: policy.secret(),
            policy,
            client: reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .build()
                .map_err(|e| format!("cannot make the webhook client: {e}")),
            guards: Mutex::new(guards),
            store,
            remediator,
            counters,
        }
    }

    /// The counters.
    pub fn counters(&self) -> &Arc<TriggerCounters> {
        &self.counters
    }

    /// Holds `host` for a remediation asked for outside the policy (the service's API):
    /// refused while another remediation, the policy's or another asked, runs there.
    /// Release it with [`Trigger::release_host`] when the run ends.
    pub fn claim_host(&self, host: &str) -> Result<(), String> {
        self.guards
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .claim_host(host)
            .map_err(|held| held.to_string())
    }

    /// The remediation on `host` claimed with [`Trigger::claim_host`] is over.
    pub fn release_host(&self, host: &str) {
        self.guards
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
            .release(host);
    }

    /// Decides and acts on `finding`; every decision is recorded and returned.
    pub async fn handle(&self, finding: &Finding) -> Vec<Decision> {
        self.handle_from(finding, None).await
    }

    /// [`Trigger::handle`] of a finding whose inputs' nova.conf sets Nova's
    /// `service_down_time` (with its file): a remediation waits for an unfenced host that long.
    pub async fn handle_from(
        &self,
        finding: &Finding,
        service_down_time: Option<(std::time::Duration, String)>,
    ) -> Vec<Decision> {
        let rule = self.policy.rule_for(finding);
        let action = rule.action.as_str();
        let decisions = match rule.action {
            ActionKind::None => vec![self.decision(
                finding,
                action,
                Outcome::Ignored,
                "the policy says none".into(),
            )],
            ActionKind::Notify => self.notify(finding).await,
            ActionKind::Remediate => {
                let request = RemediationRequest {
                    apply: rule.apply,
                    cloud: rule.cloud.clone(),
                    host_fenced: rule.host_fenced,
                    service_down_time,
                    max_down_percent: rule.max_down_percent,
                };
                vec![self.remediate(finding, &request).await]
            }
        };
        for d in &decisions {
            self.record(d).await;
        }
        decisions
    }

    fn decision(
        &self,
        finding: &Finding,
        action: &'static str,
        outcome: Outcome,
        detail: String,
    ) -> Decision {
        Decision {
            finding: finding.id.clone(),
            action,
            outcome,
            detail,
        }
    }

    fn admit(&self, finding: &Finding, host: Option<&str>) -> Result<(), String> {
        let mut guards = self
            .guards
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        guards
            .admit(&subject(finding), host, Instant::now())
            .map_err(|held| held.to_string())
    }

    async fn notify(&self, finding: &Finding) -> Vec<Decision> {
        let action = "notify";
        if self.policy.webhook.urls.is_empty() {
            return vec![self.decision(
                finding,
                action,
                Outcome::Skipped,
                "no webhook url in the policy".into(),
            )];
        }
        if let Err(reason) = self.admit(finding, None) {
            return vec![self.decision(finding, action, Outcome::Skipped, reason)];
        }
        if self.policy.dry_run {
            return vec![self.decision(
                finding,
                action,
                Outcome::DryRun,
                format!("would POST to {}", self.policy.webhook.urls.join(", ")),
            )];
        }
        let body = match serde_json::to_vec(finding) {
            Ok(body) => body,
            Err(error) => {
                return vec![self.decision(
                    finding,
                    action,
                    Outcome::Failed,
                    format!("cannot serialize the finding: {error}"),
                )];
            }
        };
        let client = match &self.client {
            Ok(client) => client,
            Err(error) => {
                return vec![self.decision(finding, action, Outcome::Failed, error.clone())];
            }
        };
        let delivery_id = uuid::Uuid::new_v4().to_string();
        let mut out = Vec::new();
        for url in &self.policy.webhook.urls {
            let d = deliver(
                client,
                url,
                &body,
                self.secret.as_deref(),
                &self.policy.webhook,
                &delivery_id,
            )
            .await;
            let status = d
                .status
                .map_or_else(|| "no answer".to_string(), |s| s.to_string());
            let (outcome, detail) = if d.delivered {
                (
                    Outcome::Delivered,
                    format!("{url}: {status} after {} attempt(s)", d.attempts),
                )
            } else {
                (
                    Outcome::Failed,
                    format!(
                        "{url}: {} after {} attempt(s)",
                        d.error.unwrap_or(status),
                        d.attempts
                    ),
                )
            };
            out.push(self.decision(finding, action, outcome, detail));
        }
        out
    }

    async fn remediate(&self, finding: &Finding, request: &RemediationRequest) -> Decision {
        let action = "remediate";
        if request.apply && request.cloud.is_none() {
            return self.decision(
                finding,
                action,
                Outcome::Skipped,
                "apply = true needs a cloud name in the rule".into(),
            );
        }
        let host = finding.failed_host.clone();
        if let Err(reason) = self.admit(finding, host.as_deref()) {
            return self.decision(finding, action, Outcome::Skipped, reason);
        }
        let what = if request.apply { "apply" } else { "plan" };
        let cloud = request.cloud.as_deref().unwrap_or("no cloud");
        let decision = if self.policy.dry_run {
            self.decision(
                finding,
                action,
                Outcome::DryRun,
                format!("would {what} the remediation on {cloud}"),
            )
        } else {
            match &self.remediator {
                None => self.decision(
                    finding,
                    action,
                    Outcome::Unavailable,
                    format!("remediation not available: no executor is wired to the trigger ({what} on {cloud} asked)"),
                ),
                Some(remediator) => match remediator.remediate(finding, request).await {
                    Ok(done) => self.decision(
                        finding,
                        action,
                        if done.applied {
                            Outcome::Applied
                        } else {
                            Outcome::Planned
                        },
                        done.summary,
                    ),
                    Err(error) => {
                        self.decision(finding, action, Outcome::Failed, error.to_string())
                    }
                },
            }
        };
        if let Some(host) = &host {
            let mut guards = self
                .guards
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner());
            guards.release(host);
        }
        decision
    }

    /// Counts `decision` and appends it to the audit log.
    async fn record(&self, decision: &Decision) {
        self.counters
            .count(decision.action, decision.outcome.as_str());
        tracing::info!(
            finding = %decision.finding,
            action = decision.action,
            outcome = decision.outcome.as_str(),
            detail = %decision.detail,
            "trigger decision"
        );
        let Some(store) = self.store.clone() else {
            return;
        };
        let action = format!("trigger-{}", decision.action);
        let target = decision.finding.clone();
        let detail = format!("{}: {}", decision.outcome.as_str(), decision.detail);
        let written =
            tokio::task::spawn_blocking(move || store.audit("watch", &action, &target, &detail))
                .await;
        match written {
            Ok(Ok(())) => {}
            Ok(Err(error)) => tracing::warn!(%error, "trigger: cannot write the audit log"),
            Err(error) => tracing::warn!(%error, "trigger: cannot write the audit log"),
        }
    }
}
