//! Accepting connections: HTTP/1 with a deadline for a request's headers, so that a
//! client trickling them (slowloris) is cut off instead of holding a connection, and a
//! graceful stop that lets the requests under way end.

use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::extract::ConnectInfo;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tower::ServiceExt as _;

/// Serves `app` on `listener` until `stop` resolves, then waits for the open
/// connections' requests to end.
pub async fn serve_until(
    listener: TcpListener,
    app: Router,
    header_timeout: Duration,
    stop: impl std::future::Future<Output = ()>,
) {
    let mut builder = hyper::server::conn::http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = GracefulShutdown::new();
    tokio::pin!(stop);
    loop {
        let (stream, remote) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(accepted) => accepted,
                Err(error) => {
                    // Out of file descriptors and the like: wait, do not spin.
                    tracing::warn!(%error, "cannot accept a connection");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut stop => break,
        };
        let service = app
            .clone()
            .map_request(move |mut request: axum::extract::Request| {
                request
                    .extensions_mut()
                    .insert(ConnectInfo::<SocketAddr>(remote));
                request
            });
        let connection = builder.serve_connection(
            TokioIo::new(stream),
            TowerToHyperService::new(service.map_request(
                |r: hyper::Request<hyper::body::Incoming>| r.map(axum::body::Body::new),
            )),
        );
        let connection = graceful.watch(connection);
        tokio::spawn(async move {
            // A client that goes away or is too slow ends its connection, nothing else.
            if let Err(error) = connection.await {
                tracing::debug!(%remote, %error, "connection ended");
            }
        });
    }
    drop(listener);
    graceful.shutdown().await;
}
