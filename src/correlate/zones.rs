//! Each host's time zone, and events put in UTC with it.

use std::collections::BTreeMap;

use crate::correlate::analysis::CaptureFile;
use crate::correlate::extract::RawEvent;
use crate::correlate::keeper::FileOutcome;
use crate::ingest::timezone::{HostZone, OffsetVotes, ZoneSource};
use crate::model::Event;

/// Each host's zone: `--tz`, then the bundle's own setting, then what the host's lines
/// say (their offsets, Masakari's progress details), then UTC.
pub fn host_zones(
    hosts: usize,
    tz_override: Option<&HostZone>,
    bundle_zones: &BTreeMap<u32, HostZone>,
    outcomes: &[FileOutcome],
    captures: &[CaptureFile],
) -> Vec<HostZone> {
    let mut votes: BTreeMap<u32, OffsetVotes> = BTreeMap::new();
    for outcome in outcomes {
        votes
            .entry(outcome.info.host)
            .or_default()
            .merge(&outcome.votes);
    }
    vote_from_progress(captures, outcomes, &mut votes);
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
    outcomes: &[FileOutcome],
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
            // The engine line nearest to a whole number of quarter hours away.
            let best = outcomes
                .iter()
                .flat_map(|o| o.events.iter().map(move |r| (o.info.host, r)))
                .filter(|(_, r)| r.event.message() == wanted)
                .filter_map(|(host, r)| {
                    let stamp = r.stamp.filter(|s| s.offset.is_none())?;
                    let diff = stamp.local.unix_nanos(0) - utc;
                    let quarter = 900 * 1_000_000_000i64;
                    let off = (diff - (diff + quarter / 2).div_euclid(quarter) * quarter).abs();
                    (diff.abs() < 15 * 3600 * 1_000_000_000).then_some((off, host, diff))
                })
                .min_by_key(|(off, _, _)| *off);
            if let Some((_, host, diff)) = best {
                votes
                    .entry(host)
                    .or_default()
                    .vote_difference(diff, "masakari progress details");
            }
        }
    }
}

/// Gives each event its UTC time from its line's stamp and the host's zone.
pub(crate) fn utc_events(raw: Vec<RawEvent>, zone: &HostZone) -> impl Iterator<Item = Event> + '_ {
    raw.into_iter()
        .filter_map(move |RawEvent { mut event, stamp }| {
            let stamp = stamp?;
            let offset = stamp.offset.unwrap_or_else(|| zone.offset_at(&stamp.local));
            event.time = stamp.local.unix_nanos(offset);
            Some(event)
        })
}
