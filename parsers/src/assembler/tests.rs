use super::*;
use crate::line::Format;
use crate::records::{RecordKind, Records};

/// What a test compares of a record.
#[derive(Debug, PartialEq)]
struct Seen {
    line: usize,
    kind: RecordKind,
    format: Format,
    message: String,
    continuation: Vec<String>,
    traceback: Vec<String>,
    lines: usize,
    cut: Option<Cut>,
    span: RecordSpan,
}

fn seen(r: &Record<'_>, span: RecordSpan) -> Seen {
    Seen {
        line: r.line,
        kind: r.kind,
        format: r.format(),
        message: r.message().to_string(),
        continuation: r.continuation.iter().map(|s| s.to_string()).collect(),
        traceback: r.traceback.iter().map(|s| s.to_string()).collect(),
        lines: r.lines,
        cut: r.cut,
        span,
    }
}

fn assemble(pieces: &[&[u8]]) -> (Vec<Seen>, Assembler) {
    let mut out = Vec::new();
    let mut a = Assembler::new();
    for p in pieces {
        a.push(p, &mut |r, span| out.push(seen(r, span)));
    }
    a.finish(&mut |r, span| out.push(seen(r, span)));
    (out, a)
}

fn every_split(text: &[u8]) -> Vec<Seen> {
    let (whole, _) = assemble(&[text]);
    for at in 0..=text.len() {
        let (a, b) = text.split_at(at);
        assert_eq!(assemble(&[a, b]).0, whole, "split at {at}");
    }
    let bytes: Vec<&[u8]> = text.chunks(1).collect();
    assert_eq!(assemble(&bytes).0, whole, "byte by byte");
    whole
}

const PREFIXED: &str = include_str!("../../../samples/parsers/oslo/traceback_prefixed.log");

#[test]
fn any_split_gives_the_records_of_the_whole_text() {
    let whole = every_split(PREFIXED.as_bytes());
    let pull: Vec<_> = Records::new(PREFIXED).collect();
    assert_eq!(whole.len(), pull.len());
    for (push, pull) in whole.iter().zip(&pull) {
        assert_eq!(
            (push.line, push.lines, push.kind),
            (pull.line, pull.lines, pull.kind)
        );
        assert_eq!(push.traceback.len(), pull.traceback.len());
    }
    // Spans slice the record back out of the input.
    let warning = &whole[4];
    let text = &PREFIXED[warning.span.byte_start as usize..warning.span.byte_end as usize];
    assert!(text.starts_with("2026-11-30 09:34:22.846 7502 WARNING"));
    assert!(text.ends_with("taskflow.driver "));
    assert_eq!(text.lines().count(), warning.lines);
}

#[test]
fn cri_pieces_are_joined_into_one_line() {
    let text = include_str!("../../../samples/parsers/cri/containerd_partial_lines.log");
    let records = every_split(text.as_bytes());
    // The stderr line between the pieces comes out first: its line ended first.
    let stderr = records
        .iter()
        .position(|r| r.message.starts_with("Exception ignored"))
        .unwrap();
    let joined = &records[stderr + 1];
    assert_eq!((records[stderr].line, joined.line, joined.lines), (5, 4, 3));
    assert_eq!(joined.format, Format::Cri);
    assert!(
        joined
            .message
            .starts_with("Failed to evacuate instance 7d1e5f0a")
    );
    assert_eq!(
        joined.span.byte_start,
        text.find("2026-11-30T09:34:22.846").unwrap() as u64
    );
    let warning_end = text.find("InstanceEvacuateFailed: Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001\n").unwrap();
    assert!(joined.span.byte_end as usize > warning_end);
    // The record after it still gets its continuation and traceback lines.
    let task = &records[stderr + 2];
    assert_eq!((task.continuation.len(), task.traceback.len()), (2, 5));
    let mut summary = None;
    let mut a = Assembler::new();
    a.push(text.as_bytes(), &mut |r, _| {
        if r.line == 4 {
            summary = r.error_summary().map(|s| s.class.to_string());
        }
    });
    a.finish(&mut |_, _| {});
    assert_eq!(
        summary.as_deref(),
        Some("masakari.exception.InstanceEvacuateFailed")
    );
}

#[test]
fn docker_lines_are_unescaped_and_joined() {
    let text = include_str!("../../../samples/parsers/docker/kolla_nova_json_file.log");
    let records = every_split(text.as_bytes());
    let wsgi = records
        .iter()
        .find(|r| r.message.contains("GET /v2.1/servers/sixthVM"))
        .unwrap();
    assert!(
        wsgi.message
            .contains("\"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404")
    );
    let task = records
        .iter()
        .find(|r| r.message.contains("EvacuateInstancesTask"))
        .unwrap();
    assert!(
        task.message.starts_with("Task 'EvacuateInstancesTask'"),
        "{}",
        task.message
    );
    assert_eq!((task.line, task.lines), (13, 9));
    assert_eq!((task.continuation.len(), task.traceback.len()), (2, 5));
    assert!(task.traceback[1].contains("File \"/usr/lib/python3/dist-packages/demo.py\""));
    let aggregate = records.last().unwrap();
    assert!(
        aggregate
            .message
            .ends_with("to aggregate 'zone-\u{e9}t\u{e9}'"),
        "{}",
        aggregate.message
    );

    // The request line inside reads as one.
    let mut request = None;
    let mut a = Assembler::new();
    a.push(text.as_bytes(), &mut |r, _| {
        if let Some(n) = r.nova_request() {
            request.get_or_insert((n.status, n.uri.to_string()));
        }
    });
    assert_eq!(request, Some((404, "/v2.1/servers/sixthVM".to_string())));
}

#[test]
fn utf8_split_inside_a_character_is_not_invalid() {
    let text = "2026-11-30 09:34:22.845 7502 INFO a.b [-] aggregate 'été'\n".as_bytes();
    let at = text.iter().position(|b| *b == 0xc3).unwrap() + 1;
    let (records, a) = assemble(&[&text[..at], &text[at..]]);
    assert_eq!(records[0].message, "aggregate 'été'");
    assert!(!records[0].span.invalid_utf8);
    assert_eq!(a.invalid_utf8_lines(), 0);

    let (records, a) = assemble(&[b"ok\ncaf\xe9 au lait\nok\n"]);
    assert_eq!(records[1].message, "caf\u{fffd} au lait");
    assert!(records[1].span.invalid_utf8 && !records[0].span.invalid_utf8);
    assert_eq!(a.invalid_utf8_lines(), 1);
}

#[test]
fn a_line_longer_than_the_limit_is_read_in_pieces() {
    let mut text = b"2026-11-30 09:34:22.845 7502 INFO a.b [-] ".to_vec();
    text.extend(std::iter::repeat_n(b'x', MAX_LINE_BYTES * 2));
    text.extend_from_slice("é\nnext line\n".as_bytes());
    let whole = assemble(&[&text]).0;
    let chunks: Vec<&[u8]> = text.chunks(65_536).collect();
    let brief = |r: &Vec<Seen>| -> Vec<_> {
        r.iter()
            .map(|s| {
                (
                    s.line,
                    s.lines,
                    s.cut,
                    s.span,
                    s.continuation.iter().map(String::len).collect::<Vec<_>>(),
                )
            })
            .collect()
    };
    assert_eq!(brief(&assemble(&chunks).0), brief(&whole));
    assert!(assemble(&chunks).0 == whole);
    // The pieces go on the oslo record as continuation lines, and so does the next
    // (unprefixed) line; none is bigger than the limit, none splits the `é`.
    assert_eq!(whole.len(), 1);
    let record = &whole[0];
    assert_eq!(
        (record.line, record.lines, record.cut),
        (1, 2, Some(Cut::LongLine))
    );
    let sizes: Vec<usize> = record.continuation.iter().map(String::len).collect();
    assert_eq!(sizes, [MAX_LINE_BYTES, 44, 9]);
    assert!(record.continuation[1].ends_with("xé"));
    assert!(!record.span.invalid_utf8);
    assert_eq!(record.span.byte_end, text.len() as u64 - 1);

    // Another format after the long line starts its own record.
    let mut text = text.clone();
    text.truncate(text.len() - "next line\n".len());
    text.extend_from_slice(b"2026-11-30 09:34:23.845 7502 INFO a.b [-] next\n");
    let whole = assemble(&[&text]).0;
    let chunks: Vec<&[u8]> = text.chunks(100_000).collect();
    assert!(assemble(&chunks).0 == whole);
    assert_eq!(whole.len(), 2);
    assert_eq!((whole[1].line, whole[1].cut), (2, None));
}

#[test]
fn a_record_longer_than_the_limit_is_cut() {
    let mut text = String::from("2026-11-30 09:34:22.845 7502 WARNING a.b [-] huge\n");
    for i in 0..MAX_RECORD_LINES + 5 {
        text.push_str(&format!("  Atom {i}\n"));
    }
    let (records, _) = assemble(&[text.as_bytes()]);
    assert_eq!(records[0].lines, MAX_RECORD_LINES);
    assert_eq!(records[0].cut, Some(Cut::LongRecord));
    assert_eq!(records[1].line, MAX_RECORD_LINES + 1);
    let pull: Vec<_> = Records::new(&text).collect();
    assert_eq!(pull.len(), records.len());
    assert_eq!(pull[0].cut, Some(Cut::LongRecord));
}

#[test]
fn counters_and_a_last_line_without_newline() {
    let (records, a) = assemble(&[b"one\r\ntwo", b" three"]);
    assert_eq!(records.len(), 2);
    assert_eq!(records[1].message, "two three");
    assert_eq!(
        (records[1].span.byte_start, records[1].span.byte_end),
        (5, 14)
    );
    assert_eq!(records[0].span.byte_end, 3);
    assert_eq!((a.lines(), a.bytes()), (2, 14));
    assert!(matches!(
        assemble(&[b"2026-11-30T09:34:22.845Z stdout P cut short"]).0[..],
        [Seen {
            format: Format::Cri,
            ..
        }]
    ));
    assert!(assemble(&[b""]).0.is_empty());
    let (blank, _) = assemble(&[b"\n"]);
    assert_eq!(blank.len(), 1);
}

/// A [`Skim`] for the tests: passes over the lines `pick` chooses among those the
/// assembler offers, and remembers each as the one-line record [`Skim`] promises.
struct Picky<F: Fn(&Line<'_>) -> bool> {
    pick: F,
    out: Vec<u64>,
    skipped: usize,
}

impl<F: Fn(&Line<'_>) -> bool> Skim for Picky<F> {
    fn candidate(&self, raw: &str) -> bool {
        // Some lines are not even looked at.
        raw.len() % 11 != 3
    }

    fn ignorable(&self, line: &Line<'_>) -> bool {
        (self.pick)(line)
    }

    fn skipped(&mut self, line: &Line<'_>, span: RecordSpan) {
        let record = Record {
            line: span.first_line,
            kind: RecordKind::Entry,
            head: line.clone(),
            continuation: Vec::new(),
            traceback: Vec::new(),
            raw_rest: Vec::new(),
            lines: 1,
            cut: None,
        };
        self.skipped += 1;
        self.out.push(fingerprint(&record, span));
    }
}

/// A record and its span, as a number: every field counts (`raw_rest` too).
fn fingerprint(record: &Record<'_>, span: RecordSpan) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    format!("{record:?} {span:?}").hash(&mut h);
    h.finish()
}

/// The records of `bytes` pushed in pieces of `size`, as fingerprints, with or without
/// a skim that passes over what `pick` chooses; and how many were passed over.
fn fingerprints(
    bytes: &[u8],
    size: usize,
    pick: Option<&dyn Fn(&Line<'_>) -> bool>,
) -> (Vec<u64>, usize) {
    let mut a = Assembler::new();
    match pick {
        None => {
            let mut out = Vec::new();
            for piece in bytes.chunks(size) {
                a.push(piece, &mut |r, span| out.push(fingerprint(r, span)));
            }
            a.finish(&mut |r, span| out.push(fingerprint(r, span)));
            (out, 0)
        }
        Some(pick) => {
            // Records handed out and records passed over go to one list, in order.
            let skim = std::cell::RefCell::new(Picky {
                pick,
                out: Vec::new(),
                skipped: 0,
            });
            struct Shared<'s, F: Fn(&Line<'_>) -> bool>(&'s std::cell::RefCell<Picky<F>>);
            impl<F: Fn(&Line<'_>) -> bool> Skim for Shared<'_, F> {
                fn candidate(&self, raw: &str) -> bool {
                    self.0.borrow().candidate(raw)
                }
                fn ignorable(&self, line: &Line<'_>) -> bool {
                    self.0.borrow().ignorable(line)
                }
                fn skipped(&mut self, line: &Line<'_>, span: RecordSpan) {
                    self.0.borrow_mut().skipped(line, span);
                }
            }
            let mut shared = Shared(&skim);
            for piece in bytes.chunks(size) {
                a.push_skimming(piece, &mut shared, &mut |r, span| {
                    skim.borrow_mut().out.push(fingerprint(r, span));
                });
            }
            a.finish_skimming(&mut shared, &mut |r, span| {
                skim.borrow_mut().out.push(fingerprint(r, span));
            });
            let skim = skim.into_inner();
            (skim.out, skim.skipped)
        }
    }
}

/// Every file under `dir`, but compressed ones.
fn files_under(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else if !path.extension().is_some_and(|e| {
            ["gz", "xz", "zst", "bz2", "tar", "zip"]
                .iter()
                .any(|c| e == *c)
        }) {
            out.push(path);
        }
    }
}

/// Passing over records changes nothing of the others, and what is passed over is the
/// one-line record `push` would have made: every line of every sample (and of the
/// folder `SKIM_EQUIVALENCE_DIR` names, such as a generated bundle), pushed whole and
/// in pieces, with every offered line passed over and with a pseudo-random choice.
#[test]
fn skimming_hands_out_the_same_records_as_pushing() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../samples");
    let mut files = Vec::new();
    files_under(&root, &mut files);
    if let Some(extra) = std::env::var_os("SKIM_EQUIVALENCE_DIR") {
        files_under(std::path::Path::new(&extra), &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let all = |_: &Line<'_>| true;
    let some = |l: &Line<'_>| !l.raw.len().is_multiple_of(3);
    let mut passed_over = 0;
    for path in &files {
        let Ok(bytes) = std::fs::read(path) else {
            continue;
        };
        let sizes: &[usize] = if bytes.len() > 4 << 20 {
            &[1 << 20]
        } else {
            &[usize::MAX, 4096, 61]
        };
        for &size in sizes {
            let (plain, _) = fingerprints(&bytes, size, None);
            for pick in [&all as &dyn Fn(&Line<'_>) -> bool, &some] {
                let (skimmed, n) = fingerprints(&bytes, size, Some(pick));
                assert_eq!(plain, skimmed, "{} in pieces of {size}", path.display());
                passed_over += n;
            }
        }
    }
    // The samples hold enough DEBUG runs for the test to mean something.
    assert!(passed_over > 1000, "{passed_over} records passed over");
}
