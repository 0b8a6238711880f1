#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok((rest, line)) = evacdoc_parsers::docker::parse_docker_line(text) {
            assert!(text.ends_with(rest));
            let mut decoded = String::new();
            evacdoc_parsers::docker::unescape(line.log, &mut decoded);
            std::hint::black_box((decoded, evacdoc_parsers::parse_line(text)));
        }
        let mut decoded = String::new();
        evacdoc_parsers::docker::unescape(text, &mut decoded);
        std::hint::black_box(decoded);
    }
});
