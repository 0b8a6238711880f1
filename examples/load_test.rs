//! A bounded load test of a running `evacdoc serve` on loopback (driven by
//! `scripts/load_test.sh`, which starts the server and analyses a bundle first):
//!
//!     cargo run --example load_test -- --base URL --token T --analysis ID --share TOKEN \
//!         --upload FILE [--instances a,b] [--hosts h1,h2] [--clients 50] [--uploads 4] \
//!         [--seconds 30] [--pid PID]
//!
//! CLIENTS tasks mix searches, timelines and share views for SECONDS while UPLOADS tasks
//! post FILE again and again. Prints requests, errors, p50 and p99 per kind, the uploads
//! taken and those refused as busy (429/503, which must carry `Retry-After`), and the
//! server's peak RSS (`VmHWM` of PID). Exits 1 on any error.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::print_stdout
)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

#[derive(Debug, Default)]
struct Kind {
    ms: Vec<f64>,
    errors: u64,
    busy: u64,
    first_error: Option<String>,
}

type Results = Arc<Mutex<BTreeMap<&'static str, Kind>>>;

#[derive(Debug, Clone)]
struct Config {
    base: String,
    token: String,
    analysis: String,
    share: String,
    upload: Vec<u8>,
    instances: Vec<String>,
    hosts: Vec<String>,
    clients: usize,
    uploads: usize,
    seconds: u64,
    pid: Option<u32>,
}

fn parse_args() -> Config {
    let mut args: BTreeMap<String, String> = BTreeMap::new();
    let mut it = std::env::args().skip(1);
    while let Some(key) = it.next() {
        let value = it.next().unwrap_or_else(|| panic!("{key} needs a value"));
        args.insert(key.trim_start_matches("--").to_string(), value);
    }
    let get = |k: &str| args.get(k).cloned().unwrap_or_default();
    let list = |k: &str| -> Vec<String> {
        get(k)
            .split(',')
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    };
    Config {
        base: get("base"),
        token: get("token"),
        analysis: get("analysis"),
        share: get("share"),
        upload: std::fs::read(get("upload")).expect("--upload FILE"),
        instances: list("instances"),
        hosts: list("hosts"),
        clients: get("clients").parse().unwrap_or(50),
        uploads: get("uploads").parse().unwrap_or(4),
        seconds: get("seconds").parse().unwrap_or(30),
        pid: get("pid").parse().ok(),
    }
}

/// Queries like an operator's: ids, levels, phrases, services.
const QUERIES: &[&str] = &[
    "level:ERROR",
    "\"still in use\"",
    "service:nova-api AND evacuate",
    "evacuate AND \"Compute service\"",
    "notification AND finished",
    "service:masakari-engine AND level:WARNING",
    "rebuild",
];

fn record(results: &Results, kind: &'static str, ms: f64, outcome: Result<(), String>, busy: bool) {
    let mut all = results.lock().unwrap();
    let entry = all.entry(kind).or_default();
    match outcome {
        Ok(()) if busy => entry.busy += 1,
        Ok(()) => entry.ms.push(ms),
        Err(e) => {
            entry.errors += 1;
            entry.first_error.get_or_insert(e);
        }
    }
}

async fn reader(
    config: Arc<Config>,
    client: reqwest::Client,
    results: Results,
    n: usize,
    until: Instant,
) {
    let mut i = n;
    while Instant::now() < until {
        i += 1;
        let (kind, path) = match i % 3 {
            0 => {
                let q = if !config.instances.is_empty() && i.is_multiple_of(2) {
                    format!("instance:{}", config.instances[i % config.instances.len()])
                } else {
                    QUERIES[i % QUERIES.len()].to_string()
                };
                let q: String = url_encode(&q);
                (
                    "search",
                    format!(
                        "/api/v1/analyses/{}/search?q={q}&page={}",
                        config.analysis,
                        1 + i % 2
                    ),
                )
            }
            1 => {
                let subject = if !config.instances.is_empty() {
                    format!("instance={}", config.instances[i % config.instances.len()])
                } else {
                    format!(
                        "host={}",
                        config
                            .hosts
                            .get(i % config.hosts.len().max(1))
                            .cloned()
                            .unwrap_or_default()
                    )
                };
                (
                    "timeline",
                    format!("/api/v1/analyses/{}/timeline?{subject}", config.analysis),
                )
            }
            _ => {
                let page = if i.is_multiple_of(2) {
                    ""
                } else {
                    "/data.json"
                };
                ("share", format!("/s/{}{page}", config.share))
            }
        };
        let started = Instant::now();
        let mut request = client.get(format!("{}{path}", config.base));
        if kind != "share" {
            request = request.bearer_auth(&config.token);
        }
        let outcome = match request.send().await {
            Ok(r) if r.status().is_success() => {
                r.bytes().await.map(|_| ()).map_err(|e| e.to_string())
            }
            Ok(r) => Err(format!("{path}: {}", r.status())),
            Err(e) => Err(format!("{path}: {}", chain(&e))),
        };
        record(
            &results,
            kind,
            started.elapsed().as_secs_f64() * 1000.0,
            outcome,
            false,
        );
    }
}

async fn uploader(config: Arc<Config>, client: reqwest::Client, results: Results, until: Instant) {
    while Instant::now() < until {
        let started = Instant::now();
        let response = client
            .post(format!("{}/api/v1/analyses?name=load.tar.gz", config.base))
            .bearer_auth(&config.token)
            .header("content-type", "application/octet-stream")
            .body(config.upload.clone())
            .send()
            .await;
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        match response {
            Ok(r) if r.status() == 202 => record(&results, "upload", ms, Ok(()), false),
            Ok(r) if r.status() == 429 || r.status() == 503 => {
                let retry = r
                    .headers()
                    .get("retry-after")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.parse::<u64>().ok());
                match retry {
                    Some(seconds) => {
                        record(&results, "upload", ms, Ok(()), true);
                        // Honour it, capped so the run sees several rounds.
                        tokio::time::sleep(Duration::from_secs(seconds.min(2))).await;
                    }
                    None => record(
                        &results,
                        "upload",
                        ms,
                        Err(format!("{} without Retry-After", r.status())),
                        false,
                    ),
                }
            }
            Ok(r) => record(
                &results,
                "upload",
                ms,
                Err(format!("upload: {}", r.status())),
                false,
            ),
            Err(e) => record(
                &results,
                "upload",
                ms,
                Err(format!("upload: {}", chain(&e))),
                false,
            ),
        }
    }
}

/// An error with its causes: "error sending request" alone says little.
fn chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

fn url_encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' => (b as char).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

fn peak_rss_mb(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: f64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024.0)
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[at.min(sorted.len() - 1)]
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let config = Arc::new(parse_args());
    let results: Results = Arc::default();
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        // Under the server's idle cut (its header deadline, 30 s by default).
        .pool_idle_timeout(Duration::from_secs(20))
        .pool_max_idle_per_host(config.clients + config.uploads)
        .build()
        .unwrap();
    let until = Instant::now() + Duration::from_secs(config.seconds);
    let mut tasks = Vec::new();
    for n in 0..config.clients {
        tasks.push(tokio::spawn(reader(
            config.clone(),
            client.clone(),
            results.clone(),
            n,
            until,
        )));
    }
    for _ in 0..config.uploads {
        tasks.push(tokio::spawn(uploader(
            config.clone(),
            client.clone(),
            results.clone(),
            until,
        )));
    }
    for task in tasks {
        task.await.unwrap();
    }
    let mut failed = false;
    println!(
        "load: {} clients, {} uploaders, {} s",
        config.clients, config.uploads, config.seconds
    );
    println!(
        "{:<9} {:>9} {:>7} {:>6} {:>9} {:>9}",
        "kind", "requests", "errors", "busy", "p50 ms", "p99 ms"
    );
    for (kind, result) in results.lock().unwrap().iter_mut() {
        result.ms.sort_by(f64::total_cmp);
        let total = result.ms.len() as u64 + result.errors + result.busy;
        println!(
            "{kind:<9} {total:>9} {:>7} {:>6} {:>9.1} {:>9.1}",
            result.errors,
            result.busy,
            percentile(&result.ms, 0.5),
            percentile(&result.ms, 0.99)
        );
        if let Some(e) = &result.first_error {
            println!("  first error: {e}");
        }
        failed |= result.errors > 0;
    }
    if let Some(mb) = config.pid.and_then(peak_rss_mb) {
        println!("server peak RSS: {mb:.0} MB");
    }
    if failed {
        std::process::ExitCode::from(1)
    } else {
        std::process::ExitCode::SUCCESS
    }
}
