//! What `recover` and `remediate` print: the `evacdoc.recovery/v1` JSON document, or text
//! for people.

use std::fmt::Write as _;

use serde::Serialize;

use super::plan::{Plan, Step};
use crate::store::{MoveStatus, RecoveryRow, RecoveryStatus};

pub const SCHEMA: &str = "evacdoc.recovery/v1";

/// A recovery: planned only, or run and journaled.
#[derive(Debug, Clone, Serialize)]
pub struct RecoveryReport {
    pub schema: &'static str,
    pub host: String,
    pub status: RecoveryStatus,
    pub started: Option<String>,
    pub ended: Option<String>,
    /// Why it ended as it did, when it did not simply finish.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// The journal's id of the recovery, when it ran.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recovery_id: Option<i64>,
    /// What started it: a finding id, or `cli`.
    pub source: String,
    pub plan: Vec<Step>,
    /// What the operator should know (the host not declared fenced).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub moves: Vec<MoveReport>,
}

/// One VM move.
#[derive(Debug, Clone, Serialize)]
pub struct MoveReport {
    pub instance: String,
    pub status: MoveStatus,
    pub source: String,
    pub destination: Option<String>,
    pub started: Option<String>,
    pub ended: Option<String>,
    pub message: Option<String>,
}

impl RecoveryReport {
    /// The plan of a dry run: nothing changed, every move still to do.
    pub fn planned(plan: &Plan, source: &str) -> RecoveryReport {
        RecoveryReport {
            schema: SCHEMA,
            host: plan.host.clone(),
            status: RecoveryStatus::Planned,
            started: None,
            ended: None,
            message: None,
            recovery_id: None,
            source: source.to_owned(),
            plan: plan.steps.clone(),
            warnings: plan.warnings.clone(),
            moves: plan
                .moves
                .iter()
                .map(|m| MoveReport {
                    instance: m.instance.clone(),
                    status: if m.ignored.is_some() {
                        MoveStatus::Ignored
                    } else {
                        MoveStatus::Pending
                    },
                    source: m.source.clone(),
                    destination: None,
                    started: None,
                    ended: None,
                    message: m.ignored.clone().or_else(|| m.unmovable.clone()),
                })
                .collect(),
        }
    }

    /// A run, as the journal ended it.
    pub fn ran(plan: &Plan, row: &RecoveryRow) -> RecoveryReport {
        RecoveryReport {
            schema: SCHEMA,
            host: row.host.clone(),
            status: row.status,
            started: Some(row.started.clone()),
            ended: row.ended.clone(),
            message: row.message.clone(),
            recovery_id: Some(row.id),
            source: row.source.clone(),
            plan: plan.steps.clone(),
            warnings: plan.warnings.clone(),
            moves: row
                .moves
                .iter()
                .map(|m| MoveReport {
                    instance: m.instance.clone(),
                    status: m.status,
                    source: m.source.clone(),
                    destination: m.destination.clone(),
                    started: m.started.clone(),
                    ended: m.ended.clone(),
                    message: m.message.clone(),
                })
                .collect(),
        }
    }

    /// For people: the status, the plan's calls, and each move.
    pub fn text(&self) -> String {
        let mut out = String::new();
        let _ = writeln!(out, "recovery of {}: {}", self.host, self.status);
        if let (Some(started), Some(ended)) = (&self.started, &self.ended) {
            let _ = writeln!(out, "  from {started} to {ended}");
        }
        if let Some(message) = &self.message {
            let _ = writeln!(out, "  {message}");
        }
        for warning in &self.warnings {
            let _ = writeln!(out, "  WARNING: {warning}");
        }
        let _ = writeln!(out, "\nplan ({} calls):", self.plan.len());
        for (n, step) in self.plan.iter().enumerate() {
            let _ = writeln!(out, "  {:>3}. {:<6} {}", n + 1, step.method, step.path);
            let _ = writeln!(out, "       {}", step.why);
        }
        if self.status == RecoveryStatus::Planned {
            let _ = writeln!(
                out,
                "\nnothing was changed: run again with --apply to do it"
            );
        }
        let _ = writeln!(out, "\nmoves:");
        for m in &self.moves {
            let _ = write!(out, "  {} {:<9}", m.instance, m.status.as_str());
            if let Some(destination) = &m.destination {
                let _ = write!(out, " {} -> {destination}", m.source);
            }
            if let Some(message) = &m.message {
                let _ = write!(out, "  {message}");
            }
            out.push('\n');
        }
        out
    }
}
