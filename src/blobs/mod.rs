//! Where uploads, analysis documents and search indexes are kept (issue 27): one small
//! blocking interface, [`crate::blobs::BlobStore`], over a local folder (`file:///abs/dir`, the default
//! and what a single `serve` has always done), S3 (`s3://BUCKET?endpoint=…&region=…`) and
//! Swift (`swift://CONTAINER?cloud=NAME`).
//!
//! The object-store clients are written here over the tree's reqwest rather than taken
//! from OpenDAL: see ARCHITECTURE.md ("Blobs"). Each remote backend runs its requests on
//! a small runtime of its own (`runtime::Background`), so the blocking calls work from any
//! thread (a job's blocking thread, a `spawn_blocking` task) without tying connections to a
//! caller's runtime.

mod blob_url;
mod error;
mod file;
mod key;
mod runtime;
mod s3;
mod sigv4;
mod swift;
mod swift_auth;
pub mod throwaway_swift;

#[cfg(test)]
mod contract;
#[cfg(test)]
mod tests;

use std::path::{Path, PathBuf};
use std::sync::Arc;

pub use blob_url::BlobUrl;
pub use error::BlobError;
pub use file::FileBlobs;
pub use key::check_key;
pub use s3::{S3Blobs, S3Config};
pub use swift::{SwiftBlobs, SwiftConfig};
pub use swift_auth::SwiftAuth;

/// Blobs named by keys (`analyses/<id>/…`: segments of printable characters joined by
/// `/`, see [`check_key`]). Blocking: call from a blocking thread.
pub trait BlobStore: Send + Sync + std::fmt::Debug {
    /// The store as a URL without secrets, for messages.
    fn describe(&self) -> String;

    /// Stores the file `from` as `key`, replacing any blob of that name, read part by
    /// part (never whole in memory): multipart on S3, segments and an SLO manifest on
    /// Swift above their single-object limit. The size stored.
    fn put_file(&self, key: &str, from: &Path) -> Result<u64, BlobError>;

    /// Writes blob `key` to the file `to` (through a temporary file beside it, renamed
    /// when whole); its size, or `None` when there is no such blob.
    fn get_to_file(&self, key: &str, to: &Path) -> Result<Option<u64>, BlobError>;

    /// The size of blob `key`, `None` when there is none.
    fn size(&self, key: &str) -> Result<Option<u64>, BlobError>;

    /// The keys that start with `prefix`, sorted.
    fn list(&self, prefix: &str) -> Result<Vec<String>, BlobError>;

    /// Removes blob `key` (and the segments of a large one); no blob is not an error.
    fn delete(&self, key: &str) -> Result<(), BlobError>;

    /// Removes every blob whose key starts with `prefix`; how many.
    fn delete_prefix(&self, prefix: &str) -> Result<usize, BlobError> {
        let keys = self.list(prefix)?;
        for key in &keys {
            self.delete(key)?;
        }
        Ok(keys.len())
    }

    /// Where blob `key` already lies on this machine's disk, to be read in place (the
    /// folder backend); `None` for remote stores, whose blobs are fetched to a cache.
    fn local_path(&self, key: &str) -> Option<PathBuf> {
        let _ = key;
        None
    }
}

/// The store a `--blobs` URL names, signed in and checked (its bucket or container
/// made when missing).
pub fn open(url: &str) -> Result<Arc<dyn BlobStore>, BlobError> {
    Ok(match BlobUrl::parse(url)? {
        BlobUrl::File(root) => Arc::new(FileBlobs::new(root)),
        BlobUrl::S3(config) => Arc::new(S3Blobs::open(config)?),
        BlobUrl::Swift(config) => Arc::new(SwiftBlobs::open(config)?),
    })
}
