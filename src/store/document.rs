//! The analysis document on disk: zstd-compressed JSON, written whole or not at all.

use std::fs::File;
use std::io::{Read, Write};

use super::error::StoreError;
use super::paths::{DataPaths, create_private_dir};

/// A balance between speed and size for documents of a few MiB to a few hundred MiB.
const ZSTD_LEVEL: i32 = 3;

/// Writes the document of analysis `id`, compressed, through a temporary file in the same
/// folder that is synced then renamed over the document: a reader sees the old document or
/// the new one, never half of one, and a crash leaves at most a stray temporary file.
pub fn write_document(paths: &DataPaths, id: &str, document_json: &[u8]) -> Result<(), StoreError> {
    write_document_with(paths, id, |out| out.write_all(document_json))
}

/// [`write_document`], the JSON written to the compressor by `write` as it is made.
pub fn write_document_with(
    paths: &DataPaths,
    id: &str,
    write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), StoreError> {
    let target = paths.document(id)?;
    let folder = paths.analysis_dir(id)?;
    create_private_dir(&folder)?;
    let mut temporary = tempfile::Builder::new()
        .prefix(".document-")
        .suffix(".tmp")
        .tempfile_in(&folder)
        .map_err(|source| StoreError::io(&folder, source))?;
    let io_error = |source| StoreError::io(temporary_path_hint(&folder), source);
    let mut encoder =
        zstd::stream::Encoder::new(temporary.as_file_mut(), ZSTD_LEVEL).map_err(io_error)?;
    {
        // Buffered: the serializer writes a few bytes at a time.
        let mut buffered = std::io::BufWriter::with_capacity(256 << 10, &mut encoder);
        write(&mut buffered).map_err(io_error)?;
        buffered.flush().map_err(io_error)?;
    }
    encoder.finish().map_err(io_error)?;
    temporary.as_file().sync_all().map_err(io_error)?;
    temporary
        .persist(&target)
        .map_err(|error| StoreError::io(&target, error.error))?;
    Ok(())
}

/// Reads back the document of analysis `id`; `None` when none was written yet.
pub fn read_document(paths: &DataPaths, id: &str) -> Result<Option<Vec<u8>>, StoreError> {
    let path = paths.document(id)?;
    let file = match File::open(&path) {
        Ok(file) => file,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(error) => return Err(StoreError::io(&path, error)),
    };
    let mut decoder =
        zstd::stream::Decoder::new(file).map_err(|source| StoreError::io(&path, source))?;
    let mut document = Vec::new();
    decoder
        .read_to_end(&mut document)
        .map_err(|source| StoreError::io(&path, source))?;
    Ok(Some(document))
}

/// Errors while writing name the folder: the temporary file's name is random.
fn temporary_path_hint(folder: &std::path::Path) -> std::path::PathBuf {
    folder.join(".document-*.tmp")
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "0b6f7d4c-2a1e-4c3b-9f8e-7d6c5b4a3f21";

    #[test]
    fn the_document_round_trips_and_a_rewrite_replaces_it() -> Result<(), StoreError> {
        let root = tempfile::tempdir().map_err(|source| StoreError::io("tempdir", source))?;
        let paths = DataPaths::new(root.path());
        assert_eq!(read_document(&paths, ID)?, None);

        let first = br#"{"schema":"analysis/v1","hosts":["ctl1","cmp1"],"events":[]}"#.repeat(100);
        write_document(&paths, ID, &first)?;
        assert_eq!(read_document(&paths, ID)?, Some(first.clone()));
        let on_disk = std::fs::metadata(paths.document(ID)?)
            .map_err(|source| StoreError::io("document", source))?;
        assert!(
            on_disk.len() < first.len() as u64,
            "the document is stored compressed"
        );

        write_document(&paths, ID, b"{}")?;
        assert_eq!(read_document(&paths, ID)?, Some(b"{}".to_vec()));
        let leftovers = std::fs::read_dir(paths.analysis_dir(ID)?)
            .map_err(|source| StoreError::io("folder", source))?
            .filter_map(Result::ok)
            .filter(|entry| entry.file_name().to_string_lossy().ends_with(".tmp"))
            .count();
        assert_eq!(leftovers, 0, "temporary files are renamed, not left behind");
        Ok(())
    }

    #[test]
    fn a_leftover_temporary_file_is_never_read_as_the_document() -> Result<(), StoreError> {
        let root = tempfile::tempdir().map_err(|source| StoreError::io("tempdir", source))?;
        let paths = DataPaths::new(root.path());
        let folder = paths.analysis_dir(ID)?;
        create_private_dir(&folder)?;
        // What a crash in the middle of a write leaves: half a compressed stream.
        let whole = zstd::stream::encode_all(&b"{\"schema\":\"analysis/v1\"}"[..], ZSTD_LEVEL)
            .map_err(|source| StoreError::io("encode", source))?;
        let half = &whole[..whole.len() / 2];
        std::fs::write(folder.join(".document-crash.tmp"), half)
            .map_err(|source| StoreError::io("leftover", source))?;
        assert_eq!(read_document(&paths, ID)?, None);

        write_document(&paths, ID, b"{\"after\":true}")?;
        assert_eq!(
            read_document(&paths, ID)?,
            Some(b"{\"after\":true}".to_vec())
        );
        Ok(())
    }

    #[test]
    fn a_truncated_document_is_an_error_not_a_partial_read() -> Result<(), StoreError> {
        let root = tempfile::tempdir().map_err(|source| StoreError::io("tempdir", source))?;
        let paths = DataPaths::new(root.path());
        write_document(&paths, ID, &b"0123456789".repeat(1000))?;
        let path = paths.document(ID)?;
        let bytes = std::fs::read(&path).map_err(|source| StoreError::io(&path, source))?;
        std::fs::write(&path, &bytes[..bytes.len() / 2])
            .map_err(|source| StoreError::io(&path, source))?;
        assert!(matches!(
            read_document(&paths, ID),
            Err(StoreError::Io { .. })
        ));
        Ok(())
    }

    #[test]
    fn a_bad_id_writes_nothing() -> Result<(), StoreError> {
        let root = tempfile::tempdir().map_err(|source| StoreError::io("tempdir", source))?;
        let paths = DataPaths::new(root.path());
        assert!(matches!(
            write_document(&paths, "../escape", b"{}"),
            Err(StoreError::InvalidId(_))
        ));
        assert!(!root.path().join("escape").exists());
        assert!(!root.path().join("analyses").exists());
        Ok(())
    }
}
