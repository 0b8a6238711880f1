//! The guards' state: when each subject was last acted on, the recent actions for the
//! global rate limit, and the hosts a remediation is running on. Entries older than
//! what they guard are dropped, so the state stays as small as the guards' windows.

use std::collections::{HashMap, HashSet, VecDeque};
use std::time::{Duration, Instant};

/// Why the guards hold an action back.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Held {
    /// The subject was acted on less than the cooldown ago.
    Cooldown { subject: String, left: Duration },
    /// The global rate limit is reached.
    RateLimit { limit: u32, window: Duration },
    /// A remediation is running on the host.
    HostBusy { host: String },
}

impl std::fmt::Display for Held {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Held::Cooldown { subject, left } => write!(
                f,
                "cooldown: {subject} was acted on recently ({} s left)",
                left.as_secs().max(1)
            ),
            Held::RateLimit { limit, window } => write!(
                f,
                "rate limit: {limit} actions in {} s reached",
                window.as_secs()
            ),
            Held::HostBusy { host } => {
                write!(f, "a remediation is already running on host {host}")
            }
        }
    }
}

#[derive(Debug)]
pub(crate) struct GuardState {
    cooldown: Duration,
    limit: u32,
    window: Duration,
    last_action: HashMap<String, Instant>,
    recent: VecDeque<Instant>,
    busy_hosts: HashSet<String>,
}

impl GuardState {
    pub(crate) fn new(cooldown: Duration, limit: u32, window: Duration) -> GuardState {
        GuardState {
            cooldown,
            limit,
            window,
            last_action: HashMap::new(),
            recent: VecDeque::new(),
            busy_hosts: HashSet::new(),
        }
    }

    /// Checks the guards for an action on `subject` (and, for a remediation, `host`) at
    /// `now`; when none holds it back, counts it as taken (and marks the host busy).
    pub(crate) fn admit(
        &mut self,
        subject: &str,
        remediation_host: Option<&str>,
        now: Instant,
    ) -> Result<(), Held> {
        self.last_action
            .retain(|_, at| now.saturating_duration_since(*at) < self.cooldown);
        while self
            .recent
            .front()
            .is_some_and(|at| now.saturating_duration_since(*at) >= self.window)
        {
            self.recent.pop_front();
        }
        if let Some(host) = remediation_host
            && self.busy_hosts.contains(host)
        {
            return Err(Held::HostBusy {
                host: host.to_string(),
            });
        }
        if let Some(at) = self.last_action.get(subject) {
            return Err(Held::Cooldown {
                subject: subject.to_string(),
                left: self
                    .cooldown
                    .saturating_sub(now.saturating_duration_since(*at)),
            });
        }
        if self.recent.len() >= self.limit as usize {
            return Err(Held::RateLimit {
                limit: self.limit,
                window: self.window,
            });
        }
        self.last_action.insert(subject.to_string(), now);
        self.recent.push_back(now);
        if let Some(host) = remediation_host {
            self.busy_hosts.insert(host.to_string());
        }
        Ok(())
    }

    /// Marks `host` busy for a remediation asked for by hand (the service's API): only
    /// the one-per-host guard applies, not the cooldown or the rate limit.
    pub(crate) fn claim_host(&mut self, host: &str) -> Result<(), Held> {
        if !self.busy_hosts.insert(host.to_string()) {
            return Err(Held::HostBusy {
                host: host.to_string(),
            });
        }
        Ok(())
    }

    /// The remediation on `host` is over.
    pub(crate) fn release(&mut self, host: &str) {
        self.busy_hosts.remove(host);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cooldown_rate_limit_and_busy_hosts_hold_actions_back_until_they_pass() {
        let t0 = Instant::now();
        let s = Duration::from_secs;
        let mut g = GuardState::new(s(60), 2, s(10));
        assert_eq!(g.admit("cmp1", None, t0), Ok(()));
        assert!(matches!(
            g.admit("cmp1", None, t0 + s(5)),
            Err(Held::Cooldown { .. })
        ));
        assert_eq!(g.admit("cmp2", None, t0 + s(1)), Ok(()));
        assert_eq!(
            g.admit("cmp3", None, t0 + s(2)),
            Err(Held::RateLimit {
                limit: 2,
                window: s(10)
            })
        );
        // The window has moved on: room again.
        assert_eq!(g.admit("cmp3", None, t0 + s(11)), Ok(()));
        assert_eq!(g.admit("cmp1", None, t0 + s(61)), Ok(()));

        let mut g = GuardState::new(s(0), 100, s(10));
        assert_eq!(g.admit("n1", Some("cmp1"), t0), Ok(()));
        assert_eq!(
            g.admit("n2", Some("cmp1"), t0),
            Err(Held::HostBusy {
                host: "cmp1".into()
            })
        );
        assert_eq!(g.admit("n3", Some("cmp2"), t0), Ok(()));
        g.release("cmp1");
        assert_eq!(g.admit("n2", Some("cmp1"), t0), Ok(()));
        // A remediation by hand waits for the host as the policy's do, and holds them off.
        assert!(matches!(g.claim_host("cmp1"), Err(Held::HostBusy { .. })));
        assert_eq!(g.claim_host("cmp3"), Ok(()));
        assert!(matches!(
            g.admit("n4", Some("cmp3"), t0),
            Err(Held::HostBusy { .. })
        ));
        g.release("cmp3");
        assert_eq!(g.claim_host("cmp3"), Ok(()));
    }
}
