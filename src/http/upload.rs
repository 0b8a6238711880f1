//! Receiving an uploaded bundle: streamed to disk (never whole in memory) with its SHA-256
//! and size counted as it comes, refused past the size limit, renamed into place only when
//! complete.

use std::path::{Path, PathBuf};

use axum::body::Bytes;
use axum::http::StatusCode;
use futures_util::{Stream, StreamExt};
use sha2::{Digest, Sha256};
use tokio::io::AsyncWriteExt;

use super::error::ApiError;

/// A bundle received whole.
#[derive(Debug)]
pub struct Received {
    /// Where it is.
    pub path: PathBuf,
    /// Its size in bytes.
    pub size: u64,
    /// Its SHA-256, hex.
    pub sha256: String,
}

/// A name safe to use as a file name: letters, digits, `.`, `_`, `-` (others become `_`),
/// no leading dot, at most 120 characters; `upload.bin` when nothing is left.
pub fn safe_file_name(name: &str) -> String {
    let base = name.rsplit(['/', '\\']).next().unwrap_or("");
    let cleaned: String = base
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '_'
            }
        })
        .collect();
    let trimmed = cleaned.trim_start_matches('.');
    let cut: String = trimmed.chars().take(120).collect();
    if cut.is_empty() || cut.chars().all(|c| c == '_') {
        "upload.bin".to_string()
    } else {
        cut
    }
}

/// Says whether a request body of this `Content-Type` may be a bundle: none, bytes,
/// multipart, an archive or compressed type, a plain log, or what `curl --data-binary`
/// sends (the UI sends the type the browser gives the file: `.tgz` is
/// `application/x-compressed` on Windows). Anything else (JSON, HTML, ...) is a client
/// mistake, answered 415.
pub fn bundle_content_type(content_type: Option<&str>) -> bool {
    let Some(value) = content_type else {
        return true;
    };
    let essence = value
        .split(';')
        .next()
        .unwrap_or("")
        .trim()
        .to_ascii_lowercase();
    matches!(
        essence.as_str(),
        "" | "application/octet-stream"
            | "application/x-www-form-urlencoded"
            | "multipart/form-data"
            | "application/gzip"
            | "application/x-gzip"
            | "application/x-tar"
            | "application/x-gtar"
            | "application/x-compressed-tar"
            | "application/x-xz"
            | "application/x-xz-compressed-tar"
            | "application/zstd"
            | "application/x-zstd"
            | "application/x-bzip2"
            | "application/zip"
            | "application/x-zip-compressed"
            | "application/x-zip"
            | "application/x-compressed"
            | "application/x-bzip"
            | "application/x-bzip2-compressed-tar"
            | "application/x-zstd-compressed-tar"
            | "text/plain"
            | "text/x-log"
    )
}

/// [`bundle_content_type`] as an answer: 415 for what cannot be a bundle. The one rule
/// for the request of an API upload and for the file part of a form (the UI's) upload.
pub fn refuse_non_bundle(content_type: Option<&str>) -> Result<(), ApiError> {
    if bundle_content_type(content_type) {
        return Ok(());
    }
    Err(ApiError::new(
        StatusCode::UNSUPPORTED_MEDIA_TYPE,
        "unsupported_media_type",
        format!(
            "{} is not a bundle: send the bundle as application/octet-stream (or multipart/form-data with file fields)",
            content_type.unwrap_or_default()
        ),
    ))
}

/// Writes `body` to `dir/name` (through `dir/name.part`), refusing more than `limit`
/// bytes. On any failure the partial file is removed.
pub async fn receive<S, E>(
    mut body: S,
    dir: &Path,
    name: &str,
    limit: u64,
) -> Result<Received, ApiError>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
    E: std::fmt::Display,
{
    tokio::fs::create_dir_all(dir)
        .await
        .map_err(ApiError::storage)?;
    let path = dir.join(name);
    let partial = dir.join(format!("{name}.part"));
    let outcome = async {
        let mut file = tokio::fs::File::create(&partial)
            .await
            .map_err(ApiError::storage)?;
        let mut hasher = Sha256::new();
        let mut size: u64 = 0;
        while let Some(chunk) = body.next().await {
            let chunk = chunk
                .map_err(|e| ApiError::bad_request(format!("the upload was cut short: {e}")))?;
            size += chunk.len() as u64;
            if size > limit {
                return Err(ApiError::new(
                    StatusCode::PAYLOAD_TOO_LARGE,
                    "too_large",
                    format!("the upload is larger than the limit of {limit} bytes"),
                ));
            }
            hasher.update(&chunk);
            file.write_all(&chunk).await.map_err(ApiError::storage)?;
        }
        if size == 0 {
            return Err(ApiError::bad_request("the upload is empty"));
        }
        file.flush().await.map_err(ApiError::storage)?;
        file.sync_all().await.map_err(ApiError::storage)?;
        Ok((size, hex::encode(hasher.finalize())))
    }
    .await;
    match outcome {
        Ok((size, sha256)) => {
            if let Err(e) = tokio::fs::rename(&partial, &path).await {
                let _ = tokio::fs::remove_file(&partial).await;
                return Err(ApiError::storage(e));
            }
            Ok(Received { path, size, sha256 })
        }
        Err(e) => {
            let _ = tokio::fs::remove_file(&partial).await;
            Err(e)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundle_content_types() {
        for ok in [
            None,
            Some("application/octet-stream"),
            Some("application/x-www-form-urlencoded"),
            Some("multipart/form-data; boundary=x"),
            Some("Application/GZIP"),
            Some("text/plain; charset=utf-8"),
        ] {
            assert!(bundle_content_type(ok), "{ok:?}");
        }
        for refused in [
            "application/json",
            "text/html",
            "application/xml",
            "image/png",
            "bogus",
        ] {
            assert!(!bundle_content_type(Some(refused)), "{refused}");
        }
    }

    #[test]
    fn file_names_stay_inside_their_folder() {
        assert_eq!(
            safe_file_name("sosreport-cmp1.tar.xz"),
            "sosreport-cmp1.tar.xz"
        );
        assert_eq!(safe_file_name("../../etc/passwd"), "passwd");
        assert_eq!(safe_file_name("C:\\x\\juju crash.tgz"), "juju_crash.tgz");
        assert_eq!(safe_file_name(".."), "upload.bin");
        assert_eq!(safe_file_name(".hidden"), "hidden");
        assert_eq!(safe_file_name(""), "upload.bin");
        assert_eq!(safe_file_name("ünï.log"), "_n_.log");
        assert_eq!(safe_file_name("üï"), "upload.bin");
    }

    fn chunks(parts: &[&'static [u8]]) -> impl Stream<Item = Result<Bytes, String>> + Unpin {
        futures_util::stream::iter(
            parts
                .iter()
                .map(|p| Ok(Bytes::from_static(p)))
                .collect::<Vec<_>>(),
        )
    }

    #[tokio::test]
    async fn a_body_is_written_whole_with_its_checksum_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let got = receive(chunks(&[b"hello ", b"world"]), dir.path(), "a.log", 100)
            .await
            .unwrap();
        assert_eq!(got.size, 11);
        assert_eq!(
            got.sha256,
            "b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9"
        );
        assert_eq!(std::fs::read(&got.path).unwrap(), b"hello world");

        let err = receive(
            chunks(&[b"0123456789", b"0123456789"]),
            dir.path(),
            "b.log",
            15,
        )
        .await
        .unwrap_err();
        assert_eq!(err.status, StatusCode::PAYLOAD_TOO_LARGE);
        assert!(!dir.path().join("b.log").exists());
        assert!(!dir.path().join("b.log.part").exists());
    }
}
