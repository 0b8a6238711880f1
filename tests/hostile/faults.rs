//! The real service under faults: a full disk during an upload, bad requests, slow
//! clients, bad and expired credentials: clear 4xx (507 for the disk), never a 500,
//! nothing half-written left, the service answering throughout.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use evacdoc::store::{Session, SqliteStore, Store};
use serde_json::Value;

use super::corpus::{ENGINE_LOG, gzip};
use super::server::{Server, TOKEN, serve};
use super::snapshot;

fn folders() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let root = tempfile::tempdir().unwrap();
    let (data, tmp) = (root.path().join("data"), root.path().join("tmp"));
    std::fs::create_dir(&tmp).unwrap();
    (root, data, tmp)
}

/// Bytes that do not compress: a gzip of them is as large.
fn noise(len: usize) -> Vec<u8> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    (0..len)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state as u8
        })
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_full_disk_during_an_upload_answers_507_and_keeps_nothing() {
    let (_root, data, tmp) = folders();
    // Files of the server may not grow past 1 MiB (ulimit counts 512-byte blocks);
    // SIGXFSZ ignored, so a write past it fails with EFBIG as on a full disk.
    let server = serve(
        &data,
        &tmp,
        &["--jobs", "1"],
        Some(r#"trap '' XFSZ; ulimit -f 2048; exec "$@""#),
    );
    let before = snapshot(&data);
    let (status, answer) = server.upload("big.tar.gz", noise(3 << 20)).await;
    assert_eq!(status, 507, "{answer}");
    assert_eq!(answer["error"], "insufficient_storage", "{answer}");
    assert!(
        answer["message"].as_str().unwrap().contains("not kept"),
        "{answer}"
    );
    server.assert_healthy().await;
    let after = snapshot(&data);
    assert!(
        after.keys().all(|path| !path.ends_with(".part")),
        "{after:#?}"
    );
    assert!(
        std::fs::read_dir(data.join("analyses"))
            .unwrap()
            .next()
            .is_none()
    );
    assert_eq!(
        after.keys().filter(|p| p.starts_with("analyses/")).count(),
        before.keys().filter(|p| p.starts_with("analyses/")).count()
    );
    assert_eq!(
        server.get_json("/api/v1/analyses").await,
        serde_json::json!([])
    );
    // A bundle that fits is still taken and analysed.
    let (status, answer) = server.upload("small.log.gz", gzip(ENGINE_LOG)).await;
    assert_eq!(status, 202, "{answer}");
    let view = server.wait_ended(answer["id"].as_str().unwrap()).await;
    assert_eq!(view["status"], "done", "{view}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_requests_and_credentials_get_clear_4xx_never_500() {
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &["--max-upload", "1000000"], None);
    let client = &server.client;
    let url = server.url("/api/v1/analyses");
    let expect = |what: &str, response: reqwest::Response, status: u16, code: &str| {
        let got = response.status().as_u16();
        let what = what.to_string();
        let code = code.to_string();
        async move {
            let body: Value = response.json().await.unwrap_or(Value::Null);
            assert_eq!(got, status, "{what}: {body}");
            assert_eq!(body["error"], code.as_str(), "{what}: {body}");
            assert!(!body["message"].as_str().unwrap_or("").is_empty(), "{what}");
        }
    };
    let post = || client.post(&url).bearer_auth(TOKEN);

    let r = post().body(noise(2_000_000)).send().await.unwrap();
    expect("too large", r, 413, "too_large").await;
    // Wrong content types (415), and multipart bodies that are not whole (400).
    let multipart = "multipart/form-data; boundary=XyZ";
    let part = "--XyZ\r\nContent-Disposition: form-data; name=";
    let cut_short = format!("{part}\"file\"; filename=\"a.log\"\r\n\r\nunterminated");
    let no_file = format!("{part}\"note\"\r\n\r\nhello\r\n--XyZ--\r\n");
    for (what, content_type, body) in [
        ("json", "application/json", r#"{"not": "a bundle"}"#),
        ("html", "text/html", "<html>"),
        (
            "multipart without a boundary",
            "multipart/form-data",
            "no boundary",
        ),
        ("multipart cut short", multipart, &cut_short),
        ("multipart without a file", multipart, &no_file),
        (
            "multipart garbage",
            multipart,
            "garbage that is no multipart at all",
        ),
    ] {
        let r = post()
            .header("content-type", content_type)
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        if content_type.starts_with("multipart/") {
            expect(what, r, 400, "bad_request").await;
        } else {
            expect(what, r, 415, "unsupported_media_type").await;
        }
    }

    // Credentials: wrong, malformed, unknown and expired sessions.
    let list = server.url("/api/v1/analyses");
    for (what, header) in [
        ("wrong token", "Bearer not-the-token"),
        ("empty bearer", "Bearer "),
        ("basic", "Basic dXNlcjpwYXNz"),
        ("garbage", "\u{1}\u{2}"),
    ] {
        let mut request = client.get(&list);
        if let Ok(value) = reqwest::header::HeaderValue::from_str(header) {
            request = request.header("authorization", value);
        }
        let r = request.send().await.unwrap();
        expect(what, r, 401, "unauthorized").await;
    }
    let store = SqliteStore::open(&data).unwrap();
    store
        .create_session(&Session {
            id_hash: sha256_hex("expired-session-secret"),
            csrf: "c".repeat(64),
            created_at: "2020-01-01T00:00:00Z".into(),
            expires_at: "2020-01-01T12:00:00Z".into(),
        })
        .unwrap();
    for (what, cookie) in [
        ("expired session", "evacdoc_session=expired-session-secret"),
        ("unknown session", "evacdoc_session=never-made"),
        ("empty session", "evacdoc_session="),
    ] {
        let r = client
            .get(&list)
            .header("cookie", cookie)
            .send()
            .await
            .unwrap();
        expect(what, r, 401, "unauthorized").await;
    }
    // An expired session cannot post either (whatever its CSRF token).
    let r = client
        .post(&url)
        .header("cookie", "evacdoc_session=expired-session-secret")
        .header("x-csrf-token", "c".repeat(64))
        .body(gzip(ENGINE_LOG))
        .send()
        .await
        .unwrap();
    expect("expired session upload", r, 401, "unauthorized").await;
    server.assert_healthy().await;
    assert!(
        std::fs::read_dir(data.join("analyses"))
            .unwrap()
            .next()
            .is_none()
    );
}

fn sha256_hex(secret: &str) -> String {
    use sha2::Digest as _;
    hex::encode(sha2::Sha256::digest(secret.as_bytes()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_clients_are_cut_off_and_others_still_answered() {
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &["--header-timeout", "2"], None);
    let addr = server.base.trim_start_matches("http://").to_string();
    // Thirty clients trickle a request's headers a byte at a time.
    let started = Instant::now();
    let slow: Vec<_> = (0..30)
        .map(|_| {
            let addr = addr.clone();
            std::thread::spawn(move || {
                let mut stream = TcpStream::connect(&addr).unwrap();
                stream.set_read_timeout(Some(Duration::from_millis(100))).unwrap();
                let request = b"GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
                for byte in request.iter().cycle().take(400) {
                    if stream.write_all(&[*byte]).is_err() {
                        return Instant::now();
                    }
                    let mut buf = [0u8; 512];
                    // Anything read (a 408, the end of the stream) is the cut.
                    match stream.read(&mut buf) {
                        Err(e)
                            if e.kind() == std::io::ErrorKind::WouldBlock
                                || e.kind() == std::io::ErrorKind::TimedOut => {}
                        _ => return Instant::now(),
                    }
                }
                panic!("a slow client was never cut off");
            })
        })
        .collect();
    // Meanwhile others are answered at once.
    for _ in 0..10 {
        let asked = Instant::now();
        server.assert_healthy().await;
        assert!(
            asked.elapsed() < Duration::from_secs(1),
            "{:?}",
            asked.elapsed()
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    for client in slow {
        let cut = client.join().unwrap();
        let after = cut.duration_since(started);
        assert!(
            after >= Duration::from_millis(1500) && after < Duration::from_secs(8),
            "cut off after {after:?}"
        );
    }
    server.assert_healthy().await;
}

/// `POST /api/v1/analyses` of a small good log: the answer.
async fn upload_small(server: &Server) -> reqwest::Response {
    server
        .client
        .post(server.url("/api/v1/analyses?name=a.log.gz"))
        .bearer_auth(TOKEN)
        .body(gzip(ENGINE_LOG))
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn uploads_past_capacity_get_429_or_503_with_retry_after() {
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &["--max-uploads", "1"], None);
    // One upload under way holds the only slot.
    let url = server.url("/api/v1/analyses?name=endless.tar.gz");
    let endless = tokio::spawn(async move {
        use futures_util::StreamExt as _;
        let chunks =
            futures_util::stream::once(async { Ok::<_, std::io::Error>(vec![0x1f; 64 << 10]) })
                .chain(futures_util::stream::pending());
        let _ = reqwest::Client::new()
            .post(url)
            .bearer_auth(TOKEN)
            .body(reqwest::Body::wrap_stream(chunks))
            .send()
            .await;
    });
    let started = Instant::now();
    while !snapshot(&data).keys().any(|p| p.ends_with(".part")) {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the upload never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let response = upload_small(&server).await;
    assert_eq!(response.status(), 429);
    assert_eq!(response.headers()["retry-after"], "5");
    server.assert_healthy().await;
    endless.abort();

    // No room in the queue: 503.
    let (_root, data, tmp) = folders();
    let server = serve(&data, &tmp, &["--max-queued", "0"], None);
    let response = upload_small(&server).await;
    assert_eq!(response.status(), 503);
    assert_eq!(response.headers()["retry-after"], "30");
    let body: Value = response.json().await.unwrap();
    assert_eq!(body["error"], "busy", "{body}");
    server.assert_healthy().await;
}
