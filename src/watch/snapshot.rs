//! One analysis of the held events, made by [`crate::correlate::correlate`] as a bundle's
//! is (zones, UTC order, copies dropped, skew, joins, recoveries) and run through the
//! detectors; and what it says of
//! the recoveries: which are still open, and which events may be forgotten.

use std::collections::{HashMap, HashSet};

use crate::correlate::analysis::Analysis;
use crate::correlate::extract::RawEvent;
use crate::correlate::keeper::FileOutcome;
use crate::correlate::notification_kinds::RecoveryStatus;
use crate::correlate::{Inventory, correlate};
use crate::detect::{DetectOptions, Finding};
use crate::ingest::host_names::HostNameVotes;
use crate::ingest::live::LiveScan;
use crate::ingest::timezone::HostZone;
use crate::model::Uuid;
use crate::model::inventory::Layout;
use crate::run::findings_with_bugs;
use crate::triage::Catalog;
use crate::watch::files::Registry;

/// The analysis of the held events and its findings.
#[derive(Debug)]
pub(crate) struct Snapshot {
    pub(crate) analysis: Analysis,
    pub(crate) findings: Vec<Finding>,
}

/// What the inputs' small files said at the last scan, with host ids made stable.
#[derive(Debug)]
pub(crate) struct Context {
    pub(crate) inputs: Vec<String>,
    pub(crate) layout: Layout,
    pub(crate) config: Vec<crate::model::inventory::ConfigValue>,
    pub(crate) captures: Vec<crate::model::inventory::CaptureFile>,
    pub(crate) zones: std::collections::BTreeMap<u32, HostZone>,
}

impl Default for Context {
    fn default() -> Self {
        Context {
            inputs: Vec::new(),
            layout: Layout::Plain,
            config: Vec::new(),
            captures: Vec::new(),
            zones: std::collections::BTreeMap::new(),
        }
    }
}

impl Context {
    /// The context of `scan`, its host ids mapped by `host_of`.
    pub(crate) fn of(scan: LiveScan, inputs: Vec<String>, host_of: &[u32]) -> Context {
        let map = |h: u32| host_of.get(h as usize).copied().unwrap_or(h);
        let mut config = scan.config;
        for c in &mut config {
            c.host = map(c.host);
        }
        Context {
            inputs,
            layout: scan.layout,
            config,
            captures: scan.captures,
            zones: scan.zones.into_iter().map(|(h, z)| (map(h), z)).collect(),
        }
    }
}

/// Analyzes `events` (a copy of the held ones).
pub(crate) fn analyze(
    events: Vec<RawEvent>,
    files: &Registry,
    context: &Context,
    tz_override: Option<&HostZone>,
    detect: &DetectOptions,
    catalog: &Catalog,
) -> Snapshot {
    let outcomes: Vec<FileOutcome> = files
        .files
        .iter()
        .map(|slot| FileOutcome {
            info: slot.info.clone(),
            events: Vec::new(),
            kept: 0,
            votes: slot.votes.clone(),
            names: HostNameVotes::default(),
            skipped: None,
            // Pacemaker's fencing results, put in UTC beside the captures as for a bundle.
            fencing: slot.fencing.clone(),
        })
        .collect();
    let inventory = Inventory {
        inputs: context.inputs.clone(),
        layout: context.layout,
        hosts: files.hosts.clone(),
        skipped: Vec::new(),
        config: context.config.clone(),
        captures: context.captures.clone(),
        packages: Vec::new(),
        clocks: Vec::new(),
        zones: context.zones.clone(),
    };
    let analysis = correlate(inventory, outcomes, events, tz_override);
    let findings = findings_with_bugs(&analysis, detect, catalog);
    Snapshot { analysis, findings }
}

/// Whether a recovery that ended with `status` is over (a later run may still follow an
/// `error`, but this run's evidence is complete).
pub(crate) fn ended(status: Option<RecoveryStatus>) -> bool {
    matches!(
        status,
        Some(
            RecoveryStatus::Error
                | RecoveryStatus::Failed
                | RecoveryStatus::Ignored
                | RecoveryStatus::Finished
        )
    )
}

impl Snapshot {
    /// The events to hold on to, by file and line: those of open recoveries heard from
    /// within `window_ns` before the newest event, those of recoveries that ended less
    /// than `grace_ns` before it, and the others newer than `window_ns`.
    pub(crate) fn kept_events(&self, window_ns: i64, grace_ns: i64) -> HashSet<(u32, u32)> {
        let analysis = &self.analysis;
        let newest = analysis.events.iter().map(|e| e.time).max().unwrap_or(0);
        // Every notification and request id of a recovery: how long its events stay.
        let mut until: HashMap<Uuid, i64> = HashMap::new();
        for r in &analysis.recoveries {
            let last = r.window(analysis).map_or(newest, |(_, end)| end);
            let stay = if ended(r.final_status()) {
                last.saturating_add(grace_ns)
            } else {
                last.saturating_add(window_ns)
            };
            let ids = std::iter::once(r.notification).chain(
                r.attempts
                    .iter()
                    .flat_map(|a| a.request_ids.iter().copied()),
            );
            for id in ids {
                let slot = until.entry(id).or_insert(stay);
                *slot = (*slot).max(stay);
            }
        }
        let mut keep = HashSet::new();
        for e in &analysis.events {
            let ids = e
                .notifications
                .iter()
                .copied()
                .chain(e.request_id)
                .chain(e.global_request_id);
            let of_recovery = ids.filter_map(|id| until.get(&id)).max();
            let stays = match of_recovery {
                Some(until) => newest <= *until,
                None => newest - e.time <= window_ns,
            };
            if stays {
                keep.insert((e.file, e.line));
            }
        }
        keep
    }
}
