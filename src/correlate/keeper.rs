//! The event keeper: the sink that keeps, of each file's records, the events a diagnosis
//! needs ([`crate::correlate::extract::keep`]) and the time-zone evidence of its host.

use std::sync::Mutex;

use evacdoc_parsers::records::RecordKind;
use evacdoc_parsers::{Line, Record, Timestamp};

use crate::correlate::extract::{
    RawEvent, Watched, event_of, keep, keep_head, vote_offsets, vote_own_offset, votes_nothing,
};
use crate::correlate::fence_log::{self, LoggedFence};
use crate::ingest::host_names::HostNameVotes;
use crate::ingest::sink::{FileCtx, RecordSink, RecordSpan};
use crate::ingest::timezone::OffsetVotes;
use crate::model::inventory::FileInfo;
use crate::model::lines::BLOCK_BYTES;
use crate::model::{Event, Project, Service};

/// Every file's kept events in one list, in no particular order (the assembler orders
/// them). Keepers move their file's events here when the file ends, on the thread that
/// read it: that thread's next file reuses the memory of the file's own list, and the
/// events are never held twice (once per file and once in the final list).
#[derive(Debug, Default)]
pub struct KeptEvents(Mutex<Vec<RawEvent>>);

impl KeptEvents {
    /// Moves `events` to the end of the list.
    fn add(&self, events: &mut Vec<RawEvent>) {
        // A keeper that panicked mid-append left whole events: the list is still good.
        let mut list = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        list.append(events);
    }

    /// The events kept so far.
    pub fn snapshot<R>(&self, read: impl FnOnce(&[RawEvent]) -> R) -> R {
        let list = self
            .0
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        read(&list)
    }

    /// The list.
    pub fn into_events(self) -> Vec<RawEvent> {
        self.0
            .into_inner()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

/// Keeps the events of one file.
#[derive(Debug)]
pub struct EventKeeper<'w> {
    watch: &'w Watched,
    events: Vec<RawEvent>,
    /// Where the file's events go when it ends, if not into its outcome.
    pool: Option<&'w KeptEvents>,
    /// How many events were moved to the pool.
    pooled: u64,
    votes: OffsetVotes,
    names: HostNameVotes,
    last_stamp: Option<Timestamp>,
    /// Events before this position of `events` have their text packed.
    packed: usize,
    /// Pacemaker's fencing results, in a log that may hold them.
    fencing: Vec<LoggedFence>,
    /// Bytes of text not packed yet.
    unpacked_bytes: usize,
    /// What skimming asks of the service of every line, known once per service.
    skim_facts: std::cell::RefCell<Option<(Service, SkimFacts)>>,
}

/// What [`RecordSink::candidate`] and [`RecordSink::ignores`] ask of a file's service.
#[derive(Clone, Copy, Debug)]
struct SkimFacts {
    /// [`fence_log::may_hold`].
    fences: bool,
    /// A Masakari service.
    masakari: bool,
}

/// What reading and keeping one log file gave.
#[derive(Debug)]
pub struct FileOutcome {
    /// The file as read.
    pub info: FileInfo,
    /// The events kept, in file order, times still as the lines wrote them (empty when
    /// the keeper moved them to a [`KeptEvents`] pool).
    pub events: Vec<RawEvent>,
    /// How many events the file gave (in `events` or in the pool).
    pub kept: u64,
    /// The time-zone evidence of the file's lines.
    pub votes: OffsetVotes,
    /// What the file's lines say of their host's name.
    pub names: HostNameVotes,
    /// Why the file was not read (or not wholly).
    pub skipped: Option<String>,
    /// Pacemaker's fencing results in the file, times as written.
    pub fencing: Vec<LoggedFence>,
}

impl<'w> EventKeeper<'w> {
    /// A keeper following the instances of `watch` in Nova's request logs.
    pub fn new(watch: &'w Watched) -> EventKeeper<'w> {
        EventKeeper {
            watch,
            events: Vec::new(),
            pool: None,
            pooled: 0,
            votes: OffsetVotes::default(),
            names: HostNameVotes::default(),
            last_stamp: None,
            packed: 0,
            unpacked_bytes: 0,
            fencing: Vec::new(),
            skim_facts: std::cell::RefCell::new(None),
        }
    }

    /// A keeper that moves the file's events into `pool` when the file ends.
    pub fn pooled(watch: &'w Watched, pool: &'w KeptEvents) -> EventKeeper<'w> {
        EventKeeper {
            pool: Some(pool),
            ..EventKeeper::new(watch)
        }
    }

    /// The file's outcome, from what the reader said of it and what was kept.
    pub fn into_outcome(mut self, info: FileInfo, skipped: Option<String>) -> FileOutcome {
        self.pack_text();
        // Held until every file is read: no growth slack.
        self.events.shrink_to_fit();
        FileOutcome {
            info,
            kept: self.pooled + self.events.len() as u64,
            events: self.events,
            votes: self.votes,
            names: self.names,
            skipped,
            fencing: self.fencing,
        }
    }
}

impl EventKeeper<'_> {
    /// Packs the text of the events kept since the last block into one compressed
    /// block: what the file's events cost is then mostly their fields.
    fn pack_text(&mut self) {
        let start = self.packed.min(self.events.len());
        Event::pack_text(self.events[start..].iter_mut().map(|raw| &mut raw.event));
        self.packed = self.events.len();
        self.unpacked_bytes = 0;
    }
}

impl EventKeeper<'_> {
    /// The [`SkimFacts`] of `service`, worked out when it is not the one asked last.
    fn skim_facts(&self, service: &Service) -> SkimFacts {
        let mut cached = self.skim_facts.borrow_mut();
        if let Some((known, facts)) = cached.as_ref()
            && known == service
        {
            return *facts;
        }
        let facts = SkimFacts {
            fences: fence_log::may_hold(service),
            masakari: service.project() == Project::Masakari,
        };
        *cached = Some((service.clone(), facts));
        facts
    }
}

impl RecordSink for EventKeeper<'_> {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        // pacemaker.log's lines fit no format: its fencing results are read first. Each
        // line of the record: the syslog assembler takes a daemon's lines that follow one
        // another as one message (stonith-ng's `Client … wants to fence` and its result).
        if fence_log::may_hold(file.service) {
            for (i, raw) in record.raw_lines().enumerate() {
                if let Some(fence) = fence_log::of_line(raw, span.first_line + i) {
                    self.fencing.push(fence);
                }
            }
        }
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
            self.unpacked_bytes += raw.event.text_len();
            self.events.push(raw);
            if self.unpacked_bytes >= BLOCK_BYTES {
                self.pack_text();
            }
        }
        if let Some(stamp) = record.timestamp() {
            self.last_stamp = Some(stamp);
        }
    }

    /// The keeper ignores most lines of a DEBUG log; the reader may pass over them.
    fn skims(&self) -> bool {
        true
    }

    /// A line that starts with a date, in a log that may not hold Pacemaker's fencing
    /// results (its every line is read);
    /// of Masakari's logs, whose lines are kept but routine DEBUG ones, only lines that
    /// say `DEBUG` where oslo.log writes the level.
    fn candidate(&self, file: &FileCtx<'_>, raw: &str) -> bool {
        // Only an oslo.log line can be passed over: it starts with its date
        // (`2025-03-11 06:00:01.810`, or `2025-03-11T06:00:01.810`), or with a journal's
        // prefix (`Mar 11 06:00:01.810325 host unit[pid]: `, DevStack's); an access line,
        // say, is not parsed twice.
        let b = raw.as_bytes();
        let oslo =
            b.first().is_some_and(u8::is_ascii_digit) && matches!(b.get(10), Some(b' ' | b'T'));
        let journal = b.first().is_some_and(u8::is_ascii_uppercase) && b.get(3) == Some(&b' ');
        if !(oslo || journal) {
            return false;
        }
        let facts = self.skim_facts(file.service);
        if facts.fences {
            return false;
        }
        if facts.masakari {
            // The level comes after the date, or after the journal's prefix.
            let window = if oslo { 80 } else { 200 };
            let start = raw.as_bytes().get(..window).unwrap_or(raw.as_bytes());
            static DEBUG: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
                std::sync::LazyLock::new(|| memchr::memmem::Finder::new(" DEBUG "));
            return DEBUG.find(start).is_some();
        }
        true
    }

    /// Exact by [`RecordSink::record`] above, for the record of `head` alone (an
    /// `Entry`, so `unparsed_reason` is `None`): no fencing results are looked for (not
    /// a log that may hold them); [`vote_offsets`] votes nothing but the line's own offset,
    /// which [`RecordSink::skipped`] votes ([`votes_nothing`]); the host-name votes count
    /// nothing but a journal prefix's host, which [`RecordSink::skipped`] counts
    /// ([`HostNameVotes::counts_nothing`]); [`keep`] is
    /// [`keep_head`] of its kind and first line, false: nothing is kept. What is left is
    /// the last time seen, which [`RecordSink::skipped`] sets.
    fn ignores(&self, file: &FileCtx<'_>, head: &Line<'_>) -> bool {
        !self.skim_facts(file.service).fences
            && votes_nothing(head)
            && HostNameVotes::counts_nothing(head)
            && !keep_head(file.service, RecordKind::Entry, head, self.watch)
    }

    fn skipped(&mut self, _file: &FileCtx<'_>, head: &Line<'_>, _span: RecordSpan) {
        // What `vote_offsets` votes of such a line (see `votes_nothing`), and the host
        // names count of it (see `HostNameVotes::counts_nothing`).
        vote_own_offset(head, &mut self.votes);
        self.names.feed_journal(head);
        if let Some(stamp) = head.timestamp() {
            self.last_stamp = Some(stamp);
        }
    }

    fn finish_file(&mut self, _file: &FileCtx<'_>, _info: &FileInfo) {
        self.pack_text();
        if let Some(pool) = self.pool {
            self.pooled += self.events.len() as u64;
            pool.add(&mut self.events);
            self.events = Vec::new();
            self.packed = 0;
        }
    }
}
