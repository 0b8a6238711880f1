//! What the kept events are made of (debug level): counts and text bytes by project,
//! kind, level and logger, to tell which events a memory change should aim at.

use std::collections::HashMap;

use crate::model::Event;
use crate::model::inventory::FileInfo;

/// Logs the largest groups of `events` by text bytes (debug level).
pub(crate) fn log_census(events: &[Event], files: &[FileInfo]) {
    if !tracing::enabled!(tracing::Level::DEBUG) {
        return;
    }
    let mut groups: HashMap<String, (usize, usize, usize)> = HashMap::new();
    for e in events {
        let service = files.get(e.file as usize).map_or("?", |f| f.service.name());
        let logger = e.logger().unwrap_or("-");
        let key = format!("{service} {:?} {:?} {logger}", e.kind, e.level);
        let g = groups.entry(key).or_default();
        g.0 += 1;
        g.1 += e.text_len();
        g.2 += usize::from(e.http().is_some());
    }
    let mut list: Vec<_> = groups.into_iter().collect();
    list.sort_by_key(|g| std::cmp::Reverse(g.1.1));
    for (key, (count, bytes, http)) in list.into_iter().take(25) {
        tracing::debug!(count, text_mb = bytes / 1_000_000, http, "census: {key}");
    }
}
