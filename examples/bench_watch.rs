//! Watch throughput, memory over a long run, and latency from a failed recovery's last
//! line to its finding (not run in CI; `scripts/bench_watch.sh` builds and runs it):
//!
//!     cargo run --release --example bench_watch -- [MB] [RECOVERIES] [LATENCY_RUNS]
//!
//! 1. MB (default 500) of Nova API request lines and Masakari DEBUG lines, appended in
//!    4 MiB writes to two live logs, each write followed by one look of the watcher:
//!    MB/s over the watcher's time (wall and CPU; it runs on one thread).
//! 2. RECOVERIES (default 2000) failed recoveries, each with 1 MiB of such lines around
//!    it, followed live: RSS every tenth of the run, findings handed out.
//! 3. LATENCY_RUNS (default 10) failed recoveries written by another thread while the
//!    watcher polls every 200 ms as `evacdoc watch` does: time from the write of the
//!    line that ends the run (`exits with status: error`) to the finding.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use evacdoc::watch::{WatchOptions, Watcher};

#[path = "shared/cpu.rs"]
mod cpu;
use cpu::cpu_seconds;

fn append(path: &Path, bytes: &[u8]) {
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(bytes).unwrap();
}

/// About `bytes` of noise: Nova API request lines (server polls, flavor reads, a few
/// server actions) and Masakari DEBUG lines of periodic tasks, at `minute`.
fn noise(bytes: usize, minute: usize, seq: &mut u64) -> (Vec<u8>, Vec<u8>) {
    let mut nova = Vec::with_capacity(bytes);
    let mut masakari = Vec::new();
    let (day, hh, mm) = clock(minute);
    while nova.len() + masakari.len() < bytes {
        *seq += 1;
        let s = *seq;
        let ss = (s / 1000) % 60;
        let ms = s % 1000;
        let uri = match s % 50 {
            0 => format!("POST /v2.1/servers/9f0c{s:028x}/action"),
            1 => "GET /v2.1/flavors/detail".to_string(),
            _ => "GET /v2.1/servers/detail?all_tenants=True&host=cmp07".to_string(),
        };
        writeln!(
            nova,
            "2026-{day} {hh:02}:{mm:02}:{ss:02}.{ms:03} 141077 INFO nova.api.openstack.requestlog [req-{s:08x}-f89a-4c59-b239-f89c2f86e9f4 1bad1f0b42df4ed3800231d7bf091b59 226937c2155f42ac87679f550135fa62 - default default] 172.27.100.141 \"{uri}\" status: 200 len: 40182 microversion: 2.1 time: 0.325829"
        )
        .unwrap();
        if s.is_multiple_of(4) {
            writeln!(
                masakari,
                "2026-{day} {hh:02}:{mm:02}:{ss:02}.{ms:03} 7502 DEBUG oslo_service.periodic_task [None req-a49b59c8-ae66-4306-938a-{s:012x} - - - - - -] Running periodic task MasakariManager._process_unfinished_notifications run_periodic_tasks /usr/lib/python3/dist-packages/oslo_service/periodic_task.py:210"
            )
            .unwrap();
        }
    }
    (nova, masakari)
}

/// The date (`MM-DD`), hour and minute `minute` minutes after 2026-01-01 00:00, so that
/// log time only goes forward however long the run.
fn clock(minute: usize) -> (String, usize, usize) {
    let days = minute / 1440;
    let (month, day) = (1 + (days / 28) % 12, 1 + days % 28);
    (
        format!("{month:02}-{day:02}"),
        (minute / 60) % 24,
        minute % 60,
    )
}

/// One failed host recovery in Masakari's lines: the lines up to the failure, the line
/// that ends the run (`exits with status: error`), and the periodic task's later
/// `failed`.
fn failed_recovery(n: usize, minute: usize) -> (String, String, String) {
    let notification = format!("c5e0e0c8-1c1d-4d71-9a0e-{n:012x}");
    let instance = format!("7d1e5f0a-0000-4000-8000-{n:012x}");
    let request = format!("req-11111111-2222-3333-4444-{n:012x}");
    let (day, hh, mm) = clock(minute);
    let t = |s: usize| format!("2026-{day} {hh:02}:{mm:02}:{s:02}.845");
    let ctx = format!("[{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -]");
    let body = format!(
        "{} 7502 INFO masakari.engine.manager [None {request} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {notification} of type: COMPUTE_HOST\n\
         {} 7502 INFO masakari.compute.nova {ctx} Disable nova-compute on compute-{n}\n\
         {} 7502 WARNING masakari.engine.drivers.taskflow.host_failure {ctx} Failed to evacuate instance {instance}: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance {instance}\n\
         {} 7502 ERROR masakari.engine.manager {ctx} Failed to process notification '{notification}'. Reason: Failed to evacuate instances '{instance}' from host 'compute-{n}': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{instance}' from host 'compute-{n}'\n",
        t(1),
        t(2),
        t(3),
        t(4),
    );
    let end = format!(
        "{} 7502 INFO masakari.engine.manager {ctx} Notification {notification} exits with status: error.\n",
        t(5)
    );
    let last = format!(
        "{} 7502 ERROR masakari.engine.manager [None req-a49b59c8-ae66-4306-938a-{n:012x} - - - - - -] Periodic task 'process_unfinished_notifications': Notification {notification} exits with status: failed.\n",
        t(30)
    );
    (body, end, last)
}

struct Live {
    _dir: tempfile::TempDir,
    root: PathBuf,
    nova: PathBuf,
    engine: PathBuf,
}

fn live() -> Live {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ctl1");
    std::fs::create_dir_all(root.join("etc")).unwrap();
    std::fs::write(root.join("etc/hostname"), "ctl1\n").unwrap();
    let nova = root.join("var/log/nova/nova-api-wsgi.log");
    let engine = root.join("var/log/masakari/masakari-engine.log");
    std::fs::create_dir_all(nova.parent().unwrap()).unwrap();
    std::fs::create_dir_all(engine.parent().unwrap()).unwrap();
    append(&nova, b"");
    append(&engine, b"");
    Live {
        _dir: dir,
        root,
        nova,
        engine,
    }
}

fn rss() -> String {
    evacdoc::memory::rss_mb().map_or_else(|| "?".into(), |m| m.to_string())
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mb: usize = args.next().map_or(500, |v| v.parse().expect("MB"));
    let recoveries: usize = args.next().map_or(2000, |v| v.parse().expect("RECOVERIES"));
    let latency_runs: usize = args.next().map_or(10, |v| v.parse().expect("LATENCY_RUNS"));
    let options = || WatchOptions {
        rescan: Duration::from_secs(3600),
        ..WatchOptions::default()
    };

    // 1. Throughput.
    let l = live();
    let mut watcher = Watcher::new(std::slice::from_ref(&l.root), options()).unwrap();
    let mut seq = 0u64;
    let (nova, masakari) = noise(4 << 20, 0, &mut seq);
    let block = nova.len() + masakari.len();
    let blocks = (mb << 20).div_ceil(block);
    let (mut wall, mut cpu) = (0f64, 0f64);
    for _ in 0..blocks {
        append(&l.nova, &nova);
        append(&l.engine, &masakari);
        let (t, c) = (Instant::now(), cpu_seconds());
        watcher.poll();
        wall += t.elapsed().as_secs_f64();
        cpu += cpu_seconds() - c;
    }
    let stats = watcher.stats();
    let read_mb = stats.bytes as f64 / (1u64 << 20) as f64;
    println!(
        "throughput: {read_mb:.0} MB appended ({} records) read in {wall:.2} s wall, {cpu:.2} s CPU: {:.0} MB/s wall, {:.0} MB/s CPU; held events {}, RSS {} MB",
        stats.records,
        read_mb / wall,
        read_mb / cpu.max(0.01),
        stats.held_events,
        rss()
    );
    drop(watcher);
    drop(l);

    // 2. A long run: memory.
    let l = live();
    let mut watcher = Watcher::new(std::slice::from_ref(&l.root), options()).unwrap();
    let started = Instant::now();
    let mut found = 0usize;
    for n in 0..recoveries {
        let (nova, masakari) = noise(1 << 20, n, &mut seq);
        append(&l.nova, &nova);
        append(&l.engine, &masakari);
        let (body, end, last) = failed_recovery(n, n);
        append(&l.engine, body.as_bytes());
        append(&l.engine, end.as_bytes());
        append(&l.engine, last.as_bytes());
        found += watcher.poll().len();
        found += watcher.poll().len();
        if (n + 1).is_multiple_of((recoveries / 10).max(1)) {
            let s = watcher.stats();
            println!(
                "long run: {:>5} recoveries, {:>6} MB read, {:>5} findings, {:>6} events held, RSS {:>4} MB, {:.0} s",
                n + 1,
                s.bytes >> 20,
                found,
                s.held_events,
                rss(),
                started.elapsed().as_secs_f64()
            );
        }
    }
    drop(watcher);
    drop(l);

    // 3. Latency, as `evacdoc watch` polls.
    let l = live();
    let mut watcher = Watcher::new(std::slice::from_ref(&l.root), options()).unwrap();
    let mut latencies = Vec::new();
    for run in 0..latency_runs {
        let n = 1_000_000 + run;
        let (body, end, _) = failed_recovery(n, run);
        let engine = l.engine.clone();
        // The run's last line comes a while after the others, at a random point of the
        // poll cycle.
        let pause = 300 + (run * 37) % 200;
        let writer = std::thread::spawn(move || {
            append(&engine, body.as_bytes());
            std::thread::sleep(Duration::from_millis(pause as u64));
            append(&engine, end.as_bytes());
            Instant::now()
        });
        let mut seen = None;
        let deadline = Instant::now() + Duration::from_secs(10);
        while seen.is_none() && Instant::now() < deadline {
            let findings = watcher.poll();
            if findings.iter().any(|f| {
                f.notification_id
                    .as_deref()
                    .is_some_and(|id| id.ends_with(&format!("{n:012x}")))
            }) {
                seen = Some(Instant::now());
            }
            std::thread::sleep(watcher.poll_interval());
        }
        let last_written = writer.join().unwrap();
        let seen = seen.expect("the finding came");
        latencies.push(seen.saturating_duration_since(last_written).as_millis() as u64);
    }
    latencies.sort_unstable();
    println!(
        "latency (last line written → finding, poll 200 ms): median {} ms, max {} ms over {} runs",
        latencies.get(latencies.len() / 2).copied().unwrap_or(0),
        latencies.last().copied().unwrap_or(0),
        latencies.len()
    );
}
