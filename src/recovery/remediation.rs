//! From a finding to a recovery: which host, which instances, and why.
//!
//! `evacuate-400-race` → make Nova see the host down, then evacuate what is left on it;
//! `pending-after-finished` → evacuate the instances left behind; `bfv-evacuation-delay`
//! → clear the dead host's attachment, then evacuate (or follow the evacuation already
//! held by it).

use std::collections::BTreeSet;

use crate::detect::Finding;
use crate::model::FindingId;

/// A recovery a finding asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Remediation {
    /// The failed host.
    pub host: String,
    /// Only these instances, or every instance left on the host.
    pub only_instances: Option<BTreeSet<String>>,
    /// For people: what it will do.
    pub summary: String,
}

/// Why a finding gives no recovery.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RemediationError {
    #[error("finding {id} ({detector}) has no recovery evacdoc can run")]
    NotRemediable { id: FindingId, detector: String },
    #[error("finding {0} does not name the failed host")]
    NoHost(FindingId),
    #[error("finding {0} names no instance to move")]
    NoInstances(FindingId),
}

/// The recovery that answers `finding`.
pub fn remediation_for(finding: &Finding) -> Result<Remediation, RemediationError> {
    let host = finding
        .failed_host
        .clone()
        .ok_or_else(|| RemediationError::NoHost(finding.id.clone()))?;
    let instances = || -> Result<Option<BTreeSet<String>>, RemediationError> {
        if finding.instance_uuids.is_empty() {
            return Err(RemediationError::NoInstances(finding.id.clone()));
        }
        Ok(Some(finding.instance_uuids.iter().cloned().collect()))
    };
    let (only_instances, summary) = match finding.detector {
        "evacuate-400-race" => (
            None,
            format!(
                "make nova see {host} down (forced down if fenced, else wait), then evacuate \
                 every instance left on it"
            ),
        ),
        "pending-after-finished" => (
            instances()?,
            format!(
                "evacuate the {} instance(s) masakari left behind on {host}",
                finding.instance_uuids.len()
            ),
        ),
        "bfv-evacuation-delay" => (
            instances()?,
            format!(
                "clear the volume attachments to {host} of the {} boot-from-volume \
                 instance(s), then evacuate them (or follow the evacuation they hold)",
                finding.instance_uuids.len()
            ),
        ),
        other => {
            return Err(RemediationError::NotRemediable {
                id: finding.id.clone(),
                detector: other.to_owned(),
            });
        }
    };
    Ok(Remediation {
        host,
        only_instances,
        summary,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::Severity;
    use crate::detect::finding::Remediation as Advice;

    fn finding(detector: &'static str, host: Option<&str>, instances: &[&str]) -> Finding {
        Finding {
            id: format!("{detector}:2b0c7ab6-3d1e-4c8f-9a8e-6f1d2c3b4a59").into(),
            detector,
            severity: Severity::Critical,
            title: String::new(),
            summary: String::new(),
            failed_host: host.map(str::to_owned),
            instance_uuids: instances.iter().map(|i| (*i).to_owned()).collect(),
            notification_id: None,
            request_ids: Vec::new(),
            window: None,
            evidence: Vec::new(),
            explanation: String::new(),
            remediation: Advice::default(),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }

    const VM: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

    #[test]
    fn each_remediable_detector_maps_to_its_recovery() {
        let race =
            remediation_for(&finding("evacuate-400-race", Some("compute-1"), &[VM])).unwrap();
        assert_eq!(race.host, "compute-1");
        assert_eq!(race.only_instances, None, "everything left on the host");
        for detector in ["pending-after-finished", "bfv-evacuation-delay"] {
            let remediation =
                remediation_for(&finding(detector, Some("compute-1"), &[VM])).unwrap();
            assert_eq!(
                remediation.only_instances,
                Some(BTreeSet::from([VM.to_owned()])),
                "{detector}"
            );
        }
    }

    #[test]
    fn findings_without_a_host_instances_or_a_recovery_are_refused() {
        assert_eq!(
            remediation_for(&finding("evacuate-400-race", None, &[])),
            Err(RemediationError::NoHost(
                "evacuate-400-race:2b0c7ab6-3d1e-4c8f-9a8e-6f1d2c3b4a59".into()
            ))
        );
        assert!(matches!(
            remediation_for(&finding("pending-after-finished", Some("compute-1"), &[])),
            Err(RemediationError::NoInstances(_))
        ));
        assert!(matches!(
            remediation_for(&finding("evacuation-race-risk", Some("compute-1"), &[VM])),
            Err(RemediationError::NotRemediable { .. })
        ));
    }
}
