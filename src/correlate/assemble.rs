//! Assembling the events of every file into one ordered list: copies dropped, clock
//! skew corrected; and what the file list says is missing.

use std::collections::{BTreeMap, HashMap};

use crate::correlate::extract::RawEvent;
use crate::correlate::index::Indexes;
use crate::correlate::joins::{ClockSlack, Join, join_calls};
use crate::correlate::keeper::FileOutcome;
use crate::correlate::request_instances::attribute_request_instances;
use crate::correlate::skew::SkewEstimate;
use crate::correlate::zones::utc_events;
use crate::ingest::timezone::HostZone;
use crate::model::inventory::{CaptureFile, FileInfo, Host, Layout, Missing, Skipped};
use crate::model::{Event, FileId, HostId};

/// The files and their events, put together.
#[derive(Debug)]
pub struct Assembled {
    /// The files, in the order they were read (an event's `file` is its index here).
    pub files: Vec<FileInfo>,
    /// The files that were not read, or not as logs.
    pub skipped: Vec<Skipped>,
    /// Every event in UTC order, skew corrected.
    pub events: Vec<Event>,
    /// Events the keepers kept, before copies were dropped.
    pub kept: u64,
    /// Clock skew between hosts.
    pub skew: Vec<SkewEstimate>,
    /// Masakari calls joined to the Nova requests they made.
    pub joins: Vec<Join>,
    /// From every id to its events.
    pub index: Indexes,
}

/// Puts each file's kept events in UTC with its host's zone (`zones[host]`), orders
/// them, drops copies, corrects clock skew, joins calls and builds the indexes.
pub fn assemble(
    outcomes: Vec<FileOutcome>,
    kept_events: Vec<RawEvent>,
    zones: &[HostZone],
    hosts: &[Host],
    captures: &[CaptureFile],
) -> Assembled {
    let mut files = Vec::with_capacity(outcomes.len());
    let mut skipped = Vec::new();
    let mut kept = kept_events.len() as u64;
    let mut events = utc_events(kept_events, zones);
    for outcome in outcomes {
        if let Some(reason) = outcome.skipped {
            skipped.push(Skipped {
                path: outcome.info.path.clone(),
                reason,
            });
        }
        // Events a keeper held itself rather than pooled (none in the pipeline).
        if !outcome.events.is_empty() {
            kept += outcome.events.len() as u64;
            events.extend(utc_events(outcome.events, zones));
        }
        files.push(outcome.info);
    }

    step("events in one list", events.len());
    census::log_census(&events, &files);
    sort_events(&mut events);
    let project_of = |e: &Event| {
        files
            .get(e.file as usize)
            .map(|f| f.service.project())
            .unwrap_or(crate::model::Project::Other)
    };
    drop_copies(&mut events);
    step("copies dropped", events.len());
    let skew = crate::correlate::skew::correct(&mut events, &files);
    if skew.iter().any(|s| s.applied) {
        sort_events(&mut events);
    }
    step("skew corrected", events.len());
    debug_assert!(
        events
            .windows(2)
            .all(|w| (w[0].sort_key(), w[0].file, w[0].line)
                <= (w[1].sort_key(), w[1].file, w[1].line)),
        "events are in UTC order after assembling"
    );
    // Untagged Nova lines take the instance of their request before calls are joined.
    attribute_request_instances(&mut events, captures, project_of);
    step("request instances", events.len());
    let joins = join_calls(&events, project_of, &ClockSlack::from_estimates(&skew));
    step("calls joined", events.len());
    let index = Indexes::build(&events, &crate::correlate::index::host_names(hosts));
    step("indexed", events.len());
    Assembled {
        files,
        skipped,
        events,
        kept,
        skew,
        joins,
        index,
    }
}

/// Logs the memory after a step of assembling (debug level).
fn step(what: &str, events: usize) {
    tracing::debug!(
        events,
        rss_mb = crate::memory::rss_mb(),
        peak_rss_mb = crate::memory::peak_rss_mb(),
        "assemble: {what}"
    );
}

/// Drops a record seen again in another file of the same host at the same instant (the
/// journal and the log file of one service, one log collected twice): the first file
/// in event order keeps it.
///
/// Copies share their time, so they sit in one run of equal sort keys of the ordered
/// events: each run is checked on its own, with a map as small as the run, instead of
/// one map over every event (64 MB at a million events).
pub(crate) fn drop_copies(events: &mut Vec<Event>) {
    use rayon::prelude::*;
    // Pieces that start where a run starts, checked side by side.
    let n = events.len();
    let pieces = 64;
    let mut bounds = vec![0];
    for k in 1..pieces {
        let mut i = (k * n / pieces).max(*bounds.last().unwrap_or(&0));
        while i > 0 && i < n && events[i].sort_key() == events[i - 1].sort_key() {
            i += 1;
        }
        bounds.push(i);
    }
    bounds.push(n);
    let keep: Vec<bool> = bounds
        .par_windows(2)
        .flat_map_iter(|w| copies_kept(&events[w[0]..w[1]]))
        .collect();
    let mut flags = keep.into_iter();
    events.retain(|_| flags.next().unwrap_or(true));
}

/// Which of `events` (whole runs of equal sort keys) to keep.
fn copies_kept(events: &[Event]) -> Vec<bool> {
    use std::hash::{Hash, Hasher};
    let mut keep = vec![true; events.len()];
    let mut first_file: HashMap<(u32, i64, u64), u32> = HashMap::new();
    let mut start = 0;
    while start < events.len() {
        let key = events[start].sort_key();
        let end = start
            + events[start..]
                .iter()
                .take_while(|e| e.sort_key() == key)
                .count();
        if end - start > 1 && may_hold_copies(&events[start..end]) {
            first_file.clear();
            for (e, keep) in events[start..end].iter().zip(&mut keep[start..end]) {
                let mut hasher = std::collections::hash_map::DefaultHasher::new();
                e.message().hash(&mut hasher);
                match first_file.entry((e.host, e.time, hasher.finish())) {
                    std::collections::hash_map::Entry::Occupied(seen) => {
                        *keep = *seen.get() == e.file;
                    }
                    std::collections::hash_map::Entry::Vacant(slot) => {
                        slot.insert(e.file);
                    }
                }
            }
        }
        start = end;
    }
    keep
}

/// Whether a run of events of one instant has two files of one host, the only way it
/// can hold a copy: the messages of the others are not read back (at a million events,
/// most runs are one access log's requests of one second).
fn may_hold_copies(run: &[Event]) -> bool {
    let mut sources: Vec<(HostId, FileId)> = run.iter().map(|e| (e.host, e.file)).collect();
    sources.sort_unstable();
    sources.dedup();
    sources.windows(2).any(|w| w[0].0 == w[1].0)
}

pub(crate) fn sort_events(events: &mut [Event]) {
    // The key is unique (file and line name an event): an unstable sort gives the same
    // order without the stable sort's buffer of half the events, and so does a parallel
    // one (a second at a million events, halved on two cores).
    use rayon::slice::ParallelSliceMut;
    events.par_sort_unstable_by_key(|e| (e.sort_key(), e.file, e.line));
}

/// Rotations that should be there and are not: `x.log.3.gz` present and `x.log.2`
/// absent means something dropped it (juju-crashdump skips files over 5 MB).
pub(crate) fn missing_rotations(files: &[FileInfo], layout: Layout) -> Vec<Missing> {
    let mut by_log: BTreeMap<&str, Vec<u32>> = BTreeMap::new();
    for f in files {
        by_log.entry(&f.log).or_default().push(f.rotation);
    }
    let why = if layout == Layout::JujuCrashdump {
        "absent between its neighbours: juju-crashdump skips files over 5 MB"
    } else {
        "absent between its neighbours: the collector dropped it"
    };
    let mut missing = Vec::new();
    for (log, mut rotations) in by_log {
        rotations.sort_unstable();
        // Date-stamped rotations are large numbers: only small ones form a sequence.
        let Some(&max) = rotations.iter().filter(|r| **r < 1000).max() else {
            continue;
        };
        for n in 0..max {
            if !rotations.contains(&n) {
                let path = if n == 0 {
                    log.to_string()
                } else {
                    format!("{log}.{n}")
                };
                missing.push(Missing {
                    path,
                    reason: why.to_string(),
                });
            }
        }
    }
    missing
}

mod census;
#[cfg(test)]
mod tests;
