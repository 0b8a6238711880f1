#![no_main]
//! The capture scanner's steps on their own, picked by the first byte: command lines,
//! tables (with and without the columns of a known list command), wrapped cells.
use evacdoc_parsers::capture::fuzzing::{command_line, table, unwrap_lines};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(body);
    match pick % 3 {
        0 => {
            for line in text.lines() {
                std::hint::black_box(command_line(line));
            }
        }
        1 => {
            let columns: Vec<String> = ["ID", "Status", "Host"].map(String::from).to_vec();
            std::hint::black_box(table(&text, None));
            std::hint::black_box(table(&text, Some(&columns)));
        }
        _ => {
            std::hint::black_box(unwrap_lines(&text));
        }
    }
});
