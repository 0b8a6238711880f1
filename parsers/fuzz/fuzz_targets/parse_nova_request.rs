#![no_main]
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = evacdoc_parsers::utf8::decode(data).text;
    let _ = std::hint::black_box(evacdoc_parsers::nova_request::parse_nova_request(&text));
});
