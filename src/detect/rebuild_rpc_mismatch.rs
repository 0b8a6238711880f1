//! `rebuild-rpc-mismatch`: an evacuation (or rebuild) fails on its destination during a
//! rolling upgrade. While older computes remain, the conductor pins the compute RPC API to
//! their version (6.0 for Yoga and older, 6.1 for Zed) and sends `rebuild_instance` without
//! the arguments that version lacks; a 2023.1 or 2023.2 compute requires them and raises
//! `TypeError: rebuild_instance() missing 2 required positional arguments:
//! 'reimage_boot_volume' and 'target_state'` (or `missing 1 … 'target_state'`). The
//! instance is not rebuilt: an evacuation leaves it on the dead host. Launchpad bug
//! 2040264, fixed in nova 29.0.0 (backported to 28.0.1, 27.2.0 and 26.2.1).
//!
//! Inputs: nova-compute logs (the destination); nova-api logs (optional: the evacuate
//! request); the package lists (the versions of the computes).
//!
//! Logic (measuring): records of Nova whose text (traceback included) is that TypeError,
//! by host; the instances they concern (named by the record, or by the API request of the
//! same request id); the nova-compute versions installed per host. Telling: one finding
//! per destination host.

use crate::model::EventsById;
use std::collections::BTreeMap;

use crate::detect::evidence::{self, host_name, of_events};
use crate::detect::finding::{Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, Project, Uuid};

/// The detector.
#[derive(Debug)]
pub struct RebuildRpcMismatch;

/// One destination's failed rebuilds.
#[derive(Clone, Debug, PartialEq)]
pub struct Mismatch {
    /// The destination host.
    pub host: String,
    /// The TypeError records.
    pub lines: Vec<EventId>,
    /// How many calls failed: the records' distinct request ids (a failure can be logged
    /// twice, by the RPC server and by a decorator whose re-raise dropped it).
    pub calls: usize,
    /// The arguments missing (as the error names them).
    pub missing: Vec<&'static str>,
    /// The instances concerned.
    pub instances: Vec<Uuid>,
    /// The API requests that started them (same request id).
    pub requests: Vec<EventId>,
}

/// The arguments a record's text says `rebuild_instance()` was called without, if it is
/// that TypeError.
pub fn missing_arguments(text: &str) -> Option<Vec<&'static str>> {
    let at = text.find("rebuild_instance() missing ")?;
    if !text.contains("TypeError") {
        return None;
    }
    let rest = text.get(at..)?;
    let line = rest.lines().next().unwrap_or(rest);
    let missing: Vec<&'static str> = ["reimage_boot_volume", "target_state"]
        .into_iter()
        .filter(|a| line.contains(&format!("'{a}'")))
        .collect();
    (!missing.is_empty()).then_some(missing)
}

/// Measures every host whose rebuilds failed on the RPC arguments.
pub fn measure(ctx: &DetectContext<'_>) -> Vec<Mismatch> {
    let analysis = ctx.analysis;
    let mut by_host: BTreeMap<String, Mismatch> = BTreeMap::new();
    for (i, e) in analysis.events.iter().enumerate() {
        // A traceback names it on its last line; the cheap test first.
        if evidence::project(analysis, e) != Project::Nova
            || !matches!(
                e.level,
                Some(crate::model::LogLevel::Error | crate::model::LogLevel::Critical)
            ) && e.kind != crate::model::EventKind::Traceback
        {
            continue;
        }
        let Some(missing) = missing_arguments(&e.full_text()) else {
            continue;
        };
        let host = host_name(analysis, e);
        let m = by_host.entry(host.clone()).or_insert_with(|| Mismatch {
            host,
            lines: Vec::new(),
            calls: 0,
            missing: Vec::new(),
            instances: Vec::new(),
            requests: Vec::new(),
        });
        let same_call = e.request_id.is_some()
            && m.lines.iter().any(|&l| {
                analysis
                    .events
                    .by_id(l)
                    .is_some_and(|o| o.request_id == e.request_id)
            });
        if !same_call {
            m.calls += 1;
        }
        m.lines.push(EventId::at(i));
        for a in missing {
            if !m.missing.contains(&a) {
                m.missing.push(a);
            }
        }
        let mut instances: Vec<Uuid> = e.instances.to_vec();
        // The RPC server's record names no instance: the request it served does.
        for r in e.request_id.iter().chain(e.global_request_id.iter()) {
            for &j in analysis.index.request.get(r).unwrap_or(&[]) {
                let Some(other) = analysis.events.by_id(j) else {
                    continue;
                };
                if other.http().is_some_and(|h| h.method == "POST") {
                    instances.extend(other.instances.iter().copied());
                    if !m.requests.contains(&j) {
                        m.requests.push(j);
                    }
                }
            }
        }
        for inst in instances {
            if !m.instances.contains(&inst) {
                m.instances.push(inst);
            }
        }
    }
    by_host.into_values().collect()
}

/// `host version` of every nova-compute package in the bundle, one per host.
fn compute_versions(ctx: &DetectContext<'_>) -> Vec<String> {
    let analysis = ctx.analysis;
    let mut out: Vec<String> = analysis
        .packages
        .iter()
        .filter(|p| p.name == "nova-compute" || p.name == "openstack-nova-compute")
        .map(|p| {
            let host = analysis
                .host(p.host)
                .map(|h| h.hostname.clone())
                .unwrap_or_default();
            format!("{host} {}", p.version)
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

impl Detector for RebuildRpcMismatch {
    fn id(&self) -> &'static str {
        "rebuild-rpc-mismatch"
    }

    fn doc(&self) -> &'static str {
        "An evacuation failed on its destination during a rolling upgrade: the compute RPC API was \
         pinned for older computes and rebuild_instance() lacked reimage_boot_volume/target_state \
         (bug 2040264, fixed in nova 29.0.0)."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        measure(ctx).iter().map(|m| self.tell(ctx, m)).collect()
    }
}

impl RebuildRpcMismatch {
    fn tell(&self, ctx: &DetectContext<'_>, m: &Mismatch) -> Finding {
        let analysis = ctx.analysis;
        let mut ids: Vec<EventId> = m.lines.iter().take(3).copied().collect();
        ids.extend(m.requests.iter().take(3));
        let host = &m.host;
        let missing = m
            .missing
            .iter()
            .map(|a| format!("`{a}`"))
            .collect::<Vec<_>>()
            .join(" and ");
        let versions = compute_versions(ctx);
        let mix = if versions.is_empty() {
            String::new()
        } else {
            format!(" Installed nova-compute: {}.", versions.join(", "))
        };
        let pin = if m.missing.contains(&"reimage_boot_volume") {
            "6.0 (a Yoga or older compute remains)"
        } else {
            "6.1 (a Zed compute remains)"
        };
        Finding {
            id: format!("{}:{host}", self.id()).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "Rebuilds failed on {host}: rebuild_instance() called without {missing} (RPC pinned for older computes)"
            ),
            summary: format!(
                "{} rebuild(s) or evacuation(s) to {host} failed with TypeError before starting; {} instance(s) \
                 not rebuilt.",
                m.calls,
                m.instances.len()
            ),
            failed_host: Some(host.clone()),
            instance_uuids: m.instances.iter().map(Uuid::to_string).collect(),
            notification_id: None,
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence: of_events(analysis, ids.iter().copied()),
            explanation: format!(
                "During a rolling upgrade the conductor pins the compute RPC API to the oldest compute's version, \
                 here {pin}, and sends `rebuild_instance` without the arguments that version does not know. The \
                 newer nova-compute on {host} required {missing} (nova 27.0.0 to 29.0.0 without the fix), so the \
                 call failed with a TypeError before anything was rebuilt: an evacuated instance stays on its dead \
                 host (Launchpad bug 2040264).{mix}"
            ),
            remediation: Remediation::advice(format!(
                "Finish the upgrade of every compute (then the pin lifts), or update nova on {host} to a release \
                 with the fix (29.0.0, or 28.0.1, 27.2.0, 26.2.1 on the stable series); then evacuate or rebuild the \
                 instances again."
            )),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::missing_arguments;

    #[test]
    fn the_missing_arguments_are_read() {
        let both = "Exception during message handling: TypeError: rebuild_instance() missing 2 required positional arguments: 'reimage_boot_volume' and 'target_state'";
        assert_eq!(
            missing_arguments(both),
            Some(vec!["reimage_boot_volume", "target_state"])
        );
        let one =
            "TypeError: rebuild_instance() missing 1 required positional argument: 'target_state'";
        assert_eq!(missing_arguments(one), Some(vec!["target_state"]));
        assert_eq!(
            missing_arguments(
                "TypeError: spawn() missing 1 required positional argument: 'target_state'"
            ),
            None
        );
    }
}
