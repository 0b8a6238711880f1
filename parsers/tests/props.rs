//! Property tests for the whole crate: no entry point panics, whatever the input; time
//! values survive formatting and parsing; the record assembler accounts for every line.
//!
//! Inputs are arbitrary bytes (decoded lossily) and near-misses of real log lines: a real
//! line truncated, with bytes inserted or deleted, or multi-byte characters spliced in,
//! which is where fixed-width readers and byte slicing go wrong.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::hint::black_box;

use evacdoc_parsers::context::{Context, ContextForm};
use evacdoc_parsers::text::is_request_id;
use evacdoc_parsers::time::{self, DateTime, Timestamp};
use evacdoc_parsers::{
    Assembler, Record, RecordSpan, Records, access, context, cri, docker, ini, nova_request, oslo,
    parse_line, pebble, syslog, utf8, uwsgi,
};
use proptest::prelude::*;
use proptest::test_runner::FileFailurePersistence;

/// Real lines of every format the crate reads (from the reference and the samples).
const SEEDS: &[&str] = &[
    // oslo.log, Zed+ and pre-Zed brackets, default format, exception prefix.
    "2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [-] Starting masakari-engine (version 19.0.0)",
    "2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [None req-11111111-2222-3333-4444-555555555555 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10 of type: COMPUTE_HOST",
    "2026-11-30 09:34:22.845 7502 INFO masakari.compute.nova [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Disable nova-compute on compute-1",
    "2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.host_failure [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001",
    "2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.driver [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Task 'EvacuateInstancesTask' (8a1b2c3d-0000-4000-8000-00000000000a) transitioned into state 'FAILURE' from state 'RUNNING'",
    "1 predecessors (most recent first):",
    "  Atom 'PrepareHAEnabledInstancesTask' {...}: masakari.exception.MasakariException: An unknown exception occurred.",
    "2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):",
    "2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver   File \"/usr/lib/python3/dist-packages/demo.py\", line 49, in <module>",
    "2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver masakari.exception.MasakariException: An unknown exception occurred.",
    "2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver ",
    "2026-11-30 09:34:57.339 9162 ERROR masakari.engine.manager [req-ceba6651-a42e-4c80-aec9-8128099a8ded nova - - - -] Failed to process notification 'c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10'. Reason: Failed to evacuate instances '7d1e5f0a-0000-4000-8000-000000000001' from host 'compute-1': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '7d1e5f0a-0000-4000-8000-000000000001' from host 'compute-1'",
    "2026-12-01 16:29:57.702 2211 DEBUG masakari.engine.manager [-] Initializing Masakari Manager. __init__ /usr/lib/python3/dist-packages/masakari/engine/manager.py:60",
    "2018-03-06 10:22:05.640 28651 INFO nova.compute.manager [req-cc37f38f-2e81-42e5-a593-13c3ac47681c admin admin] [instance: 12623a78-4226-4307-b395-1a3e5e1284aa] Evacuating instance",
    "2019-07-25 08:48:57.448 22 INFO nova.api.openstack.requestlog [req-9d369ea4-1812-4aee-b334-fdb0aa9ddd27 7a59ab2d44ff4d5ba9be756d6e1fe199 902e2a271f844f189dc61719ab44bc22 - default default] 192.168.24.1 \"OPTIONS /\" status: 200 len: 405 microversion: - time: 0.001091",
    "2018-03-06 10:21:52.911 28437 INFO nova.api.openstack.requestlog [req-bdebf561-214b-48a2-bc42-bed8cf8870c2 demo admin] 10.0.2.15 \"POST /compute/v2.1/servers/12623a78-4226-4307-b395-1a3e5e1284aa/action\" status: 202 len: 0 microversion: 2.1 time: 0.093377",
    "2021-09-24 14:16:42.589 2289 INFO nova.osapi_compute.wsgi.server [req-de76dedd-c998-4325-9546-0034cfab78e3 9942eb4321644336a0c7383d9f1c2bed a7d812868cb74f1a978035530f55f1d0 - default default] 192.168.112.146 \"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404 len: 517 time: 0.2916870",
    "2022-03-22 09:23:49.121 2720 INFO nova.osapi_compute.wsgi.server [-] 192.168.137.11 \"GET /v2.1/os-services HTTP/1.1\" status: 503 len: 498 time: 0.0100830",
    // Raw traceback (eventlet stderr).
    "Traceback (most recent call last):",
    "  File \".../eventlet/greenpool.py\", line 87, in _spawn_n_impl",
    "    func(*args, **kwargs)",
    "keystoneauth1.exceptions.http.Unauthorized: The request you have made requires authentication. (HTTP 401) (Request-ID: req-11111111-2222-3333-4444-555555555555)",
    "During handling of the above exception, another exception occurred:",
    // Apache access: Ubuntu combined, Kolla, common.
    "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1\" 200 3984 \"-\" \"python-novaclient\"",
    "127.0.0.1 - - [27/Dec/2021:00:00:10 +0000] \"GET /v2.1/servers/detail?name=juju-.%2A HTTP/1.1\" 200 40168 \"-\" \"goose (0.1.0)\"",
    "10.0.0.15 - - [08/Dec/2020:19:51:12 +0100] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540 1893 \"-\" \"python-novaclient\"",
    "192.168.1.10 - - [08/Dec/2020:19:51:12 -0500] \"GET / HTTP/1.1\" 200 -",
    // uWSGI.
    "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} [Thu Aug  1 12:00:00 2025] POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action => generated 0 bytes in 512 msecs (HTTP/1.1 200) 7 headers in 283 bytes (1 switches on core 0)",
    // Pebble (Sunbeam).
    "2025-05-14T04:29:00.317Z [wsgi-nova-api] 10.1.0.50 - - [14/May/2025:04:26:38 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \"Go-http-client/1.1\"",
    "2025-05-14T04:29:00.319Z [wsgi-nova-api] 2025-05-14 04:29:00.319135 2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app [None req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data already initialized, not re-initializing.\\x1b[00m",
    "2025-05-14T07:10:35.743Z [nova-conductor] 2025-05-14 07:10:35.742 17 ERROR nova.conductor.manager [-] Failed (HTTP 503)[00m",
    // Kubernetes CRI and Docker json-file container logs.
    "2026-11-30T09:34:22.845912345Z stderr F 2026-11-30 09:34:22.845 7502 INFO masakari.compute.nova [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Disable nova-compute on compute-1",
    "2026-11-30T10:34:22.845912345+01:00 stdout P 2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.",
    "2025-05-14T07:10:35.743846598+00:00 stdout F 2025-05-14T07:10:35.743Z [nova-conductor] 2025-05-14 07:10:35.742 17 ERROR nova.conductor.manager [-] Failed (HTTP 503)[00m",
    r#"{"log":"2018-03-06 10:22:05.640 28651 INFO nova.compute.manager [req-cc37f38f-2e81-42e5-a593-13c3ac47681c admin admin] [instance: 12623a78-4226-4307-b395-1a3e5e1284aa] Evacuating instance\n","stream":"stderr","time":"2018-03-06T10:22:05.640812907Z"}"#,
    r#"{"log":"  File \"/usr/lib/python3/dist-packages/demo.py\", line 49, in \u003cmodule\u003e\u001b[00m\n","stream":"stdout","attrs":{"tag":"nova_api"},"time":"2026-11-30T09:34:22.846855104Z"}"#,
    r#"{"log":"2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.driver [req-1111","stream":"stderr","time":"2026-11-30T09:34:22.846715385Z"}"#,
    // syslog and journal.
    "Dec  1 16:36:28 compute-1 nova-compute[2211]: 2026-12-01 16:36:28.512 2211 INFO nova.compute.manager [-] Starting instance...",
    "Dec 01 16:36:28.123456 compute-1 masakari-engine[2211]: Traceback (most recent call last):",
    "2026-12-01T16:36:28+0000 compute-1 nova-compute[2211]: 2026-12-01 16:36:28.512 2211 WARNING nova.compute.manager [-] x",
    "1764606988.123456 compute-1 pacemaker-fenced[1234]: notice: Operation 'reboot' targeting compute-1 succeeded",
    "Mon 2026-12-01 16:36:28 UTC compute-1 systemd[1]: Started nova-compute.service.",
    // INI.
    "[DEFAULT]",
    "wait_period_after_service_update = 180",
    "# a comment",
    "[host_failure]",
    "evacuate_all_instances=True",
    "  continued value",
    "",
    "   ",
];

/// Multi-line texts from the samples: records with continuations and tracebacks.
const SAMPLES: &[&str] = &[
    include_str!("../../samples/parsers/oslo/continuation_taskflow.log"),
    include_str!("../../samples/parsers/oslo/traceback_prefixed.log"),
    include_str!("../../samples/parsers/oslo/debug_suffix.log"),
    include_str!("../../samples/parsers/cri/containerd_partial_lines.log"),
    include_str!("../../samples/parsers/docker/kolla_nova_json_file.log"),
    include_str!("../../samples/parsers/oslo/error_summary.log"),
    include_str!("../../samples/parsers/oslo/bracket_devstack_custom.log"),
    "# masakari.conf\n[DEFAULT]\ndebug = True\nlog_dir = /var/log/kolla/masakari\n\n\
     [host_failure]\nevacuate_all_instances = True\n; comment\nwait_period_after_service_update = 180\n\
     [taskflow_driver_recovery_flows]\nhost_auto_failure_recovery_tasks = {'pre': \
     ['disable_compute_service_task'],\n    'main': ['prepare_HA_enabled_instances_task']}\n\
     [keystone_authtoken]\npassword = s3cr=t:x\n",
];

/// Characters spliced into near-misses: multi-byte UTF-8 of each width, controls and
/// the punctuation the grammars key on.
const SPLICE: &[char] = &[
    'é', '€', '𝄞', '\u{fffd}', '\u{1b}', '\0', '\r', '\n', '\t', ' ', '[', ']', '"', ':', '-', '.',
    '/', '|', '{', '}', '0', '9', 'Z', '+',
];

#[derive(Clone, Debug)]
enum Mutation {
    /// Cut the text at a fraction of its length.
    Truncate(f64),
    /// Insert a byte at a fraction of the length (may break UTF-8).
    InsertByte(f64, u8),
    /// Delete up to `n` bytes at a fraction of the length (may break UTF-8).
    Delete(f64, usize),
    /// Insert a character at the nearest char boundary.
    Splice(f64, char),
    /// Replace the character at the nearest char boundary.
    Replace(f64, char),
}

fn at(len: usize, fraction: f64) -> usize {
    ((len as f64 * fraction) as usize).min(len)
}

fn boundary(s: &str, mut i: usize) -> usize {
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

fn apply(seed: &str, mutations: &[Mutation]) -> Vec<u8> {
    let mut bytes = seed.as_bytes().to_vec();
    for m in mutations {
        match *m {
            Mutation::Truncate(f) => bytes.truncate(at(bytes.len(), f)),
            Mutation::InsertByte(f, b) => bytes.insert(at(bytes.len(), f), b),
            Mutation::Delete(f, n) => {
                let start = at(bytes.len(), f);
                let end = (start + n).min(bytes.len());
                bytes.drain(start..end);
            }
            Mutation::Splice(f, c) | Mutation::Replace(f, c) => {
                let mut s = String::from_utf8_lossy(&bytes).into_owned();
                let i = boundary(&s, at(s.len(), f));
                if matches!(m, Mutation::Replace(..))
                    && let Some(old) = s[i..].chars().next()
                {
                    s.replace_range(i..i + old.len_utf8(), "");
                }
                s.insert(i, c);
                bytes = s.into_bytes();
            }
        }
    }
    bytes
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let f = 0.0..=1.0f64;
    prop_oneof![
        f.clone().prop_map(Mutation::Truncate),
        (f.clone(), any::<u8>()).prop_map(|(f, b)| Mutation::InsertByte(f, b)),
        (f.clone(), 1..8usize).prop_map(|(f, n)| Mutation::Delete(f, n)),
        (f.clone(), prop::sample::select(SPLICE)).prop_map(|(f, c)| Mutation::Splice(f, c)),
        (f.clone(), any::<char>()).prop_map(|(f, c)| Mutation::Splice(f, c)),
        (f, prop::sample::select(SPLICE)).prop_map(|(f, c)| Mutation::Replace(f, c)),
    ]
}

fn seed() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(SEEDS).prop_map(str::to_owned),
        1 => prop::sample::select(SAMPLES).prop_map(str::to_owned),
    ]
}

/// A real line or sample with 1 to 4 mutations, as bytes.
fn near_miss() -> impl Strategy<Value = Vec<u8>> {
    (seed(), prop::collection::vec(mutation(), 1..5)).prop_map(|(s, m)| apply(&s, &m))
}

fn arbitrary_bytes() -> impl Strategy<Value = Vec<u8>> {
    prop::collection::vec(any::<u8>(), 0..512)
}

/// Bytes from either source.
fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![arbitrary_bytes(), near_miss()]
}

/// A parser's rest must be the end of its input.
fn check_rest(input: &str, rest: &str) {
    assert!(
        input.ends_with(rest),
        "rest {rest:?} is not a suffix of {input:?}"
    );
}

/// Calls every `&str` entry point on `text` and touches every accessor of the result.
fn exercise(text: &str) {
    let line = parse_line(text);
    black_box((line.timestamp(), line.text(), line.content.format()));
    if let Some(w) = &line.wrapper {
        black_box((w.source(), w.format()));
    }
    if let evacdoc_parsers::Content::Text { reason, .. } = line.content {
        assert!(reason.column <= text.len());
        black_box(reason.to_string());
    }
    black_box(serde_json::to_string(&line).unwrap());

    for record in Records::new(text) {
        black_box((
            record.format(),
            record.inner_format(),
            record.timestamp().map(|t| t.to_string()),
            record.error_summary(),
            record.source_location(),
            record.nova_request(),
            record.unparsed_reason(),
            record.line_count(),
            record.message(),
            record
                .oslo()
                .map(|o| (o.request_id(), o.global_request_id())),
            record.access().is_some(),
            record.uwsgi().is_some(),
        ));
        black_box(serde_json::to_string(&record).unwrap());
    }

    if let Ok((rest, o)) = oslo::parse_oslo_line(text) {
        check_rest(text, rest);
        black_box((o.is_exception_prefixed(), o.request_id(), o.level.as_str()));
    }
    if let Ok((rest, c)) = context::context(text) {
        check_rest(text, rest);
        black_box(c);
    }
    if let Some((before, s)) = oslo::split_error_summary(text) {
        assert!(text.starts_with(before));
        black_box(s);
    }
    if let Some((before, loc)) = oslo::split_debug_suffix(text) {
        assert!(text.starts_with(before));
        black_box(loc);
    }
    if let Ok((rest, a)) = access::parse_access_line(text) {
        check_rest(text, rest);
        black_box(serde_json::to_string(&a).unwrap());
    }
    if let Ok((rest, u)) = uwsgi::parse_uwsgi_line(text) {
        check_rest(text, rest);
        black_box(serde_json::to_string(&u).unwrap());
    }
    if let Ok((rest, r)) = nova_request::parse_nova_request(text) {
        check_rest(text, rest);
        black_box(serde_json::to_string(&r).unwrap());
    }
    if let Ok((rest, p)) = pebble::parse_pebble_prefix(text) {
        check_rest(text, rest);
        black_box(serde_json::to_string(&p).unwrap());
    }
    if let Ok((rest, c)) = cri::parse_cri_prefix(text) {
        check_rest(text, rest);
        black_box(serde_json::to_string(&c).unwrap());
    }
    if let Ok((rest, d)) = docker::parse_docker_line(text) {
        check_rest(text, rest);
        assert!(text.contains(d.log));
        let mut decoded = String::new();
        docker::unescape(d.log, &mut decoded);
        // At worst a broken two-byte escape becomes a three-byte U+FFFD.
        assert!(
            decoded.len() <= d.log.len() * 3 / 2 + 3,
            "{d:?} -> {decoded:?}"
        );
        black_box(serde_json::to_string(&d.prefix).unwrap());
    }
    let mut decoded = String::new();
    docker::unescape(text, &mut decoded);
    black_box(decoded);
    if let Ok((rest, s)) = syslog::parse_syslog_prefix(text) {
        check_rest(text, rest);
        black_box(serde_json::to_string(&s).unwrap());
    }
    black_box(format!("{:?}", ini::parse_ini(text)));

    if let Ok((rest, t)) = time::oslo_timestamp(text) {
        check_rest(text, rest);
        black_box((t.to_string(), t.unix_nanos(0)));
    }
    if let Ok((rest, t)) = time::rfc3339(text) {
        check_rest(text, rest);
        black_box((t.to_string(), t.unix_nanos(), t.to_utc()));
    }
    if let Ok((rest, t)) = time::clf_time(text) {
        check_rest(text, rest);
        black_box((t.to_string(), t.unix_nanos(), t.to_utc()));
    }
    if let Ok((rest, t)) = time::syslog_time(text) {
        check_rest(text, rest);
        black_box(t.with_year(2024));
    }
    if let Ok((rest, t)) = time::ctime(text) {
        check_rest(text, rest);
        black_box((t.to_string(), t.unix_nanos(0)));
    }
}

/// Feeds `bytes` to the push assembler in three pieces and checks its counters and spans.
fn push_in_pieces(bytes: &[u8], decoded: &utf8::Decoded<'_>) {
    let mut a = Assembler::new();
    let mut last_end = 0;
    let mut check = |r: &Record<'_>, span: RecordSpan| {
        assert!(span.byte_start <= span.byte_end && span.byte_end <= bytes.len() as u64);
        assert!(span.first_line >= 1);
        last_end = last_end.max(span.byte_end);
        black_box((r.format(), r.error_summary(), r.timestamp(), r.cut));
    };
    let (one, rest) = bytes.split_at(bytes.len() / 3);
    let (two, three) = rest.split_at(rest.len() / 2);
    for piece in [one, two, three] {
        a.push(piece, &mut check);
    }
    a.finish(&mut check);
    assert_eq!(a.bytes(), bytes.len() as u64);
    assert_eq!(a.lines(), LinesOf(&decoded.text).count());
    assert_eq!(a.invalid_utf8_lines(), decoded.invalid_lines.len() as u64);
}

/// Lines as the assemblers count them: a final newline ends the last line.
struct LinesOf<'a>(&'a str);

impl LinesOf<'_> {
    fn count(&self) -> usize {
        let newlines = self.0.bytes().filter(|b| *b == b'\n').count();
        newlines + usize::from(!self.0.is_empty() && !self.0.ends_with('\n'))
    }
}

/// Decodes `bytes` and checks what `decode` reports.
fn decode_and_exercise(bytes: &[u8]) {
    let decoded = utf8::decode(bytes);
    let valid = std::str::from_utf8(bytes).is_ok();
    assert_eq!(decoded.invalid_sequences == 0, valid);
    assert_eq!(decoded.invalid_lines.is_empty(), valid);
    assert!(decoded.invalid_lines.windows(2).all(|w| w[0] < w[1]));
    let lines = bytes.split(|b| *b == b'\n').count();
    assert!(
        decoded
            .invalid_lines
            .iter()
            .all(|l| (1..=lines).contains(l))
    );
    // The decoded text has exactly the newlines of the input.
    assert_eq!(
        decoded.text.bytes().filter(|b| *b == b'\n').count(),
        lines - 1
    );
    exercise(&decoded.text);
    push_in_pieces(bytes, &decoded);
    // Each line alone, too, as the CLI reads them.
    for line in decoded.text.split('\n') {
        exercise(line);
    }
}

// ---------------------------------------------------------------------------------------
// Time values.

fn is_leap(year: u16) -> bool {
    (year.is_multiple_of(4) && !year.is_multiple_of(100)) || year.is_multiple_of(400)
}

fn days_in_month(year: u16, month: u8) -> u8 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// A valid `DateTime` with a year in `years`, the day limited by the month and leap year.
fn date_time(
    years: std::ops::RangeInclusive<u16>,
    max_second: u8,
    nanos: impl Strategy<Value = u32>,
) -> impl Strategy<Value = DateTime> {
    let date = (years, 1..=12u8).prop_flat_map(move |(year, month)| {
        (
            Just(year),
            Just(month),
            1..=days_in_month(year, month),
            0..24u8,
            0..60u8,
            0..=max_second,
        )
    });
    (date, nanos).prop_map(|((year, month, day, hour, minute, second), nanos)| {
        DateTime::new(year, month, day, hour, minute, second, nanos)
            .expect("the strategy only builds valid date-times")
    })
}

/// Nanoseconds of each precision `Display` chooses: ms, µs and ns.
fn any_nanos() -> impl Strategy<Value = u32> + Clone {
    prop_oneof![
        (0..1000u32).prop_map(|ms| ms * 1_000_000),
        (0..1_000_000u32).prop_map(|us| us * 1_000),
        0..1_000_000_000u32,
    ]
}

/// An offset as RFC 3339 writes it: whole minutes, under 24 hours.
fn offset() -> impl Strategy<Value = i32> {
    (any::<bool>(), 0..24i32, 0..60i32).prop_map(|(neg, h, m)| {
        let abs = h * 3600 + m * 60;
        if neg { -abs } else { abs }
    })
}

/// 512 cases unless `PROPTEST_CASES` says otherwise; shrunk failures are kept in
/// `parsers/proptest-regressions/props.txt` (cargo runs tests from the package directory).
fn config() -> ProptestConfig {
    let default = ProptestConfig::default();
    ProptestConfig {
        cases: if std::env::var_os("PROPTEST_CASES").is_some() {
            default.cases
        } else {
            512
        },
        failure_persistence: Some(Box::new(FileFailurePersistence::Direct(
            "proptest-regressions/props.txt",
        ))),
        ..default
    }
}

// The Unix nanosecond range of an `i64`: 1677-09-21 to 2262-04-11.
const UNIX_YEARS: std::ops::RangeInclusive<u16> = 1678..=2261;

proptest! {
    #![proptest_config(config())]

    #[test]
    fn no_entry_point_panics(bytes in input()) {
        decode_and_exercise(&bytes);
    }

    #[test]
    fn near_misses_do_not_panic(bytes in near_miss()) {
        decode_and_exercise(&bytes);
    }

    #[test]
    fn unix_nanos_does_not_panic(dt in date_time(0..=9999, 60, any_nanos()), off in offset()) {
        let saturated = dt.unix_nanos(off);
        match dt.checked_unix_nanos(off) {
            Some(n) => prop_assert_eq!(n, saturated),
            None => prop_assert!(saturated == i64::MIN || saturated == i64::MAX),
        }
        let ts = Timestamp { local: dt, offset: Some(off) };
        prop_assert_eq!(ts.unix_nanos(), dt.checked_unix_nanos(off));
        // Outside the i64 range there is no UTC time; inside, the instant is kept.
        match ts.to_utc() {
            Some(utc) => prop_assert_eq!(utc.unix_nanos(), ts.unix_nanos()),
            None => prop_assert!(ts.unix_nanos().is_none() || !UNIX_YEARS.contains(&dt.year)),
        }
    }

    #[test]
    fn from_unix_nanos_does_not_panic(n in any::<i64>()) {
        if let Some(dt) = DateTime::from_unix_nanos(n) {
            prop_assert_eq!(dt.unix_nanos(0), n);
        }
    }

    #[test]
    fn oslo_timestamp_round_trip(dt in date_time(0..=9999, 60, (0..1000u32).prop_map(|ms| ms * 1_000_000))) {
        let text = format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:03}",
            dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.nanos / 1_000_000
        );
        let (rest, parsed) = time::oslo_timestamp(&text).unwrap();
        prop_assert_eq!(rest, "");
        prop_assert_eq!(parsed, dt);
        // The same, followed by the rest of an oslo line.
        let line = format!("{text} 235 INFO a.b [-] x");
        let (_, o) = oslo::parse_oslo_line(&line).unwrap();
        prop_assert_eq!(o.timestamp, dt);
    }

    #[test]
    fn display_round_trips_through_rfc3339(dt in date_time(0..=9999, 60, any_nanos())) {
        let text = dt.to_string();
        let (rest, parsed) = time::rfc3339(&text).unwrap();
        prop_assert_eq!(rest, "");
        prop_assert_eq!(parsed, Timestamp::local(dt));
    }

    #[test]
    fn timestamp_with_offset_round_trips(dt in date_time(0..=9999, 60, any_nanos()), off in offset()) {
        let ts = Timestamp { local: dt, offset: Some(off) };
        let text = ts.to_string();
        let (rest, parsed) = time::rfc3339(&text).unwrap();
        prop_assert_eq!(rest, "");
        prop_assert_eq!(parsed, ts);
    }

    #[test]
    fn unix_nanos_round_trip(dt in date_time(UNIX_YEARS, 59, any_nanos())) {
        prop_assert_eq!(DateTime::from_unix_nanos(dt.unix_nanos(0)), Some(dt));
    }

    #[test]
    fn to_utc_keeps_the_instant(dt in date_time(UNIX_YEARS, 59, any_nanos()), off in offset()) {
        let ts = Timestamp { local: dt, offset: Some(off) };
        // Within a day of the i64 limits the UTC wall clock may be out of range.
        if let Some(utc) = ts.to_utc() {
            prop_assert_eq!(utc.unix_nanos(), ts.unix_nanos());
            prop_assert_eq!(utc.offset, Some(0));
        }
    }
}

// ---------------------------------------------------------------------------------------
// Record accounting.

/// One line of a synthetic log: a real line, a blank one, or junk.
fn log_line() -> impl Strategy<Value = String> {
    prop_oneof![
        6 => prop::sample::select(SEEDS).prop_map(str::to_owned),
        2 => prop::sample::select(SAMPLES).prop_map(|s| s.trim_end_matches('\n').to_owned()),
        1 => Just(String::new()),
        1 => prop::sample::select(&["  ", "\t", "\r", " \r"][..]).prop_map(str::to_owned),
        2 => "[^\n]{0,80}",
        2 => near_miss().prop_map(|b| String::from_utf8_lossy(&b).replace('\n', " ")),
    ]
}

/// Lines joined with `\n`, sometimes `\r\n`, with or without a final newline.
fn log_text() -> impl Strategy<Value = String> {
    (
        prop::collection::vec((log_line(), prop::bool::weighted(0.1)), 0..40),
        any::<bool>(),
    )
        .prop_map(|(lines, final_newline)| {
            let mut text = String::new();
            for (i, (line, crlf)) in lines.iter().enumerate() {
                if i > 0 {
                    text.push('\n');
                }
                text.push_str(line);
                if *crlf {
                    text.push('\r');
                }
            }
            if final_newline && !text.is_empty() {
                text.push('\n');
            }
            text
        })
}

/// Lines of `text`: pieces between `\n`, a final empty piece after a trailing newline not
/// counted (so the empty text has none).
fn count_lines(text: &str) -> usize {
    if text.is_empty() {
        return 0;
    }
    let pieces = text.split('\n').count();
    if text.ends_with('\n') {
        pieces - 1
    } else {
        pieces
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn records_account_for_every_line(text in log_text()) {
        let records: Vec<_> = Records::new(&text).collect();
        let total: usize = records.iter().map(|r| r.line_count()).sum();
        prop_assert_eq!(total, count_lines(&text));
        // Records are contiguous: each starts where the one before ended.
        let mut next = 1;
        for r in &records {
            prop_assert_eq!(r.line, next);
            next += r.line_count();
        }
    }

    #[test]
    fn records_account_for_arbitrary_bytes(bytes in input()) {
        let decoded = utf8::decode(&bytes);
        let total: usize = Records::new(&decoded.text).map(|r| r.line_count()).sum();
        prop_assert_eq!(total, count_lines(&decoded.text));
    }
}

#[test]
fn every_seed_and_sample_is_exercised() {
    for s in SEEDS.iter().chain(SAMPLES) {
        decode_and_exercise(s.as_bytes());
    }
}

// ---------------------------------------------------------------------------------------
// The context bracket against a plain reference reading (the first implementation, which
// splits the bracket three times; the crate's reads it once).

fn reference_context(raw: &str) -> Context<'_> {
    fn field(token: Option<&str>) -> Option<&str> {
        token.filter(|t| *t != "-" && *t != "None")
    }
    let empty = |form| Context {
        raw,
        form,
        global_request_id: None,
        request_id: None,
        user: None,
        project: None,
        domain: None,
        system_scope: None,
        user_domain: None,
        project_domain: None,
    };
    let tokens: Vec<&str> = raw.split(' ').filter(|t| !t.is_empty()).collect();
    let token = |i: usize| tokens.get(i).copied();
    match token(0) {
        None => empty(ContextForm::Custom),
        Some(_) if raw.bytes().all(|b| b == b'-' || b == b' ') => empty(ContextForm::Empty),
        Some(g) if (g == "None" || is_request_id(g)) && token(1).is_some_and(is_request_id) => {
            Context {
                global_request_id: field(Some(g)),
                request_id: token(1),
                user: field(token(2)),
                project: field(token(3)),
                domain: field(token(4)),
                system_scope: field(token(5)),
                user_domain: field(token(6)),
                project_domain: field(token(7)),
                ..empty(ContextForm::Zed)
            }
        }
        Some(r) if is_request_id(r) && tokens.len() == 6 => Context {
            request_id: Some(r),
            user: field(token(1)),
            project: field(token(2)),
            domain: field(token(3)),
            user_domain: field(token(4)),
            project_domain: field(token(5)),
            ..empty(ContextForm::PreZed)
        },
        Some(_) => Context {
            request_id: tokens.iter().copied().find(|t| is_request_id(t)),
            ..empty(ContextForm::Custom)
        },
    }
}

fn bracket_token() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("-".to_owned()),
        1 => Just("None".to_owned()),
        2 => Just("req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be".to_owned()),
        1 => Just("req-11111111-2222-3333-4444-55555555555".to_owned()),
        1 => Just("nova".to_owned()),
        1 => Just("default".to_owned()),
        1 => Just("0f1e2d3c4b5a69788796a5b4c3d2e1f0".to_owned()),
        1 => "[^ \\]]{0,6}",
    ]
}

fn bracket_inner() -> impl Strategy<Value = String> {
    prop::collection::vec((bracket_token(), 1..3usize), 0..11).prop_map(|tokens| {
        let mut raw = String::new();
        for (token, spaces) in tokens {
            raw.push_str(&token);
            raw.push_str(&" ".repeat(spaces));
        }
        raw
    })
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn context_matches_reference(
        inner in prop_oneof![bracket_inner(), bracket_inner().prop_map(|s| format!(" {}", s.trim_end()))],
    ) {
        prop_assert_eq!(Context::from_inner(&inner), reference_context(&inner));
        let line = format!("[{inner}] message");
        let (rest, parsed) = context::context(&line).unwrap();
        prop_assert_eq!(rest, " message");
        prop_assert_eq!(parsed, reference_context(&inner));
    }
}
