//! The event keeper: the sink that keeps, of each file's records, the events a diagnosis
//! needs ([`crate::correlate::extract::keep`]) and the time-zone evidence of its host.

use evacdoc_parsers::{Record, Timestamp};

use crate::correlate::analysis::FileInfo;
use crate::correlate::extract::{RawEvent, Watched, event_of, keep, vote_offsets};
use crate::ingest::host_names::HostNameVotes;
use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan};
use crate::ingest::timezone::OffsetVotes;

/// Keeps the events of one file.
#[derive(Debug)]
pub struct EventKeeper<'w> {
    watch: &'w Watched,
    events: Vec<RawEvent>,
    votes: OffsetVotes,
    names: HostNameVotes,
    last_stamp: Option<Timestamp>,
}

/// What reading and keeping one log file gave.
#[derive(Debug)]
pub struct FileOutcome {
    /// The file as read.
    pub info: FileInfo,
    /// The events kept, in file order, times still as the lines wrote them.
    pub events: Vec<RawEvent>,
    /// The time-zone evidence of the file's lines.
    pub votes: OffsetVotes,
    /// What the file's lines say of their host's name.
    pub names: HostNameVotes,
    /// Why the file was not read (or not wholly).
    pub skipped: Option<String>,
}

impl<'w> EventKeeper<'w> {
    /// A keeper following the instances of `watch` in Nova's request logs.
    pub fn new(watch: &'w Watched) -> EventKeeper<'w> {
        EventKeeper {
            watch,
            events: Vec::new(),
            votes: OffsetVotes::default(),
            names: HostNameVotes::default(),
            last_stamp: None,
        }
    }

    /// The file's outcome, from what the reader said of it and what was kept.
    pub fn into_outcome(mut self, info: FileInfo, skipped: Option<String>) -> FileOutcome {
        // Held until every file is read: no growth slack.
        self.events.shrink_to_fit();
        FileOutcome {
            info,
            events: self.events,
            votes: self.votes,
            names: self.names,
            skipped,
        }
    }
}

impl RecordSink for EventKeeper<'_> {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        if record.unparsed_reason().is_some() {
            return;
        }
        vote_offsets(record, &mut self.votes);
        self.names.feed(record);
        if keep(file.service, record, self.watch) {
            let mut raw = event_of(record, file.id, file.host);
            raw.event.line = u32::try_from(span.first_line).unwrap_or(u32::MAX);
            // Lines without a time of their own (raw tracebacks) take the one before.
            if raw.stamp.is_none() {
                raw.stamp = self.last_stamp;
            }
            self.events.push(raw);
        }
        if let Some(stamp) = record.timestamp() {
            self.last_stamp = Some(stamp);
        }
    }
}
