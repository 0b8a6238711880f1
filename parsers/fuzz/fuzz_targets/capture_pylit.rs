#![no_main]
//! The Python-literal reader and the `key='value'` line reader on any text: no panic,
//! and what a literal reads as prints back as JSON that reads the same (when it is not
//! nested past `MAX_DEPTH`, where the rest is kept as raw text by design).
use evacdoc_parsers::capture::pylit::{MAX_DEPTH, parse_kv_lines, parse_python_literal};
use serde_json::Value;

fn depth(v: &Value) -> usize {
    match v {
        Value::Array(items) => 1 + items.iter().map(depth).max().unwrap_or(0),
        Value::Object(map) => 1 + map.values().map(depth).max().unwrap_or(0),
        _ => 0,
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(value) = parse_python_literal(&text) {
        if depth(&value) < MAX_DEPTH {
            let json = value.to_string();
            assert_eq!(parse_python_literal(&json).as_ref(), Some(&value), "{json}");
        }
    }
    std::hint::black_box(parse_kv_lines(&text));
});
