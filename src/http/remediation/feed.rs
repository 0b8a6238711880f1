//! The progress of one remediation run as a list of events, kept whole so that a client
//! that connects late (or twice) gets it from the start, then follows it live: every
//! API call started and finished, the host's steps, each move's state, and the end.

use std::convert::Infallible;
use std::sync::{Arc, Mutex, PoisonError};

use axum::response::sse::Event;
use futures_util::Stream;
use serde::Serialize;
use tokio::sync::watch;

use crate::recovery::Observer;
use crate::recovery::observed::Call;
use crate::store::{MoveStatus, RecoveryRow, RecoveryStatus};

/// The most events one run keeps; past it, calls are no longer recorded one by one (a
/// long wait polls often), while moves and the end always are.
const MAX_EVENTS: usize = 20_000;

/// One thing that happened in a run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum RecoveryEvent {
    /// An API call is being made.
    StepStarted {
        #[serde(flatten)]
        call: Call,
    },
    /// An API call answered.
    StepFinished {
        #[serde(flatten)]
        call: Call,
        ok: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        error: Option<String>,
    },
    /// A host-level step: forced down, disabled, waiting, refused.
    Host { message: String },
    /// A move's state changed.
    Move {
        instance: String,
        name: String,
        status: MoveStatus,
        message: String,
    },
    /// The run is over: the recovery's status as journaled.
    End {
        #[serde(skip_serializing_if = "Option::is_none")]
        recovery_id: Option<i64>,
        status: RecoveryStatus,
        #[serde(skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
}

impl RecoveryEvent {
    /// The server-sent event's name.
    pub fn name(&self) -> &'static str {
        match self {
            RecoveryEvent::StepStarted { .. } => "step-started",
            RecoveryEvent::StepFinished { .. } => "step-finished",
            RecoveryEvent::Host { .. } => "host",
            RecoveryEvent::Move { .. } => "move",
            RecoveryEvent::End { .. } => "end",
        }
    }

    fn is_step(&self) -> bool {
        matches!(
            self,
            RecoveryEvent::StepStarted { .. } | RecoveryEvent::StepFinished { .. }
        )
    }

    /// The events a journaled recovery gives when its run is not followed here (it ran
    /// before this start, or in another process): its moves as they stand, then its end.
    pub fn of_row(row: &RecoveryRow) -> Vec<RecoveryEvent> {
        let mut events: Vec<RecoveryEvent> = row
            .moves
            .iter()
            .map(|m| RecoveryEvent::Move {
                instance: m.instance.clone(),
                name: m.instance.clone(),
                status: m.status,
                message: m.message.clone().unwrap_or_default(),
            })
            .collect();
        events.push(RecoveryEvent::End {
            recovery_id: Some(row.id),
            status: row.status,
            message: row.message.clone(),
        });
        events
    }
}

/// The events of one run so far, and a signal when there are more.
#[derive(Debug)]
pub struct Feed {
    events: Mutex<Vec<RecoveryEvent>>,
    changed: watch::Sender<usize>,
}

impl Default for Feed {
    fn default() -> Self {
        Feed {
            events: Mutex::new(Vec::new()),
            changed: watch::Sender::new(0),
        }
    }
}

impl Feed {
    /// A feed holding `events` already.
    pub fn of(events: Vec<RecoveryEvent>) -> Feed {
        let feed = Feed::default();
        for event in events {
            feed.push(event);
        }
        feed
    }

    /// Adds an event and wakes the followers.
    pub fn push(&self, event: RecoveryEvent) {
        let mut events = self.events.lock().unwrap_or_else(PoisonError::into_inner);
        if event.is_step() && events.len() >= MAX_EVENTS {
            return;
        }
        events.push(event);
        self.changed.send_replace(events.len());
    }

    /// The events so far.
    pub fn events(&self) -> Vec<RecoveryEvent> {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// Whether the run has ended.
    pub fn ended(&self) -> bool {
        self.events
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .last()
            .is_some_and(|e| matches!(e, RecoveryEvent::End { .. }))
    }

    /// Every event from the first, then the new ones as they come; ends after `end`.
    pub fn stream(self: Arc<Self>) -> impl Stream<Item = Result<Event, Infallible>> + Send {
        let changed = self.changed.subscribe();
        futures_util::stream::unfold(
            (self, 0usize, changed, false),
            |(feed, next, mut changed, over)| async move {
                if over {
                    return None;
                }
                loop {
                    changed.borrow_and_update();
                    let event = feed
                        .events
                        .lock()
                        .unwrap_or_else(PoisonError::into_inner)
                        .get(next)
                        .cloned();
                    if let Some(event) = event {
                        let end = matches!(event, RecoveryEvent::End { .. });
                        return Some((Ok(sse_event(&event)), (feed, next + 1, changed, end)));
                    }
                    // The sender lives in the feed, held here: this only waits.
                    if changed.changed().await.is_err() {
                        return None;
                    }
                }
            },
        )
    }
}

fn sse_event(event: &RecoveryEvent) -> Event {
    let data = serde_json::to_string(event).unwrap_or_else(|_| "{}".to_owned());
    Event::default().event(event.name()).data(data)
}

/// Turns what the executor tells into events of a feed.
#[derive(Debug)]
pub struct FeedObserver(pub Arc<Feed>);

impl Observer for FeedObserver {
    fn host_step(&self, message: &str) {
        self.0.push(RecoveryEvent::Host {
            message: message.to_owned(),
        });
    }

    fn move_started(&self, instance: &str, name: &str) {
        self.0.push(RecoveryEvent::Move {
            instance: instance.to_owned(),
            name: name.to_owned(),
            status: MoveStatus::Ongoing,
            message: "started".to_owned(),
        });
    }

    fn move_ended(&self, instance: &str, name: &str, status: MoveStatus, message: &str) {
        self.0.push(RecoveryEvent::Move {
            instance: instance.to_owned(),
            name: name.to_owned(),
            status,
            message: message.to_owned(),
        });
    }

    fn call_started(&self, call: &Call) {
        self.0
            .push(RecoveryEvent::StepStarted { call: call.clone() });
    }

    fn call_ended(&self, call: &Call, error: Option<&str>) {
        self.0.push(RecoveryEvent::StepFinished {
            call: call.clone(),
            ok: error.is_none(),
            error: error.map(str::to_owned),
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use futures_util::StreamExt as _;

    #[tokio::test]
    async fn a_late_follower_gets_every_event_from_the_start_then_the_live_ones_until_the_end() {
        let feed = Arc::new(Feed::default());
        let observer = FeedObserver(feed.clone());
        observer.host_step("disabled compute-1's compute service");
        let follower = tokio::spawn(feed.clone().stream().count());
        observer.move_ended("vm", "vm-01", MoveStatus::Succeeded, "ACTIVE on compute-2");
        assert!(!feed.ended());
        feed.push(RecoveryEvent::End {
            recovery_id: Some(1),
            status: RecoveryStatus::Finished,
            message: None,
        });
        assert!(feed.ended());
        // After the end nothing more is sent, even if pushed.
        feed.push(RecoveryEvent::Host {
            message: "late".into(),
        });
        assert_eq!(follower.await.unwrap(), 3);
        assert_eq!(feed.clone().stream().count().await, 3);
        let json = serde_json::to_value(&feed.events()[1]).unwrap();
        assert_eq!(json["event"], "move");
        assert_eq!(json["status"], "succeeded");
    }
}
