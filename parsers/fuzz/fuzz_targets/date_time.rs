#![no_main]
libfuzzer_sys::fuzz_target!(|f: (u16, u8, u8, u8, u8, u8, u32, i32, i64)| {
    use evacdoc_parsers::{DateTime, Timestamp};
    if let Some(dt) = DateTime::new(f.0, f.1, f.2, f.3, f.4, f.5, f.6) {
        let ts = Timestamp {
            local: dt,
            offset: Some(f.7),
        };
        std::hint::black_box((
            dt.to_string(),
            ts.to_string(),
            dt.unix_nanos(f.7),
            ts.to_utc(),
        ));
    }
    std::hint::black_box(DateTime::from_unix_nanos(f.8).map(|dt| dt.to_string()));
});
