#![no_main]
//! The push assembler on any bytes, split where the first byte says: no panic, and the
//! same records as one push of the whole input.
use evacdoc_parsers::{Assembler, Record, RecordSpan};

fn records(pieces: &[&[u8]]) -> Vec<(usize, usize, String, RecordSpan)> {
    let mut out = Vec::new();
    let mut a = Assembler::new();
    let mut keep = |r: &Record<'_>, span: RecordSpan| {
        out.push((r.line, r.lines, r.head.raw.to_string(), span));
        std::hint::black_box((
            r.format(),
            r.timestamp(),
            r.error_summary(),
            r.nova_request(),
        ));
    };
    for p in pieces {
        a.push(p, &mut keep);
    }
    a.finish(&mut keep);
    out
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&step, input)) = data.split_first() else {
        return;
    };
    let step = usize::from(step).max(1);
    let pieces: Vec<&[u8]> = input.chunks(step).collect();
    assert_eq!(records(&pieces), records(&[input]));
});
