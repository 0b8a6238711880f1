//! The watcher's polling loop on a blocking thread, its findings sent to async code: the
//! same loop for `evacdoc watch` and the service's live watch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::detect::Finding;
use crate::watch::Watcher;

/// A finding handed out, with what the watched inputs said when it was.
#[derive(Debug, Clone)]
pub struct Handed {
    pub finding: Finding,
    /// Nova's `[DEFAULT] service_down_time` the watched nova.conf sets, with its file:
    /// how long a remediation waits for Nova to see an unfenced host down.
    pub service_down_time: Option<(Duration, String)>,
}

/// Polls `watcher` every poll interval on a blocking thread until `stop` is set or the
/// receiver is dropped; each finding is sent as it is handed out.
pub fn spawn_polling(
    mut watcher: Watcher,
    stop: Arc<AtomicBool>,
) -> (JoinHandle<()>, UnboundedReceiver<Handed>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Handed>();
    let polling = tokio::task::spawn_blocking(move || {
        let interval = watcher.poll_interval();
        while !stop.load(Ordering::Relaxed) {
            for finding in watcher.poll() {
                let handed = Handed {
                    finding,
                    service_down_time: watcher.service_down_time(),
                };
                if tx.send(handed).is_err() {
                    return;
                }
            }
            std::thread::sleep(interval);
        }
    });
    (polling, rx)
}
