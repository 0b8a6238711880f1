//! Remediations asked for through the service: a finding's recovery planned (reads only)
//! or applied in the background on a cloud the service is configured for, one per host at
//! a time (the trigger's guard, shared with the watcher's policy), journaled in the
//! service's store, every decision in its audit log, the progress kept as a [`Feed`] of
//! events for server-sent streams.

mod feed;
mod run;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};

pub use feed::{Feed, FeedObserver, RecoveryEvent};
pub use run::{Asker, BundleFacts, RunError};

use crate::recovery::RecoveryOptions;
use crate::store::SqliteStore;
use crate::trigger::Trigger;

/// The feeds of the last runs kept in memory (older ones are read from the journal).
const KEPT_FEEDS: usize = 64;

/// Which clouds the service may act on, and how.
#[derive(Debug, Clone, Default)]
pub struct RemediationConfig {
    /// `clouds.yaml` names remediations may use (`serve --cloud`); the first is the
    /// default. Empty: the service plans and applies nothing.
    pub clouds: Vec<String>,
    /// A clouds.yaml to read instead of the usual places.
    pub config_file: Option<PathBuf>,
    /// The executor's options; `host_fenced` comes from each request.
    pub options: RecoveryOptions,
}

impl RemediationConfig {
    /// The cloud a request acts on: the one it names, if configured, else the first one.
    pub fn cloud(&self, asked: Option<&str>) -> Result<String, RunError> {
        match asked {
            _ if self.clouds.is_empty() => Err(RunError::NoCloud),
            None => Ok(self.clouds[0].clone()),
            Some(name) if self.clouds.iter().any(|c| c == name) => Ok(name.to_owned()),
            Some(name) => Err(RunError::CloudNotAllowed {
                cloud: name.to_owned(),
                allowed: self.clouds.join(", "),
            }),
        }
    }
}

/// The service's remediations.
pub struct Remediations {
    /// What it may act on.
    pub config: RemediationConfig,
    /// The store: the recovery journal and the audit log.
    store: Arc<SqliteStore>,
    /// The guards (one remediation per host), shared with the watcher's policy.
    trigger: Arc<Trigger>,
    feeds: Mutex<BTreeMap<i64, Arc<Feed>>>,
}

impl std::fmt::Debug for Remediations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Remediations")
            .field("clouds", &self.config.clouds)
            .finish_non_exhaustive()
    }
}

impl Remediations {
    pub fn new(
        config: RemediationConfig,
        store: Arc<SqliteStore>,
        trigger: Arc<Trigger>,
    ) -> Remediations {
        Remediations {
            config,
            store,
            trigger,
            feeds: Mutex::new(BTreeMap::new()),
        }
    }

    /// The trigger whose guards remediations go through.
    pub fn trigger(&self) -> &Arc<Trigger> {
        &self.trigger
    }

    /// The feed of recovery `id`: the live one of a run started here, else one made from
    /// the journal (`None`: no such recovery).
    pub fn feed(&self, id: i64) -> Result<Option<Arc<Feed>>, crate::store::StoreError> {
        if let Some(feed) = self
            .feeds
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&id)
        {
            return Ok(Some(feed.clone()));
        }
        use crate::store::RecoveryJournal as _;
        Ok(self
            .store
            .recovery(id)?
            .map(|row| Arc::new(Feed::of(RecoveryEvent::of_row(&row)))))
    }

    /// Recovery `id` as the journal has it.
    pub fn recovery(
        &self,
        id: i64,
    ) -> Result<Option<crate::store::RecoveryRow>, crate::store::StoreError> {
        use crate::store::RecoveryJournal as _;
        self.store.recovery(id)
    }

    fn keep_feed(&self, id: i64, feed: Arc<Feed>) {
        let mut feeds = self.feeds.lock().unwrap_or_else(PoisonError::into_inner);
        feeds.insert(id, feed);
        while feeds.len() > KEPT_FEEDS {
            // The oldest that has ended goes; a running one is never dropped.
            let Some(old) = feeds.iter().find(|(_, f)| f.ended()).map(|(id, _)| *id) else {
                break;
            };
            feeds.remove(&old);
        }
    }

    /// Appends to the audit log; a failure to write it is logged, not answered.
    pub(crate) fn audit(&self, actor: &str, action: &str, target: &str, detail: &str) {
        use crate::store::Store as _;
        if let Err(error) = self.store.audit(actor, action, target, detail) {
            tracing::warn!(%error, action, target, "remediation: cannot write the audit log");
        }
    }
}
