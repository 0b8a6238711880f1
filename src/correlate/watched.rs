//! Which instances to follow in Nova's request logs.

use crate::correlate::extract::RawEvent;
use crate::correlate::extract::Watched;
use crate::model::inventory::CaptureFile;

/// The instances Masakari's events and the CLI captures name; `None` without any
/// Masakari line (then nothing narrows Nova's requests).
pub(crate) fn watched_instances(masakari: &[RawEvent], captures: &[CaptureFile]) -> Watched {
    let mut set: std::collections::HashSet<crate::model::Uuid> = masakari
        .iter()
        .flat_map(|r| r.event.instances.iter().copied())
        .collect();
    if masakari.is_empty() {
        return None;
    }
    for capture in captures {
        use evacdoc_parsers::capture::Capture;
        let ids: Vec<&str> = match &capture.capture {
            Capture::VmoveList { moves, .. } => {
                moves.iter().map(|m| m.server_id.as_str()).collect()
            }
            Capture::Server(s) => vec![s.id.as_str()],
            Capture::ServerEvents {
                server_id: Some(s), ..
            } => vec![s.as_str()],
            Capture::Migrations(records) => records
                .iter()
                .filter(|m| m.is_evacuation())
                .map(|m| m.server_id.as_str())
                .collect(),
            _ => Vec::new(),
        };
        set.extend(ids.into_iter().filter_map(crate::model::Uuid::parse));
    }
    Some(set)
}
