//! Finding the files of the inputs: folders, archives, links, limits.

use super::*;

#[test]
fn archive_names() {
    assert_eq!(
        archive_stem("sosreport-ctl1-2024.tar.xz"),
        "sosreport-ctl1-2024"
    );
    assert_eq!(archive_stem("juju-crashdump-1.tar.gz"), "juju-crashdump-1");
    assert!(archive_name("bundle.zip"));
    assert!(!archive_name("nova-compute.log.2.gz"));
}

/// A gzipped tar of `files` (name, content).
fn tar_gz(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    for (name, data) in files {
        let mut header = tar::Header::new_gnu();
        header.set_size(data.len() as u64);
        header.set_mode(0o644);
        builder.append_data(&mut header, name, *data).unwrap();
    }
    let tar = builder.into_inner().unwrap();
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    std::io::Write::write_all(&mut gz, &tar).unwrap();
    gz.finish().unwrap()
}

const LOG: &[u8] =
    b"2026-03-02 10:00:00.000 1 INFO masakari.engine.manager [-] Processing notification\n";

#[test]
fn each_archive_is_opened_once_nested_ones_included() {
    let dir = tempfile::tempdir().unwrap();
    let inner = tar_gz(&[("var/log/masakari/masakari-engine.log", LOG)]);
    let outer = tar_gz(&[
        ("sosreport-ctl1/sosreport-cmp1.tar.gz", &inner),
        ("sosreport-ctl1/var/log/nova/nova-compute.log", LOG),
    ]);
    let bundle = dir.path().join("case-01.tar.gz");
    std::fs::write(&bundle, &outer).unwrap();
    let work = tempfile::tempdir().unwrap();
    let before = crate::ingest::decompress::opens::so_far();
    let found = discover(&[bundle], work.path()).unwrap();
    let opened = crate::ingest::decompress::opens::so_far() - before;
    let rels: Vec<&str> = found.files.iter().map(|f| f.rel.as_str()).collect();
    assert_eq!(
        rels,
        [
            "case-01/sosreport-ctl1/sosreport-cmp1/var/log/masakari/masakari-engine.log",
            "case-01/sosreport-ctl1/var/log/nova/nova-compute.log",
        ]
    );
    assert!(found.skipped.is_empty(), "{:?}", found.skipped);
    // The bundle once and the archive inside it once: sniffed, then read from the
    // same reader. The logs are opened later, by the reading pass.
    assert_eq!(opened, 2);
}

#[test]
fn errors_name_the_upload_and_the_member_never_the_work_folder() {
    let dir = tempfile::tempdir().unwrap();
    let inner = tar_gz(&[("var/log/nova/nova-compute.log", &LOG.repeat(400))]);
    let cut = &inner[..inner.len() / 2];
    let outer = tar_gz(&[
        ("sosreport-cmp1.tar.gz", cut),
        ("var/log/masakari/masakari-engine.log", LOG),
    ]);
    // Where the service keeps an upload, and the name the user gave it.
    let kept = dir.path().join("analyses/0f3c/input/case-01.tar.gz");
    std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
    std::fs::write(&kept, &outer).unwrap();
    let work = dir.path().join("tmp/evacdoc-x");
    std::fs::create_dir_all(&work).unwrap();
    let upload = Named {
        path: &kept,
        name: Path::new("case-01.tar.gz"),
    };
    let found = discover_within(&[upload], &work, &IngestLimits::default()).unwrap();
    let damaged = found
        .skipped
        .iter()
        .find(|(path, _)| path == "case-01/sosreport-cmp1")
        .unwrap_or_else(|| panic!("{:?}", found.skipped));
    assert!(
        damaged.1.starts_with(
            "archive damaged, read what came before: case-01/sosreport-cmp1.tar.gz: truncated"
        ),
        "{}",
        damaged.1
    );
    let names: Vec<String> = found
        .files
        .iter()
        .map(|f| f.name.display().to_string())
        .collect();
    assert!(
        names.contains(&"case-01/var/log/masakari/masakari-engine.log".to_string()),
        "{names:?}"
    );
    let everything = format!("{:?} {names:?}", found.skipped);
    assert!(
        !everything.contains(&*dir.path().to_string_lossy()),
        "{everything}"
    );

    // The upload itself unreadable as an archive: named by its own name.
    std::fs::write(&kept, b"PK\x03\x04 not really a zip").unwrap();
    let err = discover_within(&[upload], &work, &IngestLimits::default()).unwrap_err();
    assert!(
        err.to_string()
            .starts_with("case-01.tar.gz: unreadable zip"),
        "{err}"
    );
}

#[test]
fn walks_folders_and_records_links() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("case");
    std::fs::create_dir_all(root.join("3/lxd/4/var/log/masakari")).unwrap();
    std::fs::write(
        root.join("3/lxd/4/var/log/masakari/masakari-engine.log"),
        "x\n",
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("3/lxd/4", root.join("masakari_0")).unwrap();
    let work = tempfile::tempdir().unwrap();
    let found = discover(&[root], work.path()).unwrap();
    assert_eq!(found.files.len(), 1);
    assert_eq!(
        found.files[0].rel,
        "3/lxd/4/var/log/masakari/masakari-engine.log"
    );
    #[cfg(unix)]
    {
        assert_eq!(found.links.len(), 1);
        assert_eq!(found.links[0].rel, "masakari_0");
        assert_eq!(found.links[0].target, "3/lxd/4");
    }
}
