//! What the trigger asks of the recovery executor: a finding to remediate, whether to
//! apply the plan and on which cloud. The executor implements [`Remediator`]; a trigger
//! made without one records every remediate decision as not available.

use futures_util::future::BoxFuture;

use crate::detect::Finding;

/// What the policy asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemediationRequest {
    /// Apply the plan (else plan only).
    pub apply: bool,
    /// The cloud (a `clouds.yaml` name) to act on.
    pub cloud: Option<String>,
    /// The policy states the failed host is fenced (see `Rule::host_fenced`).
    pub host_fenced: bool,
    /// Nova's `[DEFAULT] service_down_time` the watched inputs' nova.conf sets, with its
    /// file (else the executor's configured value: Nova's default unless set).
    pub service_down_time: Option<(std::time::Duration, String)>,
    /// The rule's `max_down_percent` (else the executor's configured value).
    pub max_down_percent: Option<u8>,
}

/// What a remediation did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemediationOutcome {
    /// The plan was applied (false: planned only).
    pub applied: bool,
    /// In a sentence, for the audit log.
    pub summary: String,
}

/// Why a remediation did not go through.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RemediationError {
    /// The executor refused or failed, with its reason.
    #[error("remediation failed: {0}")]
    Failed(String),
}

/// Turns a finding into a recovery plan and, when asked, applies it.
pub trait Remediator: Send + Sync {
    /// Plans (and applies when `request.apply`) the remediation of `finding`.
    fn remediate<'a>(
        &'a self,
        finding: &'a Finding,
        request: &'a RemediationRequest,
    ) -> BoxFuture<'a, Result<RemediationOutcome, RemediationError>>;
}
