use std::path::Path;

use evacdoc_parsers::Record;

use super::*;
use crate::correlate::keeper::EventKeeper;
use crate::ingest::discover::FoundFile;

#[test]
fn utf16_is_told_from_utf8() {
    let text = "2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [-] x\n";
    let le: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
    let be: Vec<u8> = text.encode_utf16().flat_map(u16::to_be_bytes).collect();
    assert_eq!(utf16(&le), Some("UTF-16LE"));
    assert_eq!(utf16(&be), Some("UTF-16BE"));
    assert_eq!(utf16(&[0xff, 0xfe, b'a', 0]), Some("UTF-16LE"));
    assert_eq!(utf16(text.as_bytes()), None);
    assert_eq!(utf16(&[0u8; 100]), None);
    assert_eq!(utf16(b"short"), None);
}

fn found(path: &Path, rel: &str) -> FoundFile {
    FoundFile {
        rel: rel.to_string(),
        abs: path.to_path_buf(),
        name: path.to_path_buf(),
        size: std::fs::metadata(path).map(|m| m.len()).unwrap_or(0),
        given: false,
        unpacked: false,
    }
}

fn placed<'f>(file: &'f FoundFile, service: &str) -> Placed<'f> {
    Placed {
        file,
        host: 0,
        inner: file.rel.clone(),
        role: Role::Log(Service::new(service)),
        incomplete: None,
        part_lines: None,
    }
}

/// A second sink, as the search indexer will be: counts the records of each file
/// and the bytes they span.
#[derive(Default)]
struct Counter {
    records: u64,
    bytes: u64,
    finished: Vec<(String, u64)>,
}

impl RecordSink for Counter {
    fn record(&mut self, _: &FileCtx<'_>, _: &Record<'_>, span: RecordSpan) {
        self.records += 1;
        self.bytes += span.byte_end - span.byte_start;
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        self.finished.push((file.path.to_string(), info.records));
    }
}

/// Every span, with the line number and the text of its first line.
#[derive(Default)]
struct Spans(Vec<(RecordSpan, String)>);

impl RecordSink for Spans {
    fn record(&mut self, _: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        self.0.push((span, record.head.raw.to_string()));
    }
}

const ENGINE: &str =
    "samples/scenarios/2024-instance-failure-recovery/ctl1/var/log/masakari/masakari-engine.log";

#[test]
fn a_second_sink_sees_every_record_in_the_same_pass() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(ENGINE);
    let file = found(&path, "ctl1/var/log/masakari/masakari-engine.log");
    let p = placed(&file, "masakari-engine");
    let watch = None;
    let mut alone = EventKeeper::new(&watch);
    let read_alone = read_log(&p, 7, &mut alone);
    let mut both = (EventKeeper::new(&watch), Counter::default());
    let read = read_log(&p, 7, &mut both);
    let (keeper, counter) = both;

    assert!(read.info.records > 10, "{:?}", read.info);
    assert_eq!(counter.records, read.info.records);
    // Spans end before their last newline: every line of the file is in one record.
    assert_eq!(counter.bytes + counter.records, read.info.bytes);
    assert_eq!(
        counter.finished,
        vec![(file.rel.clone(), read.info.records)]
    );
    // The keeper keeps the same events whoever else is fed.
    let lines = |o: crate::correlate::keeper::FileOutcome| -> Vec<(u32, u32)> {
        o.events
            .iter()
            .map(|r| (r.event.file, r.event.line))
            .collect()
    };
    let kept = lines(keeper.into_outcome(read.info, None));
    assert!(!kept.is_empty());
    assert!(kept.iter().all(|(file, _)| *file == 7));
    assert_eq!(kept, lines(alone.into_outcome(read_alone.info, None)));
}

#[test]
fn spans_tile_the_file_across_pieces() {
    // Enough records for several pieces; every tenth goes on over two unprefixed lines, one line
    // holds a byte that is not UTF-8.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("masakari-engine.log");
    let mut text = Vec::new();
    let mut heads = Vec::new();
    let mut line = 1usize;
    let mut bad_line = 0;
    let mut n = 0;
    while text.len() < crate::ingest::chunks::CHUNK_BYTES * 2 + 12_345 {
        let head = format!(
            "2024-03-05 10:{:02}:{:02}.{:03} 2179 WARNING masakari.engine.manager [req-{:08x}-aaaa-bbbb-cccc-dddddddddddd - - - - -] Notification {n} could not be processed",
            (n / 60_000) % 60,
            (n / 1000) % 60,
            n % 1000,
            n
        );
        heads.push((line, head.clone()));
        text.extend_from_slice(head.as_bytes());
        if n == 4321 {
            text.extend_from_slice(b" \xff\xfe");
            bad_line = line;
        }
        text.push(b'\n');
        line += 1;
        if n % 10 == 0 {
            for tb in [
                "Failure: masakari.exception.MasakariException: failed",
                "    while processing the notification",
            ] {
                text.extend_from_slice(format!("{tb}\n").as_bytes());
                line += 1;
            }
        }
        n += 1;
    }
    std::fs::write(&path, &text).unwrap();
    let file = found(&path, "masakari-engine.log");
    let p = placed(&file, "masakari-engine");
    let mut spans = Spans::default();
    let read = read_log(&p, 0, &mut spans);
    let spans = spans.0;

    assert_eq!(read.info.bytes, text.len() as u64);
    assert_eq!(spans.len() as u64, read.info.records);
    assert_eq!(spans.len(), heads.len(), "one record per head line");
    let mut at = 0;
    for ((span, raw), (line, head)) in spans.iter().zip(&heads) {
        assert_eq!(span.byte_start, at, "line {line}");
        assert_eq!(span.first_line, *line);
        assert!(raw.starts_with(head.as_str()), "line {line}: {raw}");
        let bytes = &text[span.byte_start as usize..span.byte_end as usize];
        assert!(bytes.starts_with(head.as_bytes()), "line {line}");
        assert_eq!(span.invalid_utf8, *line == bad_line, "line {line}");
        assert_eq!(text[span.byte_end as usize], b'\n');
        at = span.byte_end + 1;
    }
    assert_eq!(at, text.len() as u64);
    assert_eq!(read.info.invalid_utf8_lines, 1);
}

#[test]
fn container_line_pieces_are_one_record_of_the_file() {
    // containerd splits a long line into `P` pieces, with another stream's line in
    // between: the push assembler joins them, whatever the pieces read.
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("samples/parsers/cri/containerd_partial_lines.log");
    let text = std::fs::read_to_string(&path).unwrap();
    let file = found(
        &path,
        "ctl1/var/log/pods/openstack_masakari-engine-0_x/masakari-engine/0.log",
    );
    let p = placed(&file, "masakari-engine");
    let watch = None;
    let mut keeper = EventKeeper::new(&watch);
    let read = read_log(&p, 0, &mut keeper);
    let outcome = keeper.into_outcome(read.info, read.skipped);
    let first_piece = text.lines().position(|l| l.contains(" stdout P ")).unwrap() + 1;
    let failed = outcome
        .events
        .iter()
        .find(|r| {
            r.event
                .message()
                .contains("Failed to evacuate instance 7d1e5f0a")
        })
        .expect("the joined WARNING is kept");
    assert_eq!(failed.event.line as usize, first_piece);
    // The message starts in the third piece, the head in the first.
    assert!(
        failed
            .event
            .message()
            .starts_with("Failed to evacuate instance 7d1e5f0a")
    );
    assert_eq!(outcome.skipped, None);
}

#[test]
fn format_slots_follow_the_formats_order() {
    for (i, format) in super::FORMATS.iter().enumerate() {
        assert_eq!(super::format_slot(*format), i, "{format:?}");
    }
    assert!(super::FORMATS.windows(2).all(|w| w[0] < w[1]));
}

/// A sink that sees every record: the keeper without its skimming.
struct Full<S>(S);

impl<S: RecordSink> RecordSink for Full<S> {
    fn record(&mut self, file: &FileCtx<'_>, record: &Record<'_>, span: RecordSpan) {
        self.0.record(file, record, span);
    }

    fn finish_file(&mut self, file: &FileCtx<'_>, info: &FileInfo) {
        self.0.finish_file(file, info);
    }
}

/// Every file under `dir`.
fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files_under(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The keeper's outcome, everything it holds, as text.
fn outcome_text(keeper: EventKeeper<'_>, read: FileRead) -> String {
    let o = keeper.into_outcome(read.info, read.skipped);
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{:?}\n{}\n{:?}",
        o.info, o.events, o.votes, o.names, o.fencing, o.kept, o.skipped
    )
}

/// The keeper's skimming (records passed over, not built) gives what reading every
/// record gives: the same events, votes, host names, fencing results, counts, for every
/// file under samples/ (and the folder `SKIM_EQUIVALENCE_DIR` names, such as a
/// generated bundle), read as the log of each kind of service, with and without
/// instances to watch.
#[test]
fn skimming_keeps_what_reading_every_record_keeps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let mut files = Vec::new();
    files_under(&root, &mut files);
    if let Some(extra) = std::env::var_os("SKIM_EQUIVALENCE_DIR") {
        files_under(Path::new(&extra), &mut files);
    }
    assert!(files.len() > 100, "{} files", files.len());
    let services = [
        "nova-compute",
        "nova-api",
        "nova-api-access",
        "cinder-volume",
        "masakari-engine",
        "masakari-api",
        "masakari-instancemonitor",
        "syslog",
    ];
    let none: crate::correlate::extract::Watched = None;
    let some: crate::correlate::extract::Watched =
        Some([crate::model::Uuid::parse("56ce6206-3659-495e-a6ea-f4d3d578cc96").unwrap()].into());
    let mut records = 0;
    for path in &files {
        let rel = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .to_string_lossy()
            .into_owned();
        let file = found(path, &rel);
        for service in services {
            let p = placed(&file, service);
            for watch in [&none, &some] {
                let mut skimming = EventKeeper::new(watch);
                assert!(skimming.skims());
                let read = read_log(&p, 3, &mut skimming);
                records += read.info.records;
                let skimmed = outcome_text(skimming, read);
                let mut full = Full(EventKeeper::new(watch));
                let read = read_log(&p, 3, &mut full);
                assert_eq!(skimmed, outcome_text(full.0, read), "{rel} as {service}");
            }
        }
    }
    assert!(records > 10_000, "{records}");
}
