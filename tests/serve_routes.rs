//! Every route of the service, walked from its route table: private routes refuse
//! requests without valid credentials, pages send strangers to sign in, share routes
//! answer 404 to unknown tokens, and every answer carries the security headers.

use axum::body::Body;
use axum::http::{Method, Request, Response, StatusCode, header};
use evacdoc::http::auth::SESSION_COOKIE;
use evacdoc::http::router;
use evacdoc::http::routes::{Access, table};
use evacdoc::http::share::limit::RateLimit;
use tower::ServiceExt as _;

use crate::serve_api::{TOKEN, TestServer};

const METHODS: [Method; 5] = [
    Method::GET,
    Method::POST,
    Method::PUT,
    Method::PATCH,
    Method::DELETE,
];

/// `path` with every `{parameter}` given a well-formed value that names nothing stored.
fn concrete(path: &str) -> String {
    path.replace("{id}", "5ba2a8a6-25b5-4a5b-9b8e-7e2f5d0e7c11")
        .replace("{finding}", "1")
        .replace("{file}", "1")
        .replace("{share}", "1")
        .replace("{recovery}", "1")
        .replace("{n}", "1")
        .replace("{name}", "nothing-here.css")
        .replace("{token}", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")
}

/// The ways a stranger may try: nothing, a wrong token, a session that does not exist.
fn strangers() -> [(&'static str, Option<(header::HeaderName, String)>); 3] {
    [
        ("no credentials", None),
        (
            "a wrong bearer token",
            Some((header::AUTHORIZATION, "Bearer wrong-token".to_string())),
        ),
        (
            "an unknown session",
            Some((header::COOKIE, format!("{SESSION_COOKIE}=no-such-session"))),
        ),
    ]
}

/// Signs in through the login form; the session cookie (`name=value`).
async fn sign_in(app: &axum::Router) -> String {
    let signed_in = app
        .clone()
        .oneshot(
            Request::builder()
                .method(Method::POST)
                .uri("/login")
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from(format!("token={TOKEN}")))
                .unwrap(),
        )
        .await
        .unwrap();
    signed_in
        .headers()
        .get(header::SET_COOKIE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .expect("signing in sets the session cookie")
        .to_string()
}

fn assert_security_headers(what: &str, response: &Response<Body>) {
    let headers = response.headers();
    assert_eq!(
        headers
            .get(header::X_CONTENT_TYPE_OPTIONS)
            .map(|v| v.as_bytes()),
        Some(&b"nosniff"[..]),
        "{what}: no X-Content-Type-Options"
    );
    assert_eq!(
        headers.get(header::X_FRAME_OPTIONS).map(|v| v.as_bytes()),
        Some(&b"DENY"[..]),
        "{what}: no X-Frame-Options"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_in_the_table_is_guarded_as_its_access_says() {
    // Room for every probe: the share links' rate limit is tested in `share`, the
    // allowance of wrong tokens in `serve_connections`.
    let server = TestServer::start_with(|config| {
        config.public_rate = RateLimit {
            burst: 10_000,
            per_second: 10_000.0,
        };
        config.sign_in_limit = RateLimit {
            burst: 10_000,
            per_second: 10_000.0,
        };
    })
    .await;
    let app = router(server.service.as_ref().unwrap().state().clone());
    let mut routes = 0;
    for route in table() {
        routes += 1;
        let uri = concrete(route.path);
        let mut routed_methods = 0;
        for method in METHODS {
            for (stranger, credential) in strangers() {
                let mut request = Request::builder().method(method.clone()).uri(&uri);
                if let Some((name, value)) = &credential {
                    request = request.header(name, value);
                }
                let response = app
                    .clone()
                    .oneshot(request.body(Body::empty()).unwrap())
                    .await
                    .unwrap();
                let what = format!("{method} {uri} with {stranger} ({:?})", route.access);
                assert_security_headers(&what, &response);
                let status = response.status();
                if status == StatusCode::METHOD_NOT_ALLOWED {
                    continue;
                }
                routed_methods += 1;
                assert!(!status.is_server_error(), "{what}: {status}");
                match route.access {
                    Access::Private => assert_eq!(status, StatusCode::UNAUTHORIZED, "{what}"),
                    Access::Page => {
                        let location = response
                            .headers()
                            .get(header::LOCATION)
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or_default();
                        assert!(
                            status.is_redirection() && location.starts_with("/login"),
                            "{what}: {status}, location {location:?}"
                        );
                    }
                    Access::Share => assert_eq!(status, StatusCode::NOT_FOUND, "{what}"),
                    Access::Public => assert!(
                        status != StatusCode::UNAUTHORIZED && status != StatusCode::FORBIDDEN,
                        "{what}: {status}"
                    ),
                }
            }
        }
        assert!(routed_methods > 0, "{}: no method answers", route.path);
    }
    assert!(routes >= 30, "only {routes} routes in the table");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_service_token_opens_every_private_read_route() {
    let server = TestServer::start().await;
    let app = router(server.service.as_ref().unwrap().state().clone());
    for route in table().filter(|r| r.access == Access::Private) {
        let uri = concrete(route.path);
        let request = Request::builder()
            .method(Method::GET)
            .uri(&uri)
            .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
            .body(Body::empty())
            .unwrap();
        let status = app.clone().oneshot(request).await.unwrap().status();
        // Past the guard: the analysis does not exist, or the route only takes changes.
        assert!(
            status != StatusCode::UNAUTHORIZED && !status.is_server_error(),
            "GET {uri} with the token: {status}"
        );
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_without_its_csrf_token_cannot_change_anything() {
    let server = TestServer::start().await;
    let app = router(server.service.as_ref().unwrap().state().clone());
    let cookie = sign_in(&app).await;
    let mut changes = 0;
    for route in table().filter(|r| matches!(r.access, Access::Private | Access::Page)) {
        let uri = concrete(route.path);
        for method in [Method::POST, Method::PUT, Method::PATCH, Method::DELETE] {
            let request = Request::builder()
                .method(method.clone())
                .uri(&uri)
                .header(header::COOKIE, &cookie)
                .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
                .body(Body::from("csrf=wrong&note=x&scope=analysis"))
                .unwrap();
            let status = app.clone().oneshot(request).await.unwrap().status();
            if status == StatusCode::METHOD_NOT_ALLOWED {
                continue;
            }
            changes += 1;
            assert_eq!(
                status,
                StatusCode::FORBIDDEN,
                "{method} {uri} with a session and a wrong CSRF token"
            );
        }
    }
    assert!(changes >= 8, "only {changes} changing routes");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn path_traversal_in_any_path_parameter_gets_a_clear_4xx() {
    let server = TestServer::start().await;
    let app = router(server.service.as_ref().unwrap().state().clone());
    let cookie = sign_in(&app).await;
    let hostile = [
        "..",
        "..%2F..%2F..%2Fetc%2Fpasswd",
        "%2E%2E%2F%2E%2E%2Fdata%2Fstore.sqlite",
        "..%5C..%5Cwindows",
        "%00",
        "a%0Ab",
        "9999999999999999999999999",
        "-1",
    ];
    let mut probes = 0;
    for route in table().filter(|r| r.access != Access::Public) {
        let parameters = route.path.matches('{').count();
        for value in hostile {
            for which in 0..parameters {
                // Only parameter `which` is hostile; the others are well-formed.
                let mut seen = 0;
                let uri: String = route
                    .path
                    .split('/')
                    .map(|part| {
                        if !part.starts_with('{') {
                            return part.to_string();
                        }
                        seen += 1;
                        if seen - 1 == which {
                            value.to_string()
                        } else {
                            concrete(part)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join("/");
                let request = Request::builder()
                    .method(Method::GET)
                    .uri(&uri)
                    .header(header::AUTHORIZATION, format!("Bearer {TOKEN}"))
                    .header(header::COOKIE, &cookie)
                    .body(Body::empty())
                    .unwrap();
                let status = app.clone().oneshot(request).await.unwrap().status();
                probes += 1;
                assert!(status.is_client_error(), "GET {uri}: {status}");
            }
        }
    }
    assert!(probes > 100, "only {probes} probes");
    server.stop().await;
}
