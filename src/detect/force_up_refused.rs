//! `force-up-refused`: Nova refused to clear a host's `forced_down` after its instances
//! were evacuated: 400 ``Unable to force up host <h> as `done` evacuation migration
//! records remain associated with the host. Ensure the compute service has been
//! restarted, allowing these records to move to `completed` before retrying this
//! request.`` The evacuation migrations stay `done` until the source host's
//! nova-compute starts and cleans the evacuated instances up; until then the host
//! cannot be forced up, so a recovery that forced it down (an operator, InstanceHA, the
//! executor) cannot put it back in service.
//!
//! Inputs: nova-api logs; nova-compute logs (optional: a later start of the host's
//! compute service resolves it).
//!
//! Logic (measuring): Nova's `Unable to force up host` lines by host, the request lines
//! of those refusals, and whether the host's nova-compute started after the last one.
//! Telling: a host refused and not restarted since is a finding.

use crate::model::EventsById;
use std::collections::BTreeMap;

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::EventId;

/// The detector.
#[derive(Debug)]
pub struct ForceUpRefused;

/// One host's refused force-ups.
#[derive(Clone, Debug, PartialEq)]
pub struct Refused {
    /// The host.
    pub host: String,
    /// Nova's refusal lines.
    pub lines: Vec<EventId>,
}

/// The host a message refuses to force up.
pub fn refused_host(message: &str) -> Option<&str> {
    let (_, rest) = message.split_once("Unable to force up host ")?;
    let (host, tail) = rest.split_once(' ')?;
    tail.contains("evacuation migration records")
        .then_some(host)
}

/// Whether `host`'s nova-compute logged a start after `time`.
fn compute_started_after(ctx: &DetectContext<'_>, host: &str, time: i64) -> bool {
    let short = |h: &str| h.split('.').next().unwrap_or(h).to_string();
    let analysis = ctx.analysis;
    analysis.events.iter().any(|e| {
        e.time > time
            && analysis
                .file(e.file)
                .is_some_and(|f| f.service.name().starts_with("nova-compute"))
            && short(&host_name(analysis, e)) == short(host)
            && e.message().starts_with("Starting compute node")
    })
}

/// Measures every host refused and not restarted since.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Refused> {
    let analysis = ctx.analysis;
    let mut by_host: BTreeMap<String, Vec<EventId>> = BTreeMap::new();
    for (i, e) in analysis.events.iter().enumerate() {
        if let Some(host) = refused_host(&e.message()) {
            by_host
                .entry(host.to_string())
                .or_default()
                .push(EventId::at(i));
        }
    }
    by_host
        .into_iter()
        .filter(|(host, lines)| {
            let last = lines
                .last()
                .and_then(|&l| analysis.events.by_id(l))
                .map_or(i64::MAX, |e| e.time);
            !compute_started_after(ctx, host, last)
        })
        .map(|(host, lines)| Refused { host, lines })
        .collect()
}

impl Detector for ForceUpRefused {
    fn id(&self) -> &'static str {
        "force-up-refused"
    }

    fn doc(&self) -> &'static str {
        "Nova refused to force a host up after an evacuation (400: `done` evacuation migration records \
         remain) and the host's compute service has not restarted since: the host cannot rejoin."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|r| self.tell(ctx, r)).collect()
    }
}

impl ForceUpRefused {
    fn tell(&self, ctx: &DetectContext<'_>, r: &Refused) -> Finding {
        let analysis = ctx.analysis;
        let host = &r.host;
        // The refusals and the requests they answered (same request id).
        let mut ids: Vec<EventId> = r.lines.iter().take(4).copied().collect();
        let requests = evidence::request_ids(analysis, &ids);
        ids.extend(analysis.events.iter().enumerate().filter_map(|(i, e)| {
            let http = e.http()?;
            let same = e
                .request_id
                .is_some_and(|id| requests.contains(&id.request_id()));
            (same && http.status == 400 && http.method == "PUT").then_some(EventId::at(i))
        }));
        Finding {
            id: format!("{}:{host}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Warning,
            title: format!("Nova refused to force {host} up: `done` evacuation records remain"),
            summary: format!(
                "{} request(s) to unset forced_down on {host} were refused (400); its nova-compute has not \
                 started since.",
                r.lines.len()
            ),
            failed_host: Some(host.clone()),
            instance_uuids: Vec::new(),
            notification_id: None,
            request_ids: requests,
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "Instances were evacuated from {host}; their evacuation migrations stay `done` until {host}'s \
                 nova-compute starts and destroys the evacuated copies (then they become `completed`). Since \
                 nova 24.0.0 Nova refuses to unset `forced_down` while such records remain, because a compute \
                 service reported up before that cleanup could run the evacuated instances twice. {host} stays \
                 forced down and out of service."
            ),
            remediation: Remediation::advice(format!(
                "Start nova-compute on {host} (with the host fenced off from the instances' storage until \
                     it has cleaned the evacuated instances up), wait for its evacuation migrations to become \
                     `completed`, then unset forced_down, wait for the service to report `up`, and enable it."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::refused_host;

    #[test]
    fn the_refused_host_is_read() {
        let m = "HTTP exception thrown: Unable to force up host compute-3 as `done` evacuation migration records remain associated with the host. Ensure the compute service has been restarted, allowing these records to move to `completed` before retrying this request.";
        assert_eq!(refused_host(m), Some("compute-3"));
        assert_eq!(refused_host("Unable to force up host compute-3 now"), None);
    }
}
