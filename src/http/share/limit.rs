//! A token bucket per client address for the public share routes: each address may make
//! `burst` requests at once, then `per_second` a second; past that it is answered 429
//! with the seconds to wait.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

/// How many requests an address may make.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RateLimit {
    /// Requests at once.
    pub burst: u32,
    /// Requests a second after the burst.
    pub per_second: f64,
}

impl Default for RateLimit {
    /// 60 at once, then one a second: a reader paging a link never notices, a crawler does.
    fn default() -> RateLimit {
        RateLimit {
            burst: 60,
            per_second: 1.0,
        }
    }
}

/// Buckets kept before idle ones are dropped.
const MAX_BUCKETS: usize = 10_000;

/// The buckets, one per client address.
#[derive(Debug)]
pub struct RateLimiter {
    limit: RateLimit,
    buckets: Mutex<HashMap<IpAddr, (f64, Instant)>>,
}

impl RateLimiter {
    pub fn new(limit: RateLimit) -> RateLimiter {
        RateLimiter {
            limit,
            buckets: Mutex::new(HashMap::new()),
        }
    }

    /// Takes a token for `client`: `Ok` to go on, or `Err` with how long to wait.
    pub fn take(&self, client: IpAddr) -> Result<(), Duration> {
        self.take_at(client, Instant::now())
    }

    /// Gives back the token `client` took, when what it was taken for did not count
    /// (a sign-in that succeeded is no failure).
    pub fn give_back(&self, client: IpAddr) {
        let burst = f64::from(self.limit.burst.max(1));
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some((tokens, _)) = buckets.get_mut(&client) {
            *tokens = (*tokens + 1.0).min(burst);
        }
    }

    fn take_at(&self, client: IpAddr, now: Instant) -> Result<(), Duration> {
        let burst = f64::from(self.limit.burst.max(1));
        let rate = self.limit.per_second.max(1e-6);
        let mut buckets = self.buckets.lock().unwrap_or_else(PoisonError::into_inner);
        if buckets.len() >= MAX_BUCKETS && !buckets.contains_key(&client) {
            // Full buckets (idle long enough to have refilled) say nothing: drop them.
            buckets.retain(|_, (tokens, at)| {
                *tokens + now.saturating_duration_since(*at).as_secs_f64() * rate < burst
            });
        }
        let (tokens, at) = buckets.entry(client).or_insert((burst, now));
        let refilled =
            (*tokens + now.saturating_duration_since(*at).as_secs_f64() * rate).min(burst);
        *at = now;
        if refilled >= 1.0 {
            *tokens = refilled - 1.0;
            Ok(())
        } else {
            *tokens = refilled;
            Err(Duration::from_secs_f64((1.0 - refilled) / rate))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_then_the_rate_per_address() {
        let limiter = RateLimiter::new(RateLimit {
            burst: 3,
            per_second: 2.0,
        });
        let (a, b): (IpAddr, IpAddr) = ("192.0.2.1".parse().unwrap(), "::1".parse().unwrap());
        let start = Instant::now();
        for _ in 0..3 {
            assert!(limiter.take_at(a, start).is_ok());
        }
        let wait = limiter.take_at(a, start).unwrap_err();
        assert!(
            wait > Duration::ZERO && wait <= Duration::from_millis(500),
            "{wait:?}"
        );
        // Another address has its own bucket.
        assert!(limiter.take_at(b, start).is_ok());
        // Half a second refills one token at two a second.
        let later = start + Duration::from_millis(500);
        assert!(limiter.take_at(a, later).is_ok());
        assert!(limiter.take_at(a, later).is_err());
        // A token given back can be taken again, once.
        limiter.give_back(a);
        assert!(limiter.take_at(a, later).is_ok());
        assert!(limiter.take_at(a, later).is_err());
    }
}
