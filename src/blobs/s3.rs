//! S3 (AWS, Ceph RGW, Swift's `s3api`, MinIO…): path-style requests signed with
//! Signature V4 ([`super::sigv4`]); a file above one part is sent as a multipart upload,
//! one part in memory at a time.

use std::fmt;
use std::io::Read;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;
use reqwest::{Client, Method, StatusCode};

use super::BlobStore;
use super::error::BlobError;
use super::key::{check_key, check_prefix, encode_path};
use super::runtime::Background;
use super::sigv4::{EMPTY_SHA256, Signer, ToSign, sha256_hex};

/// The part size of multipart uploads: 10 000 parts (S3's limit) of 16 MiB is 156 GiB.
pub const PART_SIZE: u64 = 16 << 20;

/// Where and as whom.
#[derive(Clone, PartialEq, Eq)]
pub struct S3Config {
    pub bucket: String,
    /// `http://HOST:PORT` (path-style requests: `/BUCKET/KEY`).
    pub endpoint: url::Url,
    pub region: String,
    pub access_key: String,
    pub secret_key: String,
    /// Files above this are sent in parts of this size (at least 5 MiB, S3's minimum).
    pub part_size: u64,
}

impl fmt::Debug for S3Config {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("S3Config")
            .field("bucket", &self.bucket)
            .field("endpoint", &self.endpoint.as_str())
            .field("region", &self.region)
            .field("access_key", &self.access_key)
            .finish_non_exhaustive()
    }
}

#[derive(Debug)]
struct Client3 {
    config: S3Config,
    http: Client,
}

/// An S3 bucket as a blob store.
#[derive(Debug)]
pub struct S3Blobs {
    client: Arc<Client3>,
    background: Background,
}

/// A request body: bytes and their SHA-256.
struct Payload {
    bytes: Bytes,
    sha256: String,
}

impl Payload {
    fn empty() -> Payload {
        Payload {
            bytes: Bytes::new(),
            sha256: EMPTY_SHA256.to_owned(),
        }
    }

    fn of(bytes: Vec<u8>) -> Payload {
        let sha256 = sha256_hex(&bytes);
        Payload {
            bytes: Bytes::from(bytes),
            sha256,
        }
    }
}

impl Client3 {
    /// Sends one signed request for `key` (the bucket itself when `None`).
    async fn send(
        &self,
        method: Method,
        key: Option<&str>,
        query: &[(String, String)],
        payload: Payload,
    ) -> Result<(String, reqwest::Response), BlobError> {
        let config = &self.config;
        let mut path = format!("/{}", super::key::encode(&config.bucket));
        if let Some(key) = key {
            path.push('/');
            path.push_str(&encode_path(key));
        }
        let host = match (config.endpoint.host_str(), config.endpoint.port()) {
            (Some(host), Some(port)) => format!("{host}:{port}"),
            (Some(host), None) => host.to_owned(),
            (None, _) => return Err(BlobError::Config("the S3 endpoint has no host".into())),
        };
        let amz_date = jiff::Timestamp::now()
            .strftime("%Y%m%dT%H%M%SZ")
            .to_string();
        let signer = Signer {
            access_key: &config.access_key,
            secret_key: &config.secret_key,
            region: &config.region,
        };
        let authorization = signer.authorization(&ToSign {
            method: method.as_str(),
            host: &host,
            path: &path,
            query,
            payload_sha256: &payload.sha256,
            amz_date: &amz_date,
            extra_headers: &[],
        });
        let query_text = super::sigv4::canonical_query(query);
        let url = if query_text.is_empty() {
            format!("http://{host}{path}")
        } else {
            format!("http://{host}{path}?{query_text}")
        };
        let answer = self
            .http
            .request(method.clone(), &url)
            .header("x-amz-date", &amz_date)
            .header("x-amz-content-sha256", &payload.sha256)
            .header(reqwest::header::AUTHORIZATION, authorization)
            // Sent for an empty body too: S3 refuses a PUT without it (411).
            .header(reqwest::header::CONTENT_LENGTH, payload.bytes.len())
            .body(payload.bytes)
            .send()
            .await
            .map_err(|e| BlobError::connection(method.as_str(), &url, &e))?;
        Ok((url, answer))
    }

    /// [`Client3::send`], any status but a success an error (its body's message).
    async fn expect(
        &self,
        method: Method,
        key: Option<&str>,
        query: &[(String, String)],
        payload: Payload,
    ) -> Result<reqwest::Response, BlobError> {
        let (url, answer) = self.send(method.clone(), key, query, payload).await?;
        if answer.status().is_success() {
            return Ok(answer);
        }
        Err(status_error(method.as_str(), &url, answer).await)
    }

    async fn ensure_bucket(&self) -> Result<(), BlobError> {
        let (url, answer) = self.send(Method::HEAD, None, &[], Payload::empty()).await?;
        match answer.status() {
            s if s.is_success() => Ok(()),
            StatusCode::NOT_FOUND => {
                self.expect(Method::PUT, None, &[], Payload::empty())
                    .await?;
                Ok(())
            }
            _ => Err(status_error("HEAD", &url, answer).await),
        }
    }

    async fn put_file(&self, key: String, from: std::path::PathBuf) -> Result<u64, BlobError> {
        let mut file = std::fs::File::open(&from).map_err(|e| BlobError::io(&from, e))?;
        let size = file.metadata().map_err(|e| BlobError::io(&from, e))?.len();
        let part_size = self.config.part_size.max(5 << 20);
        if size <= part_size {
            let bytes = read_part(&mut file, &from, size)?;
            self.expect(Method::PUT, Some(&key), &[], Payload::of(bytes))
                .await?;
            return Ok(size);
        }
        let created = self
            .expect(
                Method::POST,
                Some(&key),
                &[("uploads".into(), String::new())],
                Payload::empty(),
            )
            .await?;
        let text = created
            .text()
            .await
            .map_err(|e| BlobError::connection("POST", &key, &e))?;
        let upload_id = xml_text(&text, "UploadId").ok_or_else(|| BlobError::Status {
            method: "POST".into(),
            url: format!("{key}?uploads"),
            status: 200,
            message: format!("no UploadId in {}", shorten(&text)),
        })?;
        match self
            .send_parts(&key, &upload_id, &mut file, &from, size, part_size)
            .await
        {
            Ok(()) => Ok(size),
            Err(error) => {
                // Abandoned parts are billed and kept until aborted.
                let _ = self
                    .send(
                        Method::DELETE,
                        Some(&key),
                        &[("uploadId".into(), upload_id)],
                        Payload::empty(),
                    )
                    .await;
                Err(error)
            }
        }
    }

    async fn send_parts(
        &self,
        key: &str,
        upload_id: &str,
        file: &mut std::fs::File,
        from: &Path,
        size: u64,
        part_size: u64,
    ) -> Result<(), BlobError> {
        let mut etags = Vec::new();
        let mut sent = 0u64;
        while sent < size {
            let length = part_size.min(size - sent);
            let bytes = read_part(file, from, length)?;
            let number = etags.len() + 1;
            let answer = self
                .expect(
                    Method::PUT,
                    Some(key),
                    &[
                        ("partNumber".into(), number.to_string()),
                        ("uploadId".into(), upload_id.to_owned()),
                    ],
                    Payload::of(bytes),
                )
                .await?;
            let etag = answer
                .headers()
                .get(reqwest::header::ETAG)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            etags.push(etag);
            sent += length;
        }
        let mut body = String::from("<CompleteMultipartUpload>");
        for (at, etag) in etags.iter().enumerate() {
            body.push_str(&format!(
                "<Part><PartNumber>{}</PartNumber><ETag>{}</ETag></Part>",
                at + 1,
                xml_escape(etag)
            ));
        }
        body.push_str("</CompleteMultipartUpload>");
        let answer = self
            .expect(
                Method::POST,
                Some(key),
                &[("uploadId".into(), upload_id.to_owned())],
                Payload::of(body.into_bytes()),
            )
            .await?;
        // The completion may fail after its 200 has begun: the error is in the body.
        let text = answer
            .text()
            .await
            .map_err(|e| BlobError::connection("POST", key, &e))?;
        if text.contains("<Error>") {
            return Err(BlobError::Status {
                method: "POST".into(),
                url: format!("{key}?uploadId"),
                status: 200,
                message: shorten(&text),
            });
        }
        Ok(())
    }

    async fn get_to_file(
        &self,
        key: String,
        to: std::path::PathBuf,
    ) -> Result<Option<u64>, BlobError> {
        let (url, answer) = self
            .send(Method::GET, Some(&key), &[], Payload::empty())
            .await?;
        if answer.status() == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !answer.status().is_success() {
            return Err(status_error("GET", &url, answer).await);
        }
        super::swift::stream_to_file(answer, &url, &to)
            .await
            .map(Some)
    }

    async fn size(&self, key: String) -> Result<Option<u64>, BlobError> {
        let (url, answer) = self
            .send(Method::HEAD, Some(&key), &[], Payload::empty())
            .await?;
        if answer.status() == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !answer.status().is_success() {
            return Err(status_error("HEAD", &url, answer).await);
        }
        Ok(content_length(&answer))
    }

    async fn list(&self, prefix: String) -> Result<Vec<String>, BlobError> {
        let mut keys = Vec::new();
        let mut marker = String::new();
        loop {
            let mut query = vec![("prefix".to_string(), prefix.clone())];
            if !marker.is_empty() {
                query.push(("marker".into(), marker.clone()));
            }
            let answer = self
                .expect(Method::GET, None, &query, Payload::empty())
                .await?;
            let text = answer
                .text()
                .await
                .map_err(|e| BlobError::connection("GET", &prefix, &e))?;
            let document = roxmltree::Document::parse(&text).map_err(|e| BlobError::Status {
                method: "GET".into(),
                url: format!("{}?prefix={prefix}", self.config.bucket),
                status: 200,
                message: format!("not a listing: {e}"),
            })?;
            let before = keys.len();
            for node in document.descendants().filter(|n| n.has_tag_name("Key")) {
                if node.parent().is_some_and(|p| p.has_tag_name("Contents")) {
                    keys.push(node.text().unwrap_or_default().to_owned());
                }
            }
            let truncated = document
                .descendants()
                .find(|n| n.has_tag_name("IsTruncated"))
                .and_then(|n| n.text())
                == Some("true");
            match keys.last() {
                Some(last) if truncated && keys.len() > before => marker = last.clone(),
                _ => break,
            }
        }
        keys.sort();
        Ok(keys)
    }

    async fn delete(&self, key: String) -> Result<(), BlobError> {
        let (url, answer) = self
            .send(Method::DELETE, Some(&key), &[], Payload::empty())
            .await?;
        if answer.status().is_success() || answer.status() == StatusCode::NOT_FOUND {
            return Ok(());
        }
        Err(status_error("DELETE", &url, answer).await)
    }
}

/// Reads the next `length` bytes of `file` (one part).
fn read_part(file: &mut std::fs::File, from: &Path, length: u64) -> Result<Vec<u8>, BlobError> {
    let mut bytes = Vec::with_capacity(usize::try_from(length).unwrap_or(0));
    file.take(length)
        .read_to_end(&mut bytes)
        .map_err(|e| BlobError::io(from, e))?;
    if (bytes.len() as u64) < length {
        return Err(BlobError::io(
            from,
            std::io::Error::new(std::io::ErrorKind::UnexpectedEof, "the file shrank"),
        ));
    }
    Ok(bytes)
}

pub(crate) fn content_length(answer: &reqwest::Response) -> Option<u64> {
    answer
        .headers()
        .get(reqwest::header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok()?.parse().ok())
}

/// The error of a non-success answer, with the start of its body.
pub(crate) async fn status_error(method: &str, url: &str, answer: reqwest::Response) -> BlobError {
    let status = answer.status().as_u16();
    let text = answer.text().await.unwrap_or_default();
    BlobError::Status {
        method: method.to_owned(),
        url: url.to_owned(),
        status,
        message: shorten(&text),
    }
}

pub(crate) fn shorten(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_owned(),
    }
}

/// The text of the first element named `tag`.
fn xml_text(text: &str, tag: &str) -> Option<String> {
    let document = roxmltree::Document::parse(text).ok()?;
    let node = document.descendants().find(|n| n.has_tag_name(tag))?;
    node.text().map(str::to_owned)
}

fn xml_escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

impl S3Blobs {
    /// The bucket of `config`, made when missing.
    pub fn open(config: S3Config) -> Result<S3Blobs, BlobError> {
        let http = Client::builder()
            .connect_timeout(std::time::Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| BlobError::Config(format!("HTTP client: {e}")))?;
        let blobs = S3Blobs {
            client: Arc::new(Client3 { config, http }),
            background: Background::new("s3")?,
        };
        let client = blobs.client.clone();
        blobs
            .background
            .wait(async move { client.ensure_bucket().await })?;
        Ok(blobs)
    }
}

impl BlobStore for S3Blobs {
    fn describe(&self) -> String {
        let config = &self.client.config;
        format!(
            "s3://{}?endpoint={}&region={}",
            config.bucket,
            config.endpoint.as_str().trim_end_matches('/'),
            config.region
        )
    }

    fn put_file(&self, key: &str, from: &Path) -> Result<u64, BlobError> {
        check_key(key)?;
        let (client, key, from) = (self.client.clone(), key.to_owned(), from.to_owned());
        self.background
            .wait(async move { client.put_file(key, from).await })
    }

    fn get_to_file(&self, key: &str, to: &Path) -> Result<Option<u64>, BlobError> {
        check_key(key)?;
        let (client, key, to) = (self.client.clone(), key.to_owned(), to.to_owned());
        self.background
            .wait(async move { client.get_to_file(key, to).await })
    }

    fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        check_key(key)?;
        let (client, key) = (self.client.clone(), key.to_owned());
        self.background.wait(async move { client.size(key).await })
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, BlobError> {
        check_prefix(prefix)?;
        let (client, prefix) = (self.client.clone(), prefix.to_owned());
        self.background
            .wait(async move { client.list(prefix).await })
    }

    fn delete(&self, key: &str) -> Result<(), BlobError> {
        check_key(key)?;
        let (client, key) = (self.client.clone(), key.to_owned());
        self.background
            .wait(async move { client.delete(key).await })
    }
}
