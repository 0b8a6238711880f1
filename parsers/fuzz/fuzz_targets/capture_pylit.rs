#![no_main]
//! The Python-literal reader and the `key='value'` line reader on any text: no panic,
//! and what a literal reads as prints back as JSON that reads the same.
use evacdoc_parsers::capture::pylit::{parse_kv_lines, parse_python_literal};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(value) = parse_python_literal(&text) {
        let json = value.to_string();
        assert_eq!(parse_python_literal(&json).as_ref(), Some(&value), "{json}");
    }
    std::hint::black_box(parse_kv_lines(&text));
});
