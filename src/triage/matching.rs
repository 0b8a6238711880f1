//! How well a bundle matches each known bug, with the reasons: what a triage bot needs to
//! label a new bug report or mark it a duplicate.
//!
//! The score rests on mechanisms, not on wording: a detector that points to the bug fired
//! (its first-listed detector is the bug's own mechanism, the others are symptoms it also
//! causes), the finding has evidence lines, and the installed packages predate or carry
//! the fix.

use serde::Serialize;

use crate::correlate::Analysis;
use crate::detect::{Finding, Severity};
use crate::triage::catalog::{Catalog, FixState, KnownBug, Relevance, fix_state_on};

/// A match at or above this score is `high`: a bot may mark the report a duplicate.
pub const HIGH: f64 = 0.75;
/// A match at or above this score is `medium`: worth a label, not a duplicate mark.
pub const MEDIUM: f64 = 0.5;

/// How sure the match is, in words.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Confidence {
    /// Below [`MEDIUM`].
    Low,
    /// From [`MEDIUM`] to [`HIGH`].
    Medium,
    /// [`HIGH`] and above.
    High,
}

impl Confidence {
    /// The lowercase name.
    pub fn as_str(self) -> &'static str {
        match self {
            Confidence::Low => "low",
            Confidence::Medium => "medium",
            Confidence::High => "high",
        }
    }

    /// The level of a score.
    pub fn of(score: f64) -> Confidence {
        if score >= HIGH {
            Confidence::High
        } else if score >= MEDIUM {
            Confidence::Medium
        } else {
            Confidence::Low
        }
    }
}

/// What a reason rests on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum ReasonKind {
    /// A finding of a detector that points to the bug.
    Finding,
    /// A line behind that finding.
    Evidence,
    /// The installed packages against the fixed version.
    Version,
}

/// One reason for (or against) a match.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Reason {
    /// What it rests on.
    pub kind: ReasonKind,
    /// In a sentence.
    pub text: String,
    /// How much it moved the score.
    pub weight: f64,
}

/// A known bug the bundle matches.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct BugMatch {
    /// `launchpad`, ...
    pub tracker: String,
    /// The bug's id in the tracker (empty when the catalog does not know it).
    pub id: String,
    /// Its title.
    pub title: String,
    /// Link.
    pub url: String,
    /// From 0 to 1.
    pub score: f64,
    /// The score in words.
    pub confidence: Confidence,
    /// The findings behind it (ids).
    pub findings: Vec<String>,
    /// Why, strongest first.
    pub reasons: Vec<Reason>,
    /// What the installed packages say of the fix.
    pub fix_status: String,
}

/// What a finding of this severity says of a bug whose own mechanism it is.
fn severity_weight(severity: Severity) -> f64 {
    match severity {
        Severity::Critical => 0.6,
        Severity::Warning => 0.5,
        Severity::Info => 0.3,
    }
}

/// A finding of a detector the bug lists after its first is a symptom the bug can cause,
/// not its mechanism.
const SYMPTOM_PENALTY: f64 = 0.2;
/// Each further finding of the bug's detectors (other notifications, other hosts).
const EACH_MORE_FINDING: f64 = 0.05;
const MORE_FINDINGS_MAX: f64 = 0.1;
const FIX_MISSING: f64 = 0.25;
const FIX_INCLUDED: f64 = -0.35;
/// The finding shows the lines behind it (a detector that fired on lines, not on config).
const EVIDENCE: f64 = 0.15;

/// The match of `bug` against the findings, if a finding points to it.
fn match_bug(bug: &KnownBug, findings: &[Finding], analysis: &Analysis) -> Option<BugMatch> {
    let pointing: Vec<&Finding> = findings
        .iter()
        .filter(|f| bug.detectors.iter().any(|d| d == f.detector))
        .collect();
    let strongest = pointing.iter().max_by(|a, b| {
        finding_weight(bug, a)
            .partial_cmp(&finding_weight(bug, b))
            .unwrap_or(std::cmp::Ordering::Equal)
    })?;
    let mut reasons = Vec::new();
    let base = finding_weight(bug, strongest);
    let role = if is_mechanism(bug, strongest) {
        "the bug's own mechanism"
    } else {
        "a symptom the bug also causes"
    };
    reasons.push(Reason {
        kind: ReasonKind::Finding,
        text: format!(
            "{} finding {} ({}): {}",
            strongest.severity.as_str(),
            strongest.id,
            role,
            strongest.title
        ),
        weight: base,
    });
    let more = (pointing.len() - 1) as f64 * EACH_MORE_FINDING;
    if more > 0.0 {
        reasons.push(Reason {
            kind: ReasonKind::Finding,
            text: format!("{} more findings of the same detectors", pointing.len() - 1),
            weight: more.min(MORE_FINDINGS_MAX),
        });
    }
    match strongest.evidence.first() {
        Some(first) => reasons.push(Reason {
            kind: ReasonKind::Evidence,
            text: format!(
                "{} evidence lines, first {}:{} on {}",
                strongest.evidence.len(),
                first.path,
                first.line,
                first.host
            ),
            weight: EVIDENCE,
        }),
        None => reasons.push(Reason {
            kind: ReasonKind::Evidence,
            text: "the finding has no evidence lines".into(),
            weight: 0.0,
        }),
    }
    let fix = fix_state_on(bug, analysis, strongest.failed_host.as_deref());
    let fix_weight = match fix {
        FixState::Missing { .. } => FIX_MISSING,
        FixState::Included { .. } => FIX_INCLUDED,
        FixState::Unknown(_) => 0.0,
    };
    reasons.push(Reason {
        kind: ReasonKind::Version,
        text: match &fix {
            FixState::Included { .. } => format!("{fix}: a regression or another cause"),
            _ => fix.to_string(),
        },
        weight: fix_weight,
    });
    let score: f64 = reasons
        .iter()
        .map(|r| r.weight)
        .sum::<f64>()
        .clamp(0.0, 1.0);
    let score = (score * 100.0).round() / 100.0;
    reasons.sort_by(|a, b| {
        b.weight
            .abs()
            .partial_cmp(&a.weight.abs())
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    Some(BugMatch {
        tracker: bug.tracker.clone(),
        id: bug.id.clone(),
        title: bug.title.clone(),
        url: bug.url.clone(),
        score,
        confidence: Confidence::of(score),
        findings: pointing.iter().map(|f| f.id.to_string()).collect(),
        reasons,
        fix_status: fix.to_string(),
    })
}

/// The finding's detector is the first the bug lists: the bug's own mechanism.
fn is_mechanism(bug: &KnownBug, finding: &Finding) -> bool {
    bug.detectors.first().is_some_and(|d| d == finding.detector)
}

fn finding_weight(bug: &KnownBug, finding: &Finding) -> f64 {
    let weight = severity_weight(finding.severity);
    if is_mechanism(bug, finding) {
        weight
    } else {
        weight - SYMPTOM_PENALTY
    }
}

/// Every known bug the findings point to, best match first.
pub fn match_bugs(catalog: &Catalog, findings: &[Finding], analysis: &Analysis) -> Vec<BugMatch> {
    let kinds = crate::triage::catalog::deployment_kinds(analysis);
    let mut matches: Vec<BugMatch> = catalog
        .bugs
        .iter()
        .filter(|bug| bug.relevance == Relevance::Cause)
        .filter(|bug| crate::triage::catalog::applies_to(bug, &kinds))
        .filter_map(|bug| match_bug(bug, findings, analysis))
        .collect();
    matches.sort_by(|a, b| {
        b.score
            .partial_cmp(&a.score)
            .unwrap_or(std::cmp::Ordering::Equal)
    });
    matches
}
