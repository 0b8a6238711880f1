//! Retries of one cloud call: backoff with jitter on 5xx and connection errors, bounded;
//! 4xx are not retried, except 409 while a task state clears.

use std::future::Future;
use std::time::Duration;

use super::cloud::CloudError;

/// The bounds of retrying one call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RetryPolicy {
    /// Tries in all for a 5xx or a connection error (1 = no retry).
    pub attempts: u32,
    /// Tries in all for a 409 (a task state that clears, a lock being released).
    pub conflict_attempts: u32,
    /// The first wait; it doubles each time, up to `max_delay`.
    pub base_delay: Duration,
    pub max_delay: Duration,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            attempts: 5,
            conflict_attempts: 10,
            base_delay: Duration::from_millis(500),
            max_delay: Duration::from_secs(8),
        }
    }
}

/// What to do after a failed call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Server side or network: worth another try.
    Transient,
    /// 409: the resource is busy; another try once its task state clears.
    Conflict,
    /// Anything else: trying again gives the same answer.
    Final,
}

/// Sorts an error into what the retry loop does with it.
pub fn classify(error: &CloudError) -> Verdict {
    match error {
        CloudError::Status { status, .. } if *status >= 500 => Verdict::Transient,
        CloudError::Status { status: 409, .. } => Verdict::Conflict,
        CloudError::Connection { .. } => Verdict::Transient,
        // Keystone unreachable is a connection problem; refused credentials are not
        // (the client says which: a status in the message is not parsed here).
        CloudError::Auth(message) if is_unreachable(message) => Verdict::Transient,
        _ => Verdict::Final,
    }
}

fn is_unreachable(message: &str) -> bool {
    let message = message.to_ascii_lowercase();
    [
        "connect",
        "timed out",
        "unreachable",
        "unavailable",
        "500",
        "502",
        "503",
        "504",
    ]
    .iter()
    .any(|word| message.contains(word))
}

impl RetryPolicy {
    /// The wait before try `attempt + 1` (attempt counts from 1): exponential, capped,
    /// with full jitter over its upper half so parallel moves do not retry in step.
    pub fn delay(&self, attempt: u32, jitter: f64) -> Duration {
        let exponent = attempt.saturating_sub(1).min(16);
        let ceiling = self
            .base_delay
            .saturating_mul(1u32 << exponent)
            .min(self.max_delay);
        ceiling.mul_f64(0.5 + 0.5 * jitter.clamp(0.0, 1.0))
    }

    /// Whether try `attempt` (from 1) that failed with `verdict` is followed by another.
    pub fn should_retry(&self, verdict: Verdict, attempt: u32) -> bool {
        match verdict {
            Verdict::Transient => attempt < self.attempts,
            Verdict::Conflict => attempt < self.conflict_attempts,
            Verdict::Final => false,
        }
    }

    /// Runs `call` until it succeeds, fails for good, or the bound is reached; the last
    /// error is returned with the number of tries in the log.
    pub async fn run<T, F, Fut>(&self, what: &str, mut call: F) -> Result<T, CloudError>
    where
        F: FnMut() -> Fut,
        Fut: Future<Output = Result<T, CloudError>>,
    {
        let mut attempt = 1;
        loop {
            match call().await {
                Ok(value) => return Ok(value),
                Err(error) => {
                    let verdict = classify(&error);
                    if !self.should_retry(verdict, attempt) {
                        return Err(error);
                    }
                    let wait = self.delay(attempt, rand::random::<f64>());
                    tracing::debug!(call = what, attempt, ?wait, %error, "retrying");
                    tokio::time::sleep(wait).await;
                    attempt += 1;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU32, Ordering};

    use super::*;

    fn status(code: u16) -> CloudError {
        CloudError::Status {
            method: "GET".into(),
            path: "/servers/x".into(),
            status: code,
            message: "answer".into(),
        }
    }

    #[test]
    fn server_errors_and_lost_connections_are_retried_client_errors_are_not() {
        for code in [500, 502, 503, 504] {
            assert_eq!(classify(&status(code)), Verdict::Transient, "{code}");
        }
        assert_eq!(classify(&status(409)), Verdict::Conflict);
        for code in [400, 401, 403, 404, 406] {
            assert_eq!(classify(&status(code)), Verdict::Final, "{code}");
        }
        let lost = CloudError::Connection {
            method: "POST".into(),
            path: "/servers/x/action".into(),
            message: "connection reset".into(),
        };
        assert_eq!(classify(&lost), Verdict::Transient);
        assert_eq!(
            classify(&CloudError::Auth(
                "the request you have made requires authentication (401)".into()
            )),
            Verdict::Final
        );
        assert_eq!(
            classify(&CloudError::Auth("keystone: connection refused".into())),
            Verdict::Transient
        );
        assert_eq!(
            classify(&CloudError::Config("no cloud named x".into())),
            Verdict::Final
        );
    }

    #[test]
    fn delays_double_up_to_the_cap_and_jitter_stays_within_the_upper_half() {
        let policy = RetryPolicy {
            attempts: 5,
            conflict_attempts: 3,
            base_delay: Duration::from_millis(100),
            max_delay: Duration::from_millis(350),
        };
        assert_eq!(policy.delay(1, 1.0), Duration::from_millis(100));
        assert_eq!(policy.delay(2, 1.0), Duration::from_millis(200));
        assert_eq!(policy.delay(3, 1.0), Duration::from_millis(350));
        assert_eq!(policy.delay(30, 1.0), Duration::from_millis(350));
        assert_eq!(policy.delay(2, 0.0), Duration::from_millis(100));
        assert!(policy.should_retry(Verdict::Transient, 4));
        assert!(!policy.should_retry(Verdict::Transient, 5));
        assert!(!policy.should_retry(Verdict::Conflict, 3));
        assert!(!policy.should_retry(Verdict::Final, 1));
    }

    fn fast() -> RetryPolicy {
        RetryPolicy {
            attempts: 3,
            conflict_attempts: 4,
            base_delay: Duration::from_millis(1),
            max_delay: Duration::from_millis(2),
        }
    }

    #[tokio::test]
    async fn a_503_then_success_succeeds_and_a_lasting_503_stops_at_the_bound() {
        let calls = AtomicU32::new(0);
        let answer = fast()
            .run("get", || {
                let n = calls.fetch_add(1, Ordering::SeqCst);
                async move { if n < 2 { Err(status(503)) } else { Ok(n) } }
            })
            .await;
        assert_eq!(answer.unwrap(), 2);

        let calls = AtomicU32::new(0);
        let answer: Result<(), _> = fast()
            .run("get", || {
                calls.fetch_add(1, Ordering::SeqCst);
                async { Err(status(503)) }
            })
            .await;
        assert_eq!(answer.unwrap_err().status(), Some(503));
        assert_eq!(calls.load(Ordering::SeqCst), 3);
    }

    #[tokio::test]
    async fn a_400_is_tried_once_and_a_409_until_the_conflict_bound() {
        let calls = AtomicU32::new(0);
        let answer: Result<(), _> = fast()
            .run("evacuate", || {
                calls.fetch_add(1, Ordering::SeqCst);
                async { Err(status(400)) }
            })
            .await;
        assert!(answer.is_err());
        assert_eq!(calls.load(Ordering::SeqCst), 1);

        let calls = AtomicU32::new(0);
        let answer: Result<(), _> = fast()
            .run("evacuate", || {
                calls.fetch_add(1, Ordering::SeqCst);
                async { Err(status(409)) }
            })
            .await;
        assert_eq!(answer.unwrap_err().status(), Some(409));
        assert_eq!(calls.load(Ordering::SeqCst), 4);
    }
}
