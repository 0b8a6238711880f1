//! The fields of a record's document, and the tokenizers they use.
//!
//! Only the message text is indexed with positions (phrases); ids are single lowercased
//! tokens without frequencies; the raw lines' words the text does not hold (`index::head`,
//! case kept) without frequencies, for literal searches; time, file and line are columns (fast fields). Host and
//! service are a function of the file: they are not indexed but resolved to file ids at
//! query time from the meta file, which keeps every document smaller.

use tantivy::Index;
use tantivy::schema::{
    FAST, Field, IndexRecordOption, NumericOptions, STORED, Schema, TextFieldIndexing, TextOptions,
};
use tantivy::tokenizer::{LowerCaser, RawTokenizer, TextAnalyzer};

use crate::index::words::{WORDS_TOKENIZER, WordsTokenizer};

/// The tokenizer of id fields: the whole value, lowercased.
pub(crate) const ID_TOKENIZER: &str = "evacdoc_id";
/// The tokenizer of the message text.
pub(crate) const TEXT_TOKENIZER: &str = "default";

/// Field names as the query language spells them.
pub(crate) mod names {
    pub const TEXT: &str = "text";
    pub const RAW: &str = "raw";
    pub const HEAD: &str = "head";
    pub const SPANS: &str = "spans";
    pub const OWN_TEXT: &str = "owntext";
    pub const LEVEL: &str = "level";
    pub const LOGGER: &str = "logger";
    pub const REQUEST: &str = "request";
    pub const GLOBAL: &str = "global";
    pub const INSTANCE: &str = "instance";
    pub const NOTIFICATION: &str = "notification";
    pub const VOLUME: &str = "volume";
    pub const FILE: &str = "file";
    pub const LINE: &str = "line";
    pub const TIME_LOCAL: &str = "tlocal";
    pub const TIME_UTC: &str = "tutc";
    pub const FLAGS: &str = "flags";
}

/// `flags` bit: the record carries a timestamp of its own (else its time is the one of
/// the record before it in the file, for ordering only).
pub(crate) const FLAG_OWN_TIME: u64 = 1;

/// The fields, by handle.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Fields {
    pub text: Field,
    /// The record's lines as the file holds them, stored (indexes built before the head
    /// field: their words indexed too; before literal search: stored only).
    pub raw: Field,
    /// The raw lines' words the text field does not hold (`index::head`); `None` in
    /// indexes built before it.
    pub head: Option<Field>,
    /// Where the text lies in the raw lines (`index::spans`), stored only.
    pub spans: Field,
    /// The text when it is not made of slices of the raw lines, stored only.
    pub own_text: Field,
    pub level: Field,
    pub logger: Field,
    /// Local and global request ids (`request:` finds either).
    pub request: Field,
    /// Global request ids only.
    pub global: Field,
    pub instance: Field,
    pub notification: Field,
    pub volume: Field,
    pub file: Field,
    pub line: Field,
    /// Nanoseconds of a zone-less wall-clock time read as if it were UTC.
    pub time_local: Field,
    /// Nanoseconds of a time whose line gave its offset (UTC, before clock correction).
    pub time_utc: Field,
    pub flags: Field,
}

/// No field keeps field norms: hits come in time order, never by score, and a text
/// field's norms made tantivy weigh every term and block for scoring (BM25 block maxima)
/// while building.
pub(crate) fn build() -> (Schema, Fields) {
    let mut b = Schema::builder();
    let text = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(TEXT_TOKENIZER)
            .set_index_option(IndexRecordOption::WithFreqsAndPositions)
            .set_fieldnorms(false),
    );
    let id = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(ID_TOKENIZER)
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false),
    );
    // The raw lines' words the text does not hold, for literal searches to narrow by.
    let words = TextOptions::default().set_indexing_options(
        TextFieldIndexing::default()
            .set_tokenizer(WORDS_TOKENIZER)
            .set_index_option(IndexRecordOption::Basic)
            .set_fieldnorms(false),
    );
    let fields = Fields {
        text: b.add_text_field(names::TEXT, text),
        raw: b.add_text_field(names::RAW, STORED),
        head: Some(b.add_text_field(names::HEAD, words)),
        spans: b.add_bytes_field(names::SPANS, STORED),
        own_text: b.add_text_field(names::OWN_TEXT, STORED),
        level: b.add_text_field(names::LEVEL, id.clone() | STORED),
        logger: b.add_text_field(names::LOGGER, id.clone()),
        request: b.add_text_field(names::REQUEST, id.clone()),
        global: b.add_text_field(names::GLOBAL, id.clone()),
        instance: b.add_text_field(names::INSTANCE, id.clone()),
        notification: b.add_text_field(names::NOTIFICATION, id.clone()),
        volume: b.add_text_field(names::VOLUME, id),
        file: b.add_u64_field(
            names::FILE,
            NumericOptions::default().set_indexed().set_fast(),
        ),
        line: b.add_u64_field(names::LINE, FAST),
        time_local: b.add_i64_field(names::TIME_LOCAL, FAST),
        time_utc: b.add_i64_field(names::TIME_UTC, FAST),
        flags: b.add_u64_field(names::FLAGS, FAST),
    };
    (b.build(), fields)
}

/// The fields of an opened index, by name.
pub(crate) fn fields_of(schema: &Schema) -> tantivy::Result<Fields> {
    let f = |name: &str| schema.get_field(name);
    Ok(Fields {
        text: f(names::TEXT)?,
        raw: f(names::RAW)?,
        head: schema.get_field(names::HEAD).ok(),
        spans: f(names::SPANS)?,
        own_text: f(names::OWN_TEXT)?,
        level: f(names::LEVEL)?,
        logger: f(names::LOGGER)?,
        request: f(names::REQUEST)?,
        global: f(names::GLOBAL)?,
        instance: f(names::INSTANCE)?,
        notification: f(names::NOTIFICATION)?,
        volume: f(names::VOLUME)?,
        file: f(names::FILE)?,
        line: f(names::LINE)?,
        time_local: f(names::TIME_LOCAL)?,
        time_utc: f(names::TIME_UTC)?,
        flags: f(names::FLAGS)?,
    })
}

/// Registers the id and words tokenizers (tantivy keeps tokenizers out of the index files: each
/// opening must register them again).
pub(crate) fn register_tokenizers(index: &Index) {
    index.tokenizers().register(
        ID_TOKENIZER,
        TextAnalyzer::builder(RawTokenizer::default())
            .filter(LowerCaser)
            .build(),
    );
    index
        .tokenizers()
        .register(WORDS_TOKENIZER, WordsTokenizer::default());
}
