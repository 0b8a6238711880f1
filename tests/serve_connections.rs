//! `evacdoc serve` against clients that hold or guess: uploads trickled to hold the slots
//! are cut with 408; wrong tokens throttled per client address (429 with `Retry-After`)
//! and counted in one audit row per client and minute; the session cookie `Secure` over
//! HTTPS (a public `https://` URL, or a trusted proxy's `X-Forwarded-Proto`); the token
//! made only once the port is had, and printed at every start until it is used.

use std::io::{BufRead as _, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{Method, Request, StatusCode, header};
use axum::response::Response;
use evacdoc::http::routes::{Access, table};
use evacdoc::http::share::limit::RateLimit;
use evacdoc::http::upload_rate::MinRate;
use evacdoc::http::{ServeConfig, router};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tower::ServiceExt as _;

use crate::serve_api::{TOKEN, TestServer};

/// Sends `request` to the service's router as if from `peer` (through the listener).
async fn from(server: &TestServer, peer: &str, mut request: Request<Body>) -> Response {
    let peer: SocketAddr = format!("{peer}:40000").parse().unwrap();
    request.extensions_mut().insert(ConnectInfo(peer));
    router(server.service.as_ref().unwrap().state().clone())
        .oneshot(request)
        .await
        .unwrap()
}

/// `POST /login` with `token`, and more headers.
fn login(token: &str, headers: &[(&str, &str)]) -> Request<Body> {
    let mut request = Request::builder()
        .method(Method::POST)
        .uri("/login")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    request
        .body(Body::from(format!("token={token}&next=%2F")))
        .unwrap()
}

fn set_cookie(response: &Response) -> &str {
    response
        .headers()
        .get(header::SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .expect("the answer sets a cookie")
}

/// A client that sends an upload's headers, then one byte every 100 ms until the service
/// answers; the answer's status line.
async fn trickle(addr: SocketAddr) -> String {
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "POST /api/v1/analyses?name=slow.log HTTP/1.1\r\nHost: {addr}\r\n\
         Authorization: Bearer {TOKEN}\r\nContent-Type: application/octet-stream\r\n\
         Content-Length: 1000000\r\n\r\n"
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    let mut buffer = [0u8; 1024];
    let mut tick = tokio::time::interval(Duration::from_millis(100));
    loop {
        tokio::select! {
            read = stream.read(&mut buffer) => match read {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    answer.extend_from_slice(&buffer[..n]);
                    if answer.windows(2).any(|w| w == b"\r\n") {
                        break;
                    }
                }
            },
            _ = tick.tick() => {
                // Cut: the write may fail; the answer is read next.
                let _ = stream.write_all(b"x").await;
            }
        }
    }
    let text = String::from_utf8_lossy(&answer).into_owned();
    text.lines().next().unwrap_or("").to_string()
}

/// Polls `done` every 10 ms, for at most a minute.
async fn until(what: &str, mut done: impl FnMut() -> bool) {
    let started = Instant::now();
    while !done() {
        assert!(started.elapsed() < Duration::from_secs(60), "{what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trickled_uploads_are_cut_with_408_and_free_their_slots() {
    let server = TestServer::start_with(|config| {
        config.max_uploads = 4;
        config.upload_min_rate = MinRate {
            bytes_per_second: 1024,
            window: Duration::from_secs(2),
        };
    })
    .await;
    let state = server.service.as_ref().unwrap().state().clone();
    let addr = server.service.as_ref().unwrap().addr;
    let clients: Vec<_> = (0..4).map(|_| tokio::spawn(trickle(addr))).collect();
    // The four hold every upload slot...
    until("four trickling uploads took the slots", || {
        state.uploads.available_permits() == 0
    })
    .await;
    // ...until the end of their first window, when each is cut.
    for client in clients {
        let status = tokio::time::timeout(Duration::from_secs(60), client)
            .await
            .expect("a trickling upload is cut")
            .unwrap();
        assert!(status.starts_with("HTTP/1.1 408"), "{status:?}");
    }
    until("the slots are given back", || {
        state.uploads.available_permits() == 4
    })
    .await;
    // Nothing is left of them: no analysis, no partial file.
    let analyses = server.data.path().join("data/analyses");
    let left = std::fs::read_dir(&analyses).unwrap().count();
    assert_eq!(left, 0, "folders left in {}", analyses.display());
    assert!(server.get_json("/api/v1/analyses").await == serde_json::json!([]));
    // A normal upload is taken.
    let log = "2024-03-01 10:00:00.123 2231 INFO nova.compute.manager \
               [req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 - - - - -] Took 1.52 seconds to spawn\n"
        .repeat(200);
    let id = server.upload("nova-compute.log", log.into_bytes()).await;
    assert_eq!(id.len(), 36);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_wrong_logins_are_throttled_and_counted_per_minute() {
    // Ten at once, and (for the length of a test) no more.
    let server = TestServer::start_with(|config| {
        config.sign_in_limit = RateLimit {
            burst: 10,
            per_second: 1.0 / 3600.0,
        };
    })
    .await;
    let mut statuses = Vec::new();
    for attempt in 0..1000 {
        let response = from(
            &server,
            "192.0.2.7",
            login(&format!("guess-{attempt}"), &[]),
        )
        .await;
        if response.status() == StatusCode::TOO_MANY_REQUESTS {
            let wait: u64 = response.headers()[header::RETRY_AFTER]
                .to_str()
                .unwrap()
                .parse()
                .unwrap();
            assert!(wait >= 1, "Retry-After: {wait}");
            assert!(response.headers().get(header::SET_COOKIE).is_none());
        }
        statuses.push(response.status());
    }
    assert!(
        statuses[..10]
            .iter()
            .all(|s| *s == StatusCode::UNAUTHORIZED)
    );
    assert!(
        statuses[10..]
            .iter()
            .all(|s| *s == StatusCode::TOO_MANY_REQUESTS)
    );
    // Past the allowance even the right token is not looked at, by form or bearer.
    let right = from(&server, "192.0.2.7", login(TOKEN, &[])).await;
    assert_eq!(right.status(), StatusCode::TOO_MANY_REQUESTS);
    let bearer = Request::get("/api/v1/analyses")
        .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
        .body(Body::empty())
        .unwrap();
    let api = from(&server, "192.0.2.7", bearer).await;
    assert_eq!(api.status(), StatusCode::TOO_MANY_REQUESTS);
    assert!(api.headers().contains_key(header::RETRY_AFTER));

    // The refusals are counted, not written one by one: one row a minute.
    let store = server.service.as_ref().unwrap().state().store.clone();
    let log = store.audit_log(10_000).unwrap();
    let refused: Vec<_> = log
        .iter()
        .filter(|entry| entry.action == "login-refused")
        .collect();
    assert!(
        (1..=2).contains(&refused.len()),
        "{} rows for 1000 refusals",
        refused.len()
    );
    assert!(refused.iter().all(|entry| entry.target == "192.0.2.7"));
    assert_eq!(refused.iter().map(|entry| entry.count).sum::<u64>(), 10);

    // Another address signs in with the token.
    let other = from(&server, "198.51.100.2", login(TOKEN, &[])).await;
    assert_eq!(other.status(), StatusCode::SEE_OTHER);
    assert!(set_cookie(&other).starts_with("evacdoc_session="));
    // And a wrong token from elsewhere still gets 401 on every private route.
    for (n, route) in table()
        .filter(|route| route.access == Access::Private)
        .enumerate()
    {
        let uri = route
            .path
            .replace("{id}", "5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11")
            .replace(['{', '}'], "");
        let request = Request::get(&uri)
            .header(header::AUTHORIZATION, "Bearer wrong-token")
            .body(Body::empty())
            .unwrap();
        let status = from(&server, &format!("203.0.113.{}", n + 1), request)
            .await
            .status();
        if status != StatusCode::METHOD_NOT_ALLOWED {
            assert_eq!(status, StatusCode::UNAUTHORIZED, "{uri}");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn behind_a_trusted_proxy_each_forwarded_client_has_its_own_allowance() {
    let server = TestServer::start_with(|config| {
        config.trusted_proxies = vec!["10.0.0.5".parse().unwrap()];
        config.sign_in_limit = RateLimit {
            burst: 3,
            per_second: 1.0 / 3600.0,
        };
    })
    .await;
    for _ in 0..3 {
        let wrong = login("guess", &[("x-forwarded-for", "198.51.100.1")]);
        assert_eq!(
            from(&server, "10.0.0.5", wrong).await.status(),
            StatusCode::UNAUTHORIZED
        );
    }
    let more = login("guess", &[("x-forwarded-for", "198.51.100.1")]);
    assert_eq!(
        from(&server, "10.0.0.5", more).await.status(),
        StatusCode::TOO_MANY_REQUESTS
    );
    // Another client behind the same proxy is not held back by the first.
    let other = login(TOKEN, &[("x-forwarded-for", "198.51.100.2")]);
    assert_eq!(
        from(&server, "10.0.0.5", other).await.status(),
        StatusCode::SEE_OTHER
    );
    // A client that is not the proxy cannot dodge its allowance with the header.
    for n in 0..4 {
        let forged = login(
            "guess",
            &[("x-forwarded-for", &format!("198.51.100.{}", 50 + n))],
        );
        let status = from(&server, "192.0.2.9", forged).await.status();
        let expected = if n < 3 {
            StatusCode::UNAUTHORIZED
        } else {
            StatusCode::TOO_MANY_REQUESTS
        };
        assert_eq!(status, expected, "forged try {n}");
    }
    server.stop().await;
}

/// The session cookie set by signing in from `peer` with `headers`, on a service
/// configured by `adjust`.
async fn cookie_with(
    adjust: impl FnOnce(&mut ServeConfig),
    peer: &str,
    headers: &[(&str, &str)],
) -> String {
    let server = TestServer::start_with(adjust).await;
    let response = from(&server, peer, login(TOKEN, headers)).await;
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let cookie = set_cookie(&response).to_string();
    server.stop().await;
    cookie
}

fn is_secure(cookie: &str) -> bool {
    cookie.split(';').any(|part| part.trim() == "Secure")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_session_cookie_is_secure_only_when_reached_over_https() {
    let forwarded_https = [("x-forwarded-proto", "https")];
    // Plain HTTP on loopback, as by default: a Secure cookie would never come back.
    let plain = cookie_with(|_| {}, "127.0.0.1", &[]).await;
    assert!(!is_secure(&plain), "{plain}");
    assert!(plain.contains("HttpOnly") && plain.contains("SameSite=Strict"));
    // Published at an https:// address.
    let public = cookie_with(
        |config| config.public_url = Some("https://evacdoc.example.org/".parse().unwrap()),
        "127.0.0.1",
        &[],
    )
    .await;
    assert!(is_secure(&public), "{public}");
    // An http:// public address says nothing of HTTPS.
    let http_public = cookie_with(
        |config| config.public_url = Some("http://evacdoc.example.org/".parse().unwrap()),
        "127.0.0.1",
        &forwarded_https,
    )
    .await;
    assert!(!is_secure(&http_public), "{http_public}");
    // A trusted proxy that says the browser used HTTPS.
    let trust = |config: &mut ServeConfig| {
        config.trusted_proxies = vec!["10.0.0.5".parse().unwrap()];
    };
    let proxied = cookie_with(trust, "10.0.0.5", &forwarded_https).await;
    assert!(is_secure(&proxied), "{proxied}");
    // The proxy saying HTTP.
    let proxied_http = cookie_with(trust, "10.0.0.5", &[("x-forwarded-proto", "http")]).await;
    assert!(!is_secure(&proxied_http), "{proxied_http}");
    // The same header from anyone else is ignored, with or without a trusted proxy.
    let forged = cookie_with(trust, "192.0.2.50", &forwarded_https).await;
    assert!(!is_secure(&forged), "{forged}");
    let untrusted = cookie_with(|_| {}, "10.0.0.5", &forwarded_https).await;
    assert!(!is_secure(&untrusted), "{untrusted}");
}

/// `evacdoc serve` on `listen` over `data`, without `EVACDOC_TOKEN`.
fn serve_command(data: &Path, listen: &str) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_evacdoc"));
    command
        .args(["serve", "--listen", listen, "--data"])
        .arg(data)
        .env_remove("EVACDOC_TOKEN")
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    command
}

/// A started service: its process, address, and the token it printed (if any).
struct Started {
    child: Child,
    base: String,
    printed_token: Option<String>,
}

impl Drop for Started {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the service on a free port; what it printed before "serving on".
fn start_binary(data: &Path) -> Started {
    let mut child = serve_command(data, "127.0.0.1:0").spawn().unwrap();
    let mut lines = BufReader::new(child.stderr.take().unwrap()).lines();
    let mut printed_token = None;
    let base = loop {
        let line = lines.next().expect("serve printed its address").unwrap();
        if let Some(token) = line.strip_prefix("evacdoc: access token") {
            printed_token = token.rsplit(' ').next().map(str::to_string);
        }
        if let Some(rest) = line.strip_prefix("evacdoc: serving on ") {
            break rest.trim_end_matches('/').to_string();
        }
    };
    std::thread::spawn(move || for _ in lines {});
    Started {
        child,
        base,
        printed_token,
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_is_made_after_the_port_is_had_and_printed_until_used() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().join("data");
    // The port is taken: the start fails, says why, and makes no token.
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = busy.local_addr().unwrap().port();
    let failed = serve_command(&data, &format!("127.0.0.1:{port}"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&failed.stderr);
    assert!(!failed.status.success());
    assert!(
        stderr.contains(&format!("cannot listen on 127.0.0.1:{port}"))
            && stderr.contains("--listen"),
        "{stderr}"
    );
    assert!(!stderr.contains("access token"), "{stderr}");
    assert!(!data.join("token").exists());
    drop(busy);

    // The next start makes the token and prints it.
    let first = start_binary(&data);
    let token = first.printed_token.clone().expect("the token is printed");
    assert_eq!(
        std::fs::read_to_string(data.join("token")).unwrap().trim(),
        token
    );
    drop(first);
    // Nobody signed in with it: printed again.
    let second = start_binary(&data);
    assert_eq!(second.printed_token.as_deref(), Some(token.as_str()));
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap();
    let signed_in = client
        .post(format!("{}/login", second.base))
        .header("content-type", "application/x-www-form-urlencoded")
        .body(format!("token={token}&next=%2F"))
        .send()
        .await
        .unwrap();
    assert_eq!(signed_in.status(), reqwest::StatusCode::SEE_OTHER);
    drop(second);
    // Used: no longer printed, still the same token.
    let third = start_binary(&data);
    assert_eq!(third.printed_token, None);
    let api = client
        .get(format!("{}/api/v1/analyses", third.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(api.status(), reqwest::StatusCode::OK);
}
