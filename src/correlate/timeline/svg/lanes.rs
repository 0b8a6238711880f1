//! The lanes of a picture: one per host and service, Masakari first, then Nova, Cinder,
//! Keystone and the rest, hosts and services by name within each.

use std::collections::BTreeMap;

use crate::correlate::Analysis;
use crate::model::{Event, Project};

/// Which lane a line is drawn in.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) struct LaneKey {
    pub project: Project,
    pub host: String,
    pub service: String,
}

impl LaneKey {
    pub fn of(analysis: &Analysis, event: &Event) -> LaneKey {
        let file = analysis.file(event.file);
        LaneKey {
            project: file.map_or(Project::Other, |f| f.service.project()),
            host: analysis
                .host(event.host)
                .map_or_else(|| "?".to_string(), |h| h.hostname.clone()),
            service: file.map_or_else(|| "?".to_string(), |f| f.service.name().to_string()),
        }
    }
}

/// The lanes in drawing order, each with its position (0 at the top).
#[derive(Clone, Debug, Default)]
pub(super) struct Lanes {
    order: BTreeMap<LaneKey, usize>,
}

impl Lanes {
    pub fn new<'a>(keys: impl IntoIterator<Item = &'a LaneKey>) -> Lanes {
        let mut order: BTreeMap<LaneKey, usize> =
            keys.into_iter().map(|k| (k.clone(), 0)).collect();
        for (position, slot) in order.values_mut().enumerate() {
            *slot = position;
        }
        Lanes { order }
    }

    pub fn position(&self, key: &LaneKey) -> Option<usize> {
        self.order.get(key).copied()
    }

    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// The lanes, top to bottom.
    pub fn iter(&self) -> impl Iterator<Item = (&LaneKey, usize)> {
        self.order.iter().map(|(k, &p)| (k, p))
    }
}
