//! The push assembler against the pull one: for any split of every committed sample into
//! pushes, it yields the records `Records` yields over the whole text (line, kind, text),
//! and the same records whatever the split.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::OnceLock;

use evacdoc_parsers::records::RecordKind;
use evacdoc_parsers::{Assembler, Record, RecordSpan, Records, utf8};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// What is compared of a record.
#[derive(Clone, Debug, PartialEq)]
struct Seen {
    line: usize,
    kind: RecordKind,
    raw: String,
    continuation: Vec<String>,
    traceback: Vec<String>,
    lines: usize,
}

fn seen(r: &Record<'_>) -> Seen {
    Seen {
        line: r.line,
        kind: r.kind,
        raw: r.head.raw.to_string(),
        continuation: r.continuation.iter().map(|s| s.to_string()).collect(),
        traceback: r.traceback.iter().map(|s| s.to_string()).collect(),
        lines: r.lines,
    }
}

/// Every log sample: its path, bytes, and whether the pull assembler reads it exactly
/// (it does not join container-line pieces nor decode Docker's escapes).
fn samples() -> &'static [(PathBuf, Vec<u8>, bool)] {
    static SAMPLES: OnceLock<Vec<(PathBuf, Vec<u8>, bool)>> = OnceLock::new();
    SAMPLES.get_or_init(|| {
        let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../samples/parsers");
        let mut found = Vec::new();
        for folder in std::fs::read_dir(&root).unwrap() {
            let folder = folder.unwrap().path();
            if !folder.is_dir() {
                continue;
            }
            for file in std::fs::read_dir(&folder).unwrap() {
                let path = file.unwrap().path();
                let bytes = std::fs::read(&path).unwrap();
                let text = String::from_utf8_lossy(&bytes);
                let pieces = text.contains(" stdout P ") || text.contains(" stderr P ");
                let exact = !(pieces || folder.ends_with("docker"));
                found.push((path, bytes, exact));
            }
        }
        found.sort();
        assert!(
            found.len() > 40,
            "samples not found under {}",
            root.display()
        );
        found
    })
}

fn push_all(pieces: &[&[u8]]) -> (Vec<(Seen, RecordSpan)>, Assembler) {
    let mut out = Vec::new();
    let mut a = Assembler::new();
    for p in pieces {
        a.push(p, &mut |r, span| out.push((seen(r), span)));
    }
    a.finish(&mut |r, span| out.push((seen(r), span)));
    (out, a)
}

fn split<'b>(bytes: &'b [u8], cuts: &[f64]) -> Vec<&'b [u8]> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|f| (f * bytes.len() as f64) as usize)
        .collect();
    at.sort_unstable();
    let mut pieces = Vec::new();
    let mut start = 0;
    for end in at {
        let end = end.min(bytes.len());
        pieces.push(&bytes[start..end.max(start)]);
        start = end.max(start);
    }
    pieces.push(&bytes[start..]);
    pieces
}

fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 256,
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/push.txt",
        ))),
        ..ProptestConfig::default()
    }
}

#[test]
fn the_whole_input_in_one_push_reads_as_records_does() {
    for (path, bytes, exact) in samples() {
        let (push, a) = push_all(&[bytes]);
        let decoded = utf8::decode(bytes);
        assert_eq!(
            a.invalid_utf8_lines(),
            decoded.invalid_lines.len() as u64,
            "{}",
            path.display()
        );
        assert_eq!(a.bytes(), bytes.len() as u64);
        if !exact {
            continue;
        }
        let pull: Vec<Seen> = Records::new(&decoded.text).map(|r| seen(&r)).collect();
        let push: Vec<Seen> = push.into_iter().map(|(s, _)| s).collect();
        assert_eq!(push, pull, "{}", path.display());
        assert_eq!(
            a.lines(),
            decoded.text.lines().count(),
            "{}",
            path.display()
        );
    }
}

#[test]
fn spans_hold_the_lines_of_their_records() {
    for (path, bytes, exact) in samples() {
        let (push, _) = push_all(&[bytes]);
        for (record, span) in push.iter().filter(|_| *exact) {
            let text =
                String::from_utf8_lossy(&bytes[span.byte_start as usize..span.byte_end as usize]);
            assert!(
                text.starts_with(record.raw.trim_end_matches('\r')),
                "{}:{}: {text:?}",
                path.display(),
                record.line
            );
            // rsyslog puts a whole record on one line; otherwise a line each.
            assert!(
                text.lines().count() <= record.lines.max(1),
                "{}:{}",
                path.display(),
                record.line
            );
            assert_eq!(span.first_line, record.line);
        }
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn any_split_reads_as_one_push(sample in 0..1000usize, cuts in prop::collection::vec(0.0..1.0f64, 0..12)) {
        let (path, bytes, _) = &samples()[sample % samples().len()];
        let (whole, wa) = push_all(&[bytes]);
        let (parts, pa) = push_all(&split(bytes, &cuts));
        prop_assert!(parts == whole, "{} split at {:?}", path.display(), cuts);
        prop_assert_eq!((pa.lines(), pa.bytes(), pa.invalid_utf8_lines()), (wa.lines(), wa.bytes(), wa.invalid_utf8_lines()));
    }
}
