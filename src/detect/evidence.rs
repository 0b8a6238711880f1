//! Turning events, config values and capture lines into [`Evidence`], and the small
//! helpers every detector shares.

use crate::correlate::Analysis;
use crate::correlate::timeline::utc;
use crate::detect::finding::{Evidence, Window};
use crate::model::EventsById;
use crate::model::inventory::ConfigValue;
use crate::model::{Event, EventId, Project, Uuid};

/// The evidence of an event: its first line where it is written.
pub fn of_event(analysis: &Analysis, id: EventId) -> Option<Evidence> {
    let event = analysis.events.by_id(id)?;
    Some(Evidence {
        path: analysis.file(event.file)?.path.clone(),
        line: event.line as usize,
        host: host_name(analysis, event),
        timestamp: Some(utc(event.time)),
        text: event.text().to_string(),
    })
}

/// The evidence of a config value.
pub fn of_config(analysis: &Analysis, value: &ConfigValue) -> Evidence {
    Evidence {
        path: value.file.clone(),
        line: value.line,
        host: analysis
            .host(value.host)
            .map(|h| h.hostname.clone())
            .unwrap_or_default(),
        timestamp: None,
        text: value.text.clone(),
    }
}

/// The lines of a capture file that name `id`.
pub fn of_capture(analysis: &Analysis, file: &str, id: &str) -> Vec<Evidence> {
    analysis
        .captures
        .iter()
        .filter(|c| c.file == file)
        .take(1)
        .flat_map(|c| c.lines.iter())
        .filter(|(_, text)| text.contains(id))
        .map(|(line, text)| Evidence {
            path: file.to_string(),
            line: *line,
            host: String::new(),
            timestamp: None,
            text: text.clone(),
        })
        .collect()
}

/// Each item once, in the order first seen (for the few names a finding lists; a
/// quadratic scan keeps their order without a hash).
pub fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out: Vec<T> = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Host name of an event.
pub fn host_name(analysis: &Analysis, event: &Event) -> String {
    analysis
        .host(event.host)
        .map(|h| h.hostname.clone())
        .unwrap_or_default()
}

/// Evidence of many events, in time order, without duplicates.
pub fn of_events(analysis: &Analysis, ids: impl IntoIterator<Item = EventId>) -> Vec<Evidence> {
    let mut ids: Vec<EventId> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    ids.into_iter()
        .filter_map(|id| of_event(analysis, id))
        .collect()
}

/// The window spanned by events.
pub fn window(analysis: &Analysis, ids: &[EventId]) -> Option<Window> {
    let times: Vec<i64> = ids
        .iter()
        .filter_map(|&i| analysis.events.by_id(i))
        .map(|e| e.time)
        .collect();
    Some(Window {
        start: utc(*times.iter().min()?),
        end: utc(*times.iter().max()?),
    })
}

/// The project an event's file belongs to.
pub fn project(analysis: &Analysis, event: &Event) -> Project {
    analysis
        .file(event.file)
        .map(|f| f.service.project())
        .unwrap_or(Project::Other)
}

/// The events that name `instance`, with their ids, in time order.
pub fn instance_events(
    analysis: &Analysis,
    instance: Uuid,
) -> impl Iterator<Item = (EventId, &Event)> + '_ {
    analysis
        .index
        .instance
        .get(&instance)
        .into_iter()
        .flatten()
        .filter_map(move |&i| Some((i, analysis.events.by_id(i)?)))
}

/// Events of Nova or Cinder (not Masakari) that name `instance`, between `from` and `to`.
pub fn service_events_of_instance(
    analysis: &Analysis,
    instance: Uuid,
    from: i64,
    to: i64,
) -> Vec<EventId> {
    instance_events(analysis, instance)
        .filter(|(_, e)| {
            e.time >= from && e.time <= to && project(analysis, e) != Project::Masakari
        })
        .map(|(i, _)| i)
        .collect()
}

/// The request ids (local and global) of events, as `req-...` strings.
pub fn request_ids(analysis: &Analysis, ids: &[EventId]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for &id in ids {
        let Some(e) = analysis.events.by_id(id) else {
            continue;
        };
        for r in [e.global_request_id, e.request_id].into_iter().flatten() {
            let text = r.request_id();
            if !out.contains(&text) {
                out.push(text);
            }
        }
    }
    out
}

/// A duration in words: `59 s`, `13 min 31 s`.
pub fn duration(nanos: i64) -> String {
    let secs = nanos / 1_000_000_000;
    if secs.abs() < 120 {
        format!("{secs} s")
    } else {
        format!("{} min {} s", secs / 60, (secs % 60).abs())
    }
}
