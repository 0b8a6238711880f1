//! Where the records of a log go: the reader pushes every record of every file, once,
//! into sinks (the event keeper of the analysis now; the search indexer and the live
//! watcher later). A sink is made per file and fed on the thread that reads the file;
//! whoever made the sinks merges them afterwards.

use evacdoc_parsers::records::RecordKind;
use evacdoc_parsers::{Line, Record};

use crate::model::Service;
use crate::model::inventory::FileInfo;

/// Where a record lies in its file (decompressed bytes), as the parsers' push-mode
/// assembler reports it.
pub use evacdoc_parsers::RecordSpan;

/// What a sink is told about the file its records come from.
#[derive(Clone, Copy, Debug)]
pub struct FileCtx<'a> {
    /// The file's index in the analysis's files (`Analysis::files`).
    pub id: u32,
    /// Path relative to the input root.
    pub path: &'a str,
    /// The host the file belongs to.
    pub host: u32,
    /// The service that wrote it (decided from its name, or its loggers once the first
    /// piece is read: the context handed to [`RecordSink::record`] is the final one).
    pub service: &'a Service,
    /// Where the file lies when the bytes read are its bytes on disk (not decompressed)
    /// and it was unpacked from an archive into the analysis's work folder: a sink
    /// whose factory keeps that folder ([`SinkFactory::keep_unpacked`]) may read a
    /// record's bytes there again (`span` gives where). Told to [`RecordSink::record`]
    /// and [`RecordSink::skipped`] only.
    pub disk: Option<&'a std::path::Path>,
}

/// A consumer of records, one per file.
pub trait RecordSink {
    /// One record of `file`, in file order; `span` says where it lies.
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan);

    /// The file has been read to its end (or as far as it could be): `info` holds what
    /// the reader counted.
    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        let _ = (file, info);
    }

    /// Whether the reader may pass over the records this sink ignores (see
    /// [`RecordSink::ignores`]) instead of handing them to [`RecordSink::record`]. False
    /// unless the sink says otherwise: a sink sees every record.
    fn skims(&self) -> bool {
        false
    }

    /// A cheap look at a line's text before [`RecordSink::ignores`]: false when the
    /// record it starts cannot be ignored.
    fn candidate(&self, file: &FileCtx<'_>, raw: &str) -> bool {
        let _ = (file, raw);
        false
    }

    /// Whether [`RecordSink::record`] of the record made of `head` alone (an
    /// `Entry`: no continuation, traceback or cut) would do nothing that
    /// [`RecordSink::skipped`] does not do. Only a sink that [`RecordSink::skims`] is
    /// asked.
    fn ignores(&self, file: &FileCtx<'_>, head: &Line<'_>) -> bool {
        let _ = (file, head);
        false
    }

    /// The record made of `head` alone was passed over ([`RecordSink::ignores`] said so
    /// of it).
    fn skipped(&mut self, file: &FileCtx<'_>, head: &Line<'_>, span: RecordSpan) {
        let _ = (file, head, span);
    }
}

/// The record of `head` alone, as the reader would have built it: a sink that needs
/// every record may still let the reader pass over the lines it skims, and read each of
/// them in [`RecordSink::skipped`] as this record (a skimmed record is one line, an
/// `Entry` without continuation, traceback or cut).
pub fn record_of_line<'a>(head: &Line<'a>, span: RecordSpan) -> Record<'a> {
    Record {
        line: span.first_line,
        kind: RecordKind::Entry,
        head: head.clone(),
        continuation: Vec::new(),
        traceback: Vec::new(),
        raw_rest: Vec::new(),
        lines: 1,
        cut: None,
    }
}

/// Two sinks fed in the same pass.
impl<A: RecordSink, B: RecordSink> RecordSink for (A, B) {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        self.0.record(file, record, span);
        self.1.record(file, record, span);
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        self.0.finish_file(file, info);
        self.1.finish_file(file, info);
    }

    fn skims(&self) -> bool {
        self.0.skims() && self.1.skims()
    }

    fn candidate(&self, file: &FileCtx<'_>, raw: &str) -> bool {
        self.0.candidate(file, raw) && self.1.candidate(file, raw)
    }

    fn ignores(&self, file: &FileCtx<'_>, head: &Line<'_>) -> bool {
        self.0.ignores(file, head) && self.1.ignores(file, head)
    }

    fn skipped(&mut self, file: &FileCtx<'_>, head: &Line<'_>, span: RecordSpan) {
        self.0.skipped(file, head, span);
        self.1.skipped(file, head, span);
    }
}

/// A sink that may be absent (an extra sink the caller did not ask for).
impl<S: RecordSink> RecordSink for Option<S> {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        if let Some(sink) = self {
            sink.record(file, record, span);
        }
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        if let Some(sink) = self {
            sink.finish_file(file, info);
        }
    }

    // An absent sink ignores every record.
    fn skims(&self) -> bool {
        self.as_ref().is_none_or(|sink| sink.skims())
    }

    fn candidate(&self, file: &FileCtx<'_>, raw: &str) -> bool {
        self.as_ref().is_none_or(|sink| sink.candidate(file, raw))
    }

    fn ignores(&self, file: &FileCtx<'_>, head: &Line<'_>) -> bool {
        self.as_ref().is_none_or(|sink| sink.ignores(file, head))
    }

    fn skipped(&mut self, file: &FileCtx<'_>, head: &Line<'_>, span: RecordSpan) {
        if let Some(sink) = self {
            sink.skipped(file, head, span);
        }
    }
}

impl<S: RecordSink + ?Sized> RecordSink for Box<S> {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        (**self).record(file, record, span);
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        (**self).finish_file(file, info);
    }

    fn skims(&self) -> bool {
        (**self).skims()
    }

    fn candidate(&self, file: &FileCtx<'_>, raw: &str) -> bool {
        (**self).candidate(file, raw)
    }

    fn ignores(&self, file: &FileCtx<'_>, head: &Line<'_>) -> bool {
        (**self).ignores(file, head)
    }

    fn skipped(&mut self, file: &FileCtx<'_>, head: &Line<'_>, span: RecordSpan) {
        (**self).skipped(file, head, span);
    }
}

/// Makes the sinks fed beside the event keeper, one per file (the search indexer, the
/// live watcher). Each sink hands its result to its maker in
/// [`RecordSink::finish_file`]; the maker merges them.
pub trait SinkFactory: Send + Sync {
    /// A sink for the file about to be read.
    fn sink(&self, file: &FileCtx<'_>) -> Box<dyn RecordSink + Send>;

    /// Offered the folder the analysis unpacks archives into, before anything is read
    /// or unpacked. A factory that keeps it (returns `None`) keeps the unpacked files
    /// for as long as it holds the folder, and its sinks may read them again
    /// ([`FileCtx::disk`]). Giving it back (the default) means they must not: the
    /// folder is removed when the analysis ends.
    fn keep_unpacked(&self, work: tempfile::TempDir) -> Option<tempfile::TempDir> {
        Some(work)
    }
}
