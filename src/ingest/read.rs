//! Reading one plain file whole.

use super::{IngestError, Named};

/// Files above this size are refused by [`read_file`]: they belong to the streaming
/// bundle reader, not to a whole-file read.
pub const MAX_WHOLE_FILE: u64 = 4 << 30;

/// Reads a whole file, with errors that name it.
pub fn read_file(file: Named<'_>) -> Result<Vec<u8>, IngestError> {
    let io = |source| file.io_error(source);
    let meta = std::fs::metadata(file.path).map_err(io)?;
    if meta.is_dir() {
        return Err(IngestError::IsDirectory {
            path: file.name.to_path_buf(),
        });
    }
    if meta.len() > MAX_WHOLE_FILE {
        return Err(IngestError::TooLarge {
            path: file.name.to_path_buf(),
            size: meta.len(),
            limit: MAX_WHOLE_FILE,
        });
    }
    std::fs::read(file.path).map_err(io)
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;

    #[test]
    fn errors_name_the_file() {
        let missing = read_file(Named::as_given(Path::new(
            "/nonexistent/masakari-engine.log",
        )))
        .unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("/nonexistent/masakari-engine.log: ")
        );
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(Named::as_given(dir.path())).unwrap_err();
        assert!(err.to_string().ends_with("is a directory, not a file"));
    }
}
