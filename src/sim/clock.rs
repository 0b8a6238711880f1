//! Scenario time: seconds since the simulator started, run `time_scale` times faster
//! than the wall clock, so that a test sees a 60 s `service_down_time` pass in 0.6 s.

use std::time::{Duration, Instant};

/// The simulator's clock.
#[derive(Clone, Copy, Debug)]
pub struct SimClock {
    started: Instant,
    started_at: jiff::Timestamp,
    scale: f64,
}

impl SimClock {
    pub fn new(scale: f64) -> Self {
        SimClock {
            started: Instant::now(),
            started_at: jiff::Timestamp::now(),
            scale,
        }
    }

    /// Scenario seconds since the start.
    pub fn now_s(&self) -> f64 {
        self.started.elapsed().as_secs_f64() * self.scale
    }

    /// The wall-clock time a scenario second stands for, as APIs and logs show it:
    /// the start plus the scenario seconds (so that `updated_at` moves at scenario
    /// speed and agrees with `service_down_time`).
    pub fn at(&self, scenario_s: f64) -> jiff::Timestamp {
        let nanos = (scenario_s * 1e9) as i64;
        self.started_at
            .checked_add(jiff::SignedDuration::from_nanos(nanos))
            .unwrap_or(self.started_at)
    }

    /// The real time to wait for `scenario_s` scenario seconds.
    pub fn real(&self, scenario_s: f64) -> Duration {
        Duration::from_secs_f64((scenario_s / self.scale).max(0.0))
    }
}

/// `2026-12-02T07:20:00.000000`: Nova's and Cinder's timestamps (UTC, no zone).
pub fn api_time(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S.%6f").to_string()
}

/// `2026-12-02T07:20:00Z`: Keystone's and `updated_at` in os-services.
pub fn iso_z(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S.%6fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scenario_seconds_run_faster_by_the_scale() {
        let clock = SimClock::new(100.0);
        assert_eq!(clock.real(60.0), Duration::from_millis(600));
        let later = clock.at(90.0);
        assert_eq!(later.duration_since(clock.at(0.0)).as_secs(), 90);
    }
}
