//! Indexing throughput, index size and search latency on a bundle (not run in CI):
//!
//!     cargo run --release --example bench_index -- BUNDLE [QUERIES]
//!
//! Runs the analysis alone, then again with the index as a sink of the same pass; then
//! QUERIES (default 1000) mixed field and text queries built from the analysis' events
//! (ids, levels with words, hosts, services, phrases, UTC ranges), one page of 50 each.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::path::PathBuf;
use std::time::Instant;

use evacdoc::index::{Indexer, SearchIndex, SearchQuery};
use evacdoc::run::{RunOptions, analyze_inputs};

#[path = "shared/cpu.rs"]
mod cpu;
use cpu::cpu_seconds;

/// A small deterministic generator (no dependency).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

fn main() {
    let mut args = std::env::args().skip(1);
    let bundle = PathBuf::from(args.next().expect("usage: bench_index BUNDLE [QUERIES]"));
    let queries: usize = args
        .next()
        .map_or(1000, |n| n.parse().expect("QUERIES is a number"));
    let inputs = [bundle];

    let started = Instant::now();
    let cpu0 = cpu_seconds();
    let plain = analyze_inputs(&inputs, &RunOptions::default()).unwrap();
    let plain_s = started.elapsed().as_secs_f64();
    let plain_cpu = cpu_seconds() - cpu0;
    drop(plain);

    let dir = tempfile::tempdir_in(std::env::var_os("INDEX_DIR").unwrap_or_else(|| "/tmp".into()))
        .unwrap();
    let started = Instant::now();
    let cpu1 = cpu_seconds();
    let budget = std::env::var("INDEX_BUDGET")
        .ok()
        .and_then(|b| b.parse().ok())
        .unwrap_or(64 << 20);
    let indexer = Indexer::create(dir.path(), budget).unwrap();
    let options = RunOptions {
        sinks: Some(indexer.sinks()),
        ..RunOptions::default()
    };
    let report = analyze_inputs(&inputs, &options).unwrap();
    let analysed_s = started.elapsed().as_secs_f64();
    let cpu2 = cpu_seconds();
    let stats = indexer.finish(&report.analysis).unwrap();
    let total_s = started.elapsed().as_secs_f64();
    let cpu3 = cpu_seconds();
    let mb = stats.bytes as f64 / 1e6;
    println!(
        "input: {mb:.1} MB of log, {} records, {} files",
        stats.documents,
        report.analysis.files.len()
    );
    println!(
        "analysis alone: {plain_s:.2} s, {plain_cpu:.2} s CPU ({:.1} MB/s)",
        mb / plain_s
    );
    println!(
        "analysis + spool: {analysed_s:.2} s, {:.2} s CPU",
        cpu2 - cpu1
    );
    println!(
        "index build from the spool: {:.2} s, {:.2} s CPU ({:.1} MB/s; {:.1} MB/s per CPU second)",
        total_s - analysed_s,
        cpu3 - cpu2,
        mb / (total_s - analysed_s),
        mb / (cpu3 - cpu2)
    );
    println!(
        "index: {:.1} MB = {:.1} % of the input",
        stats.index_bytes as f64 / 1e6,
        stats.index_bytes as f64 * 100.0 / stats.bytes as f64
    );

    let index = SearchIndex::open(dir.path()).unwrap();
    let a = &report.analysis;
    let mut rng = Lcg(7);
    let words: Vec<String> = a
        .events
        .iter()
        .flat_map(|e| {
            e.message()
                .split_whitespace()
                .map(str::to_string)
                .collect::<Vec<_>>()
        })
        .filter(|w| w.len() > 4 && w.chars().all(|c| c.is_ascii_alphabetic()))
        .take(100_000)
        .collect();
    let mut made = Vec::with_capacity(queries);
    while made.len() < queries {
        let e = &a.events[rng.below(a.events.len())];
        let word = &words[rng.below(words.len())];
        let host = &a.hosts[e.host as usize].hostname;
        let service = a.files[e.file as usize].service.name();
        let mut query = SearchQuery::new("");
        query.q = match rng.below(7) {
            0 => match e.instances.as_slice().first() {
                Some(i) => format!("instance:{i}"),
                None => continue,
            },
            1 => match e.request_id {
                Some(r) => format!("request:req-{r}"),
                None => continue,
            },
            2 => format!("level:ERROR {word}"),
            3 => format!("host:{host} level:WARNING"),
            4 => format!("service:{service} {word}"),
            5 => {
                let message = e.message();
                let phrase: Vec<&str> = message
                    .split_whitespace()
                    .filter(|w| w.chars().all(|c| c.is_ascii_alphabetic()))
                    .take(2)
                    .collect();
                if phrase.len() < 2 {
                    continue;
                }
                format!("\"{}\"", phrase.join(" "))
            }
            _ => {
                query.from = Some(e.time - 600_000_000_000);
                query.to = Some(e.time + 600_000_000_000);
                match e
                    .notifications
                    .as_slice()
                    .first()
                    .or(e.instances.as_slice().first())
                {
                    Some(i) => format!("notification:{i} OR instance:{i} OR {word}"),
                    None => word.to_string(),
                }
            }
        };
        made.push(query);
    }
    let mut times = Vec::with_capacity(made.len());
    let mut hits = 0usize;
    for query in &made {
        let started = Instant::now();
        let page = index.search(query).unwrap();
        times.push(started.elapsed().as_secs_f64() * 1000.0);
        hits += page.total;
    }
    // QUERIES 0: the build's figures alone.
    if times.is_empty() {
        return;
    }
    times.sort_by(f64::total_cmp);
    let at = |q: f64| times[((times.len() as f64 - 1.0) * q).round() as usize];
    println!(
        "search: {} queries, median {:.2} ms, p90 {:.2} ms, p99 {:.2} ms, max {:.2} ms (mean {:.0} matches per query)",
        times.len(),
        at(0.5),
        at(0.9),
        at(0.99),
        at(1.0),
        hits as f64 / times.len() as f64
    );
}
