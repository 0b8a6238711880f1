//! Following live logs: the logs and folders given are scanned as bundles are (hosts,
//! services, configs), their files followed as `tail -F` does, every record pushed
//! through the same parsers and event keeper as an analysis, and the detectors run over
//! a bounded window of recent events. A finding is handed out once, when its evidence
//! is complete (its recovery has ended, or a gap is past its threshold).

mod files;
mod options;
mod polling;
mod ready;
mod snapshot;
mod tailed;
mod watcher;
mod window;

pub use options::WatchOptions;
pub use polling::{Handed, spawn_polling};
pub use watcher::{WatchError, WatchStats, Watcher};
