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
    /// given: `file:///ABS/DIR`, a folder every process mounts.
    #[arg(long, value_name = "URL", requires = "store")]
    pub blobs: Option<String>,
    /// Seconds a worker's claim on a job lasts without renewal (renewed every second):
    /// how soon another worker re-runs the job of a worker that died.
    #[arg(long, value_name = "SECS", default_value_t = 10)]
    pub lease: u64,
}

/// A shared store: its URL, the blob folder, the lease.
#[derive(Debug, Clone)]
pub struct Shared {
    pub url: String,
    pub blobs: PathBuf,
    pub lease: Duration,
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

/// The folder of a `file:///abs/dir` URL. Object stores (s3://, swift://) are not
/// supported yet: a shared folder (NFS, CephFS) stands in for them.
fn blob_folder(blobs: &str) -> anyhow::Result<PathBuf> {
    let parsed = url::Url::parse(blobs).with_context(|| format!("--blobs {blobs:?}"))?;
    if parsed.scheme() != "file" {
        bail!(
            "--blobs {blobs:?}: only file:///ABS/DIR is supported (a folder every process \
             shares); object storage is not supported yet"
        );
    }
    parsed
        .to_file_path()
        .map_err(|()| anyhow::anyhow!("--blobs {blobs:?}: not an absolute local path"))
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
        assert_eq!(shared.blobs, PathBuf::from("/srv/evacdoc blobs"));
        assert_eq!(shared.lease, Duration::from_secs(4));
    }

    #[test]
    fn other_stores_object_storage_and_short_leases_are_refused_with_the_reason() {
        let cases = [
            (
                args(Some("mysql://db/evacdoc"), Some("file:///srv/b"), 10),
                "only postgres://",
            ),
            (
                args(Some("postgres://db/evacdoc"), Some("s3://bucket"), 10),
                "object storage is not supported yet",
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
