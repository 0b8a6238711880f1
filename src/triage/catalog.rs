//! The known-bug catalog (`known_bugs.toml`, compiled in) and its match against findings
//! and installed packages.

use serde::Deserialize;

use crate::correlate::Analysis;
use crate::detect::Finding;
use crate::detect::finding::KnownBugRef;
use crate::triage::version;

/// The catalog as shipped.
const CATALOG: &str = include_str!("known_bugs.toml");

/// Where a fix is released.
#[derive(Clone, Debug, Deserialize)]
pub struct FixedIn {
    /// A release, distribution or series.
    #[serde(rename = "where")]
    pub place: String,
    /// Package carrying the fix, when known.
    pub package: Option<String>,
    /// First fixed upstream version of that package, when known.
    pub version: Option<String>,
    /// Tracker status.
    pub status: String,
}

/// A known bug.
#[derive(Clone, Debug, Deserialize)]
pub struct KnownBug {
    /// Tracker name.
    pub tracker: String,
    /// Id in the tracker (empty when unknown).
    pub id: String,
    /// Title.
    pub title: String,
    /// Link.
    pub url: String,
    /// Affected components.
    pub components: Vec<String>,
    /// Affected versions, in words.
    pub affected: String,
    /// Detectors that point to it.
    pub detectors: Vec<String>,
    /// The upstream fix, when there is one.
    pub upstream_fix: Option<String>,
    /// Anything else worth knowing.
    pub notes: Option<String>,
    /// Where a fix is released.
    #[serde(default)]
    pub fixed_in: Vec<FixedIn>,
    /// Whether the bug explains a finding or bears on its fix.
    #[serde(default)]
    pub relevance: Relevance,
    /// The deployment kinds the bug lives in (`charm`, `kolla`, `snap`); empty: any. A
    /// bug of one kind is attached only when the bundle shows that kind of deployment.
    #[serde(default)]
    pub deployments: Vec<String>,
}

/// The kinds of deployment the bundle shows: `charm` (a juju-crashdump, or Juju's own
/// files), `kolla` (its layout or `/kolla/` paths), `snap` (Sunbeam, or snap packages).
pub fn deployment_kinds(analysis: &Analysis) -> Vec<&'static str> {
    use crate::model::inventory::Layout;
    let paths = || {
        analysis
            .files
            .iter()
            .map(|f| f.path.as_str())
            .chain(analysis.config.iter().map(|c| c.file.as_str()))
    };
    let mut kinds = Vec::new();
    if analysis.layout == Layout::JujuCrashdump || paths().any(|p| p.contains("juju")) {
        kinds.push("charm");
    }
    if analysis.layout == Layout::Kolla || paths().any(|p| p.contains("/kolla/")) {
        kinds.push("kolla");
    }
    if analysis.layout == Layout::Sunbeam || analysis.packages.iter().any(|p| p.kind == "snap") {
        kinds.push("snap");
    }
    kinds
}

/// True when the bundle shows a deployment `bug` can be of.
pub fn applies_to(bug: &KnownBug, kinds: &[&str]) -> bool {
    bug.deployments.is_empty() || bug.deployments.iter().any(|d| kinds.contains(&d.as_str()))
}

/// What a known bug is to the findings that point to it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Relevance {
    /// The bug is why the finding happened: a triage match.
    #[default]
    Cause,
    /// The bug bears on the remediation only: shown with the finding, not matched.
    Remediation,
}

/// The catalog.
#[derive(Clone, Debug, Deserialize)]
pub struct Catalog {
    /// Bugs.
    #[serde(rename = "bug")]
    pub bugs: Vec<KnownBug>,
}

/// The shipped catalog does not parse (a broken edit of `known_bugs.toml`).
#[derive(Debug, thiserror::Error)]
#[error("known_bugs.toml: {0}")]
pub struct CatalogError(#[from] toml::de::Error);

impl Catalog {
    /// The catalog shipped with evacdoc.
    pub fn shipped() -> Result<Catalog, CatalogError> {
        Ok(toml::from_str(CATALOG)?)
    }

    /// Bugs a detector points to.
    pub fn for_detector<'c>(
        &'c self,
        detector: &'c str,
    ) -> impl Iterator<Item = &'c KnownBug> + 'c {
        self.bugs
            .iter()
            .filter(move |b| b.detectors.iter().any(|d| d == detector))
    }
}

/// What the installed packages say of a bug's fix.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum FixState {
    /// A listed package is at or past the fixed version.
    Included {
        /// The package.
        package: String,
        /// Its version as installed.
        installed: String,
        /// The first fixed version.
        fixed: String,
    },
    /// A listed package predates the fixed version.
    Missing {
        /// The package.
        package: String,
        /// Its version as installed.
        installed: String,
        /// The first fixed version.
        fixed: String,
    },
    /// The bundle cannot tell (no package list, or no fixed version to compare with).
    Unknown(String),
}

impl std::fmt::Display for FixState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FixState::Included {
                package,
                installed,
                fixed,
            } => write!(
                f,
                "installed: {package} {installed} includes the fix ({fixed})"
            ),
            FixState::Missing {
                package,
                installed,
                fixed,
            } => write!(
                f,
                "not installed: {package} {installed} predates the fix ({fixed})"
            ),
            FixState::Unknown(why) => write!(f, "unknown: {why}"),
        }
    }
}

/// What the installed packages say of `bug`'s fix. A fix backported to stable series is
/// listed once per series (same package): an installed version is compared with the
/// entry of its own major version, else with the newest entry.
pub fn fix_state(bug: &KnownBug, analysis: &Analysis) -> FixState {
    fix_state_on(bug, analysis, None)
}

/// [`fix_state`], reading the package on `host` first when it has one: in a rolling
/// upgrade the host a finding names (a destination compute) is the one that matters.
pub fn fix_state_on(bug: &KnownBug, analysis: &Analysis, host: Option<&str>) -> FixState {
    let on_host = |p: &&crate::model::inventory::InstalledPackage| {
        host.is_some_and(|h| analysis.host(p.host).is_some_and(|x| x.hostname == h))
    };
    for fixed in &bug.fixed_in {
        let Some(package) = &fixed.package else {
            continue;
        };
        if fixed.version.is_none() {
            continue;
        }
        let named = |p: &&crate::model::inventory::InstalledPackage| &p.name == package;
        let Some(p) = analysis
            .packages
            .iter()
            .filter(named)
            .find(on_host)
            .or_else(|| analysis.packages.iter().find(named))
        else {
            continue;
        };
        let have = version::upstream(&p.version);
        let Some(fixed) = fixed_for(bug, package, have) else {
            continue;
        };
        let (package, installed) = (package.clone(), p.version.clone());
        return if version::compare(have, &fixed) != std::cmp::Ordering::Less {
            FixState::Included {
                package,
                installed,
                fixed,
            }
        } else {
            FixState::Missing {
                package,
                installed,
                fixed,
            }
        };
    }
    let relevant: Vec<String> = analysis
        .packages
        .iter()
        .filter(|p| {
            bug.components
                .iter()
                .any(|c| p.name.starts_with(c.as_str()))
        })
        .map(|p| format!("{} {}", p.name, p.version))
        .take(3)
        .collect();
    FixState::Unknown(if relevant.is_empty() {
        "the bundle has no package list for the affected components".into()
    } else {
        format!(
            "installed {}; the catalog has no fixed version to compare with",
            relevant.join(", ")
        )
    })
}

/// The fixed version of `package` to compare `have` with: the entry of the same major
/// version (its series' backport), else the newest.
fn fixed_for(bug: &KnownBug, package: &str, have: &str) -> Option<String> {
    let major = |v: &str| v.split('.').next().unwrap_or(v).to_string();
    let versions: Vec<&str> = bug
        .fixed_in
        .iter()
        .filter(|f| f.package.as_deref() == Some(package))
        .filter_map(|f| f.version.as_deref())
        .collect();
    versions
        .iter()
        .find(|v| major(v) == major(have))
        .or_else(|| versions.iter().max_by(|a, b| version::compare(a, b)))
        .map(|v| v.to_string())
}

/// Adds to each finding the catalog's bugs for its detector, with the fix status.
pub fn attach_known_bugs(findings: &mut [Finding], catalog: &Catalog, analysis: &Analysis) {
    let kinds = deployment_kinds(analysis);
    for finding in findings {
        let host = finding.failed_host.clone();
        finding.known_bugs = catalog
            .for_detector(finding.detector)
            .filter(|bug| applies_to(bug, &kinds))
            .map(|bug| KnownBugRef {
                tracker: bug.tracker.clone(),
                id: bug.id.clone(),
                title: bug.title.clone(),
                url: bug.url.clone(),
                fixed_in: bug
                    .fixed_in
                    .iter()
                    .map(|f| match &f.version {
                        Some(v) => format!(
                            "{}: {} {v} ({})",
                            f.place,
                            f.package.as_deref().unwrap_or(""),
                            f.status
                        ),
                        None => format!("{}: {}", f.place, f.status),
                    })
                    .collect(),
                fix_status: fix_state_on(bug, analysis, host.as_deref()).to_string(),
            })
            .collect();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::detect::DETECTORS;

    /// The charm's bug is attached to a race in a charmed bundle, not in a Kolla one.
    #[test]
    fn a_charm_bug_needs_a_charm_deployment() {
        let catalog = Catalog::shipped().unwrap();
        let charm_bug =
            |bugs: &[KnownBugRef]| bugs.iter().any(|b| b.title.starts_with("charm-masakari"));
        let conf = "[DEFAULT]\nwait_period_after_service_update = 30\n";
        for (path, expected) in [
            ("ctl01/etc/kolla/masakari-engine/masakari.conf", false),
            ("ctl01/etc/masakari/masakari.conf", false),
            ("3/lxd/5/etc/masakari/masakari.conf", true),
        ] {
            let analysis = crate::detect::context::testing::analysis_of(&[(path, conf)]);
            let mut findings = crate::detect::detect(&analysis, &Default::default());
            assert_eq!(findings.len(), 1, "{path}");
            attach_known_bugs(&mut findings, &catalog, &analysis);
            assert_eq!(
                charm_bug(&findings[0].known_bugs),
                expected,
                "{path}: {:?}",
                deployment_kinds(&analysis)
            );
        }
    }

    /// A backport counts for its own series only: 29.2.1 has bug 2085975's fix, 29.0.1
    /// does not, 30.0.0 does not (its series got it in 30.1.0), 27.x never did.
    #[test]
    fn a_backported_fix_is_compared_within_its_series() {
        let catalog = Catalog::shipped().unwrap();
        let bug = catalog.bugs.iter().find(|b| b.id == "2085975").unwrap();
        for (have, fixed, included) in [
            ("3:29.2.1-0ubuntu1", "29.2.1", true),
            ("3:29.0.1-0ubuntu1.1", "29.2.1", false),
            ("30.0.0", "30.1.0", false),
            ("3:27.1.0-0ubuntu1.1", "31.0.0", false),
            ("32.0.0", "31.0.0", true),
        ] {
            assert_eq!(
                fixed_for(bug, "nova-compute", version::upstream(have)).as_deref(),
                Some(fixed),
                "{have}"
            );
            let ord = version::compare(version::upstream(have), fixed);
            assert_eq!(ord != std::cmp::Ordering::Less, included, "{have}");
        }
    }

    /// Bug 1996835's fix reached zed in 14.0.2 (the first tag holding its cherry-pick):
    /// Masakari 14.0.1, as the real-stack `stuck` scenario runs, is affected, 14.0.3 is not.
    #[test]
    fn masakari_stuck_running_backports_count_per_series() {
        let catalog = Catalog::shipped().unwrap();
        let bug = catalog.bugs.iter().find(|b| b.id == "1996835").unwrap();
        for (have, fixed, included) in [
            ("14.0.1-0ubuntu1", "14.0.2", false),
            ("14.0.3", "14.0.2", true),
            ("13.0.2-0ubuntu1", "13.0.3", false),
            ("12.0.3", "12.0.3", true),
            ("11.0.0", "15.0.0", false),
        ] {
            assert_eq!(
                fixed_for(bug, "masakari-engine", version::upstream(have)).as_deref(),
                Some(fixed),
                "{have}"
            );
            let ord = version::compare(version::upstream(have), fixed);
            assert_eq!(ord != std::cmp::Ordering::Less, included, "{have}");
        }
    }

    #[test]
    fn shipped_catalog_parses_and_names_real_detectors() {
        let catalog = Catalog::shipped().unwrap();
        assert!(catalog.bugs.iter().any(|b| b.id == "2158101"));
        for bug in &catalog.bugs {
            for detector in &bug.detectors {
                assert!(
                    DETECTORS.iter().any(|d| d.id() == detector),
                    "{}: unknown detector {detector}",
                    bug.title
                );
            }
            assert!(bug.url.starts_with("https://"));
        }
        assert!(
            catalog
                .for_detector("pending-after-finished")
                .any(|b| b.id == "2158101")
        );
    }
}
