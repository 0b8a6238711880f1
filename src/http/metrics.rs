//! Prometheus metrics in the text exposition format: jobs by state (from the store), bytes
//! and lines ingested, and request latency histograms per route. Written by hand: a few
//! atomics and one mutex-guarded map do it, without another dependency.

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::sync::Mutex;
use std::sync::atomic::Ordering;
use std::time::Instant;

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::Response;

use super::state::AppState;
use crate::jobs::JobCounters;
use crate::store::JobStatus;

/// Upper bounds of the latency buckets, in seconds.
const BUCKETS: [f64; 11] = [
    0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0,
];

/// One route's latency histogram.
#[derive(Debug, Default, Clone)]
struct Histogram {
    buckets: [u64; BUCKETS.len()],
    count: u64,
    sum: f64,
}

/// The service's counters.
#[derive(Debug, Default)]
pub struct Metrics {
    latency: Mutex<BTreeMap<(String, String, u16), Histogram>>,
    /// The decisions of a trigger running in the service (a watcher hands it these).
    pub trigger: std::sync::Arc<crate::trigger::TriggerCounters>,
}

impl Metrics {
    /// Counts one request of `route` answered with `status` after `seconds`.
    pub fn observe(&self, method: &str, route: &str, status: u16, seconds: f64) {
        let Ok(mut map) = self.latency.lock() else {
            return;
        };
        let h = map
            .entry((method.to_string(), route.to_string(), status))
            .or_default();
        for (i, bound) in BUCKETS.iter().enumerate() {
            if seconds <= *bound {
                h.buckets[i] += 1;
            }
        }
        h.count += 1;
        h.sum += seconds;
    }

    /// The exposition text, with the job counts given by the store and the runner's counters.
    pub fn render(&self, jobs: &[(JobStatus, u64)], counters: &JobCounters) -> String {
        let mut out = String::new();
        out.push_str("# HELP evacdoc_jobs Analyses by state.\n# TYPE evacdoc_jobs gauge\n");
        for status in [
            JobStatus::Queued,
            JobStatus::Running,
            JobStatus::Done,
            JobStatus::Failed,
        ] {
            let n = jobs
                .iter()
                .find(|(s, _)| *s == status)
                .map_or(0, |(_, n)| *n);
            let _ = writeln!(out, "evacdoc_jobs{{state=\"{status}\"}} {n}");
        }
        let counter = |out: &mut String, name: &str, help: &str, value: u64| {
            let _ = writeln!(
                out,
                "# HELP {name} {help}\n# TYPE {name} counter\n{name} {value}"
            );
        };
        counter(
            &mut out,
            "evacdoc_ingested_bytes_total",
            "Bytes of log read (decompressed).",
            counters.bytes_ingested.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "evacdoc_ingested_lines_total",
            "Log records read.",
            counters.lines_ingested.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "evacdoc_jobs_finished_total",
            "Analyses finished (done).",
            counters.jobs_done.load(Ordering::Relaxed),
        );
        counter(
            &mut out,
            "evacdoc_jobs_failed_total",
            "Analyses failed.",
            counters.jobs_failed.load(Ordering::Relaxed),
        );
        out.push_str(
            "# HELP evacdoc_http_request_duration_seconds Request latency.\n\
             # TYPE evacdoc_http_request_duration_seconds histogram\n",
        );
        let map = self.latency.lock().map(|m| m.clone()).unwrap_or_default();
        for ((method, route, status), h) in &map {
            let labels = format!("method=\"{method}\",route=\"{route}\",status=\"{status}\"");
            for (bound, n) in BUCKETS.iter().zip(h.buckets) {
                let _ = writeln!(
                    out,
                    "evacdoc_http_request_duration_seconds_bucket{{{labels},le=\"{bound}\"}} {n}"
                );
            }
            let _ = writeln!(
                out,
                "evacdoc_http_request_duration_seconds_bucket{{{labels},le=\"+Inf\"}} {}\n\
                 evacdoc_http_request_duration_seconds_sum{{{labels}}} {}\n\
                 evacdoc_http_request_duration_seconds_count{{{labels}}} {}",
                h.count, h.sum, h.count
            );
        }
        out.push_str(&self.trigger.render());
        out
    }
}

/// Middleware: times every request under its route pattern (never the raw path, whose
/// ids would make a series per analysis).
pub async fn track(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or_else(|| "unmatched".to_string(), |p| p.as_str().to_string());
    let response = next.run(request).await;
    state.metrics.observe(
        &method,
        &route,
        response.status().as_u16(),
        started.elapsed().as_secs_f64(),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_exposition_has_jobs_counters_and_cumulative_buckets() {
        let m = Metrics::default();
        let counters = JobCounters::default();
        counters.bytes_ingested.store(1234, Ordering::Relaxed);
        m.observe("GET", "/api/v1/analyses", 200, 0.003);
        m.observe("GET", "/api/v1/analyses", 200, 0.2);
        let text = m.render(&[(JobStatus::Done, 3), (JobStatus::Queued, 1)], &counters);
        assert!(text.contains("evacdoc_jobs{state=\"done\"} 3"), "{text}");
        assert!(text.contains("evacdoc_jobs{state=\"running\"} 0"), "{text}");
        assert!(text.contains("evacdoc_ingested_bytes_total 1234"), "{text}");
        let labels = "method=\"GET\",route=\"/api/v1/analyses\",status=\"200\"";
        assert!(
            text.contains(&format!("_bucket{{{labels},le=\"0.001\"}} 0")),
            "{text}"
        );
        assert!(
            text.contains(&format!("_bucket{{{labels},le=\"0.005\"}} 1")),
            "{text}"
        );
        assert!(
            text.contains(&format!("_bucket{{{labels},le=\"0.25\"}} 2")),
            "{text}"
        );
        assert!(text.contains(&format!("_count{{{labels}}} 2")), "{text}");

        m.trigger.count("notify", "delivered");
        m.trigger.count("remediate", "unavailable");
        let text = m.render(&[], &counters);
        assert!(
            text.contains(
                "evacdoc_trigger_decisions_total{action=\"notify\",outcome=\"delivered\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains(
                "evacdoc_trigger_decisions_total{action=\"remediate\",outcome=\"unavailable\"} 1"
            ),
            "{text}"
        );
    }
}
