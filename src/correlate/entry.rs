//! The one way to an [`Analysis`]: what ingest found (the inventory, each log's outcome,
//! the kept events) put together. Zones decided, events assembled, missing rotations
//! listed, recoveries rebuilt. A bundle's analysis (`run`) and the watcher's analysis of
//! its held events both go through here, so they cannot drift apart.

use std::collections::BTreeMap;
use std::time::Instant;

use crate::correlate::analysis::{Analysis, Stats};
use crate::correlate::assemble::{Assembled, assemble, missing_rotations};
use crate::correlate::extract::RawEvent;
use crate::correlate::fence_log::fence_captures;
use crate::correlate::keeper::FileOutcome;
use crate::correlate::zones::host_zones;
use crate::ingest::timezone::HostZone;
use crate::model::HostId;
use crate::model::inventory::{
    CaptureFile, ConfigValue, Host, HostClock, InstalledPackage, Layout, Skipped,
};

/// What the inputs hold besides the logs' events: hosts, files not read, small files.
#[derive(Debug)]
pub struct Inventory {
    /// The inputs as given.
    pub inputs: Vec<String>,
    /// The deployment layout.
    pub layout: Layout,
    /// Hosts (their zones are decided by [`correlate`]).
    pub hosts: Vec<Host>,
    /// Files not read so far, with the reason (the logs' own come with their outcomes).
    pub skipped: Vec<Skipped>,
    /// Configuration values.
    pub config: Vec<ConfigValue>,
    /// CLI captures.
    pub captures: Vec<CaptureFile>,
    /// Installed packages.
    pub packages: Vec<InstalledPackage>,
    /// What the hosts' clock captures say.
    pub clocks: Vec<HostClock>,
    /// The zone each host's own settings name.
    pub zones: BTreeMap<HostId, HostZone>,
}

/// Milliseconds since `since`.
fn ms(since: Instant) -> u64 {
    since.elapsed().as_millis() as u64
}

/// The analysis of `inventory`, the logs' `outcomes` (in file id order) and the `events`
/// their keepers pooled, every host's zone overridden by `tz` when given. Its stats count
/// files, records and events, and time the zone and assembly stages; the caller adds
/// the times of the stages before.
pub fn correlate(
    inventory: Inventory,
    outcomes: Vec<FileOutcome>,
    events: Vec<RawEvent>,
    tz: Option<&HostZone>,
) -> Analysis {
    let Inventory {
        inputs,
        layout,
        mut hosts,
        mut skipped,
        config,
        mut captures,
        packages,
        clocks,
        zones: named,
    } = inventory;
    let mut stats = Stats::default();

    let stage = Instant::now();
    let zones = host_zones(hosts.len(), tz, &named, &outcomes, &events, &captures);
    for (host, zone) in hosts.iter_mut().zip(&zones) {
        host.zone = zone.name.clone();
        host.zone_source = zone.source.clone();
    }
    stats.stages.zones_ms = ms(stage);
    tracing::debug!(
        hosts = hosts.len(),
        ms = stats.stages.zones_ms,
        "decided zones"
    );

    // Pacemaker's logged fencing results wait for the events to know their year.
    let mut outcomes = outcomes;
    let fencing: Vec<_> = outcomes
        .iter_mut()
        .filter(|o| !o.fencing.is_empty())
        .map(|o| {
            // pacemaker.log fits no log format, and was read for its fencing results.
            if o.info.format == "unparsed"
                && o.skipped
                    .as_deref()
                    .is_some_and(|r| r.starts_with("unknown format"))
            {
                o.skipped = None;
                o.info.format = "pacemaker".into();
            }
            let lines = std::mem::take(&mut o.fencing);
            (o.info.path.clone(), o.info.host, lines)
        })
        .collect();

    let stage = Instant::now();
    let Assembled {
        files,
        skipped: unread,
        events,
        kept,
        skew,
        joins,
        index,
    } = assemble(outcomes, events, &zones, &hosts, &captures);
    skipped.extend(unread);
    let last_event = events.iter().map(|e| e.time).max();
    captures.extend(fence_captures(fencing, &zones, last_event));
    let missing = missing_rotations(&files, layout);
    stats.stages.assemble_ms = ms(stage);
    for file in &files {
        stats.files += 1;
        stats.bytes += file.bytes;
        stats.records += file.records;
        stats.unparsed += file.unparsed;
    }
    stats.kept = kept;
    stats.events = events.len() as u64;
    Analysis {
        inputs,
        layout,
        hosts,
        files,
        skipped,
        missing,
        config,
        captures,
        packages,
        events,
        index,
        joins,
        skew,
        recoveries: Vec::new(),
        clocks,
        // Filled by the caller that identified values while reading (`run`).
        identified: Default::default(),
        stats,
    }
    .with_recoveries()
}
