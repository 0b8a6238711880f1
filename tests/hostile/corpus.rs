//! The hostile corpus: archives and files a stranger might upload, built in a temp
//! folder at test time (nothing binary is committed). Each case says what a reader
//! must report: the reasons that name what was skipped, or why the input was refused.

use std::io::Write;
use std::path::{Path, PathBuf};

use tar::{EntryType, Header};

/// Bundles are unpacked within these limits in the hostile runs (the flags of
/// `analyze` and `serve`): small, so that the bombs stop fast.
pub const LIMIT_FLAGS: &[&str] = &[
    "--max-expanded",
    "5000000",
    "--max-entries",
    "1000",
    "--ratio-from",
    "1000000",
];

/// A good masakari-engine log, in every archive: what must still be analysed.
pub const ENGINE_LOG: &[u8] = b"2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [-] Starting masakari-engine (version 19.0.0)
2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [None req-11111111-2222-3333-4444-555555555555 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10 of type: COMPUTE_HOST
";

const ENGINE_PATH: &str = "ctl1/var/log/masakari/masakari-engine.log";

/// How a case must end.
#[derive(Debug)]
pub enum Expect {
    /// Analysed; every `(path, reason)` pair matches a skipped entry (substrings), and
    /// the good log is among the files read.
    Partial(Vec<(&'static str, &'static str)>),
    /// Refused: the message names the file and contains this reason.
    Refused(&'static str),
}

/// One hostile input.
#[derive(Debug)]
pub struct Case {
    pub name: &'static str,
    pub path: PathBuf,
    pub expect: Expect,
}

/// A path outside every folder of the test that an absolute entry names: it must
/// never appear.
pub fn absolute_target() -> String {
    format!("/tmp/evacdoc-hostile-absolute-{}", std::process::id())
}

fn header(kind: EntryType, size: u64) -> Header {
    let mut header = Header::new_gnu();
    header.set_entry_type(kind);
    header.set_size(size);
    header.set_mode(0o6777);
    header.set_mtime(1_700_000_000);
    header
}

/// Appends a file whose name bytes go into the header unchecked (the tar crate
/// refuses `..` and absolute names).
fn raw(builder: &mut tar::Builder<Vec<u8>>, name: &[u8], kind: EntryType, data: &[u8]) {
    let mut h = header(kind, data.len() as u64);
    h.as_old_mut().name[..name.len()].copy_from_slice(name);
    h.set_cksum();
    builder.append(&h, data).unwrap();
}

fn file(builder: &mut tar::Builder<Vec<u8>>, name: &str, data: &[u8]) {
    let mut h = header(EntryType::Regular, data.len() as u64);
    builder.append_data(&mut h, name, data).unwrap();
}

fn link(builder: &mut tar::Builder<Vec<u8>>, kind: EntryType, name: &str, target: &str) {
    let mut h = header(kind, 0);
    builder.append_link(&mut h, name, target).unwrap();
}

/// A tar with the good log first, then `more`.
fn tar_with(more: impl FnOnce(&mut tar::Builder<Vec<u8>>)) -> Vec<u8> {
    let mut builder = tar::Builder::new(Vec::new());
    file(&mut builder, ENGINE_PATH, ENGINE_LOG);
    more(&mut builder);
    builder.into_inner().unwrap()
}

pub fn gzip(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

/// gzip at its best ratio (about 1000 to 1 on zeros), as bombs are made.
fn gzip_best(data: &[u8]) -> Vec<u8> {
    let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn xz(data: &[u8]) -> Vec<u8> {
    let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 0);
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn bzip2(data: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
    enc.write_all(data).unwrap();
    enc.finish().unwrap()
}

fn zip(files: &[(&str, &[u8])]) -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = zip::write::SimpleFileOptions::default()
        .compression_method(zip::CompressionMethod::Deflated)
        .large_file(true);
    for (name, data) in files {
        zip.start_file(*name, options).unwrap();
        zip.write_all(data).unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A zip made on Unix whose entries' modes say socket, character device and fifo.
fn special_zip() -> Vec<u8> {
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let plain = zip::write::SimpleFileOptions::default();
    zip.start_file(ENGINE_PATH, plain).unwrap();
    zip.write_all(ENGINE_LOG).unwrap();
    for (name, kind) in [
        ("ctl1/run/socket", 0o140_000u32),
        ("ctl1/dev/null", 0o020_000),
        ("ctl1/run/fifo", 0o010_000),
    ] {
        let options = plain.external_attributes((kind | 0o644) << 16);
        zip.start_file(name, options).unwrap();
        zip.write_all(b"x").unwrap();
    }
    zip.finish().unwrap().into_inner()
}

/// A tar of the good log and `bytes` zeros named as a log: a bomb once compressed.
fn bomb_tar(bytes: usize) -> Vec<u8> {
    let zeros = vec![0u8; bytes];
    tar_with(|b| file(b, "ctl1/var/log/nova/nova-compute.log", &zeros))
}

/// Every case, written under `dir`.
pub fn build(dir: &Path) -> Vec<Case> {
    std::fs::create_dir_all(dir).unwrap();
    let mut cases = Vec::new();
    let mut add = |name: &'static str, file: &str, bytes: Vec<u8>, expect: Expect| {
        let path = dir.join(file);
        std::fs::write(&path, bytes).unwrap();
        cases.push(Case { name, path, expect });
    };

    let absolute = absolute_target();
    add(
        "names leaving the root",
        "traversal.tar.gz",
        gzip(&tar_with(|b| {
            raw(b, b"../evil.log", EntryType::Regular, b"x\n");
            raw(b, b"ctl1/../../evil2.log", EntryType::Regular, b"x\n");
            raw(b, b"./../../../../evil3.log", EntryType::Regular, b"x\n");
            raw(b, absolute.as_bytes(), EntryType::Regular, b"x\n");
            raw(b, b"C:\\evil4.log", EntryType::Regular, b"x\n");
            raw(b, b"ctl1/\\..\\..\\evil5.log", EntryType::Regular, b"x\n");
        })),
        Expect::Partial(vec![
            ("../evil.log", "'..' component"),
            ("ctl1/../../evil2.log", "'..' component"),
            ("evil3.log", "'..' component"),
            ("evacdoc-hostile-absolute", "absolute path"),
            ("evil4.log", "windows drive prefix"),
            ("evil5.log", "'..' component"),
        ]),
    );
    add(
        "links outside the root and in loops",
        "links.tar",
        tar_with(|b| {
            link(b, EntryType::Symlink, "ctl1/passwd", "/etc/passwd");
            link(b, EntryType::Symlink, "ctl1/up", "../../../../..");
            link(b, EntryType::Symlink, "ctl1/loop-a", "loop-b");
            link(b, EntryType::Symlink, "ctl1/loop-b", "loop-a");
            link(b, EntryType::Symlink, "ctl1/self", "self");
            link(b, EntryType::Symlink, "ctl1/var/log/nova", "../../up");
            // Written through the link above if it were created.
            file(b, "ctl1/up/escaped.log", b"x\n");
            file(b, "ctl1/var/log/nova/nova-api.log", b"x\n");
            link(b, EntryType::Link, "ctl1/shadow", "/etc/shadow");
            link(b, EntryType::Link, "ctl1/hard-up", "../../../etc/hostname");
            link(b, EntryType::Link, "ctl1/hard-loop", "ctl1/hard-loop");
        }),
        Expect::Partial(vec![
            ("ctl1/shadow", "hard link to /etc/shadow, not created"),
            ("ctl1/hard-up", "hard link to"),
            ("ctl1/hard-loop", "hard link to"),
        ]),
    );
    add(
        "device files and fifos",
        "special.tar.xz",
        xz(&tar_with(|b| {
            raw(b, b"ctl1/dev/null", EntryType::Char, b"");
            raw(b, b"ctl1/dev/sda", EntryType::Block, b"");
            raw(b, b"ctl1/run/fifo", EntryType::Fifo, b"");
            raw(b, b"ctl1/run/odd", EntryType::new(b'Z'), b"");
        })),
        Expect::Partial(vec![
            ("ctl1/dev/null", "device file, not created"),
            ("ctl1/dev/sda", "device file, not created"),
            ("ctl1/run/fifo", "fifo, not created"),
            ("ctl1/run/odd", "unsupported entry type"),
        ]),
    );
    add(
        "sockets, devices and fifos in a zip",
        "special.zip",
        special_zip(),
        Expect::Partial(vec![
            ("ctl1/run/socket", "special file, not created"),
            ("ctl1/dev/null", "special file, not created"),
            ("ctl1/run/fifo", "special file, not created"),
        ]),
    );

    // Decompression bombs: 3 MiB of zeros expand over 250 times their compressed
    // size past the 1 MB the ratio applies from; the extraction stops there.
    let bomb = bomb_tar(3 << 20);
    for (name, file, bytes) in [
        ("gzip bomb", "bomb.tar.gz", gzip_best(&bomb)),
        ("xz bomb", "bomb.tar.xz", xz(&bomb)),
        (
            "zstd bomb",
            "bomb.tar.zst",
            zstd::encode_all(&bomb[..], 3).unwrap(),
        ),
        ("bzip2 bomb", "bomb.tar.bz2", bzip2(&bomb)),
    ] {
        add(
            name,
            file,
            bytes,
            Expect::Partial(vec![
                (
                    "bomb",
                    "archive not unpacked past a limit, read what came before",
                ),
                ("bomb", "times its"),
            ]),
        );
    }
    add(
        "zip bomb",
        "bomb.zip",
        zip(&[
            (ENGINE_PATH, ENGINE_LOG),
            ("ctl1/var/log/nova/nova-compute.log", &vec![0u8; 3 << 20]),
        ]),
        Expect::Partial(vec![("bomb", "times its")]),
    );
    add(
        "a compressed log that is a bomb",
        "nova-compute.log.1.gz",
        gzip_best(&vec![0u8; 3 << 20]),
        Expect::Partial(vec![(
            "nova-compute.log.1.gz",
            "read stopped at the 1000000-byte limit",
        )]),
    );
    drop(bomb);

    // Nested archives: one level too deep, and a budget shared by all of them.
    let mut inner = gzip(&tar_with(|_| {}));
    for level in 0..4 {
        let name = format!("level{level}.tar.gz");
        let data = inner.clone();
        inner = gzip(&tar_with(|b| file(b, &name, &data)));
    }
    add(
        "archives nested too deep",
        "nested.tar.gz",
        inner,
        Expect::Partial(vec![(
            "level3/level2/level1.tar.gz",
            "an archive nested over 3 levels deep, not unpacked",
        )]),
    );
    add(
        "nested archives over the budget together",
        "nested-budget.tar",
        tar_with(|b| {
            // Each part alone is under what the ratio applies from; together they
            // pass the analysis's 5 MB budget.
            let mut part = tar::Builder::new(Vec::new());
            file(&mut part, "zeros.log", &vec![0u8; 900_000]);
            let part = gzip(&part.into_inner().unwrap());
            for n in 0..7 {
                file(b, &format!("part{n}.tar.gz"), &part);
            }
        }),
        Expect::Partial(vec![(
            "nested-budget/part",
            "part5.tar.gz: the archives of the analysis together over the limit of 5000000 bytes",
        )]),
    );
    add(
        "very many tiny entries",
        "tiny.tar.zst",
        zstd::encode_all(
            &tar_with(|b| {
                for n in 0..1100 {
                    file(b, &format!("ctl1/tiny/{n}.txt"), b"x");
                }
            })[..],
            3,
        )
        .unwrap(),
        Expect::Partial(vec![(
            "tiny",
            "archive entries over the limit of 1000 entries",
        )]),
    );

    // Damage.
    let big: Vec<u8> = (0..300_000u32).flat_map(|i| i.to_le_bytes()).collect();
    let whole = gzip(&tar_with(|b| {
        file(b, "ctl1/big.bin", &big);
        file(b, "ctl1/never.log", b"lost\n");
    }));
    add(
        "a truncated tar.gz",
        "truncated.tar.gz",
        whole[..whole.len() * 2 / 3].to_vec(),
        Expect::Partial(vec![
            ("truncated", "archive damaged, read what came before"),
            ("truncated", "truncated"),
        ]),
    );
    let mut corrupt = whole.clone();
    let at = corrupt.len() / 2;
    for byte in &mut corrupt[at..at + 64] {
        *byte ^= 0x5a;
    }
    add(
        "a corrupted gzip stream",
        "corrupt.tar.gz",
        corrupt,
        Expect::Partial(vec![("corrupt", "archive damaged, read what came before")]),
    );
    let good_zip = zip(&[(ENGINE_PATH, ENGINE_LOG), ("ctl1/member.log", &big)]);
    add(
        "a truncated zip",
        "truncated.zip",
        good_zip[..good_zip.len() - 40].to_vec(),
        Expect::Refused("unreadable zip"),
    );
    let mut bad_member = good_zip.clone();
    let at = bad_member.len() / 2;
    for byte in &mut bad_member[at..at + 32] {
        *byte ^= 0xa5;
    }
    add(
        "a zip with a corrupted member",
        "member.zip",
        bad_member,
        Expect::Partial(vec![("ctl1/member.log", "corrupt")]),
    );
    add(
        "a .tar.gz that is not gzip",
        "not-gzip.tar.gz",
        b"\x1f\x8bthis is no gzip stream at all\n".repeat(100),
        Expect::Refused("unreadable"),
    );
    add(
        "an empty archive name",
        "empty.tar.gz",
        Vec::new(),
        Expect::Refused("no log, config or capture file"),
    );

    // Odd text, names and times in one bundle.
    add(
        "odd lines, encodings, times and names",
        "odd.tar.gz",
        gzip(&odd_bundle()),
        Expect::Partial(vec![(
            "masakari-instancemonitor.log",
            "UTF-16LE text, not read (logs are read as UTF-8: iconv -f UTF-16LE -t UTF-8)",
        )]),
    );
    cases
}

/// Logs with odd content and names: every one is read, none stops the analysis.
fn odd_bundle() -> Vec<u8> {
    let line = |time: &str, msg: &str| {
        format!("{time} 7502 INFO masakari.engine.manager [-] {msg}\n").into_bytes()
    };
    let mut long = line("2026-11-30 09:34:22.845", "Processing notification");
    long.truncate(long.len() - 1);
    long.extend(std::iter::repeat_n(b'x', 2 << 20));
    long.push(b'\n');
    long.extend(line("2026-11-30 09:34:23.000", "after the long line"));
    let mut no_newline = line("2026-11-30 09:34:24.000", "no final newline");
    no_newline.pop();
    let mut nul = line("2026-11-30 09:34:25.000", "before\0the\0nul");
    nul.extend(b"\0\0\0\0\n");
    nul.extend(line("2026-11-30 09:34:25.100", "after"));
    let invalid = [
        line("2026-11-30 09:34:26.000", "caf\u{e9}"),
        b"2026-11-30 09:34:26.100 7502 INFO masakari.engine.manager [-] caf\xe9 \xff\xfe\n"
            .to_vec(),
    ]
    .concat();
    let utf16: Vec<u8> = [0xff, 0xfe]
        .into_iter()
        .chain(
            String::from_utf8(line("2026-11-30 09:34:27.000", "utf-16"))
                .unwrap()
                .encode_utf16()
                .flat_map(u16::to_le_bytes),
        )
        .collect();
    let crlf = String::from_utf8(
        [
            line("2026-11-30 09:34:28.000", "crlf one"),
            line("2026-11-30 09:34:28.100", "crlf two"),
        ]
        .concat(),
    )
    .unwrap()
    .replace('\n', "\r\n")
    .into_bytes();
    let times = [
        line("2026-11-30 09:40:00.000", "later first"),
        line("2026-11-30 09:30:00.000", "out of order"),
        line("2099-01-01 00:00:00.000", "in the future"),
        line("2026-12-31 23:59:59.900", "before the year end"),
        line("2027-01-01 00:00:00.100", "after the year end"),
    ]
    .concat();
    let mut builder = tar::Builder::new(Vec::new());
    let dir = "ctl1/var/log/masakari";
    for (name, data) in [
        ("masakari-engine.log", &long),
        ("masakari-api.log", &no_newline),
        ("masakari-hostmonitor.log", &nul),
        ("masakari-processmonitor.log", &invalid),
        ("masakari-instancemonitor.log", &utf16),
        ("masakari-introspectiveinstancemonitor.log", &crlf),
        ("masakari-engine.log.1", &times),
        ("name with spaces.log", &times),
    ] {
        file(&mut builder, &format!("{dir}/{name}"), data);
    }
    // Names tar's builder refuses: a newline and bytes that are not UTF-8.
    raw(
        &mut builder,
        b"ctl1/var/log/masakari/new\nline.log",
        EntryType::Regular,
        &times,
    );
    raw(
        &mut builder,
        b"ctl1/var/log/masakari/caf\xe9.log",
        EntryType::Regular,
        &times,
    );
    builder.into_inner().unwrap()
}
