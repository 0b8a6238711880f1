//! Refusals no recovery of the bundle can hold, told per host.

use super::refusal::chained_refusal;
use crate::detect::DetectContext;
use crate::detect::evacuate_400_chain::ChainedRefusal;
use crate::detect::evidence::{self, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::model::{EventId, Uuid};

/// Refusals no recovery of the bundle can hold (the engine's notification lines are
/// missing): one finding per host Nova named, without a notification.
pub(super) fn findings(
    id: &'static str,
    ctx: &DetectContext<'_>,
    chains: Vec<ChainedRefusal>,
) -> Vec<Finding> {
    let analysis = ctx.analysis;
    let mut hosts: Vec<Option<String>> = Vec::new();
    for c in &chains {
        if !hosts.contains(&c.host) {
            hosts.push(c.host.clone());
        }
    }
    hosts
        .into_iter()
        .map(|host| {
            let of_host: Vec<&ChainedRefusal> = chains.iter().filter(|c| c.host == host).collect();
            let mut ids: Vec<EventId> = Vec::new();
            let mut instances: Vec<Uuid> = Vec::new();
            for c in &of_host {
                ids.extend(c.call);
                ids.extend(chained_refusal(c).evidence);
                if !instances.contains(&c.instance) {
                    instances.push(c.instance);
                }
            }
            ids.sort_unstable();
            ids.dedup();
            let name = host.clone().unwrap_or_else(|| "the failed host".into());
            let calls: Vec<EventId> = of_host.iter().map(|c| c.call.unwrap_or(c.warning)).collect();
            Finding {
                id: format!("{id}:host:{name}").into(),
                detector: id,
                severity: Severity::Critical,
                title: format!("Evacuation from {name} raced Nova's failure detection: HTTP 400"),
                summary: format!(
                    "{} evacuate call(s) were refused by Nova with HTTP 400 because it still saw                      {name}'s compute service up; the bundle holds no notification line for them.",
                    of_host.len()
                ),
                failed_host: host.clone(),
                instance_uuids: instances.iter().map(Uuid::to_string).collect(),
                notification_id: None,
                request_ids: evidence::request_ids(analysis, &calls),
                window: evidence::window(analysis, &ids),
                evidence: of_events(analysis, ids.iter().copied()),
                explanation: format!(
                    "Masakari's error quotes the request id of Nova's answer, and Nova's lines of                      that request show `POST /servers/<instance>/action` refused with 400: Nova                      still counted {name}'s compute service as up. Masakari never forces the                      service down, so it evacuated before Nova's `service_down_time` had passed."
                ),
                remediation: Remediation::advice("Make Masakari wait longer than Nova's down detection                               (wait_period_after_service_update), or fence failed hosts and force                               their compute service down before evacuating."),
                known_bugs: Vec::new(),
                highlights: Vec::new(),
            }
        })
        .collect()
}
