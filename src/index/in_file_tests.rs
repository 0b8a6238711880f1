//! Records spooled by their place in the files the analysis unpacked come back as the
//! records spooled whole: an archive's spool, read back, equals its folder's.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::*;
use crate::run::{RunOptions, analyze_inputs};

/// The spooled records of `input` (read back), and how many were spooled by place.
fn spool_of(input: &Path) -> (Vec<Vec<u8>>, usize) {
    let dir = tempfile::tempdir().unwrap();
    let indexer = Indexer::create(dir.path(), 50_000_000).unwrap();
    let options = RunOptions {
        sinks: Some(indexer.sinks()),
        ..RunOptions::default()
    };
    analyze_inputs(&[input.to_path_buf()], &options).unwrap();
    let by_place = indexer.spooled_by_place();
    (indexer.spooled(), by_place)
}

/// `folder` as a tar archive in `into`, its entries under the folder's name.
fn tar_of(folder: &Path, into: &Path) -> PathBuf {
    let name = folder.file_name().unwrap();
    let path = into.join(format!("{}.tar", name.to_string_lossy()));
    let mut tar = tar::Builder::new(std::fs::File::create(&path).unwrap());
    // Links stay links (the juju layouts' unit folders), as in a real bundle.
    tar.follow_symlinks(false);
    tar.append_dir_all(name, folder).unwrap();
    tar.finish().unwrap();
    path
}

/// Files whose bytes a reader may not hand out as they are: CRLF line ends, a byte
/// order mark, invalid UTF-8, a NUL, a traceback, container runtime lines (a partial
/// line joined), a gzipped rotation, a line read in pieces.
fn tricky_bundle(root: &Path) -> PathBuf {
    let folder = root.join("tricky");
    let write = |rel: &str, bytes: &[u8]| {
        let path = folder.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    };
    let oslo = |n: u32, level: &str, message: &str| {
        format!(
            "2026-03-02 11:10:{:02}.{n:03} 41 {level} nova.compute.manager \
             [req-7d1e5f0a-0000-4000-8000-00000000000{} - - - - -] {message}",
            n % 60,
            n % 10
        )
    };
    let lines: Vec<String> = (0..40)
        .map(|n| oslo(n, "DEBUG", &format!("Running periodic task {n}")))
        .collect();
    write(
        "ctl01/var/log/nova/nova-api.log",
        (lines.join("\r\n") + "\r\n").as_bytes(),
    );
    let mut odd = b"\xef\xbb\xbf".to_vec();
    odd.extend(lines[..10].join("\n").as_bytes());
    odd.extend(b"\n");
    odd.extend(oslo(11, "ERROR", "Failed on hôte cmp-02").as_bytes());
    odd.extend(b"\nTraceback (most recent call last):\n  File \"x.py\", line 1\nValueError: x\n");
    odd.extend(oslo(12, "WARNING", "bad byte \u{0} here").as_bytes());
    odd.extend(b" and \xff\xfe there\n");
    odd.extend(lines[20..].join("\n").as_bytes());
    odd.extend(b"\n");
    write("ctl01/var/log/nova/nova-conductor.log", &odd);
    let cri: Vec<String> = (0..20)
        .map(|n| {
            let line = oslo(n, "INFO", &format!("Instance {n} spawned successfully"));
            if n == 5 {
                let (a, b) = line.split_at(40);
                format!(
                    "2026-03-02T11:10:05.000000001Z stdout P {a}\n\
                     2026-03-02T11:10:05.000000002Z stdout F {b}"
                )
            } else {
                format!("2026-03-02T11:10:{:02}.000000000Z stdout F {line}", n % 60)
            }
        })
        .collect();
    write(
        "ctl01/var/log/containers/nova-compute-0_openstack_nova-compute-abc.log",
        (cri.join("\n") + "\n").as_bytes(),
    );
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all((lines[..15].join("\n") + "\n").as_bytes())
        .unwrap();
    write(
        "ctl01/var/log/nova/nova-compute.log.1.gz",
        &gz.finish().unwrap(),
    );
    write(
        "ctl01/var/log/nova/nova-compute.log",
        (lines[15..].join("\n") + "\n").as_bytes(),
    );
    // A line read in pieces (longer than the reader's longest line), a two-byte
    // character across each cut.
    let mut long = oslo(30, "DEBUG", "Returning ");
    while long.len() < 5 << 19 {
        long.push_str("sizé 1 ");
    }
    write(
        "ctl01/var/log/nova/nova-scheduler.log",
        format!("{}\n{long}\n{}\n", lines[0], lines[1]).as_bytes(),
    );
    folder
}

#[test]
fn records_spooled_by_place_come_back_as_records_spooled_whole() {
    let samples = Path::new(env!("CARGO_MANIFEST_DIR")).join("samples");
    let work = tempfile::tempdir().unwrap();
    let mut folders = vec![tricky_bundle(work.path())];
    for name in [
        "scenarios/2020-juju-evacuate-race",
        "scenarios/2023-sosreport-bfv-delay-prezed",
        "scenarios/2024-sunbeam-bfv-delay",
        "scenarios/2025-helm-k8s-monitor-no-host-status",
        "scenarios/2025-kolla-healthy-recovery",
        "realstack/race",
    ] {
        folders.push(samples.join(name));
    }
    let mut by_place_in_all = 0;
    for folder in &folders {
        let (whole, none) = spool_of(folder);
        assert_eq!(none, 0, "a folder given is read in place, never again");
        let (read_back, by_place) = spool_of(&tar_of(folder, work.path()));
        assert_eq!(read_back.len(), whole.len(), "{}", folder.display());
        assert!(
            read_back == whole,
            "{}: the spools differ",
            folder.display()
        );
        by_place_in_all += by_place;
    }
    // The comparison means something: most records were spooled by place.
    assert!(by_place_in_all > 1000, "{by_place_in_all}");
}

#[test]
fn the_unpacked_files_stay_until_the_index_is_built() {
    let work = tempfile::tempdir().unwrap();
    let archive = tar_of(&tricky_bundle(work.path()), work.path());
    let dir = tempfile::tempdir().unwrap();
    let indexer = Indexer::create(&dir.path().join("index"), 50_000_000).unwrap();
    let options = RunOptions {
        sinks: Some(indexer.sinks()),
        ..RunOptions::default()
    };
    let report = analyze_inputs(&[archive], &options).unwrap();
    drop(options);
    assert!(indexer.spooled_by_place() > 50);
    let stats = indexer.finish(&report.analysis).unwrap();
    assert_eq!(stats.documents, report.analysis.stats.records);
    let index = SearchIndex::open(&dir.path().join("index")).unwrap();
    let page = index
        .search(&SearchQuery::new("\"Failed on hôte\""))
        .unwrap();
    assert_eq!(page.total, 1);
    let hit = &page.hits[0];
    assert!(hit.text.contains("Failed on hôte cmp-02"), "{hit:?}");
}
