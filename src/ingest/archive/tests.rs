use std::io::Write;

use tar::{EntryType, Header};

use super::*;

/// A tar entry for the test archives.
enum Entry<'a> {
    File(&'a str, &'a [u8]),
    Dir(&'a str),
    Link(EntryType, &'a str, &'a str),
    /// A file whose name bytes go into the header unchecked.
    RawName(&'a [u8], &'a [u8]),
}

/// What [`open_archive`] recognised `path` as.
fn detect_archive(path: &Path) -> Result<Option<(ArchiveKind, Compression)>, IngestError> {
    open_archive(Named::as_given(path)).map(|opened| opened.map(|a| (a.kind(), a.compression())))
}

fn tar_bytes(entries: &[Entry<'_>]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for entry in entries {
        let mut header = Header::new_gnu();
        header.set_mode(0o4755);
        match entry {
            Entry::File(name, data) => {
                header.set_size(data.len() as u64);
                builder.append_data(&mut header, name, *data).unwrap();
            }
            Entry::Dir(name) => {
                header.set_entry_type(EntryType::Directory);
                header.set_size(0);
                builder.append_data(&mut header, name, &b""[..]).unwrap();
            }
            Entry::Link(kind, name, target) => {
                header.set_entry_type(*kind);
                header.set_size(0);
                builder.append_link(&mut header, name, target).unwrap();
            }
            Entry::RawName(name, data) => {
                header.set_size(data.len() as u64);
                header.as_old_mut().name[..name.len()].copy_from_slice(name);
                header.set_cksum();
                builder.append(&header, *data).unwrap();
            }
        }
    }
    builder.into_inner().unwrap()
}

fn compress(data: &[u8], compression: Compression) -> Vec<u8> {
    match compression {
        Compression::None => data.to_vec(),
        Compression::Gzip => {
            let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        }
        Compression::Xz => {
            let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 1);
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        }
        Compression::Zstd => zstd::encode_all(data, 1).unwrap(),
        Compression::Bzip2 => {
            let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            enc.write_all(data).unwrap();
            enc.finish().unwrap()
        }
    }
}

fn zip_bytes(files: &[(&str, &[u8])], symlinks: &[(&str, &str)]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default();
    for (name, data) in files {
        zip.start_file(*name, options).unwrap();
        zip.write_all(data).unwrap();
    }
    for (name, target) in symlinks {
        zip.add_symlink(*name, *target, options).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

struct Case {
    _dir: tempfile::TempDir,
    root: PathBuf,
    archive: PathBuf,
    dest: PathBuf,
}

/// An archive file at `<tmp>/in/<name>` and a destination `<tmp>/dest`, so that
/// anything written outside the destination shows up in `<tmp>`.
fn case(name: &str, data: &[u8]) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().to_path_buf();
    std::fs::create_dir(root.join("in")).unwrap();
    let archive = root.join("in").join(name);
    std::fs::write(&archive, data).unwrap();
    Case {
        dest: root.join("dest"),
        root,
        archive,
        _dir: dir,
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap()
}

const NOVA_LOG: &[u8] = b"2026-03-02 10:00:00.000 7 ERROR nova.compute.manager [-] boom\n";

fn sos_entries() -> Vec<Entry<'static>> {
    vec![
        Entry::Dir("sosreport-cmp1/"),
        Entry::File("sosreport-cmp1/var/log/nova/nova-compute.log", NOVA_LOG),
        Entry::File("sosreport-cmp1/etc/hostname", b"cmp1\n"),
        Entry::File("sosreport-cmp1/sos_commands/systemd/unit\\x2dname", b"x"),
    ]
}

fn assert_sos(case: &Case, report: &ExtractReport) {
    let top = case.dest.join("sosreport-cmp1");
    assert_eq!(
        read(&top.join("var/log/nova/nova-compute.log")).as_bytes(),
        NOVA_LOG
    );
    assert_eq!(read(&top.join("etc/hostname")), "cmp1\n");
    assert!(top.join("sos_commands/systemd/unit\\x2dname").is_file());
    assert_eq!(report.files, 3);
    assert_eq!(report.bytes, NOVA_LOG.len() as u64 + 6);
    assert!(report.skipped.is_empty(), "{:?}", report.skipped);
    assert!(report.damage.is_none());
}

#[test]
fn tar_round_trips_in_every_compression() {
    let tar = tar_bytes(&sos_entries());
    for compression in [
        Compression::None,
        Compression::Gzip,
        Compression::Xz,
        Compression::Zstd,
        Compression::Bzip2,
    ] {
        // The name says nothing: content decides.
        let case = case("bundle.bin", &compress(&tar, compression));
        assert_eq!(
            detect_archive(&case.archive).unwrap(),
            Some((ArchiveKind::Tar, compression))
        );
        let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
        assert_sos(&case, &report);
    }
}

#[test]
fn zip_round_trips_plain_and_compressed() {
    let zip = zip_bytes(
        &[
            ("sosreport-cmp1/var/log/nova/nova-compute.log", NOVA_LOG),
            ("sosreport-cmp1/etc/hostname", b"cmp1\n"),
            ("sosreport-cmp1/sos_commands/systemd/unit\\x2dname", b"x"),
        ],
        &[],
    );
    for compression in [Compression::None, Compression::Gzip] {
        let case = case("bundle.zip", &compress(&zip, compression));
        assert_eq!(
            detect_archive(&case.archive).unwrap(),
            Some((ArchiveKind::Zip, compression))
        );
        let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
        assert_sos(&case, &report);
    }
    let empty = zip_bytes(&[], &[]);
    let case = case("empty.zip", &empty);
    assert_eq!(
        detect_archive(&case.archive).unwrap(),
        Some((ArchiveKind::Zip, Compression::None))
    );
    assert_eq!(
        extract(&case.archive, &case.dest, &ExtractLimits::default())
            .unwrap()
            .files,
        0
    );
}

#[test]
fn non_archives_are_not_detected() {
    let text = NOVA_LOG.repeat(20);
    for (name, data) in [
        ("nova-compute.log", text.clone()),
        ("nova-compute.log.2.gz", compress(&text, Compression::Gzip)),
        ("nova-compute.log.2.xz", compress(&text, Compression::Xz)),
        ("empty", Vec::new()),
    ] {
        let case = case(name, &data);
        assert_eq!(detect_archive(&case.archive).unwrap(), None, "{name}");
        let err = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("{}: not a tar or zip archive", case.archive.display())
        );
    }
    let err = detect_archive(Path::new("/nonexistent/bundle.tar.gz")).unwrap_err();
    assert!(err.to_string().starts_with("/nonexistent/bundle.tar.gz: "));
}

#[test]
fn names_that_leave_the_destination_are_skipped() {
    let tar = tar_bytes(&[
        Entry::RawName(b"../evil", b"x"),
        Entry::RawName(b"a/../../evil2", b"x"),
        Entry::RawName(b"/tmp/evacdoc-test-evil-absolute", b"x"),
        Entry::RawName(b"C:\\evil3", b"x"),
        Entry::File("ok.log", b"fine\n"),
    ]);
    let case = case("evil.tar.gz", &compress(&tar, Compression::Gzip));
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    let skipped: Vec<(&str, &str)> = report
        .skipped
        .iter()
        .map(|s| (s.path.as_str(), s.reason.as_str()))
        .collect();
    assert_eq!(
        skipped,
        [
            ("../evil", "'..' component"),
            ("a/../../evil2", "'..' component"),
            ("/tmp/evacdoc-test-evil-absolute", "absolute path"),
            ("C:\\evil3", "windows drive prefix"),
        ]
    );
    assert_eq!(report.files, 1);
    assert_eq!(read(&case.dest.join("ok.log")), "fine\n");
    assert!(!case.root.join("evil").exists());
    assert!(!case.root.join("evil2").exists());
    assert!(!Path::new("/tmp/evacdoc-test-evil-absolute").exists());
    let mut top: Vec<_> = std::fs::read_dir(&case.root)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    top.sort();
    assert_eq!(top, ["dest", "in"]);

    let zip = zip_bytes(
        &[("../evil", b"x"), ("/abs", b"x"), ("ok.log", b"fine\n")],
        &[],
    );
    let case = self::case("evil.zip", &zip);
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    assert_eq!(report.files, 1);
    assert_eq!(report.skipped.len(), 2, "{:?}", report.skipped);
    assert!(!case.root.join("evil").exists());
}

#[test]
fn links_are_recorded_not_created() {
    let tar = tar_bytes(&[
        Entry::Dir("juju-crashdump/3/lxd/4/"),
        Entry::File(
            "juju-crashdump/3/lxd/4/var/log/masakari/masakari-engine.log",
            b"e\n",
        ),
        Entry::Link(EntryType::Symlink, "juju-crashdump/masakari_0", "3/lxd/4"),
        Entry::Link(
            EntryType::Symlink,
            "sosreport-cmp1/var/log/messages",
            "../../sos_strings/logs/var.log.messages.tailed",
        ),
        Entry::Link(EntryType::Symlink, "escape", "/etc/passwd"),
        Entry::Link(
            EntryType::Link,
            "hard",
            "juju-crashdump/3/lxd/4/var/log/masakari/masakari-engine.log",
        ),
    ]);
    let case = case("juju-crashdump.tar.xz", &compress(&tar, Compression::Xz));
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    assert_eq!(
        report.symlinks,
        [
            (PathBuf::from("escape"), PathBuf::from("/etc/passwd")),
            (
                PathBuf::from("juju-crashdump/masakari_0"),
                PathBuf::from("3/lxd/4")
            ),
            (
                PathBuf::from("sosreport-cmp1/var/log/messages"),
                PathBuf::from("../../sos_strings/logs/var.log.messages.tailed")
            ),
        ]
    );
    for link in [
        "escape",
        "juju-crashdump/masakari_0",
        "sosreport-cmp1/var/log/messages",
        "hard",
    ] {
        assert!(
            std::fs::symlink_metadata(case.dest.join(link)).is_err(),
            "{link}"
        );
    }
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].path, "hard");
    assert!(
        report.skipped[0]
            .reason
            .starts_with("hard link to juju-crashdump/")
    );

    let zip = zip_bytes(&[], &[("masakari_0", "3/lxd/4")]);
    let case = self::case("links.zip", &zip);
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    assert_eq!(
        report.symlinks,
        [(PathBuf::from("masakari_0"), PathBuf::from("3/lxd/4"))]
    );
    assert!(std::fs::symlink_metadata(case.dest.join("masakari_0")).is_err());
}

#[test]
fn special_files_are_skipped() {
    let mut builder = tar::Builder::new(Vec::new());
    for (kind, name) in [
        (EntryType::Fifo, "fifo"),
        (EntryType::Char, "null"),
        (EntryType::Block, "sda"),
    ] {
        let mut header = Header::new_gnu();
        header.set_entry_type(kind);
        header.set_size(0);
        builder.append_data(&mut header, name, &b""[..]).unwrap();
    }
    let case = case("special.tar", &builder.into_inner().unwrap());
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    let reasons: Vec<&str> = report.skipped.iter().map(|s| s.reason.as_str()).collect();
    assert_eq!(
        reasons,
        [
            "fifo, not created",
            "device file, not created",
            "device file, not created"
        ]
    );
    assert_eq!(std::fs::read_dir(&case.dest).unwrap().count(), 0);
}

#[test]
fn existing_symlinks_in_dest_are_not_followed() {
    let tar = tar_bytes(&[
        Entry::File("logs/nova-compute.log", b"inside\n"),
        Entry::File("hostname", b"cmp1\n"),
    ]);
    let case = case("bundle.tar", &tar);
    let outside = case.root.join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("hostname"), "untouched\n").unwrap();
    std::fs::create_dir(&case.dest).unwrap();
    std::os::unix::fs::symlink(&outside, case.dest.join("logs")).unwrap();
    std::os::unix::fs::symlink(outside.join("hostname"), case.dest.join("hostname")).unwrap();
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    assert_eq!(report.skipped.len(), 1);
    assert_eq!(report.skipped[0].path, "logs/nova-compute.log");
    assert_eq!(
        report.skipped[0].reason,
        "logs is a symbolic link in the destination"
    );
    assert!(!outside.join("nova-compute.log").exists());
    // A symlink at the file's own path is replaced, its target left alone.
    assert_eq!(read(&outside.join("hostname")), "untouched\n");
    assert!(
        std::fs::symlink_metadata(case.dest.join("hostname"))
            .unwrap()
            .is_file()
    );
    assert_eq!(read(&case.dest.join("hostname")), "cmp1\n");
}

#[test]
fn modes_duplicates_and_odd_names() {
    let tar = tar_bytes(&[
        Entry::Dir("d/"),
        Entry::File("d/x.log", b"first\n"),
        Entry::File("d/x.log", b"second\n"),
        Entry::Link(EntryType::Symlink, "d/y.log", "x.log"),
        Entry::File("d/y.log", b"file wins\n"),
        Entry::File("d/z.log", b"file\n"),
        Entry::Link(EntryType::Symlink, "d/z.log", "x.log"),
        Entry::RawName(b"d/caf\xe9.log", b"latin-1\n"),
    ]);
    let case = case("bundle.tgz", &compress(&tar, Compression::Gzip));
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    let d = case.dest.join("d");
    assert_eq!(read(&d.join("x.log")), "second\n");
    assert_eq!(read(&d.join("y.log")), "file wins\n");
    assert!(!d.join("z.log").exists());
    assert_eq!(
        report.symlinks,
        [(PathBuf::from("d/z.log"), PathBuf::from("x.log"))]
    );
    assert_eq!(read(&d.join("caf\u{fffd}.log")), "latin-1\n");
    use std::os::unix::fs::PermissionsExt;
    let file_mode = std::fs::metadata(d.join("x.log"))
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(file_mode & 0o7111, 0, "{file_mode:o}");
    let dir_mode = std::fs::metadata(&d).unwrap().permissions().mode();
    assert_eq!(dir_mode & 0o7000, 0, "{dir_mode:o}");
    assert_eq!(dir_mode & 0o700, 0o700, "{dir_mode:o}");
}

#[test]
fn a_bomb_stops_at_the_total_limit() {
    let zeros = vec![0; 100 << 20];
    let tar = tar_bytes(&[Entry::File("zeros", &zeros)]);
    let case = case("bomb.tar.gz", &compress(&tar, Compression::Gzip));
    let limits = ExtractLimits {
        max_total_bytes: 10 << 20,
        ..ExtractLimits::default()
    };
    let err = extract(&case.archive, &case.dest, &limits).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: archive content over the limit of 10485760 bytes",
            case.archive.display()
        )
    );

    let zip = zip_bytes(&[("zeros", &zeros[..20 << 20])], &[]);
    let case = self::case("bomb.zip", &zip);
    let err = extract(&case.archive, &case.dest, &limits).unwrap_err();
    assert!(matches!(
        err,
        IngestError::LimitExceeded {
            what: crate::ingest::limits::LimitKind::ArchiveContent,
            ..
        }
    ));
}

#[test]
fn entry_limits() {
    let tar = tar_bytes(&[
        Entry::File("big.log", &[b'x'; 2000]),
        Entry::File("small.log", b"ok\n"),
    ]);
    let case = case("bundle.tar", &tar);
    let limits = ExtractLimits {
        max_entry_bytes: 1000,
        ..ExtractLimits::default()
    };
    let report = extract(&case.archive, &case.dest, &limits).unwrap();
    assert_eq!(report.files, 1);
    assert_eq!(
        report.skipped[0].reason,
        "2000 bytes is over the per-entry limit of 1000 bytes"
    );
    assert!(!case.dest.join("big.log").exists());

    let zip = zip_bytes(&[("big.log", &[b'x'; 2000]), ("small.log", b"ok\n")], &[]);
    let case = self::case("bundle.zip", &zip);
    let report = extract(&case.archive, &case.dest, &limits).unwrap();
    assert_eq!(report.files, 1);
    assert_eq!(
        report.skipped[0].reason,
        "over the per-entry limit of 1000 bytes"
    );
    assert!(!case.dest.join("big.log").exists());

    let limits = ExtractLimits {
        max_entries: 1,
        ..ExtractLimits::default()
    };
    let case = self::case("bundle.tar", &tar);
    let err = extract(&case.archive, &case.dest, &limits).unwrap_err();
    assert!(
        err.to_string()
            .ends_with(": archive entries over the limit of 1 entries"),
        "{err}"
    );
}

#[test]
fn a_truncated_archive_keeps_what_came_before() {
    let big: Vec<u8> = (0..200_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let tar = tar_bytes(&[
        Entry::File("first.log", NOVA_LOG),
        Entry::File("big.bin", &big),
        Entry::File("never.log", b"lost\n"),
    ]);
    for compression in [Compression::Gzip, Compression::None] {
        let data = compress(&tar, compression);
        let case = case("cut.tar.gz", &data[..data.len() / 2]);
        let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
        let damage = report.damage.as_ref().expect("damage").to_string();
        assert!(
            damage.starts_with(&format!(
                "{}: truncated at entry big.bin",
                case.archive.display()
            )),
            "{damage}"
        );
        assert_eq!(read(&case.dest.join("first.log")).as_bytes(), NOVA_LOG);
        assert!(!case.dest.join("never.log").exists());
        let partial = std::fs::read(case.dest.join("big.bin")).unwrap();
        assert!(big.starts_with(&partial) && partial.len() < big.len());
    }
}

#[test]
fn a_truncated_zip_is_an_error() {
    let zip = zip_bytes(&[("a.log", NOVA_LOG)], &[]);
    let case = case("cut.zip", &zip[..zip.len() - 30]);
    let err = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with(&format!("{}: unreadable zip: ", case.archive.display())),
        "{err}"
    );
}

#[test]
fn members_with_names_or_paths_too_long_are_skipped_and_the_rest_extracted() {
    let long_name = format!("ctl1/var/log/nova/{}.log", "n".repeat(256));
    // Twenty folders of 250 bytes: each name fits, the path does not (PATH_MAX).
    let deep: String = (0..20).map(|i| format!("{i:0>250}/")).collect();
    let long_path = format!("ctl1/{deep}x.log");
    let tar = tar_bytes(&[
        Entry::File(&long_name, NOVA_LOG),
        Entry::Dir(&format!("ctl1/{deep}")),
        Entry::File(&long_path, NOVA_LOG),
        Entry::File("ctl1/var/log/nova/nova-compute.log", NOVA_LOG),
    ]);
    let zip = zip_bytes(
        &[
            (&long_name, NOVA_LOG),
            (&long_path, NOVA_LOG),
            ("ctl1/var/log/nova/nova-compute.log", NOVA_LOG),
        ],
        &[],
    );
    for (name, bytes) in [("bundle.tar", tar), ("bundle.zip", zip)] {
        let case = case(name, &bytes);
        let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
        assert_eq!(report.files, 1, "{name}: {:?}", report.skipped);
        assert!(
            case.dest
                .join("ctl1/var/log/nova/nova-compute.log")
                .is_file(),
            "{name}"
        );
        let reason = |path: &str| {
            report
                .skipped
                .iter()
                .find(|s| s.path == path)
                .map(|s| s.reason.clone())
                .unwrap_or_else(|| panic!("{name}: {path} not skipped: {:?}", report.skipped))
        };
        assert!(reason(&long_name).contains("over 255 bytes"), "{name}");
        assert!(reason(&long_path).contains("too long"), "{name}");
        assert!(
            !reason(&long_path).contains(&*case.root.to_string_lossy()),
            "{name}: the reason names no server path"
        );
    }
}

#[test]
fn skipped_entries_past_the_first_thousand_are_counted_not_listed() {
    let names: Vec<String> = (0..1500)
        .map(|i| format!("{i}{}", "n".repeat(256)))
        .collect();
    let entries: Vec<Entry<'_>> = names.iter().map(|n| Entry::File(n, b"x\n")).collect();
    let case = case("many.tar", &tar_bytes(&entries));
    let report = extract(&case.archive, &case.dest, &ExtractLimits::default()).unwrap();
    assert_eq!(report.skipped.len(), 1000);
    assert_eq!(report.skipped_more, 500);
    assert_eq!(report.entries, 1500);
}
