//! Acting on findings: a policy says, per detector and severity, nothing, notify (signed
//! webhooks) or remediate (plan, or plan and apply on a named cloud), under guards (one
//! remediation per host at a time, a cooldown per subject, a global rate limit, a
//! dry-run switch). Every decision goes to the audit log and to counters.

mod counters;
mod engine;
mod guards;
mod policy;
mod remediator;
mod signature;
mod webhook;

pub use counters::TriggerCounters;
pub use engine::{Decision, Outcome, Trigger};
pub use policy::{ActionKind, Guards, Policy, PolicyError, Rule, Webhook};
pub use remediator::{RemediationError, RemediationOutcome, RemediationRequest, Remediator};
pub use signature::{SIGNATURE_HEADER, sign, verify};
