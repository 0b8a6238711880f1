//! A finding: what a detector concluded, with everything an operator needs to act on it
//! (the `findings[]` objects of the `evacdoc.analysis/v1` schema).

use serde::{Deserialize, Deserializer, Serialize};

use crate::model::{FindingId, Uuid};

/// How bad a finding is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Worth knowing.
    Info,
    /// A risk, or a failure that was recovered from.
    Warning,
    /// Instances were not recovered.
    Critical,
}

impl Severity {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// The time span a finding covers (RFC 3339, UTC).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Window {
    /// First event.
    pub start: String,
    /// Last event.
    pub end: String,
}

/// A line behind a finding.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Evidence {
    /// File, relative to the input root.
    pub path: String,
    /// 1-based line in that file.
    pub line: usize,
    /// Host name.
    pub host: String,
    /// UTC time of the line, when it has one (config lines have none).
    pub timestamp: Option<String>,
    /// The line as written.
    pub text: String,
}

/// A configuration change that would prevent the failure.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct ConfigChange {
    /// The file where the option is (or would be) set.
    pub file: String,
    /// INI section.
    pub section: String,
    /// Option.
    pub option: String,
    /// The value in force (`null` when unset, the default applies).
    pub current: Option<String>,
    /// The value recommended.
    pub recommended: String,
    /// Why, in a sentence (and the deployment tool's name for it, if any).
    pub note: String,
}

/// A recovery action the executor can run (dry-run first).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "action", rename_all = "kebab-case")]
pub enum Action {
    /// Evacuate an instance left on a failed host.
    Evacuate {
        /// Instance UUID.
        instance: Uuid,
        /// The failed host.
        from_host: String,
    },
    /// Unlock an instance Masakari left locked.
    Unlock {
        /// Instance UUID.
        instance: Uuid,
    },
    /// Remove a volume's attachment to a dead host so the volume can attach elsewhere.
    ForceDetachVolume {
        /// Volume UUID.
        volume: Uuid,
        /// The attachment to remove, when known.
        #[serde(skip_serializing_if = "Option::is_none")]
        attachment: Option<Uuid>,
        /// The dead host the volume is attached to.
        host: String,
    },
    /// Mark the failed host's compute service forced down (only if it is fenced).
    ForceDownService {
        /// The host.
        host: String,
    },
}

/// What to do about a finding.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Remediation {
    /// In a few sentences.
    pub summary: String,
    /// Config changes.
    pub config_changes: Vec<ConfigChange>,
    /// Executor actions.
    pub actions: Vec<Action>,
}

impl Remediation {
    /// Advice alone: no config change to suggest, nothing for the executor to do.
    pub fn advice(summary: impl Into<String>) -> Remediation {
        Remediation {
            summary: summary.into(),
            config_changes: Vec::new(),
            actions: Vec::new(),
        }
    }
}

/// A known bug a finding points to, and whether the installed packages carry its fix.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct KnownBugRef {
    /// `launchpad`, `storyboard`, ...
    pub tracker: String,
    /// The bug's id in the tracker.
    pub id: String,
    /// Its title.
    pub title: String,
    /// Link.
    pub url: String,
    /// Where the fix is released, as the catalog knows it.
    pub fixed_in: Vec<String>,
    /// What the bundle's packages say about the fix (`installed`, `not installed`,
    /// `unknown` with the reason).
    pub fix_status: String,
}

/// What a detector measured or pointed at, for the finding's picture (not part of the
/// JSON document: the evidence and the explanation say it in words there; the service's
/// store keeps it beside the finding).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Highlight {
    /// One of the finding's lines, with what it shows (`evacuate → 400`).
    Line {
        /// File, relative to the input root (as in [`Evidence::path`]).
        path: String,
        /// 1-based line in that file.
        line: usize,
        /// A few words.
        label: String,
    },
    /// A span the detector measured between two moments (`60 s sleep`).
    Span {
        /// Start, UTC nanoseconds since the epoch.
        from: i64,
        /// End, UTC nanoseconds since the epoch.
        to: i64,
        /// A few words, the duration included.
        label: String,
    },
}

/// One conclusion of a detector (read back by the service's store, see the
/// `Deserialize` impl below).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Finding {
    /// Stable id: detector and subject (`evacuate-400-race:<notification>`).
    pub id: FindingId,
    /// The detector's id.
    pub detector: &'static str,
    /// How bad.
    pub severity: Severity,
    /// One line.
    pub title: String,
    /// Two or three sentences.
    pub summary: String,
    /// The failed compute host.
    pub failed_host: Option<String>,
    /// Instances concerned.
    pub instance_uuids: Vec<String>,
    /// The Masakari notification.
    pub notification_id: Option<String>,
    /// Request ids of the calls involved.
    pub request_ids: Vec<String>,
    /// Time span.
    pub window: Option<Window>,
    /// The lines behind it, in time order.
    pub evidence: Vec<Evidence>,
    /// What happened and why, for an operator.
    pub explanation: String,
    /// What to do.
    pub remediation: Remediation,
    /// Known bugs (filled by triage).
    pub known_bugs: Vec<KnownBugRef>,
    /// What the finding's picture highlights (measured spans, failing calls).
    #[serde(skip)]
    pub highlights: Vec<Highlight>,
}

/// A finding read back (the service's store): its detector id becomes the registry's
/// own `&'static str` (an id no detector has is an error); its highlights are not in its
/// JSON (the store keeps them beside it).
impl<'de> Deserialize<'de> for Finding {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Finding, D::Error> {
        /// The fields as written, the detector id owned.
        #[derive(Deserialize)]
        struct Written {
            id: FindingId,
            detector: String,
            severity: Severity,
            title: String,
            summary: String,
            failed_host: Option<String>,
            instance_uuids: Vec<String>,
            notification_id: Option<String>,
            request_ids: Vec<String>,
            window: Option<Window>,
            evidence: Vec<Evidence>,
            explanation: String,
            remediation: Remediation,
            known_bugs: Vec<KnownBugRef>,
        }
        let w = Written::deserialize(d)?;
        let detector = super::DETECTORS
            .iter()
            .map(|detector| detector.id())
            .find(|known| *known == w.detector)
            .ok_or_else(|| {
                serde::de::Error::custom(format!("unknown detector {:?}", w.detector))
            })?;
        Ok(Finding {
            id: w.id,
            detector,
            severity: w.severity,
            title: w.title,
            summary: w.summary,
            failed_host: w.failed_host,
            instance_uuids: w.instance_uuids,
            notification_id: w.notification_id,
            request_ids: w.request_ids,
            window: w.window,
            evidence: w.evidence,
            explanation: w.explanation,
            remediation: w.remediation,
            known_bugs: w.known_bugs,
            highlights: Vec::new(),
        })
    }
}
