//! Golden tests: every sample under `samples/parsers/<format>/` is parsed and the result
//! compared with its committed snapshot (`tests/snapshots/`). Review changes with
//! `cargo insta review`; CI sets `INSTA_UPDATE=no`, so a changed parse fails.

// A panic in a test is a failed test, not a crash on input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evacdoc_parsers::capture::parse_captures;
use evacdoc_parsers::ini::{IniDocument, parse_ini};
use evacdoc_parsers::nova_request::NovaRequest;
use evacdoc_parsers::oslo::{ErrorSummary, SourceLocation};
use evacdoc_parsers::sniff::{FileKind, sniff};
use evacdoc_parsers::utf8::decode;
use evacdoc_parsers::{Assembler, Format, Record, RecordSpan, Records};
use serde::Serialize;

/// A record with the fields computed from it, as the golden file shows it.
#[derive(Serialize)]
struct Golden<'a> {
    line: usize,
    format: Format,
    inner_format: Format,
    timestamp: Option<String>,
    error_summary: Option<ErrorSummary<'a>>,
    source: Option<SourceLocation<'a>>,
    nova_request: Option<NovaRequest<'a>>,
    unparsed: Option<String>,
    record: &'a Record<'a>,
}

#[derive(Serialize)]
struct GoldenLog<'a> {
    invalid_utf8_lines: Vec<usize>,
    records: Vec<Golden<'a>>,
}

#[derive(Serialize)]
struct GoldenIni<'a> {
    invalid_utf8_lines: Vec<usize>,
    document: IniDocument<'a>,
}

/// A record of the push assembler: where it lies (first line, byte range, invalid UTF-8).
#[derive(Serialize)]
struct PushGolden<'a> {
    span: (usize, u64, u64, bool),
    #[serde(flatten)]
    golden: Golden<'a>,
}

#[derive(Serialize)]
struct GoldenPush {
    invalid_utf8_lines: u64,
    records: Vec<serde_yaml_ng::Value>,
}

fn golden_of<'a>(r: &'a Record<'a>) -> Golden<'a> {
    Golden {
        line: r.line,
        format: r.format(),
        inner_format: r.inner_format(),
        timestamp: r.timestamp().map(|t| t.to_string()),
        error_summary: r.error_summary(),
        source: r.source_location(),
        nova_request: r.nova_request(),
        unparsed: r.unparsed_reason().map(|reason| reason.to_string()),
        record: r,
    }
}

#[test]
fn golden_samples() {
    insta::glob!("../../samples", "parsers/*/*", |path| {
        if path.extension().is_some_and(|e| e == "md") {
            return;
        }
        let bytes = std::fs::read(path).unwrap();
        let decoded = decode(&bytes);
        let name = path.to_string_lossy();
        let folder = path.parent().and_then(|p| p.file_name());
        insta::with_settings!({ omit_expression => true, prepend_module_to_snapshot => false }, {
            if folder.is_some_and(|f| f == "capture") {
                insta::assert_yaml_snapshot!(parse_captures(&decoded.text));
                return;
            }
            match sniff(&name, &decoded.text) {
                FileKind::Ini => insta::assert_yaml_snapshot!(GoldenIni {
                    invalid_utf8_lines: decoded.invalid_lines.clone(),
                    document: parse_ini(&decoded.text),
                }),
                // Container logs go through the push assembler, which joins pieces and
                // decodes Docker's escapes.
                FileKind::Log if folder.is_some_and(|f| f == "cri" || f == "docker") => {
                    let mut records = Vec::new();
                    let mut keep = |r: &Record<'_>, span: RecordSpan| {
                        let golden = PushGolden {
                            span: (span.first_line, span.byte_start, span.byte_end, span.invalid_utf8),
                            golden: golden_of(r),
                        };
                        records.push(serde_yaml_ng::to_value(&golden).unwrap());
                    };
                    let mut assembler = Assembler::new();
                    assembler.push(&bytes, &mut keep);
                    assembler.finish(&mut keep);
                    insta::assert_yaml_snapshot!(GoldenPush {
                        invalid_utf8_lines: assembler.invalid_utf8_lines(),
                        records,
                    });
                }
                FileKind::Log => {
                    let records: Vec<Record<'_>> = Records::new(&decoded.text).collect();
                    let golden = records.iter().map(golden_of).collect();
                    insta::assert_yaml_snapshot!(GoldenLog {
                        invalid_utf8_lines: decoded.invalid_lines.clone(),
                        records: golden,
                    });
                }
            }
        });
    });
}
