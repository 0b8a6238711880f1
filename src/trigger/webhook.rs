//! Delivering a finding to one webhook: a POST of its JSON, signed, retried with
//! exponential backoff on connection errors, timeouts, 429 and 5xx answers.

use std::time::Duration;

use crate::trigger::policy::Webhook;
use crate::trigger::signature::{SIGNATURE_HEADER, sign};

/// How a delivery ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Delivery {
    /// The HTTP status of the last answer, if any came.
    pub(crate) status: Option<u16>,
    /// Tries made.
    pub(crate) attempts: u32,
    /// Whether the receiver took it (2xx).
    pub(crate) delivered: bool,
    /// The last error, when not delivered.
    pub(crate) error: Option<String>,
}

/// POSTs `body` to `url`, signed with `secret` when there is one.
pub(crate) async fn deliver(
    client: &reqwest::Client,
    url: &str,
    body: &[u8],
    secret: Option<&str>,
    config: &Webhook,
    delivery_id: &str,
) -> Delivery {
    let mut backoff = Duration::from_millis(config.backoff_ms);
    let mut last = Delivery {
        status: None,
        attempts: 0,
        delivered: false,
        error: None,
    };
    for attempt in 1..=config.attempts {
        last.attempts = attempt;
        let mut request = client
            .post(url)
            .timeout(Duration::from_secs(config.timeout_secs.max(1)))
            .header("content-type", "application/json")
            .header("x-evacdoc-event", "finding")
            .header("x-evacdoc-delivery", delivery_id)
            .body(body.to_vec());
        if let Some(secret) = secret {
            request = request.header(SIGNATURE_HEADER, sign(secret.as_bytes(), body));
        }
        let retry = match request.send().await {
            Ok(response) => {
                let status = response.status();
                last.status = Some(status.as_u16());
                if status.is_success() {
                    last.delivered = true;
                    last.error = None;
                    return last;
                }
                last.error = Some(format!("answered {status}"));
                status.is_server_error() || status.as_u16() == 429
            }
            Err(error) => {
                last.status = None;
                last.error = Some(error.to_string());
                true
            }
        };
        if !retry || attempt == config.attempts {
            break;
        }
        tracing::debug!(url, attempt, error = ?last.error, "webhook: retrying");
        tokio::time::sleep(backoff).await;
        backoff = backoff.saturating_mul(2);
    }
    last
}
