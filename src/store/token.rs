//! The API token file (`<data>/token`): readable by its owner only, written whole.

use std::io::Write;

use super::error::StoreError;
use super::paths::DataPaths;

/// Writes the token with mode 0600 through a temporary file renamed over the old one.
pub fn write_token(paths: &DataPaths, token: &str) -> Result<(), StoreError> {
    let target = paths.token_file();
    // tempfile creates its files with mode 0600, and the rename keeps the mode.
    let mut temporary = tempfile::Builder::new()
        .prefix(".token-")
        .tempfile_in(paths.root())
        .map_err(|source| StoreError::io(paths.root(), source))?;
    let io_error = |source| StoreError::io(&target, source);
    temporary.write_all(token.as_bytes()).map_err(io_error)?;
    temporary.as_file().sync_all().map_err(io_error)?;
    temporary
        .persist(&target)
        .map_err(|error| StoreError::io(&target, error.error))?;
    Ok(())
}

/// The stored token without surrounding whitespace; `None` when there is none yet.
pub fn read_token(paths: &DataPaths) -> Result<Option<String>, StoreError> {
    let path = paths.token_file();
    match std::fs::read_to_string(&path) {
        Ok(text) if text.trim().is_empty() => Ok(None),
        Ok(text) => Ok(Some(text.trim().to_owned())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(StoreError::io(path, error)),
    }
}

/// The file that says someone has signed in with the token: it holds the token's hash, so
/// a token made anew (the old file removed) counts as unused again.
fn used_file(paths: &DataPaths) -> std::path::PathBuf {
    paths.root().join("token.used")
}

/// Records that someone has signed in with the token whose SHA-256 (hex) is `token_hash`.
pub fn mark_token_used(paths: &DataPaths, token_hash: &str) -> Result<(), StoreError> {
    let path = used_file(paths);
    std::fs::write(&path, token_hash).map_err(|source| StoreError::io(&path, source))
}

/// Whether someone has signed in with the token whose SHA-256 (hex) is `token_hash`.
pub fn token_used(paths: &DataPaths, token_hash: &str) -> Result<bool, StoreError> {
    let path = used_file(paths);
    match std::fs::read_to_string(&path) {
        Ok(text) => Ok(text.trim() == token_hash),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(false),
        Err(error) => Err(StoreError::io(path, error)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_unused_until_marked_and_a_new_one_is_unused_again() {
        let root = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(root.path());
        let (first, second) = ("a".repeat(64), "b".repeat(64));
        assert!(!token_used(&paths, &first).unwrap());
        mark_token_used(&paths, &first).unwrap();
        assert!(token_used(&paths, &first).unwrap());
        assert!(!token_used(&paths, &second).unwrap());
    }

    #[test]
    fn the_token_is_private_and_reads_back() {
        let root = tempfile::tempdir().unwrap();
        let paths = DataPaths::new(root.path());
        assert_eq!(read_token(&paths).unwrap(), None);
        write_token(&paths, "5f0c9a7e41b2d38c").unwrap();
        assert_eq!(
            read_token(&paths).unwrap().as_deref(),
            Some("5f0c9a7e41b2d38c")
        );
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(paths.token_file())
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        write_token(&paths, "second").unwrap();
        assert_eq!(read_token(&paths).unwrap().as_deref(), Some("second"));
    }
}
