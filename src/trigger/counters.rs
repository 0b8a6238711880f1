//! Counters of the trigger's decisions, by action and outcome, in the Prometheus text
//! format (appended to the service's `/metrics`).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;

/// Decisions by (action, outcome).
#[derive(Debug, Default)]
pub struct TriggerCounters {
    decisions: Mutex<BTreeMap<(&'static str, &'static str), u64>>,
}

impl TriggerCounters {
    /// Counts one decision.
    pub fn count(&self, action: &'static str, outcome: &'static str) {
        let mut map = self
            .decisions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        *map.entry((action, outcome)).or_default() += 1;
    }

    /// The count of one (action, outcome).
    pub fn get(&self, action: &str, outcome: &str) -> u64 {
        let map = self
            .decisions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        map.iter()
            .filter(|((a, o), _)| *a == action && *o == outcome)
            .map(|(_, n)| *n)
            .sum()
    }

    /// The exposition text.
    pub fn render(&self) -> String {
        let mut out = String::from(
            "# HELP evacdoc_trigger_decisions_total Trigger decisions by action and outcome.\n\
             # TYPE evacdoc_trigger_decisions_total counter\n",
        );
        let map = self
            .decisions
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        for ((action, outcome), n) in map.iter() {
            let _ = writeln!(
                out,
                "evacdoc_trigger_decisions_total{{action=\"{action}\",outcome=\"{outcome}\"}} {n}"
            );
        }
        out
    }
}
