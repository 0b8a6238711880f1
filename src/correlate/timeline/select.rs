//! Which events a timeline shows.
//!
//! Selection uses the indexes built during the analysis (no second pass over the files),
//! then widens the set the way an engineer would: the Nova requests Masakari's calls made,
//! the other lines of the Nova requests involved, and for a notification every line of
//! its recovery and of the instances it moved. An instance gets its recovery's framing
//! lines too, and loses the lines that belong to the other instances of that recovery.

use crate::model::EventsById;
use std::collections::BTreeSet;

use crate::correlate::Analysis;
use crate::correlate::ids::short_host;
use crate::correlate::recovery::{Recovery, recoveries};
use crate::model::{Event, EventId, Project, Uuid};

use super::Subject;
use super::attribution::Attribution;

/// A request id is followed to its other lines only when it is specific: a periodic
/// task's context can span thousands of lines.
pub(super) const MAX_REQUEST_FANOUT: usize = 200;
/// How long after a recovery ends Nova's work on its instances still belongs to it (a
/// boot-from-volume rebuild can start many minutes late).
const RECOVERY_TAIL_NS: i64 = 30 * 60 * 1_000_000_000;

/// The events of `subject`, in time order ([`Event::sort_key`], then file and line, the
/// order the analysis keeps its events in).
pub fn select(analysis: &Analysis, subject: &Subject) -> Vec<EventId> {
    let index = &analysis.index;
    let mut chosen: BTreeSet<EventId> = BTreeSet::new();
    let mut attribution = None;
    match subject {
        Subject::Instance(id) => {
            chosen.extend(index.instance.get(id).into_iter().flatten());
            let (framing, notifications) = recovery_framing(analysis, *id);
            chosen.extend(framing);
            let mut owner = Attribution::new(analysis, *id, notifications);
            // Drop the other instances' lines before following their requests.
            chosen.retain(|&e| owner.keeps(e));
            attribution = Some(owner);
        }
        Subject::Request(id) => chosen.extend(index.request_events(*id)),
        Subject::Host(name) => {
            chosen.extend(index.host.get(&short_host(name)).into_iter().flatten());
        }
        Subject::Notification(id) => chosen.extend(notification_events(analysis, *id)),
    }
    add_joined_requests(analysis, &mut chosen);
    add_request_lines(analysis, &mut chosen);
    if let Some(owner) = &mut attribution {
        chosen.retain(|&e| owner.keeps(e));
    }
    // The order the output promises rests on the events' keys, not on how ids are
    // numbered.
    let mut keyed: Vec<((i64, u32, u32), EventId)> = chosen
        .into_iter()
        .filter_map(|id| {
            let e = analysis.events.by_id(id)?;
            Some(((e.sort_key(), e.file, e.line), id))
        })
        .collect();
    keyed.sort_unstable();
    keyed.into_iter().map(|(_, id)| id).collect()
}

/// The lines of the recoveries that moved `instance`: every Masakari line of each of
/// their runs (an earlier run that failed before reaching the instance tells why it
/// moved late) and the lines naming the notification; and those notifications. The
/// attribution later keeps only the lines that are this instance's or the recovery's own.
fn recovery_framing(analysis: &Analysis, instance: Uuid) -> (Vec<EventId>, BTreeSet<Uuid>) {
    let names = |id: &EventId| {
        analysis
            .events
            .by_id(*id)
            .is_some_and(|e| e.instances.contains(&instance))
    };
    let mut out = Vec::new();
    let mut notifications = BTreeSet::new();
    for recovery in recoveries(analysis) {
        let involved = recovery
            .attempts
            .iter()
            .any(|a| a.instances().contains(&instance) || a.events.iter().any(names));
        if involved {
            for attempt in &recovery.attempts {
                out.extend(&attempt.events);
            }
            out.extend(&recovery.mentions);
            notifications.insert(recovery.notification);
        }
    }
    (out, notifications)
}

/// Adds the Nova requests joined to chosen Masakari calls, and the other way round.
fn add_joined_requests(analysis: &Analysis, chosen: &mut BTreeSet<EventId>) {
    for join in &analysis.joins {
        if chosen.contains(&join.call) {
            chosen.insert(join.request);
        } else if chosen.contains(&join.request) {
            chosen.insert(join.call);
        }
    }
}

/// Adds every line of the requests already chosen: a Nova request-log line brings the
/// `HTTP exception thrown` line of the same request, and a Masakari call brings the
/// warning it logged under the same context (`Invalid input received: ... (HTTP 400)`),
/// which names the Nova request but not the instance.
fn add_request_lines(analysis: &Analysis, chosen: &mut BTreeSet<EventId>) {
    let requests: BTreeSet<Uuid> = chosen
        .iter()
        .filter_map(|&id| analysis.events.by_id(id))
        .filter(|e| matches!(project(analysis, e), Project::Nova | Project::Masakari))
        .filter_map(|e| e.request_id)
        .collect();
    for request in requests {
        if let Some(events) = analysis.index.request.get(&request)
            && events.len() <= MAX_REQUEST_FANOUT
        {
            chosen.extend(events);
        }
    }
}

pub(super) fn project(analysis: &Analysis, event: &Event) -> Project {
    analysis
        .file(event.file)
        .map(|f| f.service.project())
        .unwrap_or(Project::Other)
}

/// A rebuilt recovery's own lines: its runs' Masakari lines (as the recovery's owner
/// attributed them: another host's recovery running in the same minutes on the same
/// engine stays out), the lines naming it, and the lines of the instances its runs
/// handled, up to a while after, but none another recovery's runs own.
fn recovery_events(analysis: &Analysis, own: &Recovery, all: &[Recovery]) -> Vec<EventId> {
    let mut out: Vec<EventId> = own.mentions.clone();
    out.extend(own.attempts.iter().flat_map(|a| a.events.iter().copied()));
    let Some((start, end)) = own.window(analysis) else {
        return out;
    };
    let theirs: BTreeSet<EventId> = all
        .iter()
        .filter(|r| r.notification != own.notification)
        .flat_map(|r| r.attempts.iter().flat_map(|a| a.events.iter().copied()))
        .collect();
    let mut instances: BTreeSet<Uuid> = own.instances().into_iter().collect();
    for attempt in &own.attempts {
        for &e in &attempt.events {
            if let Some(event) = analysis.events.by_id(e) {
                instances.extend(event.instances.iter().copied());
            }
        }
    }
    for instance in instances {
        for &i in analysis.index.instance.get(&instance).into_iter().flatten() {
            let Some(event) = analysis.events.by_id(i) else {
                continue;
            };
            let other_notification = event.notifications.iter().any(|n| *n != own.notification);
            if event.time >= start
                && event.time <= end + RECOVERY_TAIL_NS
                && !theirs.contains(&i)
                && !other_notification
            {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// A notification's recovery: the Masakari lines from `Processing notification` to its
/// end on the engine that ran it (other notifications' lines excluded), and the lines of
/// the instances it touched, up to a while after. Used when no recovery was rebuilt
/// for it.
fn notification_events(analysis: &Analysis, id: Uuid) -> Vec<EventId> {
    let rebuilt;
    let all = if analysis.recoveries.is_empty() {
        rebuilt = recoveries(analysis);
        &rebuilt
    } else {
        &analysis.recoveries
    };
    if let Some(own) = all
        .iter()
        .find(|r| r.notification == id && !r.attempts.is_empty())
    {
        return recovery_events(analysis, own, all);
    }
    let Some(seed) = analysis.index.notification.get(&id) else {
        return Vec::new();
    };
    let events = &analysis.events;
    let seeds: Vec<&Event> = seed.iter().filter_map(|&i| events.by_id(i)).collect();
    let (Some(start), Some(end)) = (
        seeds.iter().map(|e| e.time).min(),
        seeds.iter().map(|e| e.time).max(),
    ) else {
        return Vec::new();
    };
    let engine_files: BTreeSet<u32> = seeds
        .iter()
        .filter(|e| project(analysis, e) == Project::Masakari)
        .map(|e| e.file)
        .collect();
    let mut out: Vec<EventId> = seed.to_vec();
    let mut instances: BTreeSet<Uuid> = BTreeSet::new();
    // The engine's lines between the first and the last mention. Events are kept in
    // time order, so the window is a slice.
    let first = events.partition_point(|e| e.time < start);
    for (offset, event) in events[first..].iter().enumerate() {
        if event.time > end {
            break;
        }
        let other_notification = event.notifications.iter().any(|n| *n != id);
        if engine_files.contains(&event.file) && !other_notification {
            out.push(EventId::at(first + offset));
            instances.extend(event.instances.iter().copied());
        }
    }
    for instance in instances {
        for &i in analysis.index.instance.get(&instance).into_iter().flatten() {
            let Some(event) = events.by_id(i) else {
                continue;
            };
            if event.time >= start && event.time <= end + RECOVERY_TAIL_NS {
                out.push(i);
            }
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}
