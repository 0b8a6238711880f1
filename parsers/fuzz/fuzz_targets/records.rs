#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = evacdoc_parsers::utf8::decode(data).text;
    for r in evacdoc_parsers::Records::new(&text) {
        std::hint::black_box((
            r.format(),
            r.timestamp(),
            r.error_summary(),
            r.source_location(),
            r.nova_request(),
            r.unparsed_reason(),
            r.line_count(),
        ));
    }
});
