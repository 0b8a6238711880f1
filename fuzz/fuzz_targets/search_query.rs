#![no_main]
//! Any text as a search query, through what a search does before it searches: the
//! bounds checked (nesting, length, terms), `host:`/`service:` resolved, tantivy's parser.
//! No panic, no stack overflow; text past a bound is refused before it is parsed, and a
//! query that parses is within the bounds.
use std::sync::OnceLock;

use evacdoc::index::{IndexError, ParserAlone, check_query};

fn parser() -> &'static ParserAlone {
    static PARSER: OnceLock<ParserAlone> = OnceLock::new();
    PARSER.get_or_init(ParserAlone::new)
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Queries arrive as URL-decoded text: UTF-8 (a lossy decoding keeps the structure).
    let query = String::from_utf8_lossy(data);
    let checked = check_query(&query);
    match parser().parse(&query) {
        Ok(()) => assert!(checked.is_ok(), "parsed past a bound: {checked:?}"),
        Err(IndexError::QueryLimit(limit)) => {
            // The check of the text, or of the text `host:`/`service:` resolved to.
            assert!(checked.is_err() || matches!(limit, evacdoc::index::QueryLimit::Depth { .. }));
        }
        Err(IndexError::Query(message)) => {
            assert!(checked.is_ok(), "parsed although {checked:?}");
            std::hint::black_box(message);
        }
        Err(other) => panic!("not a query error: {other:?}"),
    }
});
