//! Each host's time zone, and events put in UTC with it.

use std::collections::BTreeMap;

use crate::correlate::extract::RawEvent;
use crate::correlate::keeper::FileOutcome;
use crate::ingest::timezone::{HostZone, OffsetVotes};
use crate::model::Event;
use crate::model::inventory::CaptureFile;
use crate::model::inventory::ZoneSource;

/// Each host's zone: `--tz`, then the bundle's own setting, then what the host's lines
/// say (their offsets, Masakari's progress details), then UTC.
pub fn host_zones(
    hosts: usize,
    tz_override: Option<&HostZone>,
    bundle_zones: &BTreeMap<u32, HostZone>,
    outcomes: &[FileOutcome],
    events: &[RawEvent],
    captures: &[CaptureFile],
) -> Vec<HostZone> {
    let mut votes: BTreeMap<u32, OffsetVotes> = BTreeMap::new();
    for outcome in outcomes {
        votes
            .entry(outcome.info.host)
            .or_default()
            .merge(&outcome.votes);
    }
    vote_from_progress(captures, events, &mut votes);
    (0..hosts as u32)
        .map(|h| {
            if let Some(zone) = tz_override {
                return zone.clone();
            }
            if let Some(zone) = bundle_zones.get(&h) {
                return zone.clone();
            }
            match votes.get(&h).and_then(OffsetVotes::winner) {
                Some((offset, how)) => {
                    HostZone::fixed(offset, ZoneSource::Inferred(how.to_string()))
                }
                None => HostZone::utc_default(),
            }
        })
        .collect()
}

/// Masakari's progress details (from `notification show` captures) are stamped in UTC;
/// `Disabling compute service on host: 'X'` is written just before the engine logs
/// `Disable nova-compute on X` in its local time: the difference is the engine's zone.
pub(crate) fn vote_from_progress(
    captures: &[CaptureFile],
    events: &[RawEvent],
    votes: &mut BTreeMap<u32, OffsetVotes>,
) {
    const PREFIX: &str = "Disabling compute service on host: '";
    for capture in captures {
        let evacdoc_parsers::capture::Capture::Notification(n) = &capture.capture else {
            continue;
        };
        for detail in n
            .recovery_workflow_details
            .iter()
            .flat_map(|t| t.details.iter())
        {
            let Some(host) = detail
                .message
                .strip_prefix(PREFIX)
                .and_then(|rest| rest.split('\'').next())
            else {
                continue;
            };
            let Ok((_, utc)) = evacdoc_parsers::time::oslo_timestamp(&detail.timestamp) else {
                continue;
            };
            let wanted = format!("Disable nova-compute on {host}");
            let utc = utc.unix_nanos(0);
            // The engine line nearest to a whole number of quarter hours away (of
            // equals, the first in file order: `events` come in no order).
            let best = events
                .iter()
                // Lengths first: reading every event's text back, once per detail, was
                // a quarter of a second at 1 GiB.
                .filter(|r| r.event.message_len as usize == wanted.len())
                .filter(|r| r.event.message() == wanted)
                .filter_map(|r| {
                    let stamp = r.stamp.filter(|s| s.offset.is_none())?;
                    let diff = stamp.local.unix_nanos(0) - utc;
                    let quarter = 900 * 1_000_000_000i64;
                    let off = (diff - (diff + quarter / 2).div_euclid(quarter) * quarter).abs();
                    (diff.abs() < 15 * 3600 * 1_000_000_000).then_some((
                        off,
                        r.event.file,
                        r.event.line,
                        r.event.host,
                        diff,
                    ))
                })
                .min_by_key(|(off, file, line, _, _)| (*off, *file, *line));
            if let Some((_, _, _, host, diff)) = best {
                votes
                    .entry(host)
                    .or_default()
                    .vote_difference(diff, "masakari progress details");
            }
        }
    }
}

/// Gives each event its UTC time from its line's stamp and its host's zone
/// (`zones[host]`); events without a stamp, or of a host without a zone, are dropped.
///
/// Collected in place: the events reuse the memory of `raw` (a million events is a
/// couple of hundred MB; they are never held twice).
pub(crate) fn utc_events(raw: Vec<RawEvent>, zones: &[HostZone]) -> Vec<Event> {
    let mut events: Vec<Event> = raw
        .into_iter()
        .filter_map(|RawEvent { mut event, stamp }| {
            let stamp = stamp?;
            let zone = zones.get(event.host as usize)?;
            let offset = stamp.offset.unwrap_or_else(|| zone.offset_at(&stamp.local));
            event.time = stamp.local.unix_nanos(offset);
            Some(event)
        })
        .collect();
    // An event is smaller than a raw one: give back the tail.
    events.shrink_to_fit();
    events
}
