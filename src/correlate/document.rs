//! The [`Analysis`] as a document that round-trips: what the store keeps and reloads.
//!
//! In memory, joins and recoveries point at events by their position in
//! [`Analysis::events`], which is fast but means nothing outside one run. In the document
//! every such pointer is an [`EventRef`] (file and line), which is stable: the same input
//! read again gives the same refs. The indexes are rebuilt on load, not stored.
//!
//! A field of type [`EventId`] (or a list or option of them) that is part of the
//! document carries `#[serde(with = "crate::correlate::document::stable")]`.

use std::cell::RefCell;
use std::collections::HashMap;

use serde::de::{DeserializeOwned, Error as _};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::correlate::analysis::{Analysis, Stats};
use crate::correlate::index::Indexes;
use crate::correlate::joins::Join;
use crate::correlate::recovery::Recovery;
use crate::correlate::skew::SkewEstimate;
use crate::model::inventory::{
    CaptureFile, ConfigValue, FileInfo, Host, HostClock, InstalledPackage, Layout, Missing, Skipped,
};
use crate::model::{Event, EventId, FileId};

/// The schema of the document (the full analysis, events included).
pub const DOCUMENT_SCHEMA: &str = "evacdoc.analysis-document/v1";

/// Where an event is: what the document writes instead of a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct EventRef {
    /// The file ([`Analysis::files`] index, in reading order).
    pub file: FileId,
    /// 1-based line of the record's first line.
    pub line: u32,
}

impl EventRef {
    /// The ref of an event.
    pub fn of(event: &Event) -> EventRef {
        EventRef {
            file: event.file,
            line: event.line,
        }
    }
}

/// The translation between positions and refs in force while a document is written or
/// read (serde passes no context, so it is set for the duration of one call).
enum Table {
    Write(Vec<EventRef>),
    Read(HashMap<EventRef, EventId>),
}

thread_local! {
    static TABLE: RefCell<Option<Table>> = const { RefCell::new(None) };
}

/// Clears the table however the call it was set for ends.
struct TableGuard;

impl TableGuard {
    fn set(table: Table) -> TableGuard {
        TABLE.with(|t| *t.borrow_mut() = Some(table));
        TableGuard
    }
}

impl Drop for TableGuard {
    fn drop(&mut self) {
        TABLE.with(|t| *t.borrow_mut() = None);
    }
}

fn to_ref(id: EventId) -> Result<EventRef, String> {
    TABLE.with(|t| match &*t.borrow() {
        Some(Table::Write(refs)) => refs
            .get(id.index())
            .copied()
            .ok_or_else(|| format!("event {id} is not in the analysis")),
        _ => Err("event ids are written only as part of an analysis document".into()),
    })
}

fn to_id(r: EventRef) -> Result<EventId, String> {
    TABLE.with(|t| match &*t.borrow() {
        Some(Table::Read(ids)) => ids
            .get(&r)
            .copied()
            .ok_or_else(|| format!("no event at file {} line {}", r.file, r.line)),
        _ => Err("event refs are read only as part of an analysis document".into()),
    })
}

/// A value holding event positions, and its form with [`EventRef`]s.
pub trait Stable: Sized {
    /// The document form.
    type Doc: Serialize + DeserializeOwned;
    /// Positions to refs.
    fn to_doc(&self) -> Result<Self::Doc, String>;
    /// Refs to positions.
    fn from_doc(doc: Self::Doc) -> Result<Self, String>;
}

impl Stable for EventId {
    type Doc = EventRef;
    fn to_doc(&self) -> Result<EventRef, String> {
        to_ref(*self)
    }
    fn from_doc(doc: EventRef) -> Result<EventId, String> {
        to_id(doc)
    }
}

impl<T: Stable> Stable for Vec<T> {
    type Doc = Vec<T::Doc>;
    fn to_doc(&self) -> Result<Self::Doc, String> {
        self.iter().map(Stable::to_doc).collect()
    }
    fn from_doc(doc: Self::Doc) -> Result<Self, String> {
        doc.into_iter().map(T::from_doc).collect()
    }
}

impl<T: Stable> Stable for Option<T> {
    type Doc = Option<T::Doc>;
    fn to_doc(&self) -> Result<Self::Doc, String> {
        self.as_ref().map(Stable::to_doc).transpose()
    }
    fn from_doc(doc: Self::Doc) -> Result<Self, String> {
        doc.map(T::from_doc).transpose()
    }
}

/// An event with a number beside it (`Sleeping <n> sec`).
impl Stable for (EventId, u64) {
    type Doc = (EventRef, u64);
    fn to_doc(&self) -> Result<Self::Doc, String> {
        Ok((to_ref(self.0)?, self.1))
    }
    fn from_doc(doc: Self::Doc) -> Result<Self, String> {
        Ok((to_id(doc.0)?, doc.1))
    }
}

/// `#[serde(with = "stable")]`: event positions written as [`EventRef`]s.
pub mod stable {
    use super::*;

    /// Writes positions as refs.
    pub fn serialize<T: Stable, S: Serializer>(value: &T, s: S) -> Result<S::Ok, S::Error> {
        value
            .to_doc()
            .map_err(serde::ser::Error::custom)?
            .serialize(s)
    }

    /// Reads refs as positions.
    pub fn deserialize<'de, T: Stable, D: Deserializer<'de>>(d: D) -> Result<T, D::Error> {
        T::from_doc(T::Doc::deserialize(d)?).map_err(D::Error::custom)
    }
}

/// The document as written (borrowing the analysis).
#[derive(Serialize)]
struct DocumentRef<'a> {
    schema: &'static str,
    inputs: &'a [String],
    layout: Layout,
    hosts: &'a [Host],
    files: &'a [FileInfo],
    skipped: &'a [Skipped],
    missing: &'a [Missing],
    config: &'a [ConfigValue],
    captures: &'a [CaptureFile],
    packages: &'a [InstalledPackage],
    joins: &'a [Join],
    skew: &'a [SkewEstimate],
    recoveries: &'a [Recovery],
    clocks: &'a [HostClock],
    stats: &'a Stats,
    identified: &'a crate::model::identified::Seeds,
    events: &'a [Event],
}

/// The document as read (events apart: they are read first).
#[derive(Deserialize)]
struct Document {
    schema: String,
    inputs: Vec<String>,
    layout: Layout,
    hosts: Vec<Host>,
    files: Vec<FileInfo>,
    skipped: Vec<Skipped>,
    missing: Vec<Missing>,
    config: Vec<ConfigValue>,
    captures: Vec<CaptureFile>,
    packages: Vec<InstalledPackage>,
    joins: Vec<Join>,
    skew: Vec<SkewEstimate>,
    recoveries: Vec<Recovery>,
    clocks: Vec<HostClock>,
    stats: Stats,
    /// Absent from documents written before the first pass of redaction.
    #[serde(default)]
    identified: crate::model::identified::Seeds,
}

/// Why a document could not be read back.
#[derive(Debug, thiserror::Error)]
pub enum DocumentError {
    /// Not the schema this version reads.
    #[error("unsupported analysis document schema {0:?} (expected {DOCUMENT_SCHEMA})")]
    Schema(String),
    /// Two events claim one file and line.
    #[error("two events at file {} line {}", .0.file, .0.line)]
    DuplicateRef(EventRef),
    /// Malformed JSON or fields.
    #[error("analysis document: {0}")]
    Json(#[from] serde_json::Error),
}

fn read_table(events: &[Event]) -> Result<HashMap<EventRef, EventId>, EventRef> {
    let mut table = HashMap::with_capacity(events.len());
    for (position, event) in events.iter().enumerate() {
        let r = EventRef::of(event);
        if table.insert(r, EventId::at(position)).is_some() {
            return Err(r);
        }
    }
    Ok(table)
}

impl Analysis {
    /// The document of this analysis as JSON.
    pub fn to_document(&self) -> Result<serde_json::Value, serde_json::Error> {
        serde_json::to_value(self)
    }

    /// Writes the document of this analysis as JSON to `out` as it is made: the same
    /// document as [`Analysis::to_document`] without a tree of it in memory (at 1 GiB
    /// of logs the tree and its text took 400 MB of the service's peak).
    pub fn write_document(&self, out: impl std::io::Write) -> Result<(), serde_json::Error> {
        serde_json::to_writer(out, self)
    }

    /// Reads back a document written by [`Analysis::to_document`] (or serialized with
    /// serde); the indexes are rebuilt.
    pub fn from_document(mut value: serde_json::Value) -> Result<Analysis, DocumentError> {
        let schema = value.get("schema").and_then(|s| s.as_str()).unwrap_or("");
        if schema != DOCUMENT_SCHEMA {
            return Err(DocumentError::Schema(schema.to_string()));
        }
        let events: Vec<Event> = match value.get_mut("events") {
            Some(v) => serde_json::from_value(v.take())?,
            None => Vec::new(),
        };
        let table = read_table(&events).map_err(DocumentError::DuplicateRef)?;
        let doc: Document = {
            let _guard = TableGuard::set(Table::Read(table));
            serde_json::from_value(value)?
        };
        debug_assert_eq!(doc.schema, DOCUMENT_SCHEMA);
        let index = Indexes::build(&events, &crate::correlate::index::host_names(&doc.hosts));
        Ok(Analysis {
            inputs: doc.inputs,
            layout: doc.layout,
            hosts: doc.hosts,
            files: doc.files,
            skipped: doc.skipped,
            missing: doc.missing,
            config: doc.config,
            captures: doc.captures,
            packages: doc.packages,
            events,
            index,
            joins: doc.joins,
            skew: doc.skew,
            recoveries: doc.recoveries,
            clocks: doc.clocks,
            stats: doc.stats,
            identified: doc.identified,
        })
    }
}

impl Serialize for Analysis {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let refs = self.events.iter().map(EventRef::of).collect();
        let _guard = TableGuard::set(Table::Write(refs));
        DocumentRef {
            schema: DOCUMENT_SCHEMA,
            inputs: &self.inputs,
            layout: self.layout,
            hosts: &self.hosts,
            files: &self.files,
            skipped: &self.skipped,
            missing: &self.missing,
            config: &self.config,
            captures: &self.captures,
            packages: &self.packages,
            joins: &self.joins,
            skew: &self.skew,
            recoveries: &self.recoveries,
            clocks: &self.clocks,
            stats: &self.stats,
            identified: &self.identified,
            events: &self.events,
        }
        .serialize(s)
    }
}

impl<'de> Deserialize<'de> for Analysis {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Analysis, D::Error> {
        let value = serde_json::Value::deserialize(d)?;
        Analysis::from_document(value).map_err(D::Error::custom)
    }
}
