//! A panic in a handler ends that request with a 500, and the service keeps serving.

use axum::body::{Body, to_bytes};
use axum::http::{Request, StatusCode};
use axum::routing::get;
use tower::ServiceExt as _;

use super::{layered, routes};
use crate::http::{ServeConfig, start};

async fn send(app: &axum::Router, path: &str) -> (StatusCode, String) {
    let request = Request::get(path)
        .header("x-request-id", "panic-test-1")
        .body(Body::empty())
        .unwrap();
    let response = app.clone().oneshot(request).await.unwrap();
    let status = response.status();
    let body = to_bytes(response.into_body(), 1 << 20).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

async fn panics() -> &'static str {
    panic!("a bug in a handler, with internal details /srv/evacdoc")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_handler_answers_500_and_the_service_keeps_serving() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ServeConfig::new("127.0.0.1:0".parse().unwrap(), dir.path().join("data"));
    config.token = Some("router-test-token-0123456789".into());
    let service = start(config).await.unwrap();
    let state = service.state().clone();
    let app = layered(
        routes(&state).route("/test/panic", get(panics)),
        state.clone(),
    );

    for _ in 0..3 {
        let (status, body) = send(&app, "/test/panic").await;
        assert_eq!(status, StatusCode::INTERNAL_SERVER_ERROR, "{body}");
        // The generic body: no panic message, no source location; the request id.
        let json: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(json["error"], "internal", "{body}");
        assert_eq!(json["request_id"], "panic-test-1", "{body}");
        assert!(!body.contains("internal details"), "{body}");
        assert!(!body.contains("/srv/evacdoc"), "{body}");

        let (status, body) = send(&app, "/healthz").await;
        assert_eq!((status, body.as_str()), (StatusCode::OK, "ok\n"));
        let (status, _) = send(&app, "/api/v1/openapi.json").await;
        assert_eq!(status, StatusCode::OK);
    }
    // The metrics counted the panics as 500s of their route.
    let (_, metrics) = send(&app, "/metrics").await;
    assert!(
        metrics.contains("route=\"/test/panic\",status=\"500\""),
        "{metrics}"
    );
    service.shutdown().await;
}
