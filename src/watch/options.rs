//! How the watcher follows its inputs and how much it remembers.

use std::time::Duration;

use crate::detect::DetectOptions;

/// Tunables of [`crate::watch::Watcher`].
#[derive(Clone, Debug)]
pub struct WatchOptions {
    /// How often the files are looked at.
    pub poll: Duration,
    /// How often the inputs are scanned again for new files and changed configs.
    pub rescan: Duration,
    /// Read the files present at the start from their beginning (else from their end,
    /// as `tail -F` does; files that appear later are always read whole).
    pub from_start: bool,
    /// Events not of an open recovery are forgotten this long (log time) after the
    /// newest event.
    pub window: Duration,
    /// Events of an ended recovery are forgotten this long (log time) after its end.
    pub grace: Duration,
    /// The most events held, whatever their age (the oldest go first).
    pub max_events: usize,
    /// The most bytes read from one file in one look (the rest waits for the next).
    pub max_read: usize,
    /// A time zone for every host, overriding what the inputs say.
    pub tz: Option<String>,
    /// The detectors' tunables.
    pub detect: DetectOptions,
}

impl Default for WatchOptions {
    fn default() -> Self {
        WatchOptions {
            poll: Duration::from_millis(200),
            rescan: Duration::from_secs(2),
            from_start: false,
            window: Duration::from_secs(30 * 60),
            grace: Duration::from_secs(60),
            max_events: 200_000,
            max_read: 64 << 20,
            tz: None,
            detect: DetectOptions::default(),
        }
    }
}
