//! Reading one plain file whole.

use std::path::Path;

use super::IngestError;

/// Files above this size are refused by [`read_file`]: they belong to the streaming
/// bundle reader, not to a whole-file read.
pub const MAX_WHOLE_FILE: u64 = 4 << 30;

/// Reads a whole file, with errors that name it.
pub fn read_file(path: &Path) -> Result<Vec<u8>, IngestError> {
    let io = |source| IngestError::Io {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(io)?;
    if meta.is_dir() {
        return Err(IngestError::IsDirectory {
            path: path.to_path_buf(),
        });
    }
    if meta.len() > MAX_WHOLE_FILE {
        return Err(IngestError::TooLarge {
            path: path.to_path_buf(),
            size: meta.len(),
            limit: MAX_WHOLE_FILE,
        });
    }
    std::fs::read(path).map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_name_the_file() {
        let missing = read_file(Path::new("/nonexistent/masakari-engine.log")).unwrap_err();
        assert!(
            missing
                .to_string()
                .starts_with("/nonexistent/masakari-engine.log: ")
        );
        let dir = tempfile::tempdir().unwrap();
        let err = read_file(dir.path()).unwrap_err();
        assert!(err.to_string().ends_with("is a directory, not a file"));
    }
}
