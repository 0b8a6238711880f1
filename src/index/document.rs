//! A spooled record as a tantivy document.

use tantivy::TantivyDocument;

use crate::correlate::ids::{UuidKind, classified_uuids};
use crate::index::head::{Held, head_words};
use crate::index::schema::{FLAG_OWN_TIME, Fields};
use crate::index::spans::{ranges, single, text_of};
use crate::index::spool::SpooledRecord;

/// Buffers reused from one document to the next.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    /// The text, when it must be put together.
    text: String,
    /// The head field's words.
    head: String,
    /// Where the text lies in the raw lines.
    spans: Vec<(usize, usize)>,
}

/// The record's document.
pub(crate) fn document(
    f: &Fields,
    record: &SpooledRecord<'_>,
    scratch: &mut Scratch,
) -> TantivyDocument {
    let text: &str = if !record.own_text.is_empty() {
        record.own_text
    } else if let Some(text) = single(record.raw, record.spans) {
        text
    } else if text_of(record.raw, record.spans, &mut scratch.text) {
        &scratch.text
    } else {
        record.raw
    };
    let mut doc = TantivyDocument::new();
    doc.add_u64(f.file, u64::from(record.file));
    doc.add_u64(f.line, record.line);
    if let Some((raw, zoned)) = record.time {
        doc.add_i64(if zoned { f.time_utc } else { f.time_local }, raw);
    }
    doc.add_u64(f.flags, if record.own_time { FLAG_OWN_TIME } else { 0 });
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
    if text.contains('-') {
        for (kind, id) in classified_uuids(text) {
            let field = match kind {
                UuidKind::Instance => f.instance,
                UuidKind::Notification => f.notification,
                UuidKind::Volume => f.volume,
            };
            doc.add_text(field, id.to_string());
        }
    }
    doc.add_text(f.text, text);
    if let Some(head) = f.head {
        let in_text = text_spans(record, &mut scratch.spans);
        head_words(
            record.raw,
            in_text.then_some(scratch.spans.as_slice()),
            Held {
                request: record.request,
                global: record.global,
                level: record.level,
                logger: record.logger,
            },
            &mut scratch.head,
        );
        if !scratch.head.is_empty() {
            doc.add_text(head, &scratch.head);
        }
    }
    // The raw lines are stored; the text is found again from its spans, or stored
    // itself when it is not made of slices of them.
    doc.add_text(f.raw, record.raw);
    if !record.own_text.is_empty() {
        doc.add_text(f.own_text, record.own_text);
    } else if !record.spans.is_empty() {
        doc.add_bytes(f.spans, record.spans);
    }
    doc
}

/// The byte ranges of the raw lines the text is made of, into `out`; false when the text
/// is the record's own (not slices of the lines) or its spans are damaged.
fn text_spans(record: &SpooledRecord<'_>, out: &mut Vec<(usize, usize)>) -> bool {
    out.clear();
    if !record.own_text.is_empty() {
        return false;
    }
    if record.spans.is_empty() {
        out.push((0, record.raw.len()));
        return true;
    }
    for range in ranges(record.spans) {
        let Some(range) = range else {
            return false;
        };
        out.push(range);
    }
    true
}
