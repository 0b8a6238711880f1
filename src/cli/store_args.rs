//! `--store`, `--blobs` and `--lease` of `serve` and `worker` (issue 27): where the
//! analyses and the job queue are kept when several processes share them.

use std::path::PathBuf;
use std::time::Duration;

use anyhow::{Context as _, bail};
use clap::Args;

#[derive(Debug, Args)]
pub struct StoreArgs {
    /// Keep analyses, the job queue, sessions and the audit log in PostgreSQL
    /// (`postgres://USER:PASS@HOST:PORT/DB`), shared by API and worker processes.
    /// Without it: the embedded SQLite store in --data.
    #[arg(long, value_name = "URL", requires = "blobs")]
    pub store: Option<String>,
    /// Where uploads, analysis documents and search indexes are kept when --store is
    /// given: `file:///ABS/DIR` (a folder every process mounts),
    /// `s3://BUCKET?endpoint=http://HOST:PORT&region=R` (keys from AWS_ACCESS_KEY_ID and
    /// AWS_SECRET_ACCESS_KEY) or `swift://CONTAINER?cloud=NAME` (clouds.yaml); with an
    /// object store, --data is this process's own work folder and cache.
    #[arg(long, value_name = "URL", requires = "store")]
    pub blobs: Option<String>,
    /// Seconds a worker's claim on a job lasts without renewal (renewed every second):
    /// how soon another worker re-runs the job of a worker that died.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub lease: u64,
}

/// A shared store: its URL, where the files are, the lease.
#[derive(Debug, Clone)]
pub struct Shared {
    pub url: String,
    pub blobs: SharedBlobs,
    pub lease: Duration,
}

/// Where a shared store's files are.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SharedBlobs {
    /// A folder every process mounts: the data folder of every process.
    Folder(PathBuf),
    /// An object store (its `--blobs` URL): each process's --data is its own cache.
    Remote(String),
}

impl SharedBlobs {
    /// The data folder: the shared folder, or this process's own (`data`).
    pub fn data_folder(&self, data: &std::path::Path) -> PathBuf {
        match self {
            SharedBlobs::Folder(folder) => folder.clone(),
            SharedBlobs::Remote(_) => data.to_path_buf(),
        }
    }

    /// The object store's URL, if it is one.
    pub fn remote(&self) -> Option<String> {
        match self {
            SharedBlobs::Folder(_) => None,
            SharedBlobs::Remote(url) => Some(url.clone()),
        }
    }
}

impl std::fmt::Display for SharedBlobs {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SharedBlobs::Folder(folder) => write!(f, "{}", folder.display()),
            // The URL names no secret: S3 keys come from the environment.
            SharedBlobs::Remote(url) => f.write_str(url),
        }
    }
}

impl StoreArgs {
    /// The shared store asked for, or None for the embedded default.
    pub fn shared(&self) -> anyhow::Result<Option<Shared>> {
        let (Some(url), Some(blobs)) = (&self.store, &self.blobs) else {
            return Ok(None);
        };
        if !(url.starts_with("postgres://") || url.starts_with("postgresql://")) {
            bail!("--store {url:?}: only postgres://USER:PASS@HOST:PORT/DB is supported");
        }
        if self.lease < 2 {
            bail!(
                "--lease {}: at least 2 seconds (it is renewed every second)",
                self.lease
            );
        }
        Ok(Some(Shared {
            url: url.clone(),
            blobs: blob_folder(blobs)?,
            lease: Duration::from_secs(self.lease),
        }))
    }
}

/// The folder of a `file:///abs/dir` URL, or an object store's URL (checked here; its
/// S3 keys read when it is opened).
fn blob_folder(blobs: &str) -> anyhow::Result<SharedBlobs> {
    let parsed = url::Url::parse(blobs).with_context(|| format!("--blobs {blobs:?}"))?;
    match parsed.scheme() {
        "file" => parsed
            .to_file_path()
            .map(SharedBlobs::Folder)
            .map_err(|()| anyhow::anyhow!("--blobs {blobs:?}: not an absolute local path")),
        "s3" | "swift" => {
            let keys = |_: &str| Some("checked when opened".to_owned());
            evacdoc::blobs::BlobUrl::parse_with(blobs, keys)?;
            Ok(SharedBlobs::Remote(blobs.to_owned()))
        }
        other => bail!(
            "--blobs {blobs:?}: {other}:// is not a blob store (file:///ABS/DIR, \
             s3://BUCKET?endpoint=…&region=…, swift://CONTAINER?cloud=NAME)"
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(store: Option<&str>, blobs: Option<&str>, lease: u64) -> StoreArgs {
        StoreArgs {
            store: store.map(str::to_owned),
            blobs: blobs.map(str::to_owned),
            lease,
        }
    }

    #[test]
    fn the_default_is_the_embedded_store() {
        assert!(args(None, None, 10).shared().unwrap().is_none());
    }

    #[test]
    fn a_postgres_store_and_a_file_folder_are_read() {
        let shared = args(
            Some("postgres://evacdoc:pw@db.internal:5432/evacdoc"),
            Some("file:///srv/evacdoc%20blobs"),
            4,
        )
        .shared()
        .unwrap()
        .unwrap();
        assert_eq!(
            shared.blobs,
            SharedBlobs::Folder(PathBuf::from("/srv/evacdoc blobs"))
        );
        assert_eq!(shared.lease, Duration::from_secs(4));
    }

    #[test]
    fn object_stores_are_read_and_kept_as_urls() {
        for url in [
            "s3://evacdoc?endpoint=http://10.0.0.5:7480&region=r1",
            "swift://evacdoc?cloud=prod",
        ] {
            let shared = args(Some("postgres://db/evacdoc"), Some(url), 10)
                .shared()
                .unwrap()
                .unwrap();
            assert_eq!(shared.blobs, SharedBlobs::Remote(url.to_owned()));
            assert_eq!(
                shared
                    .blobs
                    .data_folder(std::path::Path::new("/var/cache/e")),
                PathBuf::from("/var/cache/e")
            );
        }
    }

    #[test]
    fn other_stores_bad_blob_urls_and_short_leases_are_refused_with_the_reason() {
        let cases = [
            (
                args(Some("mysql://db/evacdoc"), Some("file:///srv/b"), 10),
                "only postgres://",
            ),
            (
                args(Some("postgres://db/evacdoc"), Some("s3://bucket"), 10),
                "no endpoint",
            ),
            (
                args(Some("postgres://db/evacdoc"), Some("gs://bucket"), 10),
                "not a blob store",
            ),
            (
                args(Some("postgres://db/evacdoc"), Some("/srv/b"), 10),
                "--blobs",
            ),
            (
                args(Some("postgres://db/evacdoc"), Some("file:///srv/b"), 1),
                "at least 2 seconds",
            ),
        ];
        for (args, expected) in cases {
            let error = args.shared().unwrap_err().to_string();
            assert!(error.contains(expected), "{error}");
        }
    }
}
