#![no_main]
//! Any request to the service's whole router, in process (no network): a method, a
//! target (path and query), headers chosen by two bytes, a body. The service runs once
//! per fuzzing process over a store in a temporary folder, with one analysis (a real
//! Masakari log) done and searchable, and a signed-in browser session. Every request is
//! answered, never by a panic, and never with a 5xx other than 503 (busy) and 507 (disk
//! full): a 500 is a bug the fuzzer found.
//!
//! The input: byte 0 picks the method; byte 1 the credentials (bits 0-1: none, the
//! token, the session cookie with its CSRF header, a wrong token) and the content type
//! (bits 2-4); then the target up to the first newline, then the body. `{id}` in the
//! target or the body stands for the analysis's id, `{csrf}` for the session's CSRF token.
use std::path::Path;
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use axum::body::{Body, to_bytes};
use axum::http::{HeaderValue, Method, Request, StatusCode, Uri, header};
use evacdoc::http::{ServeConfig, Service, router, start};
use tower::ServiceExt as _;

const TOKEN: &str = "fuzz-router-token-0123456789";
const LOG: &str = "../samples/parsers/oslo/masakari_host_failure_zed.log";
const METHODS: [Method; 7] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::DELETE,
    Method::PATCH,
    Method::HEAD,
    Method::OPTIONS,
];
const CONTENT_TYPES: [Option<&str>; 8] = [
    None,
    Some("application/octet-stream"),
    Some("application/x-www-form-urlencoded"),
    Some("application/json"),
    Some("multipart/form-data; boundary=X"),
    Some("text/plain"),
    Some("application/gzip"),
    Some("multipart/form-data"),
];

/// The service, its router, the analysis and the browser session every input reuses.
struct Fixture {
    runtime: tokio::runtime::Runtime,
    app: axum::Router,
    id: String,
    cookie: String,
    csrf: String,
    /// Analyses the fuzzer uploaded, deleted once their job has ended (the store stays
    /// small however long the fuzzer runs).
    uploads: std::sync::Mutex<Vec<String>>,
    _service: Service,
    _data: tempfile::TempDir,
}

async fn call(app: &axum::Router, request: Request<Body>) -> (StatusCode, Vec<u8>) {
    let response = app
        .clone()
        .oneshot(request)
        .await
        .expect("the router answers");
    let status = response.status();
    let headers = response.headers().clone();
    let body = to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap_or_else(|e| panic!("{status}: the body broke off: {e} ({headers:?})"));
    (status, body.to_vec())
}

fn json(body: &[u8]) -> serde_json::Value {
    serde_json::from_slice(body).unwrap_or_default()
}

impl Fixture {
    fn new() -> Fixture {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        let data = tempfile::tempdir().expect("a temporary folder");
        let mut config = ServeConfig::new(
            "127.0.0.1:0".parse().expect("an address"),
            data.path().join("data"),
        );
        config.token = Some(TOKEN.to_string());
        config.jobs.workers = 1;
        config.max_queued = 8;
        config.max_upload = 1 << 20;
        let service = runtime.block_on(start(config)).expect("the service starts");
        let app = router(service.state().clone());
        let (id, cookie, csrf) = runtime.block_on(prepare(&app));
        Fixture {
            runtime,
            app,
            id,
            cookie,
            csrf,
            uploads: std::sync::Mutex::new(Vec::new()),
            _service: service,
            _data: data,
        }
    }

    /// Deletes the uploads whose jobs have ended (a running one answers 409).
    async fn sweep(&self, created: Option<String>) {
        let mut uploads = self.uploads.lock().expect("the uploads' list").clone();
        uploads.extend(created);
        let mut kept = Vec::new();
        for id in uploads {
            let (status, _) = call(
                &self.app,
                bearer(Method::DELETE, &format!("/api/v1/analyses/{id}")),
            )
            .await;
            if status == StatusCode::CONFLICT {
                kept.push(id);
            }
        }
        *self.uploads.lock().expect("the uploads' list") = kept;
    }
}

fn bearer(method: Method, uri: &str) -> Request<Body> {
    Request::builder()
        .method(method)
        .uri(uri)
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .expect("a request")
}

/// Uploads the log and waits until it is analysed and indexed; signs a browser in.
async fn prepare(app: &axum::Router) -> (String, String, String) {
    let log =
        std::fs::read(Path::new(env!("CARGO_MANIFEST_DIR")).join(LOG)).expect("the sample log");
    let mut upload = bearer(Method::POST, "/api/v1/analyses?name=masakari-engine.log");
    *upload.body_mut() = Body::from(log);
    upload.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/octet-stream"),
    );
    let (status, body) = call(app, upload).await;
    assert_eq!(
        status,
        StatusCode::ACCEPTED,
        "{}",
        String::from_utf8_lossy(&body)
    );
    let id = json(&body)["id"].as_str().expect("an id").to_string();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let (_, body) = call(app, bearer(Method::GET, &format!("/api/v1/analyses/{id}"))).await;
        let row = json(&body);
        if row["status"] == "done" && row["index"]["state"] == "done" {
            break;
        }
        assert_ne!(row["status"], "failed", "{row}");
        assert!(
            Instant::now() < deadline,
            "the fixture's analysis is not done: {row}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let login = Request::post("/login")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("token={TOKEN}&next=%2F")))
        .expect("a request");
    let response = app
        .clone()
        .oneshot(login)
        .await
        .expect("the router answers");
    let cookie = response.headers()[header::SET_COOKIE]
        .to_str()
        .expect("a cookie")
        .split(';')
        .next()
        .expect("a cookie")
        .to_string();
    let home = Request::get("/")
        .header(header::COOKIE, &cookie)
        .body(Body::empty())
        .expect("a request");
    let (_, page) = call(app, home).await;
    let page = String::from_utf8_lossy(&page);
    let marker = "<meta name=\"csrf-token\" content=\"";
    let at = page.find(marker).expect("the CSRF token") + marker.len();
    let csrf = page[at..].chars().take_while(|c| *c != '"').collect();
    (id, cookie, csrf)
}

fn fixture() -> &'static Fixture {
    static FIXTURE: OnceLock<Fixture> = OnceLock::new();
    FIXTURE.get_or_init(Fixture::new)
}

/// The request `data` describes, or none when it is not one a client could send.
fn request(fixture: &Fixture, data: &[u8]) -> Option<Request<Body>> {
    let (&[method, flags], rest) = data.split_first_chunk::<2>()?;
    let method = METHODS[usize::from(method) % METHODS.len()].clone();
    let (target, body) = match rest.iter().position(|b| *b == b'\n') {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => (rest, &[][..]),
    };
    let fill = |text: &str| {
        text.replace("{id}", &fixture.id)
            .replace("{csrf}", &fixture.csrf)
    };
    let target = fill(std::str::from_utf8(target).ok()?);
    let target = if target.starts_with('/') {
        target
    } else {
        format!("/{target}")
    };
    // Signing out would end the session every later input uses.
    if target.starts_with("/logout") {
        return None;
    }
    // Deleting the analysis would leave nothing to search.
    if method == Method::DELETE && target.contains(&fixture.id) {
        return None;
    }
    let uri = Uri::try_from(target).ok()?;
    let mut builder = Request::builder().method(method).uri(uri);
    builder = match flags & 0b11 {
        1 => builder.header(header::AUTHORIZATION, format!("Bearer {TOKEN}")),
        2 => builder
            .header(header::COOKIE, &fixture.cookie)
            .header("x-csrf-token", &fixture.csrf),
        3 => builder.header(header::AUTHORIZATION, "Bearer not-the-token"),
        _ => builder,
    };
    if let Some(kind) = CONTENT_TYPES[usize::from(flags >> 2) % CONTENT_TYPES.len()] {
        builder = builder.header(header::CONTENT_TYPE, kind);
    }
    let body = match std::str::from_utf8(body) {
        Ok(text) => Body::from(fill(text)),
        Err(_) => Body::from(body.to_vec()),
    };
    builder.body(body).ok()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let fixture = fixture();
    let Some(request) = request(fixture, data) else {
        return;
    };
    let target = request.uri().to_string();
    let method = request.method().clone();
    let (status, body) = fixture.runtime.block_on(call(&fixture.app, request));
    assert!(
        !status.is_server_error()
            || status == StatusCode::SERVICE_UNAVAILABLE
            || status == StatusCode::INSUFFICIENT_STORAGE,
        "{method} {target}: {status} {}",
        String::from_utf8_lossy(&body)
    );
    let created = (status == StatusCode::ACCEPTED)
        .then(|| json(&body)["id"].as_str().map(str::to_string))
        .flatten();
    fixture.runtime.block_on(fixture.sweep(created));
});
