//! What detectors get: the analysis, the recoveries rebuilt from it, and options; and
//! the runner that applies the registry.

use crate::correlate::Analysis;
use crate::correlate::recovery::{Recovery, recoveries};
use crate::detect::{DETECTORS, Finding};

/// Tunables of the detectors.
#[derive(Clone, Debug)]
pub struct DetectOptions {
    /// A boot-from-volume evacuation slower than this is a finding (seconds).
    pub bfv_delay_secs: i64,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            bfv_delay_secs: 300,
        }
    }
}

/// The input of every detector.
#[derive(Debug)]
pub struct DetectContext<'a> {
    /// The analysis.
    pub analysis: &'a Analysis,
    /// Masakari recoveries rebuilt from it.
    pub recoveries: Vec<Recovery>,
    /// Options.
    pub options: DetectOptions,
}

/// Detectors that explain a recovery's failure: when one of them fires for a
/// notification, `recovery-failed` says nothing more about it.
pub const FAILURE_CLASSES: [&str; 3] = [
    "evacuate-400-race",
    "pending-after-finished",
    "bfv-evacuation-delay",
];

/// Runs every registered detector.
pub fn run_all(analysis: &Analysis, options: &DetectOptions) -> Vec<Finding> {
    let ctx = DetectContext {
        analysis,
        recoveries: recoveries(analysis),
        options: options.clone(),
    };
    let mut findings: Vec<Finding> = DETECTORS.iter().flat_map(|d| d.detect(&ctx)).collect();
    // A failure one of the three classes explains is not reported again as generic.
    let explained: Vec<Option<String>> = findings
        .iter()
        .filter(|f| FAILURE_CLASSES.contains(&f.detector))
        .map(|f| f.notification_id.clone())
        .collect();
    findings.retain(|f| f.detector != "recovery-failed" || !explained.contains(&f.notification_id));
    findings
}
