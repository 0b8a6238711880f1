#![no_main]
//! Any bytes as an uploaded bundle, through what `analyze` does with it: detect an
//! archive by content, extract it into a work folder under small limits, then read each
//! extracted file decompressed (nested archives one level down). No panic, nothing
//! written outside the work folder, no link created, the limits kept.
use std::path::Path;

use evacdoc::ingest::Named;
use evacdoc::ingest::archive::{ExtractLimits, OpenedArchive, extract_opened, open_archive};
use evacdoc::ingest::decompress::read_decompressed;

const LIMITS: ExtractLimits = ExtractLimits {
    max_total_bytes: 8 << 20,
    max_entries: 512,
    max_entry_bytes: 2 << 20,
    // The ratio bound is on, from a size a fuzzer's inputs reach.
    max_ratio: 250,
    ratio_from: 1 << 20,
};
/// What one file may decompress to (the analysis uses far more; a fuzzer needs less).
const READ_LIMIT: u64 = 8 << 20;

/// Every path under `dir`, checking that none is a link and all stay inside it.
fn files_under(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).expect("stat an extracted entry");
        assert!(!meta.file_type().is_symlink(), "link created: {path:?}");
        if meta.is_dir() {
            files_under(&path, out);
        } else {
            assert!(meta.is_file(), "special file created: {path:?}");
            out.push(path);
        }
    }
}

fn read_all(path: &Path) {
    if let Ok(d) = read_decompressed(Named::as_given(path), READ_LIMIT) {
        assert!(d.bytes.len() as u64 <= READ_LIMIT);
        std::hint::black_box(d.damage.map(|e| e.to_string()));
    }
}

/// Extracts `archive` into `dest` and reads what came out; `depth` more levels of nesting.
fn unpack(archive: OpenedArchive, dest: &Path, depth: usize) {
    let Ok(report) = extract_opened(archive, Named::as_given(dest), &LIMITS) else {
        return;
    };
    assert!(report.bytes <= LIMITS.max_total_bytes);
    std::hint::black_box((&report.skipped, report.damage.map(|e| e.to_string())));
    let mut files = Vec::new();
    files_under(dest, &mut files);
    for (n, file) in files.iter().enumerate() {
        match open_archive(Named::as_given(file)) {
            Ok(Some(archive)) if depth > 0 => unpack(
                archive,
                &dest.with_extension(format!("nested{n}")),
                depth - 1,
            ),
            Ok(_) => read_all(file),
            Err(e) => std::hint::black_box(e.to_string()).clear(),
        }
    }
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let root = scratch.path();
    let input = root.join("bundle.tar.gz");
    std::fs::write(&input, data).expect("write the input");
    let work = root.join("work");
    match open_archive(Named::as_given(&input)) {
        Ok(Some(archive)) => unpack(archive, &work, 1),
        Ok(None) => read_all(&input),
        Err(e) => std::hint::black_box(e.to_string()).clear(),
    }
    // Nothing but the input and the work folders appeared next to the input.
    for entry in std::fs::read_dir(root)
        .expect("list the scratch folder")
        .flatten()
    {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        assert!(
            name == "bundle.tar.gz" || name.starts_with("work"),
            "written outside the work folder: {name}"
        );
    }
});
