#![no_main]
//! The capture scanner on any text after a command line the first byte picks (every
//! command and output format it reads, an unknown command, or none): this reaches the
//! table, JSON, YAML and `-f value` readers and every capture kind. No panic, and the
//! first capture is the one `parse_capture` returns; each survives a JSON round trip.
use evacdoc_parsers::capture::{Capture, parse_capture, parse_captures};

const COMMANDS: &[&str] = &[
    "notification show 9ace2da7-97d1-48cb-a96a-08ad4624481b",
    "notification list",
    "notification vmove list 9ace2da7-97d1-48cb-a96a-08ad4624481b",
    "notification vmove show 9ace2da7-97d1-48cb-a96a-08ad4624481b 6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f",
    "server show 56ce6206-3659-495e-a6ea-f4d3d578cc96",
    "server event list 56ce6206-3659-495e-a6ea-f4d3d578cc96",
    "server event list --long 56ce6206-3659-495e-a6ea-f4d3d578cc96",
    "server migration list",
    "volume show 35ab2ef8-5508-4401-bff4-06c2f119c225",
    "volume attachment list",
    "server list",
];
const FORMATS: &[&str] = &[
    "",
    " -f json",
    " -f yaml",
    " -f value",
    " -c status -f value",
];

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, body)) = data.split_first() else {
        return;
    };
    let body = String::from_utf8_lossy(body);
    let pick = usize::from(pick);
    let text = match COMMANDS.get(pick % (COMMANDS.len() + 1)) {
        Some(cmd) => {
            let format = FORMATS[pick / (COMMANDS.len() + 1) % FORMATS.len()];
            format!("$ openstack {cmd}{format}\n{body}")
        }
        None => body.into_owned(),
    };
    let all = parse_captures(&text);
    assert_eq!(parse_capture(&text).as_ref(), all.first());
    for capture in &all {
        let json = serde_json::to_string(capture).expect("a capture serialises");
        let back: Capture = serde_json::from_str(&json).expect("a capture reads back");
        // f64 fields may not survive exactly (NaN never reaches JSON): compare the text.
        assert_eq!(
            serde_json::to_string(&back).ok().as_deref(),
            Some(json.as_str())
        );
    }
});
