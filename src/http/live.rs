//! The service's live watcher (`serve --watch PATH`): the same [`Watcher`] as `evacdoc
//! watch`, polled on a blocking thread; each finding it hands out is kept (the last few
//! hundred), streamed to followers as a server-sent event, and handed to the service's
//! trigger (the policy of `--policy`), whose decisions are kept and streamed too.

use std::collections::VecDeque;
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use axum::response::sse::Event;
use futures_util::Stream;
use serde::Serialize;
use tokio::sync::watch;

use crate::trigger::{Policy, Trigger};
use crate::watch::{WatchError, WatchOptions, Watcher};

/// The most events kept for pages and late followers.
const KEPT: usize = 500;

/// What the service watches, and by which policy it acts.
#[derive(Debug, Clone)]
pub struct WatchConfig {
    /// Log files and folders followed.
    pub paths: Vec<PathBuf>,
    /// How they are followed.
    pub options: WatchOptions,
    /// What to do with findings (`None`: the default policy, notify only).
    pub policy: Option<Policy>,
}

/// A finding handed out, or a decision about one.
#[derive(Debug, Clone, Serialize)]
pub struct LiveEvent {
    /// Its place in the stream (from 1).
    pub seq: u64,
    /// `finding` or `decision`.
    pub kind: &'static str,
    /// When the service saw it (RFC 3339, UTC).
    pub at: String,
    /// The finding (`evacdoc.analysis/v1` shape), or the decision.
    pub data: serde_json::Value,
}

/// The running watcher's findings and decisions.
#[derive(Debug)]
pub struct LiveWatch {
    /// The inputs followed, for the page.
    pub inputs: Vec<String>,
    events: Mutex<(u64, VecDeque<LiveEvent>)>,
    changed: watch::Sender<u64>,
    stop: Arc<AtomicBool>,
}

impl LiveWatch {
    /// Starts following `config.paths` (the inputs are scanned first: a bad path fails
    /// here); findings go to `trigger`.
    pub async fn start(
        config: WatchConfig,
        trigger: Arc<Trigger>,
    ) -> Result<Arc<LiveWatch>, String> {
        let (paths, options) = (config.paths.clone(), config.options.clone());
        let watcher = tokio::task::spawn_blocking(move || Watcher::new(&paths, options))
            .await
            .map_err(|e| format!("--watch: the watcher stopped: {e}"))?
            .map_err(|e: WatchError| format!("--watch: {e}"))?;
        let live = Arc::new(LiveWatch {
            inputs: config
                .paths
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            events: Mutex::new((0, VecDeque::new())),
            changed: watch::Sender::new(0),
            stop: Arc::new(AtomicBool::new(false)),
        });
        let (_polling, mut rx) = crate::watch::spawn_polling(watcher, live.stop.clone());
        let hub = live.clone();
        tokio::spawn(async move {
            while let Some(handed) = rx.recv().await {
                hub.push("finding", serde_json::to_value(&handed.finding));
                let (hub, trigger) = (hub.clone(), trigger.clone());
                tokio::spawn(async move {
                    let decisions = trigger
                        .handle_from(&handed.finding, handed.service_down_time)
                        .await;
                    for decision in decisions {
                        hub.push("decision", serde_json::to_value(&decision));
                    }
                });
            }
        });
        Ok(live)
    }

    /// Stops following (the poll thread ends at its next look).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Relaxed);
    }

    fn push(&self, kind: &'static str, data: Result<serde_json::Value, serde_json::Error>) {
        let data = match data {
            Ok(data) => data,
            Err(error) => {
                tracing::warn!(%error, kind, "watch: cannot serialize");
                return;
            }
        };
        let mut guard = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        let (last, events) = &mut *guard;
        *last += 1;
        events.push_back(LiveEvent {
            seq: *last,
            kind,
            at: jiff::Timestamp::now().to_string(),
            data,
        });
        while events.len() > KEPT {
            events.pop_front();
        }
        self.changed.send_replace(*last);
    }

    /// The events kept, oldest first.
    pub fn events(&self) -> Vec<LiveEvent> {
        let guard = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        guard.1.iter().cloned().collect()
    }

    fn after(&self, seq: u64) -> Option<LiveEvent> {
        let guard = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        guard.1.iter().find(|e| e.seq > seq).cloned()
    }

    /// The events kept, then the new ones as they come (never ends by itself).
    pub fn stream(self: Arc<Self>) -> impl Stream<Item = Result<Event, Infallible>> + Send {
        let changed = self.changed.subscribe();
        futures_util::stream::unfold(
            (self, 0u64, changed),
            |(live, seen, mut changed)| async move {
                loop {
                    changed.borrow_and_update();
                    if let Some(event) = live.after(seen) {
                        let data = serde_json::to_string(&event).unwrap_or_default();
                        let sse = Event::default()
                            .event(event.kind)
                            .id(event.seq.to_string())
                            .data(data);
                        return Some((Ok(sse), (live, event.seq, changed)));
                    }
                    if changed.changed().await.is_err() {
                        return None;
                    }
                }
            },
        )
    }
}
