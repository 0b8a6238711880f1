//! A multipart upload of several files (one sosreport per node): each file part streamed
//! to disk in turn, all of them one bundle (a folder of the parts, analysed as one), at
//! most [`MAX_PARTS`] parts and the upload size limit over their sum; an error in a
//! part after the first names it. One part is kept as a plain upload of that file.

use std::path::{Path, PathBuf};

use axum::extract::Multipart;
use futures_util::TryStreamExt;
use sha2::{Digest, Sha256};

use super::error::ApiError;
use super::upload::{Received, receive, refuse_non_bundle, safe_file_name};
use crate::ingest::discover::archive_stem;

/// Files in one upload at most.
pub const MAX_PARTS: usize = 64;
/// Where the parts are written until the last one is in (never a part's name: those
/// have no leading dot).
const STAGING: &str = ".parts";

/// A part received: its name in the bundle, size and SHA-256.
#[derive(Debug)]
struct Part {
    name: String,
    size: u64,
    sha256: String,
}

/// The file parts of `multipart`, written under `dir`: one part as `dir/<name>`, several
/// as the folder `dir/<first>-and-<n>-more/` holding them. The digest of several is the
/// SHA-256 of their `sha256sum` listing (`<sha256>  <name>\n` each, in upload order).
pub async fn receive_parts(
    mut multipart: Multipart,
    dir: &Path,
    limit: u64,
) -> Result<Received, ApiError> {
    let staging = dir.join(STAGING);
    let outcome = async {
        let mut parts: Vec<Part> = Vec::new();
        let mut used: u64 = 0;
        while let Some(field) = multipart
            .next_field()
            .await
            .map_err(|e| ApiError::bad_request(format!("the upload was cut short: {e}")))?
        {
            let Some(file_name) = field.file_name().map(str::to_string) else {
                continue;
            };
            let number = parts.len() + 1;
            // Past the first part, an error names the part (a single-file form upload
            // is answered as the same file sent alone).
            let named = |e: ApiError| {
                if number == 1 {
                    return e;
                }
                ApiError {
                    message: format!("part {number} ({file_name}): {}", e.message),
                    ..e
                }
            };
            if number > MAX_PARTS {
                return Err(named(ApiError::bad_request(format!(
                    "an upload holds at most {MAX_PARTS} files"
                ))));
            }
            // A browser names the file's type: each part is held to the API's rule.
            refuse_non_bundle(field.content_type()).map_err(named)?;
            let name = unique(&safe_file_name(&file_name), &parts);
            let stream = field.map_err(|e| e.to_string());
            let got = receive(
                Box::pin(stream),
                &staging,
                &name,
                limit.saturating_sub(used),
            )
            .await
            .map_err(|e| {
                if e.status == axum::http::StatusCode::PAYLOAD_TOO_LARGE {
                    ApiError {
                        message: format!(
                            "the upload's files are larger than the limit of {limit} bytes in all"
                        ),
                        ..e
                    }
                } else {
                    e
                }
            })
            .map_err(named)?;
            used += got.size;
            parts.push(Part {
                name,
                size: got.size,
                sha256: got.sha256,
            });
        }
        Ok(parts)
    }
    .await;
    let parts = match outcome {
        Ok(parts) => parts,
        Err(e) => {
            let _ = tokio::fs::remove_dir_all(&staging).await;
            return Err(e);
        }
    };
    let placed = place(&parts, &staging, dir).await;
    let _ = tokio::fs::remove_dir_all(&staging).await;
    placed
}

/// The parts moved into place, as one received upload.
async fn place(parts: &[Part], staging: &Path, dir: &Path) -> Result<Received, ApiError> {
    match parts {
        [] => Err(ApiError::bad_request(
            "the multipart upload has no file field",
        )),
        [one] => {
            let path = dir.join(&one.name);
            tokio::fs::rename(staging.join(&one.name), &path)
                .await
                .map_err(ApiError::storage)?;
            Ok(Received {
                path,
                size: one.size,
                sha256: one.sha256.clone(),
            })
        }
        [first, rest @ ..] => {
            let folder = safe_file_name(&format!(
                "{}-and-{}-more",
                archive_stem(&first.name),
                rest.len()
            ));
            let path: PathBuf = dir.join(folder);
            tokio::fs::rename(staging, &path)
                .await
                .map_err(ApiError::storage)?;
            Ok(Received {
                path,
                size: parts.iter().map(|p| p.size).sum(),
                sha256: digest(parts.iter().map(|p| (p.sha256.as_str(), p.name.as_str()))),
            })
        }
    }
}

/// The SHA-256 of a `sha256sum` listing of `(sha256, name)` pairs.
fn digest<'a>(parts: impl Iterator<Item = (&'a str, &'a str)>) -> String {
    let mut listing = String::new();
    for (sha256, name) in parts {
        listing.push_str(sha256);
        listing.push_str("  ");
        listing.push_str(name);
        listing.push('\n');
    }
    hex::encode(Sha256::digest(listing.as_bytes()))
}

/// `name`, or `2-name`, `3-name`… when a part already has it (the extension kept).
fn unique(name: &str, parts: &[Part]) -> String {
    let taken = |n: &str| parts.iter().any(|p| p.name == n);
    if !taken(name) {
        return name.to_string();
    }
    (2..)
        .map(|n| format!("{n}-{name}"))
        .find(|n| !taken(n))
        .unwrap_or_else(|| name.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_digest_is_that_of_the_sha256sum_listing() {
        // printf 'aa  a.log\nbb  b.log\n' | sha256sum
        let listing = "aa  a.log\nbb  b.log\n";
        assert_eq!(
            digest([("aa", "a.log"), ("bb", "b.log")].into_iter()),
            hex::encode(Sha256::digest(listing.as_bytes()))
        );
        let parts = vec![Part {
            name: "x.log".into(),
            size: 1,
            sha256: String::new(),
        }];
        assert_eq!(unique("x.log", &parts), "2-x.log");
        assert_eq!(unique("y.log", &parts), "y.log");
    }
}
