//! The full-text search index: one document per log record, fed by a sink of the one
//! reading pass that spools the records ([`Indexer`](crate::index::Indexer)) and built
//! from the spool once the analysis is stored; searched by words, phrases and fields in
//! UTC time order ([`SearchIndex`](crate::index::SearchIndex)). Each record's lines are
//! stored as the file holds them (the raw view), its message text as spans of them. The
//! only module that uses tantivy.
//!
//! Records are indexed with the time their line wrote (a host's zone and clock
//! correction are known only after the analysis); [`Indexer::finish`](crate::index::Indexer::finish) writes a small
//! meta file beside the index with each host's offsets and shift, which the search uses
//! to turn a UTC range into each host's local range and hits back into UTC.

mod document;
mod error;
mod head;
mod in_file;
mod marks;
mod meta;
mod query;
mod query_limits;
mod read_store;
mod schema;
mod search;
mod spans;
mod spool;
mod time_bound;
mod words;
mod writer;

pub use error::IndexError;
pub use query_limits::{
    MAX_QUERY_BYTES, MAX_QUERY_DEPTH, MAX_QUERY_TERMS, QueryLimit, check_query,
};
pub use search::{
    Bucket, FacetCount, Facets, Histogram, MAX_HITS_SHOWN, MAX_LITERAL_RECORDS, MAX_PER_PAGE,
    NO_LEVEL, ParserAlone, SearchHit, SearchIndex, SearchPage, SearchQuery, parse_alone,
};
pub use time_bound::{End, parse_time_bound};
pub use writer::{IndexStats, Indexer};

#[cfg(test)]
mod in_file_tests;
#[cfg(test)]
mod skim_tests;
#[cfg(test)]
mod tests;
