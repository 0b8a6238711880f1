//! The triage document (`evacdoc.triage/v1`): the bundle's environment, the known bugs it
//! matches with their confidence and reasons, and its findings in brief. What
//! `evacdoc triage --format json` prints and `POST /api/v1/triage` answers.

use serde::Serialize;

use crate::correlate::Analysis;
use crate::detect::Finding;
use crate::triage::catalog::Catalog;
use crate::triage::matching::{BugMatch, Confidence, match_bugs};
use crate::triage::release::{ServiceRelease, main_series, releases};

/// The schema name of the triage document.
pub const TRIAGE_SCHEMA: &str = "evacdoc.triage/v1";

/// What the bundle says of the deployment.
#[derive(Clone, Debug, Serialize)]
pub struct Environment {
    /// The OpenStack series most package versions name (`2024.1 Caracal`).
    pub series: Option<String>,
    /// The versions of the services that matter, one line per component and version.
    pub releases: Vec<ServiceRelease>,
    /// The deployment layout (`juju-crashdump`, `sosreport`, `kolla`, ...).
    pub layout: String,
    /// Host names.
    pub hosts: Vec<String>,
    /// Services found on any host.
    pub services: Vec<String>,
}

/// A finding in brief.
#[derive(Clone, Debug, Serialize)]
pub struct FindingBrief {
    /// Its id.
    pub id: String,
    /// The detector.
    pub detector: String,
    /// `critical`, `warning` or `info`.
    pub severity: String,
    /// One line.
    pub title: String,
    /// The failed host.
    pub failed_host: Option<String>,
    /// The Masakari notification.
    pub notification_id: Option<String>,
    /// How many instances it concerns.
    pub instances: usize,
}

/// The triage of one bundle.
#[derive(Clone, Debug, Serialize)]
pub struct Triage {
    /// Always [`TRIAGE_SCHEMA`].
    pub schema: &'static str,
    /// The inputs as given.
    pub inputs: Vec<String>,
    /// What the bundle says of the deployment.
    pub environment: Environment,
    /// Known bugs matched, best first.
    pub matches: Vec<BugMatch>,
    /// The ids (tracker#id) of the matches a bot may treat as duplicates (confidence high).
    pub duplicate_of: Vec<String>,
    /// The findings in brief.
    pub findings: Vec<FindingBrief>,
}

impl Environment {
    /// The environment of `analysis`.
    pub fn of(analysis: &Analysis) -> Environment {
        let releases = releases(analysis);
        let mut services: Vec<String> = analysis
            .hosts
            .iter()
            .flat_map(|h| h.services.iter().cloned())
            .collect();
        services.sort();
        services.dedup();
        Environment {
            series: main_series(&releases),
            releases,
            layout: analysis.layout.as_str().to_string(),
            hosts: analysis.hosts.iter().map(|h| h.hostname.clone()).collect(),
            services,
        }
    }
}

impl Triage {
    /// The triage of `analysis` and its `findings` against `catalog`.
    pub fn new(analysis: &Analysis, findings: &[Finding], catalog: &Catalog) -> Triage {
        let matches = match_bugs(catalog, findings, analysis);
        let duplicate_of = matches
            .iter()
            .filter(|m| m.confidence == Confidence::High && !m.id.is_empty())
            .map(|m| format!("{}#{}", m.tracker, m.id))
            .collect();
        Triage {
            schema: TRIAGE_SCHEMA,
            inputs: analysis.inputs.clone(),
            environment: Environment::of(analysis),
            matches,
            duplicate_of,
            findings: findings
                .iter()
                .map(|f| FindingBrief {
                    id: f.id.to_string(),
                    detector: f.detector.to_string(),
                    severity: f.severity.as_str().to_string(),
                    title: f.title.clone(),
                    failed_host: f.failed_host.clone(),
                    notification_id: f.notification_id.clone(),
                    instances: f.instance_uuids.len(),
                })
                .collect(),
        }
    }
}
