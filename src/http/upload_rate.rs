//! The least rate an upload must keep: the bytes received are counted as they come, and
//! at the end of every window an upload that brought less than the rate times the window
//! is cut with 408. A client trickling its body cannot hold an upload slot for long.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use axum::body::Body;
use axum::extract::Request;
use axum::http::StatusCode;
use futures_util::TryStreamExt as _;

use super::error::ApiError;

/// Bytes a second over a window; a rate of 0 bounds nothing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MinRate {
    /// The average an upload must keep, in bytes a second.
    pub bytes_per_second: u64,
    /// Over how long it is averaged (checked at the end of each).
    pub window: Duration,
}

impl Default for MinRate {
    /// 16 KiB/s over 30 s: a slow link sends that many times over, a trickle does not.
    fn default() -> MinRate {
        MinRate {
            bytes_per_second: 16 << 10,
            window: Duration::from_secs(30),
        }
    }
}

impl MinRate {
    /// The bytes a window must bring.
    fn per_window(self) -> u64 {
        let bytes = u128::from(self.bytes_per_second) * self.window.as_millis() / 1000;
        u64::try_from(bytes).unwrap_or(u64::MAX)
    }
}

/// The bytes of a body received so far.
#[derive(Debug, Clone, Default)]
pub struct BytesReceived(Arc<AtomicU64>);

impl BytesReceived {
    fn get(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }
}

/// The request with its body counted as it is read.
pub fn counted(request: Request) -> (Request, BytesReceived) {
    let received = BytesReceived::default();
    let counter = received.0.clone();
    let request = request.map(|body| {
        Body::from_stream(body.into_data_stream().inspect_ok(move |chunk| {
            counter.fetch_add(chunk.len() as u64, Ordering::Relaxed);
        }))
    });
    (request, received)
}

/// Runs `receiving` (what reads the counted body) while it keeps `rate`; cuts it (drops
/// it) with 408 at the end of the first window that brought too little.
pub async fn within<T>(
    rate: MinRate,
    received: &BytesReceived,
    receiving: impl Future<Output = Result<T, ApiError>>,
) -> Result<T, ApiError> {
    let needed = rate.per_window();
    if needed == 0 || rate.window.is_zero() {
        return receiving.await;
    }
    tokio::pin!(receiving);
    let start = tokio::time::Instant::now() + rate.window;
    let mut windows = tokio::time::interval_at(start, rate.window);
    let mut before = 0;
    loop {
        tokio::select! {
            outcome = &mut receiving => return outcome,
            _ = windows.tick() => {
                let now = received.get();
                if now.saturating_sub(before) < needed {
                    tracing::info!(bytes = now, "upload cut: slower than the least rate");
                    return Err(too_slow(rate));
                }
                before = now;
            }
        }
    }
}

fn too_slow(rate: MinRate) -> ApiError {
    ApiError::new(
        StatusCode::REQUEST_TIMEOUT,
        "too_slow",
        format!(
            "the upload was slower than {} bytes a second over {} s and was cut: send it again over a faster link",
            rate.bytes_per_second,
            rate.window.as_secs_f64()
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_bytes_a_window_needs() {
        assert_eq!(MinRate::default().per_window(), 16 * 1024 * 30);
        let rate = MinRate {
            bytes_per_second: 1000,
            window: Duration::from_millis(1500),
        };
        assert_eq!(rate.per_window(), 1500);
    }

    #[tokio::test]
    async fn a_stalled_upload_is_cut_and_a_finished_one_is_not() {
        let rate = MinRate {
            bytes_per_second: 1000,
            window: Duration::from_millis(20),
        };
        let received = BytesReceived::default();
        received.0.store(10, Ordering::Relaxed);
        let stalled = within(
            rate,
            &received,
            std::future::pending::<Result<(), ApiError>>(),
        );
        let error = stalled.await.unwrap_err();
        assert_eq!(error.status, StatusCode::REQUEST_TIMEOUT);

        let finished = within(rate, &received, async { Ok::<_, ApiError>(7) });
        assert_eq!(finished.await.unwrap(), 7);
    }
}
