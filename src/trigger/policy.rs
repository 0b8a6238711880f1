//! The policy file (TOML): what to do with each finding, by detector and severity, the
//! webhooks, the guards and the dry-run switch. Without a rule that matches, a finding
//! is notified.
//!
//! ```toml
//! dry_run = false
//!
//! [webhook]
//! urls = ["https://hooks.example.org/evacdoc"]
//! secret_env = "EVACDOC_WEBHOOK_SECRET"
//!
//! [guards]
//! cooldown_secs = 900
//! rate_limit = 20
//! rate_window_secs = 3600
//!
//! [[rule]]
//! detector = "pending-after-finished"
//! severity = "critical"
//! action = "remediate"
//! apply = true
//! cloud = "prod"
//! ```

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::detect::{Finding, Severity};

/// What to do with a finding.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ActionKind {
    /// Nothing.
    None,
    /// POST the finding to the webhooks.
    Notify,
    /// Hand the finding to the recovery executor.
    Remediate,
}

impl ActionKind {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            ActionKind::None => "none",
            ActionKind::Notify => "notify",
            ActionKind::Remediate => "remediate",
        }
    }
}

/// One rule: the first that matches a finding decides.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Rule {
    /// A detector id, or `*` for any.
    pub detector: String,
    /// Only findings of this severity (`info`, `warning`, `critical`); any when absent.
    #[serde(default)]
    pub severity: Option<String>,
    /// What to do.
    pub action: ActionKind,
    /// Remediate: apply the plan (needs `cloud`); plan only otherwise.
    #[serde(default)]
    pub apply: bool,
    /// Remediate: the cloud (`clouds.yaml` name) to act on.
    #[serde(default)]
    pub cloud: Option<String>,
    /// Remediate: the failed host is fenced by the time the finding is made (STONITH,
    /// power off by the monitor), so a compute service Nova still sees up may be forced
    /// down. Only state it where fencing really is automatic.
    #[serde(default)]
    pub host_fenced: bool,
    /// Remediate: refuse when more than this share (%) of the computes is down (the
    /// executor's `--max-down-percent`, 50 unless set).
    #[serde(default)]
    pub max_down_percent: Option<u8>,
}

impl Rule {
    fn matches(&self, finding: &Finding) -> bool {
        (self.detector == "*" || self.detector == finding.detector)
            && self
                .severity
                .as_deref()
                .is_none_or(|s| s == finding.severity.as_str())
    }
}

/// Where notifications go and how they are signed and retried.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Webhook {
    /// The URLs the finding is POSTed to.
    #[serde(default)]
    pub urls: Vec<String>,
    /// The HMAC secret, written in the policy.
    #[serde(default)]
    pub secret: Option<String>,
    /// The name of an environment variable holding the secret (wins over `secret`).
    #[serde(default)]
    pub secret_env: Option<String>,
    /// Seconds before one POST gives up.
    #[serde(default = "default_timeout")]
    pub timeout_secs: u64,
    /// Tries per URL (the first included).
    #[serde(default = "default_attempts")]
    pub attempts: u32,
    /// The wait before the first retry, doubled at each next one.
    #[serde(default = "default_backoff")]
    pub backoff_ms: u64,
}

fn default_timeout() -> u64 {
    5
}
fn default_attempts() -> u32 {
    4
}
fn default_backoff() -> u64 {
    500
}

impl Default for Webhook {
    fn default() -> Self {
        Webhook {
            urls: Vec::new(),
            secret: None,
            secret_env: None,
            timeout_secs: default_timeout(),
            attempts: default_attempts(),
            backoff_ms: default_backoff(),
        }
    }
}

/// Limits on how often the trigger acts.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Guards {
    /// After an action on a subject (failed host, else notification, else finding), no
    /// other on it for this long.
    #[serde(default = "default_cooldown")]
    pub cooldown_secs: u64,
    /// At most this many actions ...
    #[serde(default = "default_rate_limit")]
    pub rate_limit: u32,
    /// ... within this many seconds, all subjects together.
    #[serde(default = "default_rate_window")]
    pub rate_window_secs: u64,
}

fn default_cooldown() -> u64 {
    900
}
fn default_rate_limit() -> u32 {
    20
}
fn default_rate_window() -> u64 {
    3600
}

impl Default for Guards {
    fn default() -> Self {
        Guards {
            cooldown_secs: default_cooldown(),
            rate_limit: default_rate_limit(),
            rate_window_secs: default_rate_window(),
        }
    }
}

/// The whole policy.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Policy {
    /// Decide and record, but neither POST nor remediate.
    #[serde(default)]
    pub dry_run: bool,
    /// The webhooks.
    #[serde(default)]
    pub webhook: Webhook,
    /// The guards.
    #[serde(default)]
    pub guards: Guards,
    /// The rules, first match wins; a finding no rule matches is notified.
    #[serde(default, rename = "rule")]
    pub rules: Vec<Rule>,
}

/// Why a policy file is refused.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// The file cannot be read.
    #[error("cannot read the policy {path}: {source}")]
    Read {
        /// The file.
        path: String,
        /// Why.
        source: std::io::Error,
    },
    /// The file is not a policy.
    #[error("policy {path}: {source}")]
    Parse {
        /// The file.
        path: String,
        /// Why.
        source: toml::de::Error,
    },
    /// A value is out of place.
    #[error("policy {path}: {reason}")]
    Invalid {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
}

impl Policy {
    /// Reads and checks a policy file.
    pub fn load(path: &Path) -> Result<Policy, PolicyError> {
        let name = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| PolicyError::Read {
            path: name.clone(),
            source,
        })?;
        Policy::parse(&text).map_err(|e| match e {
            PolicyError::Parse { source, .. } => PolicyError::Parse { path: name, source },
            PolicyError::Invalid { reason, .. } => PolicyError::Invalid { path: name, reason },
            other => other,
        })
    }

    /// Parses and checks a policy.
    pub fn parse(text: &str) -> Result<Policy, PolicyError> {
        let policy: Policy = toml::from_str(text).map_err(|source| PolicyError::Parse {
            path: String::new(),
            source,
        })?;
        let invalid = |reason: String| PolicyError::Invalid {
            path: String::new(),
            reason,
        };
        for rule in &policy.rules {
            if let Some(s) = &rule.severity
                && ![Severity::Info, Severity::Warning, Severity::Critical]
                    .iter()
                    .any(|known| known.as_str() == s)
            {
                return Err(invalid(format!(
                    "unknown severity {s:?} (info, warning, critical)"
                )));
            }
            let known = rule.detector == "*"
                || crate::detect::DETECTORS
                    .iter()
                    .any(|d| d.id() == rule.detector);
            if !known {
                return Err(invalid(format!("unknown detector {:?}", rule.detector)));
            }
            if rule.action != ActionKind::Remediate
                && (rule.apply
                    || rule.cloud.is_some()
                    || rule.host_fenced
                    || rule.max_down_percent.is_some())
            {
                return Err(invalid(format!(
                    "rule for {}: apply, cloud, host_fenced and max_down_percent go with \
                     action = \"remediate\"",
                    rule.detector
                )));
            }
            if let Some(percent) = rule.max_down_percent
                && percent > 100
            {
                return Err(invalid(format!(
                    "rule for {}: max_down_percent {percent} is not a share (0 to 100)",
                    rule.detector
                )));
            }
        }
        if policy.webhook.attempts == 0 {
            return Err(invalid("webhook attempts must be at least 1".into()));
        }
        Ok(policy)
    }

    /// The rule for `finding`: the first that matches, or notify.
    pub fn rule_for(&self, finding: &Finding) -> Rule {
        self.rules
            .iter()
            .find(|r| r.matches(finding))
            .cloned()
            .unwrap_or_else(|| Rule {
                detector: "*".into(),
                severity: None,
                action: ActionKind::Notify,
                apply: false,
                cloud: None,
                host_fenced: false,
                max_down_percent: None,
            })
    }

    /// The webhook secret: from its environment variable, else from the file.
    pub fn secret(&self) -> Option<String> {
        self.webhook
            .secret_env
            .as_deref()
            .and_then(|name| std::env::var(name).ok())
            .or_else(|| self.webhook.secret.clone())
    }

    /// The cooldown per subject.
    pub fn cooldown(&self) -> Duration {
        Duration::from_secs(self.guards.cooldown_secs)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_sample_policy_parses_and_unknown_names_are_refused() {
        let sample = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/watch/policy.toml"
        ))
        .unwrap();
        let policy = Policy::parse(&sample).unwrap();
        assert!(!policy.rules.is_empty());
        assert!(
            policy
                .rules
                .iter()
                .any(|r| r.action == ActionKind::Remediate)
        );
        for (text, says) in [
            (
                "[[rule]]\ndetector = \"no-such\"\naction = \"notify\"\n",
                "unknown detector",
            ),
            (
                "[[rule]]\ndetector = \"*\"\nseverity = \"fatal\"\naction = \"notify\"\n",
                "unknown severity",
            ),
            (
                "[[rule]]\ndetector = \"*\"\naction = \"notify\"\napply = true\n",
                "apply, cloud, host_fenced",
            ),
            (
                "[[rule]]\ndetector = \"*\"\naction = \"none\"\nhost_fenced = true\n",
                "apply, cloud, host_fenced",
            ),
            (
                "[[rule]]\ndetector = \"*\"\naction = \"notify\"\nmax_down_percent = 30\n",
                "max_down_percent go with",
            ),
            (
                "[[rule]]\ndetector = \"*\"\naction = \"remediate\"\nmax_down_percent = 130\n",
                "not a share",
            ),
            (
                "[[rule]]\ndetector = \"*\"\naction = \"reboot\"\n",
                "unknown variant",
            ),
            ("dryrun = true\n", "unknown field"),
        ] {
            let error = Policy::parse(text).unwrap_err().to_string();
            assert!(error.contains(says), "{text}: {error}");
        }
        let demo = std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/samples/watch/remediate-sim.toml"
        ))
        .unwrap();
        let demo = Policy::parse(&demo).unwrap();
        assert!(demo.rules[0].apply && demo.rules[0].host_fenced);
        // Nothing said: every finding is notified, with the default guards.
        let empty = Policy::parse("").unwrap();
        assert_eq!(empty, Policy::default());
        assert_eq!(empty.guards.cooldown_secs, 900);
    }
}
