#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((rest, prefix)) = evacdoc_parsers::cri::parse_cri_prefix(text) {
            assert!(text.ends_with(rest));
            std::hint::black_box(evacdoc_parsers::parse_line(text));
            std::hint::black_box(prefix);
        }
    }
});
