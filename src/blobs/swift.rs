//! Swift (and Ceph RGW's Swift API): plain PUT/GET/HEAD/DELETE of objects in one
//! container, a file above Swift's single-object limit stored as segments in
//! `CONTAINER_segments` under a static large object (SLO) manifest; each segment streamed
//! from its range of the file.

use std::path::Path;
use std::sync::Arc;

use reqwest::{Client, Method, StatusCode};
use tokio::io::{AsyncReadExt as _, AsyncSeekExt as _, AsyncWriteExt as _};

use super::BlobStore;
use super::error::BlobError;
use super::key::{check_key, check_prefix, encode, encode_path};
use super::runtime::Background;
use super::s3::{content_length, shorten, status_error};
use super::swift_auth::{SignIn, Signed, SwiftAuth};

/// Files above this are stored as an SLO: Swift's `max_file_size` is 5 GiB (+ 2 bytes).
pub const SLO_ABOVE: u64 = 5 << 30;
/// The segment size of an SLO (1 000 segments, Swift's default limit, is 1 000 GiB).
pub const SEGMENT_SIZE: u64 = 1 << 30;

/// Which container, how to sign in, and where large objects begin.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SwiftConfig {
    pub container: String,
    pub auth: SwiftAuth,
    pub slo_above: u64,
    pub segment_size: u64,
}

impl SwiftConfig {
    pub fn new(container: String, auth: SwiftAuth) -> SwiftConfig {
        SwiftConfig {
            container,
            auth,
            slo_above: SLO_ABOVE,
            segment_size: SEGMENT_SIZE,
        }
    }

    fn segments(&self) -> String {
        format!("{}_segments", self.container)
    }
}

#[derive(Debug)]
struct Session {
    config: SwiftConfig,
    http: Client,
    sign_in: SignIn,
    current: std::sync::RwLock<Signed>,
    /// One renewal at a time when several requests find the token stale together.
    renewing: tokio::sync::Mutex<()>,
}

/// A request body that can be made again (after a 401): a range of a file, or bytes.
#[derive(Debug, Clone)]
enum Body {
    Empty,
    Bytes(Vec<u8>),
    Range {
        path: std::path::PathBuf,
        start: u64,
        length: u64,
    },
}

impl Body {
    async fn make(&self) -> Result<(reqwest::Body, u64), BlobError> {
        match self {
            Body::Empty => Ok((reqwest::Body::from(Vec::new()), 0)),
            Body::Bytes(bytes) => Ok((reqwest::Body::from(bytes.clone()), bytes.len() as u64)),
            Body::Range {
                path,
                start,
                length,
            } => {
                let mut file = tokio::fs::File::open(path)
                    .await
                    .map_err(|e| BlobError::io(path, e))?;
                file.seek(std::io::SeekFrom::Start(*start))
                    .await
                    .map_err(|e| BlobError::io(path, e))?;
                let stream =
                    tokio_util::io::ReaderStream::with_capacity(file.take(*length), 256 << 10);
                Ok((reqwest::Body::wrap_stream(stream), *length))
            }
        }
    }
}

impl Session {
    fn signed(&self) -> Signed {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// A token renewed when it was `refused` or is about to expire.
    async fn token(&self, refused: Option<&str>) -> Result<Signed, BlobError> {
        let signed = self.signed();
        if refused.is_none() && !signed.expiring() {
            return Ok(signed);
        }
        let _one = self.renewing.lock().await;
        let now = self.signed();
        // Another request may have renewed it while this one waited.
        if !now.expiring() && refused != Some(now.token.as_str()) {
            return Ok(now);
        }
        let fresh = self.sign_in.signed(refused).await?;
        *self.current.write().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
        Ok(fresh)
    }

    /// Sends `method` to `path` (`container[/key]`, encoded) with the token; after a 401,
    /// signs in again and sends it once more.
    async fn send(
        &self,
        method: Method,
        path: &str,
        query: &str,
        headers: &[(&str, String)],
        body: &Body,
    ) -> Result<(String, reqwest::Response), BlobError> {
        let mut refused: Option<String> = None;
        loop {
            let signed = self.token(refused.as_deref()).await?;
            let mut url = format!("{}/{path}", signed.storage_url);
            if !query.is_empty() {
                url.push('?');
                url.push_str(query);
            }
            let (content, length) = body.make().await?;
            let mut request = self
                .http
                .request(method.clone(), &url)
                .header("X-Auth-Token", &signed.token)
                .header(reqwest::header::CONTENT_LENGTH, length);
            for (name, value) in headers {
                request = request.header(*name, value);
            }
            let answer = request
                .body(content)
                .send()
                .await
                .map_err(|e| BlobError::connection(method.as_str(), &url, &e))?;
            if answer.status() == StatusCode::UNAUTHORIZED && refused.is_none() {
                refused = Some(signed.token);
                continue;
            }
            return Ok((url, answer));
        }
    }

    async fn expect(
        &self,
        method: Method,
        path: &str,
        query: &str,
        headers: &[(&str, String)],
        body: &Body,
    ) -> Result<reqwest::Response, BlobError> {
        let (url, answer) = self
            .send(method.clone(), path, query, headers, body)
            .await?;
        if answer.status().is_success() {
            return Ok(answer);
        }
        Err(status_error(method.as_str(), &url, answer).await)
    }

    fn object(&self, key: &str) -> String {
        format!("{}/{}", encode(&self.config.container), encode_path(key))
    }

    async fn ensure_containers(&self) -> Result<(), BlobError> {
        for container in [self.config.container.clone(), self.config.segments()] {
            self.expect(Method::PUT, &encode(&container), "", &[], &Body::Empty)
                .await?;
        }
        Ok(())
    }

    async fn put_file(&self, key: String, from: std::path::PathBuf) -> Result<u64, BlobError> {
        let size = tokio::fs::metadata(&from)
            .await
            .map_err(|e| BlobError::io(&from, e))?
            .len();
        if size <= self.config.slo_above {
            let body = Body::Range {
                path: from,
                start: 0,
                length: size,
            };
            self.expect(Method::PUT, &self.object(&key), "", &[], &body)
                .await?;
            return Ok(size);
        }
        // Segments named by this upload, so a rewrite never mixes two uploads' segments.
        let upload = uuid::Uuid::new_v4().simple().to_string();
        let segment_size = self.config.segment_size.max(1);
        let mut manifest = Vec::new();
        let mut start = 0u64;
        while start < size {
            let length = segment_size.min(size - start);
            let name = format!("{key}/{upload}/{:08}", manifest.len() + 1);
            let body = Body::Range {
                path: from.clone(),
                start,
                length,
            };
            let path = format!("{}/{}", encode(&self.config.segments()), encode_path(&name));
            let answer = self.expect(Method::PUT, &path, "", &[], &body).await?;
            let etag = answer
                .headers()
                .get(reqwest::header::ETAG)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .trim_matches('"')
                .to_owned();
            manifest.push(serde_json::json!({
                "path": format!("/{}/{name}", self.config.segments()),
                "etag": etag,
                "size_bytes": length,
            }));
            start += length;
        }
        let body = Body::Bytes(serde_json::Value::Array(manifest).to_string().into_bytes());
        self.expect(
            Method::PUT,
            &self.object(&key),
            "multipart-manifest=put",
            &[],
            &body,
        )
        .await?;
        Ok(size)
    }

    async fn get_to_file(
        &self,
        key: String,
        to: std::path::PathBuf,
    ) -> Result<Option<u64>, BlobError> {
        let (url, answer) = self
            .send(Method::GET, &self.object(&key), "", &[], &Body::Empty)
            .await?;
        if answer.status() == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !answer.status().is_success() {
            return Err(status_error("GET", &url, answer).await);
        }
        stream_to_file(answer, &url, &to).await.map(Some)
    }

    async fn head(&self, key: &str) -> Result<Option<reqwest::Response>, BlobError> {
        let (url, answer) = self
            .send(Method::HEAD, &self.object(key), "", &[], &Body::Empty)
            .await?;
        if answer.status() == StatusCode::NOT_FOUND {
            return Ok(None);
        }
        if !answer.status().is_success() {
            return Err(status_error("HEAD", &url, answer).await);
        }
        Ok(Some(answer))
    }

    async fn list(&self, prefix: String) -> Result<Vec<String>, BlobError> {
        let mut keys: Vec<String> = Vec::new();
        loop {
            let mut query = format!("format=json&prefix={}", encode(&prefix));
            if let Some(last) = keys.last() {
                query.push_str(&format!("&marker={}", encode(last)));
            }
            let container = encode(&self.config.container);
            let answer = self
                .expect(Method::GET, &container, &query, &[], &Body::Empty)
                .await?;
            if answer.status() == StatusCode::NO_CONTENT {
                break;
            }
            let text = answer
                .text()
                .await
                .map_err(|e| BlobError::connection("GET", &container, &e))?;
            let entries: Vec<serde_json::Value> =
                serde_json::from_str(&text).map_err(|e| BlobError::Status {
                    method: "GET".into(),
                    url: format!("{container}?{query}"),
                    status: 200,
                    message: format!("not a listing ({e}): {}", shorten(&text)),
                })?;
            if entries.is_empty() {
                break;
            }
            keys.extend(
                entries
                    .iter()
                    .filter_map(|e| e.get("name")?.as_str().map(str::to_owned)),
            );
        }
        keys.sort();
        Ok(keys)
    }

    async fn delete(&self, key: String) -> Result<(), BlobError> {
        let Some(head) = self.head(&key).await? else {
            return Ok(());
        };
        let large = head
            .headers()
            .get("X-Static-Large-Object")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("true"));
        let query = if large {
            "multipart-manifest=delete"
        } else {
            ""
        };
        let headers = [("Accept", "application/json".to_owned())];
        let (url, answer) = self
            .send(
                Method::DELETE,
                &self.object(&key),
                query,
                &headers,
                &Body::Empty,
            )
            .await?;
        if answer.status() == StatusCode::NOT_FOUND {
            return Ok(());
        }
        if !answer.status().is_success() {
            return Err(status_error("DELETE", &url, answer).await);
        }
        if large {
            // The bulk delete answers 200 at once; its outcome is in the body.
            let text = answer.text().await.unwrap_or_default();
            let outcome: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
            let status = outcome["Response Status"].as_str().unwrap_or("");
            if !status.starts_with("200") {
                return Err(BlobError::Status {
                    method: "DELETE".into(),
                    url,
                    status: 200,
                    message: shorten(&text),
                });
            }
        }
        Ok(())
    }
}

/// Writes the body of `answer` to `to` through a temporary file beside it, renamed
/// when whole; a body shorter than its `Content-Length` is an error.
pub(crate) async fn stream_to_file(
    mut answer: reqwest::Response,
    url: &str,
    to: &Path,
) -> Result<u64, BlobError> {
    let expected = content_length(&answer);
    let folder = to.parent().unwrap_or(Path::new("."));
    super::file::make_private_dir(folder)?;
    let temporary = tempfile::Builder::new()
        .prefix(".blob-")
        .suffix(".tmp")
        .tempfile_in(folder)
        .map_err(|e| BlobError::io(folder, e))?;
    let handle = temporary
        .as_file()
        .try_clone()
        .map_err(|e| BlobError::io(temporary.path(), e))?;
    let mut out = tokio::fs::File::from_std(handle);
    let mut written = 0u64;
    while let Some(chunk) = answer
        .chunk()
        .await
        .map_err(|e| BlobError::connection("GET", url, &e))?
    {
        out.write_all(&chunk)
            .await
            .map_err(|e| BlobError::io(temporary.path(), e))?;
        written += chunk.len() as u64;
    }
    out.flush()
        .await
        .map_err(|e| BlobError::io(temporary.path(), e))?;
    out.sync_all()
        .await
        .map_err(|e| BlobError::io(temporary.path(), e))?;
    if expected.is_some_and(|n| n != written) {
        return Err(BlobError::Connection {
            method: "GET".into(),
            url: url.to_owned(),
            message: format!("{written} of {} bytes received", expected.unwrap_or(0)),
        });
    }
    temporary
        .persist(to)
        .map_err(|e| BlobError::io(to, e.error))?;
    Ok(written)
}

/// A Swift container as a blob store.
#[derive(Debug)]
pub struct SwiftBlobs {
    session: Arc<Session>,
    background: Background,
}

impl SwiftBlobs {
    /// Signs in and makes the container (and its segments' container) when missing.
    pub fn open(config: SwiftConfig) -> Result<SwiftBlobs, BlobError> {
        let background = Background::new("swift")?;
        let http = Client::builder()
            .connect_timeout(std::time::Duration::from_secs(5))
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| BlobError::Config(format!("HTTP client: {e}")))?;
        let session = background.wait(async move {
            let (sign_in, signed) = SignIn::start(&config.auth, &http).await?;
            let session = Session {
                config,
                http,
                sign_in,
                current: std::sync::RwLock::new(signed),
                renewing: tokio::sync::Mutex::new(()),
            };
            session.ensure_containers().await?;
            Ok(Arc::new(session))
        })?;
        Ok(SwiftBlobs {
            session,
            background,
        })
    }
}

impl BlobStore for SwiftBlobs {
    fn describe(&self) -> String {
        let config = &self.session.config;
        match &config.auth {
            SwiftAuth::Cloud { cloud, .. } => format!("swift://{}?cloud={cloud}", config.container),
        }
    }

    fn put_file(&self, key: &str, from: &Path) -> Result<u64, BlobError> {
        check_key(key)?;
        let (session, key, from) = (self.session.clone(), key.to_owned(), from.to_owned());
        self.background
            .wait(async move { session.put_file(key, from).await })
    }

    fn get_to_file(&self, key: &str, to: &Path) -> Result<Option<u64>, BlobError> {
        check_key(key)?;
        let (session, key, to) = (self.session.clone(), key.to_owned(), to.to_owned());
        self.background
            .wait(async move { session.get_to_file(key, to).await })
    }

    fn size(&self, key: &str) -> Result<Option<u64>, BlobError> {
        check_key(key)?;
        let (session, key) = (self.session.clone(), key.to_owned());
        self.background
            .wait(async move { Ok(session.head(&key).await?.and_then(|a| content_length(&a))) })
    }

    fn list(&self, prefix: &str) -> Result<Vec<String>, BlobError> {
        check_prefix(prefix)?;
        let (session, prefix) = (self.session.clone(), prefix.to_owned());
        self.background
            .wait(async move { session.list(prefix).await })
    }

    fn delete(&self, key: &str) -> Result<(), BlobError> {
        check_key(key)?;
        let (session, key) = (self.session.clone(), key.to_owned());
        self.background
            .wait(async move { session.delete(key).await })
    }
}
