#![no_main]
// The layered prefix reader: never panics, peels at most MAX_LAYERS prefixes, and what
// it leaves is a suffix of the line.
libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    use evacdoc_parsers::layers::{MAX_LAYERS, peel, peel_layers};
    let text = evacdoc_parsers::utf8::decode(data).text;
    let (_, rest) = peel_layers(None, &text, MAX_LAYERS);
    assert!(text.ends_with(rest));
    let mut left: &str = &text;
    for _ in 0..MAX_LAYERS {
        match peel(left) {
            Some((_, inner)) => {
                assert!(inner.len() < left.len() || left.is_empty());
                left = inner;
            }
            None => break,
        }
    }
    assert_eq!(left, rest);
    let _ = std::hint::black_box(evacdoc_parsers::parse_line(&text));
});
