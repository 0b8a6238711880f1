//! `consul-monitor-failing`: masakari-monitors' host monitor with the consul driver (as
//! Sunbeam deploys it) fails in every monitoring loop, so it never notices a failed host:
//! `Exception when host-monitor by consul: <exc>` (masakarimonitors/hostmonitor/
//! consul_check/manager.py:195, `LOG.exception` in `monitor_hosts`, every
//! `monitoring_interval`). Before masakari-monitors 19.0.0 a `[consul]` agent option left
//! unset (`agent_manage`, `agent_tenant` or `agent_storage`) makes every loop fail with
//! `AttributeError: 'NoneType' object has no attribute 'get_health'` (consul_helper.py
//! `get_health`; fixed by commit 1f62741, "If any of the consul agents such as manage,
//! tenant, or warehouse are not set.", first in 19.0.0). The kubernetes driver fails the
//! same way (`Exception when host-monitor by k8s: <exc>`, kubernetes_check/manager.py:136).
//!
//! Inputs: masakari-hostmonitor logs.
//!
//! Logic (measuring): per monitor host, its `Exception when host-monitor by …` lines and
//! its last `Send a notification.` line. Telling: a monitor that failed at least
//! [`MIN_FAILURES`] times and sent nothing after its last failure is a finding.

use std::collections::BTreeMap;

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::monitor_lines::hostmonitor_events;
use crate::detect::{DetectContext, Detector};
use crate::model::EventId;

/// The detector.
#[derive(Debug)]
pub struct ConsulMonitorFailing;

/// Failed loops in a row that make a failing monitor (one may be a passing hiccup).
pub const MIN_FAILURES: usize = 3;

/// One monitor's failed loops.
#[derive(Clone, Debug, PartialEq)]
pub struct Failing {
    /// The host the monitor runs on.
    pub host: String,
    /// `consul` or `k8s`.
    pub driver: String,
    /// Its `Exception when host-monitor by …` lines.
    pub failures: Vec<EventId>,
    /// What the last one says (the exception).
    pub exception: String,
}

/// The driver and the exception of `Exception when host-monitor by <driver>: <exc>`.
pub fn failed_loop(message: &str) -> Option<(&str, &str)> {
    let rest = message.strip_prefix("Exception when host-monitor by ")?;
    let (driver, exception) = rest.split_once(": ")?;
    matches!(driver, "consul" | "k8s").then_some((driver, exception))
}

/// Measures every monitor failing at its end.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Failing> {
    let analysis = ctx.analysis;
    let mut by_host: BTreeMap<String, Failing> = BTreeMap::new();
    let mut last_sent: BTreeMap<String, EventId> = BTreeMap::new();
    for (i, e) in hostmonitor_events(analysis) {
        let message = e.message();
        let host = host_name(analysis, e);
        if message.starts_with("Send a notification.") {
            last_sent.insert(host, i);
            continue;
        }
        let Some((driver, exception)) = failed_loop(&message) else {
            continue;
        };
        let f = by_host.entry(host.clone()).or_insert_with(|| Failing {
            host,
            driver: driver.to_string(),
            failures: Vec::new(),
            exception: String::new(),
        });
        f.failures.push(i);
        f.exception = crate::detect::quote::clipped(exception, 200);
    }
    by_host
        .into_values()
        .filter(|f| f.failures.len() >= MIN_FAILURES)
        .filter(|f| last_sent.get(&f.host) < f.failures.last())
        .collect()
}

impl Detector for ConsulMonitorFailing {
    fn id(&self) -> &'static str {
        "consul-monitor-failing"
    }

    fn doc(&self) -> &'static str {
        "masakari-monitors' consul (or kubernetes) host monitor raises in every loop (`Exception when \
         host-monitor by consul: …`), so it cannot notify Masakari of a failed host (an unset [consul] \
         agent before 19.0.0)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|f| self.tell(ctx, f)).collect()
    }
}

impl ConsulMonitorFailing {
    fn tell(&self, ctx: &DetectContext<'_>, f: &Failing) -> Finding {
        let analysis = ctx.analysis;
        let (first, last) = (f.failures[0], f.failures[f.failures.len() - 1]);
        let ids = [first, last];
        let count = f.failures.len();
        let (host, driver, exception) = (&f.host, &f.driver, &f.exception);
        let unset_agent = exception.contains("has no attribute 'get_health'");
        let cause = if unset_agent {
            " The exception is the one an unset [consul] agent option (agent_manage, agent_tenant or \
             agent_storage) raised before masakari-monitors 19.0.0."
        } else {
            ""
        };
        Finding {
            id: format!("{}:{host}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Warning,
            title: format!(
                "The {driver} host monitor on {host} fails in every loop and cannot notify Masakari"
            ),
            summary: format!(
                "masakari-hostmonitor on {host} logged `Exception when host-monitor by {driver}` {count} times and sent no \
                 notification after the last: {exception}.{cause}"
            ),
            failed_host: None,
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: Vec::new(),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids),
            explanation: format!(
                "The {driver} driver of masakari-hostmonitor reads every host's health, then notifies Masakari of the \
                 hosts that need recovery. An exception in that loop is logged and the loop starts again after \
                 monitoring_interval: while it repeats, no host failure is ever noticed, and Masakari evacuates \
                 nothing.{cause}"
            ),
            remediation: Remediation::advice(if unset_agent {
                "Set every [consul] agent option the matrix uses (agent_manage, agent_tenant, agent_storage) in \
                 masakarimonitors.conf, or upgrade masakari-monitors to 19.0.0 or later; restart masakari-hostmonitor \
                 and check that its loop runs without the exception."
                    .to_string()
            } else {
                format!(
                    "Read the exception and its traceback in masakari-hostmonitor's log on {host} (the {driver} agents it \
                     reads must be reachable), fix its cause and restart masakari-hostmonitor."
                )
            }),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::failed_loop;

    #[test]
    fn the_failed_loop_is_read() {
        assert_eq!(
            failed_loop(
                "Exception when host-monitor by consul: 'NoneType' object has no attribute 'get_health'"
            ),
            Some(("consul", "'NoneType' object has no attribute 'get_health'"))
        );
        assert_eq!(
            failed_loop("Exception when host-monitor by k8s: Unauthorized"),
            Some(("k8s", "Unauthorized"))
        );
        assert_eq!(failed_loop("Exception when host-monitor by ipmi: x"), None);
    }
}
