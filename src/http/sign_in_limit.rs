//! Guessing the token: each try with a token (the sign-in form, a bearer token) first takes
//! one of its client's allowance of failures, before the token is looked at, so a client
//! past its allowance gets 429 with `Retry-After` whatever it sent, and the answer says
//! nothing about the token. A try that succeeds gives its share back. The comparison
//! itself is unchanged (flat in time).

use std::net::IpAddr;
use std::time::Duration;

use axum::http::HeaderMap;

use super::client::throttle_key;
use super::state::AppState;

/// A try that was let through: its client, to give the share back on success and to
/// name the client in the audit log on failure.
#[derive(Debug, Clone, Copy)]
pub struct Attempt {
    /// The client's address (after a trusted proxy's `X-Forwarded-For`).
    pub client: IpAddr,
    key: IpAddr,
}

impl Attempt {
    /// The token was right: this try does not count as a failure.
    pub fn succeeded(self, state: &AppState) {
        state.sign_in_limit.give_back(self.key);
    }
}

/// Takes one try for the client of a request: the attempt, or how many seconds to wait.
pub fn attempt(
    state: &AppState,
    peer: Option<IpAddr>,
    headers: &HeaderMap,
) -> Result<Attempt, u64> {
    let client = state.clients.client_ip(peer, headers);
    let key = throttle_key(client);
    match state.sign_in_limit.take(key) {
        Ok(()) => Ok(Attempt { client, key }),
        Err(wait) => {
            tracing::debug!(%client, "sign-in throttled");
            Err(whole_seconds(wait))
        }
    }
}

/// `Retry-After` wants whole seconds, at least one.
fn whole_seconds(wait: Duration) -> u64 {
    (wait.as_secs() + u64::from(wait.subsec_nanos() > 0)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn waits_round_up_to_whole_seconds() {
        assert_eq!(whole_seconds(Duration::ZERO), 1);
        assert_eq!(whole_seconds(Duration::from_millis(200)), 1);
        assert_eq!(whole_seconds(Duration::from_millis(5_001)), 6);
        assert_eq!(whole_seconds(Duration::from_secs(6)), 6);
    }
}
