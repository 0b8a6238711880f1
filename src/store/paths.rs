//! The layout of the data folder (`--data`): where the database, the token and each
//! analysis's files live. Every path built from an id goes through [`validate_id`], so no
//! id can name a path outside the folder.

use std::path::{Path, PathBuf};

use super::error::StoreError;

/// The data folder and the names inside it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPaths {
    root: PathBuf,
}

impl DataPaths {
    pub fn new(root: impl Into<PathBuf>) -> DataPaths {
        DataPaths { root: root.into() }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The SQLite database.
    pub fn db(&self) -> PathBuf {
        self.root.join("evacdoc.sqlite")
    }

    /// The API token, written with mode 0600.
    pub fn token_file(&self) -> PathBuf {
        self.root.join("token")
    }

    /// The folder that holds one folder per analysis.
    pub fn analyses_dir(&self) -> PathBuf {
        self.root.join("analyses")
    }

    /// `analyses/<id>/`: everything kept for one analysis.
    pub fn analysis_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        validate_id(id)?;
        Ok(self.analyses_dir().join(id))
    }

    /// The uploaded archive, once received whole.
    pub fn upload(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.analysis_dir(id)?.join("upload.bin"))
    }

    /// The upload while it is being received (renamed to [`DataPaths::upload`] when complete).
    pub fn upload_partial(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.analysis_dir(id)?.join("upload.part"))
    }

    /// The analysis document, zstd-compressed JSON (see [`super::write_document`]).
    pub fn document(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.analysis_dir(id)?.join("document.json.zst"))
    }

    /// The search index folder.
    pub fn index_dir(&self, id: &str) -> Result<PathBuf, StoreError> {
        Ok(self.analysis_dir(id)?.join("index"))
    }

    /// Where analyses unpack their uploads, a fresh folder each, removed when the
    /// analysis ends (`tmp/`, emptied at start): no work file outside the data folder.
    pub fn tmp_dir(&self) -> PathBuf {
        self.root.join("tmp")
    }
}

/// Accepts only a UUID in its lowercase hyphenated form (`8-4-4-4-12` hex digits): one
/// spelling per id, and nothing that a path could read as a separator, `..` or a drive.
pub fn validate_id(id: &str) -> Result<(), StoreError> {
    match uuid::Uuid::try_parse(id) {
        Ok(uuid) if uuid.hyphenated().to_string() == id => Ok(()),
        _ => Err(StoreError::InvalidId(id.to_owned())),
    }
}

/// Creates a folder and its missing parents, readable by the owner only.
pub(crate) fn create_private_dir(path: &Path) -> Result<(), StoreError> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder
        .create(path)
        .map_err(|source| StoreError::io(path, source))
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60";

    #[test]
    fn analysis_files_sit_in_the_analysis_folder() -> Result<(), StoreError> {
        let paths = DataPaths::new("/data");
        let folder = PathBuf::from("/data/analyses").join(ID);
        assert_eq!(paths.db(), PathBuf::from("/data/evacdoc.sqlite"));
        assert_eq!(paths.token_file(), PathBuf::from("/data/token"));
        assert_eq!(paths.analysis_dir(ID)?, folder);
        assert_eq!(paths.upload(ID)?, folder.join("upload.bin"));
        assert_eq!(paths.upload_partial(ID)?, folder.join("upload.part"));
        assert_eq!(paths.document(ID)?, folder.join("document.json.zst"));
        assert_eq!(paths.index_dir(ID)?, folder.join("index"));
        assert_eq!(paths.tmp_dir(), PathBuf::from("/data/tmp"));
        Ok(())
    }

    #[test]
    fn ids_that_are_not_lowercase_uuids_are_refused() {
        let paths = DataPaths::new("/data");
        for bad in [
            "../3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60",
            "3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60/..",
            "..",
            "../../etc/passwd",
            "/etc",
            "",
            "3F2B8C1E-9D4A-4E6B-8A7C-1B2C3D4E5F60",
            "3f2b8c1e9d4a4e6b8a7c1b2c3d4e5f60",
            "{3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60}",
            "urn:uuid:3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f60",
            "3f2b8c1e-9d4a-4e6b-8a7c-1b2c3d4e5f6\0",
        ] {
            assert!(
                matches!(paths.analysis_dir(bad), Err(StoreError::InvalidId(_))),
                "{bad:?} accepted"
            );
            assert!(paths.upload(bad).is_err(), "{bad:?} accepted");
        }
        assert!(validate_id(ID).is_ok());
    }
}
