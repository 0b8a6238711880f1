//! The three moments of one instance's evacuation, from whatever the bundle holds:
//! Masakari starts it, Nova accepts it, the destination has rebuilt it. The two gaps
//! between them are what `bfv-evacuation-delay` measures.
//!
//! - Started: the `Evacuation of instance started: '<id>'` progress detail of the
//!   notification (taken just before Masakari's thread for the instance runs), the VM
//!   move's `start_time`, the engine's `Call evacuate command` line; the earliest wins.
//!   The task's `Start evacuation of instances …` detail only when none of these is there.
//! - Accepted: the evacuate call's request answered 2xx (access or request log), the
//!   `evacuate` instance action of `server event list` (Nova records it when the API
//!   accepts) and the request-log line of that action's request id; the earliest wins.
//! - Rebuilt: `Instance spawned successfully` on the destination, else the `disk on …`
//!   step that starts the rebuild.

mod marks;
mod one_move;

use crate::correlate::recovery::{CallAction, Recovery};
use crate::detect::DetectContext;
use crate::model::{EventId, Uuid};

/// How long after the start Nova's work on the instance is still looked for.
const SEARCH_NS: i64 = 2 * 60 * 60 * 1_000_000_000;

/// Where a moment was read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// A log line.
    Event(EventId),
    /// A CLI capture file (its lines naming the instance are the evidence).
    Capture(String),
}

/// One moment of an evacuation.
#[derive(Clone, Debug)]
pub struct Mark {
    /// UTC nanoseconds.
    pub time: i64,
    /// What says so, in words (`the progress detail "Evacuation of instance started"`).
    pub what: &'static str,
    /// Where.
    pub source: Source,
}

/// One instance's evacuation.
#[derive(Clone, Debug)]
pub struct Move {
    /// The instance.
    pub instance: Uuid,
    /// Masakari started it.
    pub started: Option<Mark>,
    /// Nova accepted it.
    pub accepted: Option<Mark>,
    /// The destination rebuilt it.
    pub rebuilt: Option<Mark>,
    /// The evacuate calls and the requests joined to them.
    pub calls: Vec<EventId>,
    /// Nova's lines about the instance from the start to the rebuild.
    pub nova_lines: Vec<EventId>,
    /// Nova says its disk is on a volume (`disk on volume, …`).
    pub disk_on_volume: bool,
}

fn earliest(marks: impl IntoIterator<Item = Option<Mark>>) -> Option<Mark> {
    marks.into_iter().flatten().min_by_key(|m| m.time)
}

/// A UTC time as a capture prints it (`2025-06-10T19:24:20.000000`, `… 19:24:20.094311`).
pub fn capture_time(text: &str) -> Option<i64> {
    let text = text.trim().trim_end_matches('Z').replacen('T', " ", 1);
    let (_, t) = evacdoc_parsers::time::oslo_timestamp(&text).ok()?;
    t.checked_unix_nanos(0)
}

/// The evacuations of `recovery`'s instances.
pub fn moves(ctx: &DetectContext<'_>, recovery: &Recovery) -> Vec<Move> {
    let mut instances: Vec<Uuid> = Vec::new();
    for a in &recovery.attempts {
        instances.extend(
            a.calls_of(CallAction::Evacuate, None)
                .filter_map(|c| c.instance),
        );
    }
    // Instances Masakari says it started evacuating, even when its log is gone.
    for (_, n) in &recovery.captured {
        for detail in n.recovery_workflow_details.iter().flat_map(|t| &t.details) {
            if let Some(rest) = detail
                .message
                .strip_prefix("Evacuation of instance started")
            {
                instances.extend(evacdoc_parsers::text::uuids_in(rest).filter_map(Uuid::parse));
            }
        }
    }
    let mut seen = std::collections::HashSet::new();
    instances.retain(|i| seen.insert(*i));
    instances
        .into_iter()
        .filter_map(|instance| one_move::one_move(ctx, recovery, instance))
        .collect()
}

/// Which gap of a move is too long.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Gap {
    /// From Masakari's start to Nova's acceptance.
    StartToAcceptance,
    /// From Nova's acceptance to the rebuild.
    AcceptanceToRebuild,
    /// From Masakari's start to the rebuild, when nothing says when Nova accepted.
    StartToRebuild,
}

impl Move {
    /// The gaps that are known, with their ends.
    pub fn gaps(&self) -> Vec<(Gap, &Mark, &Mark)> {
        let mut out = Vec::new();
        match (&self.started, &self.accepted, &self.rebuilt) {
            (s, Some(a), r) => {
                if let Some(s) = s {
                    out.push((Gap::StartToAcceptance, s, a));
                }
                if let Some(r) = r {
                    out.push((Gap::AcceptanceToRebuild, a, r));
                }
            }
            (Some(s), None, Some(r)) => out.push((Gap::StartToRebuild, s, r)),
            _ => {}
        }
        out
    }

    /// The gaps longer than `threshold` nanoseconds.
    pub fn slow_gaps(&self, threshold: i64) -> Vec<(Gap, &Mark, &Mark)> {
        self.gaps()
            .into_iter()
            .filter(|(_, from, to)| to.time - from.time > threshold)
            .collect()
    }

    /// From the first known moment to the rebuild, when the rebuild is known.
    pub fn to_rebuild(&self) -> Option<i64> {
        let first = self.started.as_ref().or(self.accepted.as_ref())?;
        Some(self.rebuilt.as_ref()?.time - first.time)
    }
}
