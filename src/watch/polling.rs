//! The watcher's polling loop on a blocking thread, its findings sent to async code: the
//! same loop for `evacdoc watch` and the service's live watch.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use tokio::sync::mpsc::UnboundedReceiver;
use tokio::task::JoinHandle;

use crate::detect::Finding;
use crate::watch::Watcher;

/// Polls `watcher` every poll interval on a blocking thread until `stop` is set or the
/// receiver is dropped; each finding is sent as it is handed out.
pub fn spawn_polling(
    mut watcher: Watcher,
    stop: Arc<AtomicBool>,
) -> (JoinHandle<()>, UnboundedReceiver<Finding>) {
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel::<Finding>();
    let polling = tokio::task::spawn_blocking(move || {
        let interval = watcher.poll_interval();
        while !stop.load(Ordering::Relaxed) {
            for finding in watcher.poll() {
                if tx.send(finding).is_err() {
                    return;
                }
            }
            std::thread::sleep(interval);
        }
    });
    (polling, rx)
}
