//! The story of one instance, request, notification or host, across hosts and services.
//!
//! Selection uses the indexes built during the analysis (no second pass over the files),
//! then widens the set the way an engineer would: the Nova requests Masakari's calls made,
//! the other lines of the Nova requests involved, and for a notification every line of
//! its recovery and of the instances it moved.

use std::collections::{BTreeSet, HashMap};

use serde::Serialize;

use crate::correlate::Analysis;
use crate::correlate::ids::short_host;
use crate::model::{Event, EventId, Project, Uuid};

/// What a timeline is about.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Subject {
    /// An instance UUID.
    Instance(Uuid),
    /// A request id (`req-...`), local or global.
    Request(Uuid),
    /// A Masakari notification UUID.
    Notification(Uuid),
    /// A host name (short or FQDN).
    Host(String),
}

/// A request id is followed to its other lines only when it is specific: a periodic
/// task's context can span thousands of lines.
const MAX_REQUEST_FANOUT: usize = 200;
/// How long after a recovery ends Nova's work on its instances still belongs to it (a
/// boot-from-volume rebuild can start many minutes late).
const RECOVERY_TAIL_NS: i64 = 30 * 60 * 1_000_000_000;

/// The events of `subject`, in time order.
pub fn select(analysis: &Analysis, subject: &Subject) -> Vec<EventId> {
    let index = &analysis.index;
    let mut chosen: BTreeSet<EventId> = BTreeSet::new();
    match subject {
        Subject::Instance(id) => {
            chosen.extend(index.instance.get(id).into_iter().flatten());
        }
        Subject::Request(id) => chosen.extend(index.request_events(*id)),
        Subject::Host(name) => {
            chosen.extend(index.host.get(&short_host(name)).into_iter().flatten());
        }
        Subject::Notification(id) => chosen.extend(notification_events(analysis, *id)),
    }
    add_joined_requests(analysis, &mut chosen);
    add_request_lines(analysis, &mut chosen);
    chosen.into_iter().collect()
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
    let requests: Vec<Uuid> = chosen
        .iter()
        .filter_map(|&id| analysis.events.get(id as usize))
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

fn project(analysis: &Analysis, event: &Event) -> Project {
    analysis
        .file(event.file)
        .map(|f| f.service.project())
        .unwrap_or(Project::Other)
}

/// A notification's recovery: the Masakari lines from `Processing notification` to its
/// end on the engine that ran it (other notifications' lines excluded), and the lines of
/// the instances it touched, up to a while after.
fn notification_events(analysis: &Analysis, id: Uuid) -> Vec<EventId> {
    let Some(seed) = analysis.index.notification.get(&id) else {
        return Vec::new();
    };
    let events = &analysis.events;
    let seeds: Vec<&Event> = seed
        .iter()
        .filter_map(|&i| events.get(i as usize))
        .collect();
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
    let first = events.partition_point(|e| e.time < start);
    let mut out: Vec<EventId> = seed.clone();
    let mut instances: BTreeSet<Uuid> = BTreeSet::new();
    for (offset, event) in events[first..].iter().enumerate() {
        if event.time > end {
            break;
        }
        let other_notification = event.notifications.iter().any(|n| *n != id);
        if engine_files.contains(&event.file) && !other_notification {
            out.push((first + offset) as EventId);
            instances.extend(event.instances.iter().copied());
        }
    }
    for instance in instances {
        for &i in analysis.index.instance.get(&instance).into_iter().flatten() {
            let Some(event) = events.get(i as usize) else {
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

/// One line of a timeline, as JSON shows it.
#[derive(Clone, Debug, Serialize)]
pub struct TimelineEntry<'a> {
    /// UTC time, RFC 3339.
    pub timestamp: String,
    /// Host name.
    pub host: &'a str,
    /// Service.
    pub service: &'a str,
    /// File, relative to the input root.
    pub path: &'a str,
    /// 1-based line.
    pub line: u32,
    /// The record's first line as written.
    pub text: &'a str,
    /// Its further lines.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub more: Vec<&'a str>,
}

/// The entries of `ids`.
pub fn entries<'a>(analysis: &'a Analysis, ids: &[EventId]) -> Vec<TimelineEntry<'a>> {
    ids.iter()
        .filter_map(|&id| analysis.events.get(id as usize))
        .map(|e| {
            let file = analysis.file(e.file);
            TimelineEntry {
                timestamp: utc(e.time),
                host: analysis
                    .host(e.host)
                    .map(|h| h.hostname.as_str())
                    .unwrap_or("?"),
                service: file.map(|f| f.service.name()).unwrap_or("?"),
                path: file.map(|f| f.path.as_str()).unwrap_or("?"),
                line: e.line,
                text: e.text(),
                more: e.more().collect(),
            }
        })
        .collect()
}

/// RFC 3339 in UTC of nanoseconds since the epoch.
pub fn utc(nanos: i64) -> String {
    match evacdoc_parsers::DateTime::from_unix_nanos(nanos) {
        Some(local) => evacdoc_parsers::Timestamp {
            local,
            offset: Some(0),
        }
        .to_string(),
        None => "-".into(),
    }
}

/// The text form: blocks per project like an engineer's notes (`>>> Masakari`,
/// `>>> Nova`), each line `path:line:text` as `grep -Hn` prints it.
pub fn render_text(analysis: &Analysis, ids: &[EventId]) -> String {
    let mut out = String::new();
    let mut current: Option<(Project, u32)> = None;
    let mut header_of: HashMap<(Project, u32), String> = HashMap::new();
    for &id in ids {
        let Some(event) = analysis.events.get(id as usize) else {
            continue;
        };
        let key = (project(analysis, event), event.host);
        if current != Some(key) {
            let header = header_of.entry(key).or_insert_with(|| {
                let host = analysis
                    .host(event.host)
                    .map(|h| h.hostname.as_str())
                    .unwrap_or("?");
                format!(">>> {} ({host})", key.0.title())
            });
            if current.is_some() {
                out.push('\n');
            }
            out.push_str(header);
            out.push('\n');
            current = Some(key);
        }
        let path = analysis
            .file(event.file)
            .map(|f| f.path.as_str())
            .unwrap_or("?");
        out.push_str(&format!("{path}:{}:{}\n", event.line, event.text()));
        for line in event.more() {
            out.push_str(&format!("    {line}\n"));
        }
    }
    out
}
