//! A spooled record as a tantivy document.

use tantivy::TantivyDocument;

use crate::correlate::ids::{UuidKind, classified_uuids};
use crate::index::schema::{FLAG_OWN_TIME, Fields};
use crate::index::spool::SpooledRecord;

pub(crate) fn document(f: &Fields, record: &SpooledRecord<'_>) -> TantivyDocument {
    let mut doc = TantivyDocument::new();
    doc.add_u64(f.file, u64::from(record.file));
    doc.add_u64(f.line, record.line);
    if let Some((raw, zoned)) = record.time {
        doc.add_i64(if zoned { f.time_utc } else { f.time_local }, raw);
    }
    doc.add_u64(
        f.flags,
        if record.own_time { FLAG_OWN_TIME } else { 0 },
    );
    for (field, value) in [
        (f.level, record.level),
        (f.logger, record.logger),
        (f.request, record.request),
        (f.request, record.global),
        (f.global, record.global),
        (f.instance, record.instance),
    ] {
        if !value.is_empty() {
            doc.add_text(field, value);
        }
    }
    // A UUID's kind is said by the word before it; only a text with a dash can hold one.
    if record.text.contains('-') {
        for (kind, id) in classified_uuids(record.text) {
            let field = match kind {
                UuidKind::Instance => f.instance,
                UuidKind::Notification => f.notification,
                UuidKind::Volume => f.volume,
            };
            doc.add_text(field, id.to_string());
        }
    }
    doc.add_text(f.text, record.text);
    if record.raw != record.text {
        doc.add_text(f.raw, record.raw);
    }
    doc
}
