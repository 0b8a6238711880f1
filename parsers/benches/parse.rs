//! Throughput of the hot paths on realistic, generated input (nothing is committed).
//!
//! * `oslo_records`: the record assembler over ~32 MiB of masakari-engine and nova-api
//!   oslo.log, reading each record's time and request id.
//! * `parse_line_oslo`: the same text, each line through `parse_line` alone.
//! * `access_lines`: ~16 MiB of Apache access lines (Ubuntu `combined` and Kolla).
//! * `oslo_records_push`: the oslo text through the push assembler in 1 MiB pushes (as
//!   chunked reading feeds it), reading the same fields.
//! * `cri_records_push`: the same lines as a Kubernetes CRI pod log, in 1 MiB pushes.
//!
//! Targets on one core: oslo records ≥ 300 MB/s (pull and push), access lines ≥ 400 MB/s.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::fmt::Write as _;
use std::hint::black_box;
use std::time::Duration;

use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use evacdoc_parsers::access::parse_access_line;
use evacdoc_parsers::{Assembler, Record, RecordSpan, Records, parse_line};

const OSLO_BYTES: usize = 32 << 20;
const ACCESS_BYTES: usize = 16 << 20;
/// What chunked reading pushes at a time.
const PUSH_BYTES: usize = 1 << 20;

/// A deterministic linear congruential generator (Knuth's MMIX constants).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True with probability `per_mille` / 1000.
    fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1000) < per_mille
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }

    fn uuid(&mut self) -> String {
        let a = self.next() << 31 ^ self.next();
        let b = self.next() << 31 ^ self.next();
        format!(
            "{:08x}-{:04x}-4{:03x}-{:04x}-{:012x}",
            a & 0xffff_ffff,
            (a >> 32) & 0xffff,
            b & 0xfff,
            0x8000 | ((b >> 12) & 0x3fff),
            (b >> 26) & 0xffff_ffff_ffff
        )
    }

    fn hex32(&mut self) -> String {
        format!(
            "{:016x}{:016x}",
            self.next() << 31 ^ self.next(),
            self.next() << 31 ^ self.next()
        )
    }
}

/// A wall clock that moves forward a few milliseconds per line.
struct Clock {
    /// Milliseconds since 2026-11-30 00:00:00.
    ms: u64,
}

impl Clock {
    fn tick(&mut self, rng: &mut Lcg) {
        self.ms += rng.below(40);
    }

    fn oslo(&self) -> String {
        let s = self.ms / 1000;
        let day = 30 + s / 86_400;
        let (month, day) = if day > 30 { (12, day - 30) } else { (11, day) };
        format!(
            "2026-{month:02}-{day:02} {:02}:{:02}:{:02}.{:03}",
            s / 3600 % 24,
            s / 60 % 60,
            s % 60,
            self.ms % 1000
        )
    }

    fn clf(&self) -> String {
        let s = self.ms / 1000;
        let day = 30 + s / 86_400;
        let (month, day) = if day > 30 {
            ("Dec", day - 30)
        } else {
            ("Nov", day)
        };
        format!(
            "{day:02}/{month}/2026:{:02}:{:02}:{:02} +0000",
            s / 3600 % 24,
            s / 60 % 60,
            s % 60
        )
    }
}

const ENGINE_LOGGERS: &[&str] = &[
    "masakari.engine.manager",
    "masakari.compute.nova",
    "masakari.engine.drivers.taskflow.host_failure",
    "masakari.engine.drivers.taskflow.driver",
    "oslo_messaging._drivers.amqpdriver",
];
const NOVA_LOGGERS: &[&str] = &[
    "nova.compute.manager",
    "nova.api.openstack.compute.evacuate",
    "nova.scheduler.client.report",
    "nova.conductor.manager",
    "keystonemiddleware.auth_token",
];
const WORDS: &[&str] = &[
    "instance",
    "evacuate",
    "compute",
    "host",
    "service",
    "notification",
    "recovery",
    "status",
    "request",
    "failed",
    "finished",
    "server",
    "lock",
    "allocation",
    "resource",
    "provider",
    "the",
    "for",
    "on",
    "with",
    "from",
    "HA_Enabled",
    "nova-compute",
    "RPC",
];
const PYFILES: &[&str] = &[
    "/usr/lib/python3/dist-packages/masakari/compute/nova.py",
    "/usr/lib/python3/dist-packages/masakari/engine/manager.py",
    "/usr/lib/python3/dist-packages/oslo_concurrency/lockutils.py",
    "/var/lib/kolla/venv/lib/python3.10/site-packages/nova/compute/manager.py",
];
const FUNCS: &[&str] = &[
    "novaclient",
    "_process_notification",
    "inner",
    "synchronized_wrapper",
];
const PIDS: &[u32] = &[7, 2211, 7502, 28437];

/// Filler text so that lines land between 120 and 400 bytes.
fn words(rng: &mut Lcg, out: &mut String, min: usize, spread: u64) {
    let min_len = min + rng.below(spread) as usize;
    while out.len() < min_len {
        out.push(' ');
        out.push_str(rng.pick(WORDS));
    }
}

/// The context bracket in one of the eras real logs show.
fn bracket(rng: &mut Lcg, global: &str) -> String {
    match rng.below(10) {
        0..=2 => format!(
            "[None req-{} {} {} - - default default]",
            rng.uuid(),
            rng.hex32(),
            rng.hex32()
        ),
        3..=5 => format!("[req-{global} req-{} nova - - - - -]", rng.uuid()),
        6 => format!("[None req-{} - - - - - -]", rng.uuid()),
        7 => format!("[req-{} nova - - - -]", rng.uuid()),
        8 => format!(
            "[req-{} {} {} - default default]",
            rng.uuid(),
            rng.hex32(),
            rng.hex32()
        ),
        _ => "[-]".to_owned(),
    }
}

/// An oslo.log file mixing masakari-engine and nova-api records.
fn oslo_log(bytes: usize) -> String {
    let mut rng = Lcg(0x5eed_0510);
    let mut clock = Clock { ms: 9 * 3_600_000 };
    let mut out = String::with_capacity(bytes + 4096);
    let mut global = rng.uuid();
    let mut line = String::with_capacity(512);
    while out.len() < bytes {
        clock.tick(&mut rng);
        if rng.chance(5) {
            global = rng.uuid();
        }
        let ts = clock.oslo();
        let pid = PIDS[rng.below(PIDS.len() as u64) as usize];
        let nova = rng.chance(450);
        let logger = if nova {
            rng.pick(NOVA_LOGGERS)
        } else {
            rng.pick(ENGINE_LOGGERS)
        };
        let ctx = bracket(&mut rng, &global);
        line.clear();
        let roll = rng.below(1000);
        let level = match roll {
            0..=9 => "WARNING", // 1%: taskflow failure, multi-line
            10..=14 => "ERROR", // 0.5%: with a traceback
            15..=79 => "WARNING",
            80..=379 => "DEBUG",
            _ => "INFO",
        };
        if nova && roll >= 380 && rng.chance(400) {
            // nova.api.openstack.requestlog
            let _ = write!(
                line,
                "{ts} {pid} INFO nova.api.openstack.requestlog {ctx} 10.0.{}.{} \"{} /v2.1/servers/{}{}\" status: {} len: {} microversion: 2.{} time: 0.{:06}",
                rng.below(256),
                rng.below(256),
                rng.pick(&["GET", "POST", "GET", "PUT", "DELETE"]),
                rng.uuid(),
                rng.pick(&["", "/action", "/os-instance-actions", ""]),
                rng.pick(&["200", "202", "400", "404", "409", "500"]),
                rng.below(50_000),
                rng.below(96),
                rng.below(1_000_000)
            );
        } else {
            let _ = write!(line, "{ts} {pid} {level} {logger} {ctx} ");
            if nova && rng.chance(500) {
                let _ = write!(line, "[instance: {}] ", rng.uuid());
            }
            match roll {
                0..=9 => {
                    let _ = write!(
                        line,
                        "Task 'EvacuateInstancesTask' ({}) transitioned into state 'FAILURE' from state 'RUNNING'",
                        rng.uuid()
                    );
                }
                10..=79 => {
                    let _ = write!(line, "Failed to evacuate instance {}", rng.uuid());
                    words(&mut rng, &mut line, 100, 120);
                    let _ = write!(
                        line,
                        ": masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance {}",
                        rng.uuid()
                    );
                }
                80..=379 => {
                    let _ = write!(line, "Call get server command for instance {}", rng.uuid());
                    words(&mut rng, &mut line, 120, 200);
                    let _ = write!(
                        line,
                        " {} {}:{}",
                        rng.pick(FUNCS),
                        rng.pick(PYFILES),
                        rng.below(900) + 10
                    );
                }
                _ => {
                    let _ = write!(line, "Processing notification {}", rng.uuid());
                    words(&mut rng, &mut line, 120, 280);
                }
            }
        }
        out.push_str(&line);
        out.push('\n');
        if roll < 10 {
            out.push_str("1 predecessors (most recent first):\n");
            let _ = writeln!(
                out,
                "  Atom 'PrepareHAEnabledInstancesTask' {{'intention': 'EXECUTE', 'state': 'SUCCESS', 'requires': {{'host_name': 'compute-{}'}}, 'provides': None}}",
                rng.below(64)
            );
            let _ = writeln!(
                out,
                "  |__Flow 'instance_evacuate_engine': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{}' from host 'compute-{}'",
                rng.uuid(),
                rng.below(64)
            );
        } else if roll < 15 {
            let prefix = format!("{ts} {pid} ERROR {logger} ");
            let _ = writeln!(out, "{prefix}Traceback (most recent call last):");
            for _ in 0..(rng.below(3) + 1) {
                let _ = writeln!(
                    out,
                    "{prefix}  File \"{}\", line {}, in {}",
                    rng.pick(PYFILES),
                    rng.below(900) + 10,
                    rng.pick(FUNCS)
                );
                let _ = writeln!(out, "{prefix}    result = task.execute(**arguments)");
            }
            let _ = writeln!(
                out,
                "{prefix}masakari.exception.MasakariException: An unknown exception occurred."
            );
            let _ = writeln!(out, "{prefix}");
        }
    }
    out
}

/// An Apache access log mixing Ubuntu `combined` and Kolla lines.
fn access_log(bytes: usize) -> String {
    let mut rng = Lcg(0xacce55);
    let mut clock = Clock { ms: 9 * 3_600_000 };
    let mut out = String::with_capacity(bytes + 1024);
    while out.len() < bytes {
        clock.tick(&mut rng);
        clock.ms += rng.below(200);
        let method = rng.pick(&["GET", "GET", "GET", "POST", "PUT", "DELETE"]);
        let path = match rng.below(5) {
            0 => format!("/v2.1/servers/{}/action", rng.uuid()),
            1 => format!("/v2.1/servers/{}", rng.uuid()),
            2 => "/v2.1/servers/detail?all_tenants=True&host=compute-1".to_owned(),
            3 => format!(
                "/v2.1/os-services?binary=nova-compute&host=compute-{}",
                rng.below(64)
            ),
            _ => format!("/v2.1/servers/{}/os-instance-actions", rng.uuid()),
        };
        let status = rng.pick(&["200", "200", "202", "204", "400", "404", "409", "500"]);
        let agent = rng.pick(&[
            "python-novaclient",
            "keystoneauth1/5.1.2 python-requests/2.28.1 CPython/3.10.12",
            "openstacksdk/1.0.1 keystoneauth1/5.1.2 python-requests/2.28.1 CPython/3.10.12",
            "Go-http-client/1.1",
        ]);
        if rng.chance(500) {
            // Ubuntu combined: %h %l %u %t "%r" %>s %O "%{Referer}i" "%{User-Agent}i"
            let _ = writeln!(
                out,
                "127.0.0.1 - - [{}] \"{method} {path} HTTP/1.1\" {status} {} \"-\" \"{agent}\"",
                clock.clf(),
                rng.below(40_000) + 200
            );
        } else {
            // Kolla: %{X-Forwarded-For}i %l %u %t "%r" %>s %b %D "%{Referer}i" "%{User-Agent}i"
            let bytes = if rng.chance(200) {
                "-".to_owned()
            } else {
                (rng.below(40_000) + 20).to_string()
            };
            let _ = writeln!(
                out,
                "10.{}.{}.{} - - [{}] \"{method} {path} HTTP/1.1\" {status} {bytes} {} \"-\" \"{agent}\"",
                rng.below(256),
                rng.below(256),
                rng.below(256),
                clock.clf(),
                rng.below(5_000_000)
            );
        }
    }
    out
}

fn lines(text: &str) -> impl Iterator<Item = &str> {
    let mut rest = text;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let end = memchr::memchr(b'\n', rest.as_bytes()).unwrap_or(rest.len());
        let (line, tail) = rest.split_at(end);
        rest = tail.get(1..).unwrap_or("");
        Some(line)
    })
}

/// The oslo text as containerd writes it under `/var/log/pods/`: a CRI prefix a line.
fn cri_log(oslo: &str) -> String {
    let mut out = String::with_capacity(oslo.len() + oslo.len() / 3);
    for (i, line) in lines(oslo).enumerate() {
        let _ = writeln!(
            out,
            "2026-11-30T09:{:02}:{:02}.{:09}Z stderr F {line}",
            (i / 60_000) % 60,
            (i / 1000) % 60,
            (i % 1000) * 997_001
        );
    }
    out
}

/// Says what the generated input holds, so a change in the generator or the parsers
/// that turns the input into unparsed lines shows up.
fn describe(oslo: &str, access: &str) {
    let (mut records, mut multi, mut unparsed, mut with_id) = (0, 0, 0, 0);
    for r in Records::new(oslo) {
        records += 1;
        multi += usize::from(r.line_count() > 1);
        unparsed += usize::from(r.unparsed_reason().is_some());
        with_id += usize::from(r.oslo().and_then(|o| o.request_id()).is_some());
    }
    let oslo_lines = lines(oslo).count();
    let access_lines = lines(access).count();
    let access_ok = lines(access)
        .filter(|l| parse_access_line(l).is_ok())
        .count();
    eprintln!(
        "oslo: {} bytes, {oslo_lines} lines (mean {} bytes), {records} records, {multi} \
         multi-line, {with_id} with a request id, {unparsed} unparsed",
        oslo.len(),
        oslo.len() / oslo_lines.max(1),
    );
    eprintln!(
        "access: {} bytes, {access_lines} lines (mean {} bytes), {access_ok} parsed",
        access.len(),
        access.len() / access_lines.max(1),
    );
}

fn bench(c: &mut Criterion) {
    let oslo = oslo_log(OSLO_BYTES);
    let access = access_log(ACCESS_BYTES);
    describe(&oslo, &access);

    let mut group = c.benchmark_group("parse");
    group
        .sample_size(10)
        .sampling_mode(SamplingMode::Flat)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(3));

    group.throughput(Throughput::Bytes(oslo.len() as u64));
    group.bench_function("oslo_records", |b| {
        b.iter(|| {
            for record in Records::new(black_box(&oslo)) {
                black_box(record.timestamp());
                black_box(record.oslo().and_then(|o| o.request_id()));
            }
        });
    });
    group.bench_function("parse_line_oslo", |b| {
        b.iter(|| {
            for line in lines(black_box(&oslo)) {
                black_box(parse_line(line));
            }
        });
    });

    let push = |text: &[u8]| {
        let mut a = Assembler::new();
        let mut read = |record: &Record<'_>, span: RecordSpan| {
            black_box(record.timestamp());
            black_box(record.oslo().and_then(|o| o.request_id()));
            black_box(span);
        };
        for chunk in text.chunks(PUSH_BYTES) {
            a.push(chunk, &mut read);
        }
        a.finish(&mut read);
    };
    group.bench_function("oslo_records_push", |b| {
        b.iter(|| push(black_box(oslo.as_bytes())));
    });
    let cri = cri_log(&oslo);
    group.throughput(Throughput::Bytes(cri.len() as u64));
    group.bench_function("cri_records_push", |b| {
        b.iter(|| push(black_box(cri.as_bytes())));
    });

    group.throughput(Throughput::Bytes(access.len() as u64));
    group.bench_function("access_lines", |b| {
        b.iter(|| {
            for line in lines(black_box(&access)) {
                let _ = black_box(parse_access_line(line));
            }
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
