//! Decompressing single files, recognised by their magic bytes: bundles are renamed,
//! and rotated logs (`nova-compute.log.2.gz`) keep the name of what they hold.

use std::fs::File;
use std::io::{BufReader, Read};
use std::path::Path;

use super::limits::{LimitKind, LimitUnit};
use super::{IngestError, Named};

/// How a file is compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Compression {
    /// Not compressed, or in a format evacdoc does not know.
    None,
    /// gzip, including several members one after another.
    Gzip,
    /// xz, including several streams one after another.
    Xz,
    /// Zstandard.
    Zstd,
    /// bzip2.
    Bzip2,
}

/// Names the compression of a file from its first bytes (six are enough).
pub fn detect_compression(head: &[u8]) -> Compression {
    match head {
        [0x1f, 0x8b, ..] => Compression::Gzip,
        [0xfd, b'7', b'z', b'X', b'Z', 0x00, ..] => Compression::Xz,
        [0x28, 0xb5, 0x2f, 0xfd, ..] => Compression::Zstd,
        // The block-size digit keeps a text file starting with "BZh" plain.
        [b'B', b'Z', b'h', b'1'..=b'9', ..] => Compression::Bzip2,
        _ => Compression::None,
    }
}

mod xz_threads;

/// Threads for one big xz file: the machine's cores.
fn decoding_threads() -> u32 {
    std::thread::available_parallelism().map_or(1, |n| u32::try_from(n.get()).unwrap_or(1))
}

/// Opens a file and returns a buffered reader of its decompressed content.
///
/// Errors are for the file that cannot be opened; a stream that turns out damaged
/// fails later, in `read`.
pub fn open_decompressed(
    file: Named<'_>,
) -> Result<(Compression, Box<dyn Read + Send>), IngestError> {
    let (mut opened, size) = open_file(file)?;
    let magic = read_head(&mut opened, 6).map_err(|source| file.io_error(source))?;
    decompressing(file, size, magic, opened)
}

/// Opens a file to read (never a folder), with its size on disk: how every
/// decompressing reader and [`super::archive::open_archive`] open their file.
pub(super) fn open_file(file: Named<'_>) -> Result<(File, u64), IngestError> {
    #[cfg(test)]
    opens::count();
    let opened = File::open(file.path).map_err(|source| file.io_error(source))?;
    let meta = opened.metadata().map_err(|source| file.io_error(source))?;
    if meta.is_dir() {
        return Err(IngestError::IsDirectory {
            path: file.name.to_path_buf(),
        });
    }
    Ok((opened, meta.len()))
}

/// The decompressed content of `rest`, a file of `size` bytes whose first bytes
/// (`magic`, six are enough) were read already and go back in front.
pub(super) fn decompressing(
    file: Named<'_>,
    size: u64,
    magic: Vec<u8>,
    rest: File,
) -> Result<(Compression, Box<dyn Read + Send>), IngestError> {
    let io = |source| file.io_error(source);
    let compression = detect_compression(&magic);
    let raw = BufReader::with_capacity(64 << 10, std::io::Cursor::new(magic).chain(rest));
    let reader: Box<dyn Read + Send> = match compression {
        Compression::None => Box::new(raw),
        Compression::Gzip => Box::new(BufReader::new(flate2::bufread::MultiGzDecoder::new(raw))),
        Compression::Xz if size >= xz_threads::THREADED_FROM => Box::new(BufReader::new(
            xz_threads::ThreadedXz::new(raw, decoding_threads()).map_err(io)?,
        )),
        Compression::Xz => Box::new(BufReader::new(
            liblzma::bufread::XzDecoder::new_multi_decoder(raw),
        )),
        Compression::Zstd => Box::new(BufReader::new(
            zstd::stream::read::Decoder::with_buffer(raw).map_err(io)?,
        )),
        Compression::Bzip2 => Box::new(BufReader::new(bzip2::bufread::MultiBzDecoder::new(raw))),
    };
    Ok((compression, reader))
}

/// Files opened by this thread, for the tests that check each input is opened once.
#[cfg(test)]
pub(crate) mod opens {
    use std::cell::Cell;

    thread_local! {
        static OPENS: Cell<usize> = const { Cell::new(0) };
    }

    pub(super) fn count() {
        OPENS.with(|n| n.set(n.get() + 1));
    }

    /// Files opened by this thread so far.
    pub(crate) fn so_far() -> usize {
        OPENS.with(Cell::get)
    }
}

/// The decompressed content of one file.
#[derive(Debug)]
#[non_exhaustive]
pub struct Decompressed {
    /// How the file was compressed.
    pub compression: Compression,
    /// The content, or as much of it as could be decoded.
    pub bytes: Vec<u8>,
    /// Set when the stream is truncated or corrupt: `bytes` is then the part before
    /// the damage, still worth analysing, and this says what was lost.
    pub damage: Option<IngestError>,
}

/// Reads the whole decompressed content of a file.
///
/// More than `limit` decompressed bytes is an error (a decompression bomb, or a file
/// that belongs to a streaming reader). A damaged stream is not an error: the bytes
/// before the damage come back with [`Decompressed::damage`] set.
pub fn read_decompressed(file: Named<'_>, limit: u64) -> Result<Decompressed, IngestError> {
    let (compression, reader) = open_decompressed(file)?;
    let mut bytes = Vec::new();
    // On error, read_to_end keeps what it read: that is the partial content.
    let result = reader.take(limit.saturating_add(1)).read_to_end(&mut bytes);
    if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > limit {
        return Err(IngestError::LimitExceeded {
            path: file.name.to_path_buf(),
            what: LimitKind::DecompressedContent,
            limit,
            unit: LimitUnit::Bytes,
        });
    }
    let damage = result.err().map(|err| damaged(file.name, None, &err));
    Ok(Decompressed {
        compression,
        bytes,
        damage,
    })
}

/// Describes a read error in a decompressed stream as damage to `path`, optionally at
/// an archive entry.
pub(super) fn damaged(path: &Path, entry: Option<&str>, err: &std::io::Error) -> IngestError {
    let what = if err.kind() == std::io::ErrorKind::UnexpectedEof {
        "truncated"
    } else {
        "corrupt or unreadable"
    };
    let at = entry.map_or_else(String::new, |name| format!(" at entry {name}"));
    IngestError::Damaged {
        path: path.to_path_buf(),
        reason: format!("{what}{at}: {}", error_chain(err)),
    }
}

/// The error and its causes, so a wrapper's "failed to read entry" keeps the decoder's
/// reason.
pub(super) fn error_chain(err: &dyn std::error::Error) -> String {
    let mut text = lowercase_first(&err.to_string());
    let mut source = err.source();
    while let Some(cause) = source {
        let cause_text = lowercase_first(&cause.to_string());
        if !text.ends_with(&cause_text) {
            text = format!("{text}: {cause_text}");
        }
        source = cause.source();
    }
    text
}

fn lowercase_first(text: &str) -> String {
    let mut chars = text.chars();
    chars.next().map_or_else(String::new, |first| {
        first.to_lowercase().chain(chars).collect()
    })
}

/// Reads up to `n` bytes, fewer only at the end of the input.
pub(super) fn read_head(reader: &mut impl Read, n: usize) -> std::io::Result<Vec<u8>> {
    let mut head = Vec::with_capacity(n);
    reader
        .take(u64::try_from(n).unwrap_or(u64::MAX))
        .read_to_end(&mut head)?;
    Ok(head)
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    const LOG: &[u8] =
        b"2026-03-02 10:00:00.000 1 INFO masakari.engine.manager [-] Processing notification\n";

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn xz(data: &[u8]) -> Vec<u8> {
        let mut enc = liblzma::write::XzEncoder::new(Vec::new(), 6);
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn bz2(data: &[u8]) -> Vec<u8> {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::default());
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    fn read(path: &Path, limit: u64) -> Result<Decompressed, IngestError> {
        read_decompressed(Named::as_given(path), limit)
    }

    fn write(dir: &Path, name: &str, data: &[u8]) -> std::path::PathBuf {
        let path = dir.join(name);
        std::fs::write(&path, data).unwrap();
        path
    }

    #[test]
    fn detects_by_magic_bytes() {
        assert_eq!(detect_compression(&gzip(LOG)), Compression::Gzip);
        assert_eq!(detect_compression(&xz(LOG)), Compression::Xz);
        assert_eq!(detect_compression(&bz2(LOG)), Compression::Bzip2);
        let zst = zstd::encode_all(LOG, 3).unwrap();
        assert_eq!(detect_compression(&zst), Compression::Zstd);
        assert_eq!(detect_compression(LOG), Compression::None);
        assert_eq!(detect_compression(b""), Compression::None);
        assert_eq!(detect_compression(b"BZh is not bzip2"), Compression::None);
        assert_eq!(detect_compression(&[0x1f]), Compression::None);
    }

    #[test]
    fn reads_every_format_whatever_the_name() {
        let dir = tempfile::tempdir().unwrap();
        let cases = [
            ("a.log", LOG.to_vec(), Compression::None),
            ("b.log", gzip(LOG), Compression::Gzip),
            ("c.txt", xz(LOG), Compression::Xz),
            ("d", zstd::encode_all(LOG, 3).unwrap(), Compression::Zstd),
            ("e.gz", bz2(LOG), Compression::Bzip2),
        ];
        for (name, data, compression) in cases {
            let out = read(&write(dir.path(), name, &data), 1 << 20).unwrap();
            assert_eq!(out.compression, compression, "{name}");
            assert_eq!(out.bytes, LOG, "{name}");
            assert!(out.damage.is_none(), "{name}");
        }
        let empty = read(&write(dir.path(), "empty", b""), 10).unwrap();
        assert!(empty.bytes.is_empty() && empty.damage.is_none());
    }

    #[test]
    fn reads_all_members_of_concatenated_streams() {
        let dir = tempfile::tempdir().unwrap();
        let gz = [gzip(b"first\n"), gzip(b"second\n")].concat();
        let out = read(&write(dir.path(), "m.gz", &gz), 100).unwrap();
        assert_eq!(out.bytes, b"first\nsecond\n");
        let xz = [xz(b"first\n"), xz(b"second\n")].concat();
        let out = read(&write(dir.path(), "m.xz", &xz), 100).unwrap();
        assert_eq!(out.bytes, b"first\nsecond\n");
        let zst = [
            zstd::encode_all(&b"first\n"[..], 3).unwrap(),
            zstd::encode_all(&b"second\n"[..], 3).unwrap(),
        ]
        .concat();
        let out = read(&write(dir.path(), "m.zst", &zst), 100).unwrap();
        assert_eq!(out.bytes, b"first\nsecond\n");
    }

    #[test]
    fn truncated_streams_keep_the_start_and_name_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let text: Vec<u8> = LOG.repeat(2000);
        for (name, data) in [
            ("nova-compute.log.1.gz", gzip(&text)),
            ("nova-compute.log.1.xz", xz(&text)),
            (
                "nova-compute.log.1.zst",
                zstd::encode_all(&text[..], 3).unwrap(),
            ),
            ("nova-compute.log.1.bz2", bz2(&text)),
        ] {
            let cut = &data[..data.len() * 3 / 4];
            let path = write(dir.path(), name, cut);
            let out = read(&path, 1 << 30).unwrap();
            let damage = out.damage.expect(name).to_string();
            assert!(
                damage.starts_with(&format!("{}: ", path.display())),
                "{damage}"
            );
            assert!(
                damage.contains("truncated") || damage.contains("corrupt"),
                "{damage}"
            );
            assert!(out.bytes.len() < text.len(), "{name}");
            assert!(text.starts_with(&out.bytes), "{name}");
        }
    }

    #[test]
    fn truncated_gzip_says_truncated() {
        let dir = tempfile::tempdir().unwrap();
        let data = gzip(&LOG.repeat(2000));
        let path = write(
            dir.path(),
            "masakari-engine.log.gz",
            &data[..data.len() / 2],
        );
        let out = read(&path, 1 << 30).unwrap();
        let damage = out.damage.unwrap().to_string();
        assert!(
            damage.contains("masakari-engine.log.gz: truncated"),
            "{damage}"
        );
        assert!(!out.bytes.is_empty());
    }

    #[test]
    fn corrupt_stream_is_reported_not_panicked() {
        let dir = tempfile::tempdir().unwrap();
        let mut data = gzip(&LOG.repeat(100));
        for byte in data.iter_mut().skip(12) {
            *byte = 0xff;
        }
        let out = read(&write(dir.path(), "bad.gz", &data), 1 << 20).unwrap();
        let d = out.damage.unwrap().to_string();
        assert!(d.contains("bad.gz: "));
    }

    #[test]
    fn bomb_stops_at_the_limit() {
        let dir = tempfile::tempdir().unwrap();
        let data = gzip(&vec![0; 20 << 20]);
        let path = write(dir.path(), "bomb.gz", &data);
        let err = read(&path, 1 << 20).unwrap_err().to_string();
        assert_eq!(
            err,
            format!(
                "{}: decompressed content over the limit of 1048576 bytes",
                path.display()
            )
        );
        // Exactly at the limit is fine.
        assert_eq!(read(&path, 20 << 20).unwrap().bytes.len(), 20 << 20);
    }

    #[test]
    fn open_errors_name_the_file() {
        let err = read(Path::new("/nonexistent/x.gz"), 10).unwrap_err();
        assert!(err.to_string().starts_with("/nonexistent/x.gz: "));
        let dir = tempfile::tempdir().unwrap();
        let err = read(dir.path(), 10).unwrap_err();
        assert!(matches!(err, IngestError::IsDirectory { .. }));
    }
}
