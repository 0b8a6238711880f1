//! Hostile searches against the service (issue 22): a query nested thousands deep, a
//! page far past the hits. Each is answered 4xx naming the bound, on the API and the UI
//! alike, and `/healthz` answers after each.

use axum::body::Body;
use axum::http::{Method, Request, StatusCode, header};
use evacdoc::http::router;
use tower::ServiceExt as _;

use crate::serve_api::{TOKEN, TestServer, scenario_tar_gz};

/// How a request is signed: the API's bearer token or a browser's session cookie.
enum Auth<'a> {
    Bearer,
    Cookie(&'a str),
}

async fn call(app: &axum::Router, uri: &str, auth: Auth<'_>) -> (StatusCode, String) {
    let request = Request::get(uri);
    let request = match auth {
        Auth::Bearer => request.header(header::AUTHORIZATION, format!("Bearer {TOKEN}")),
        Auth::Cookie(cookie) => request.header(header::COOKIE, cookie),
    };
    let response = app
        .clone()
        .oneshot(request.body(Body::empty()).unwrap())
        .await
        .unwrap();
    let status = response.status();
    let body = axum::body::to_bytes(response.into_body(), usize::MAX)
        .await
        .unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// Signs a browser in: its session cookie.
async fn sign_in(app: &axum::Router) -> String {
    let request = Request::builder()
        .method(Method::POST)
        .uri("/login")
        .header(header::CONTENT_TYPE, "application/x-www-form-urlencoded")
        .body(Body::from(format!("token={TOKEN}&next=%2F")))
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    assert_eq!(response.status(), StatusCode::SEE_OTHER);
    let set = response.headers()[header::SET_COOKIE].to_str().unwrap();
    set.split(';').next().unwrap().to_string()
}

async fn assert_healthy(app: &axum::Router) {
    let (status, body) = call(app, "/healthz", Auth::Bearer).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok\n"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn hostile_searches_are_refused_naming_the_bound_on_the_api_and_the_ui() {
    let server = TestServer::start().await;
    let id = server
        .upload(
            "kolla.tar.gz",
            scenario_tar_gz("2025-kolla-healthy-recovery"),
        )
        .await;
    let view = server.wait_done(&id).await;
    assert_eq!(view["index"]["state"], "done", "{view}");
    let app = router(server.service.as_ref().unwrap().state().clone());
    let cookie = sign_in(&app).await;

    // 3,000 nested groups (6 KB) overflowed tantivy's parser and aborted the process.
    let deep = format!("{}nova{}", "%28".repeat(3000), "%29".repeat(3000));
    let nots = format!("{}nova", "NOT%20".repeat(100));
    let long = "x".repeat(5000);
    let depth_3000 = "the query nests parentheses and NOTs 3000 deep; at most 32";
    let pages = "a search pages through its first 10000 hits only";
    let cases = [
        (
            format!("/api/v1/analyses/{id}/search?q={deep}"),
            Auth::Bearer,
            depth_3000,
        ),
        (
            format!("/analyses/{id}/search?q={deep}"),
            Auth::Cookie(&cookie),
            depth_3000,
        ),
        (
            format!("/api/v1/analyses/{id}/search?q={nots}"),
            Auth::Bearer,
            "the query nests parentheses and NOTs 100 deep; at most 32",
        ),
        (
            format!("/api/v1/analyses/{id}/search?q={long}"),
            Auth::Bearer,
            "the query is 5000 bytes long; at most 4096",
        ),
        // 500 × 10,000,000 hits asked tantivy for a 400 GB heap and aborted the process.
        (
            format!("/api/v1/analyses/{id}/search?q=nova&page=10000000&per_page=500"),
            Auth::Bearer,
            pages,
        ),
        (
            format!(
                "/api/v1/analyses/{id}/search?q=nova&page={}&per_page=500",
                usize::MAX
            ),
            Auth::Bearer,
            pages,
        ),
        (
            format!("/analyses/{id}/search?q=nova&page=100000000"),
            Auth::Cookie(&cookie),
            pages,
        ),
    ];
    for (uri, auth, says) in cases {
        let (status, body) = call(&app, &uri, auth).await;
        assert_eq!(
            status,
            StatusCode::BAD_REQUEST,
            "{}: {body}",
            &uri[..80.min(uri.len())]
        );
        assert!(
            body.contains(says),
            "{} should say {says:?}: {body}",
            &uri[..80.min(uri.len())]
        );
        assert_healthy(&app).await;
    }

    // The deepest query allowed is searched; the last page within the bound is answered,
    // empty past the last hit.
    let deepest = format!("{}nova{}", "%28".repeat(32), "%29".repeat(32));
    let (status, body) = call(
        &app,
        &format!("/api/v1/analyses/{id}/search?q={deepest}"),
        Auth::Bearer,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let found: serde_json::Value = serde_json::from_str(&body).unwrap();
    let total = found["total"].as_u64().unwrap();
    assert!(total > 0 && total < 9500, "{found}");
    let (status, body) = call(
        &app,
        &format!("/api/v1/analyses/{id}/search?q=nova&page=20&per_page=500"),
        Auth::Bearer,
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let last: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(last["total"].as_u64(), Some(total), "{last}");
    assert!(last["hits"].as_array().unwrap().is_empty(), "{last}");
    server.stop().await;
}
