//! Clock skew pinned by few pairs tied by ids: two compute hosts fail together and one
//! Masakari engine (pre-Zed contexts) recovers both; nova-api runs on a host of its
//! own whose clock is 95 s ahead. Nova refuses both evacuations with 400 and Masakari
//! logs the `Request-ID` of each: two pairs tied by ids that agree within 100 ms.
//! nova-api's request-log lines are not in the bundle (only its Apache access log, in
//! whole seconds, and its error lines): the calls of the two recoveries fall in the
//! same seconds, so no join by time is single, and no other pair is made.

use std::path::Path;

use evacdoc::correlate::Analysis;
use evacdoc::detect::{DetectOptions, detect};
use evacdoc::run::{Options, analyze};

use crate::skew::shift_stamps;

const A: &str = "6f1c2e0b-3d4a-4b8e-9c71-2a5d8e4f1b90";
const B: &str = "b7e04d13-58c2-4f6a-a1d9-0c3e7b2f6a85";
const NOVA_USER: &str =
    "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - default default";

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// `HH:MM:SS.mmm` of `ms` after 10:00:00.
fn at(ms: u32) -> String {
    let s = ms / 1000;
    format!("10:{:02}:{:02}.{:03}", s / 60, s % 60, ms % 1000)
}

fn oslo(ms: u32, pid: u32, level: &str, logger: &str, context: &str, message: &str) -> String {
    format!(
        "2022-05-10 {} {pid} {level} {logger} [{context}] {message}\n",
        at(ms)
    )
}

/// An Apache combined line of nova-api (whole seconds).
fn access(ms: u32, method: &str, path: &str, status: u16) -> String {
    let s = ms / 1000;
    format!(
        "10.0.0.11 - - [10/May/2022:10:{:02}:{:02} +0000] \"{method} {path} HTTP/1.1\" {status} 412 \"-\" \"python-novaclient\"\n",
        s / 60,
        s % 60
    )
}

/// The lines of one recovery: the engine's, nova-api's access lines with their true
/// times (ms), nova-api's own.
type Recovery = (String, Vec<(u32, String)>, String);

/// One host's recovery of `instances` (evacuated side by side, 20 ms apart), its times
/// `d` ms after 10:00:00: the engine's lines, and nova-api's (true times: the caller
/// moves them).
fn recovery(d: u32, r: &str, notification: &str, host: &str, instances: &[&str]) -> Recovery {
    let id = |n: u32| format!("req-{r}{n:06}-0000-4000-8000-00000000{r}{n:02}");
    let nid = |n: u32| format!("req-{r}{n:06}-1111-4000-8000-00000000{r}{n:02}");
    let ctx = |n: u32| format!("{} masakari - - - -", id(n));
    let nova_c = "masakari.compute.nova";
    let hf = "masakari.engine.drivers.taskflow.host_failure";
    let manager = "masakari.engine.manager";
    let mut e: Vec<String> = Vec::new();
    let mut line = |ms: u32, level: &str, logger: &str, context: String, message: String| {
        e.push(oslo(ms + d, 2211, level, logger, &context, &message));
    };
    let mut n: Vec<(u32, String)> = Vec::new();
    let mut request = |ms: u32, method: &str, path: &str, status: u16| {
        n.push((ms + d, access(ms + d, method, path, status)));
    };
    let mut m: Vec<String> = Vec::new();
    line(
        10,
        "INFO",
        manager,
        format!("{} {NOVA_USER}", id(1)),
        format!("Processing notification {notification} of type: COMPUTE_HOST"),
    );
    line(
        150,
        "INFO",
        nova_c,
        ctx(2),
        format!("Disable nova-compute on {host}"),
    );
    request(
        190,
        "GET",
        &format!("/v2.1/os-services?binary=nova-compute&host={host}"),
        200,
    );
    request(
        260,
        "PUT",
        "/v2.1/os-services/3c1d9e7a-5b2f-4e80-8a64-1f0b2c3d4e5f",
        200,
    );
    line(
        300,
        "INFO",
        hf,
        ctx(2),
        "Sleeping 30 sec before starting recovery thread until nova recognizes the node down."
            .into(),
    );
    line(
        30_310,
        "INFO",
        nova_c,
        ctx(3),
        format!("Fetch Server list on {host}"),
    );
    request(
        30_380,
        "GET",
        &format!("/v2.1/servers/detail?all_tenants=True&host={host}"),
        200,
    );
    for (k, i) in instances.iter().enumerate() {
        let t = |ms: u32| ms + 20 * k as u32;
        let c = 10 + 10 * k as u32;
        line(
            t(30_420),
            "INFO",
            nova_c,
            ctx(c),
            format!("Call get server command for instance {i}"),
        );
        request(t(30_440), "GET", &format!("/v2.1/servers/{i}"), 200);
        line(
            t(30_450),
            "INFO",
            nova_c,
            ctx(c + 1),
            format!("Call get server command for instance {i}"),
        );
        request(t(30_470), "GET", &format!("/v2.1/servers/{i}"), 200);
        line(
            t(30_500),
            "INFO",
            nova_c,
            ctx(c + 2),
            format!("Call lock server command for instance {i}"),
        );
        request(t(30_520), "POST", &format!("/v2.1/servers/{i}/action"), 202);
        line(
            t(30_590),
            "INFO",
            nova_c,
            ctx(c + 2),
            format!("Call evacuate command for instance {i} on host None"),
        );
        request(t(30_600), "POST", &format!("/v2.1/servers/{i}/action"), 400);
        let nova_ctx = format!("{} {NOVA_USER}", nid(c + 2));
        m.push(oslo(t(30_640) + d, 31, "ERROR", "nova.compute.api", &nova_ctx, &format!("[instance: {i}] Instance compute service state on {host} expected to be down, but it was up.")));
        m.push(oslo(
            t(30_645) + d,
            31,
            "INFO",
            "nova.api.openstack.wsgi",
            &nova_ctx,
            &format!("HTTP exception thrown: Compute service of {host} is still in use."),
        ));
        let refused = format!(
            "Invalid input received: Compute service of {host} is still in use. (HTTP 400) (Request-ID: {})",
            nid(c + 2)
        );
        line(
            t(30_690),
            "WARNING",
            hf,
            ctx(c + 2),
            format!("{refused}: masakari.exception.InvalidInput: {refused}"),
        );
        line(
            t(30_700),
            "INFO",
            nova_c,
            ctx(c + 3),
            format!("Call unlock server command for instance {i}"),
        );
        request(t(30_720), "POST", &format!("/v2.1/servers/{i}/action"), 202);
    }
    // The engine's own thread logs under the context of its last Nova call: the get of
    // the last instance, fetched before its evacuation was spawned (Masakari 13 and 14).
    let last = 10 * instances.len() as u32;
    let all = instances.join("', '");
    let failed = format!("Failed to evacuate instances '{all}' from host '{host}'");
    line(
        30_812,
        "ERROR",
        manager,
        ctx(last),
        format!(
            "Failed to process notification '{notification}'. Reason: {failed}: masakari.exception.HostRecoveryFailureException: {failed}"
        ),
    );
    line(
        30_815,
        "INFO",
        manager,
        ctx(last),
        format!("Notification {notification} exits with status: error."),
    );
    (e.concat(), n, m.concat())
}

/// A bundle of `recoveries` (start in ms, request-id stem, notification, host,
/// instances), nova-api's clock `secs` ahead.
fn bundle(secs: i64, recoveries: &[(u32, &str, &str, &str, &[&str])]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("bundle");
    let (mut engine, mut access, mut api) = (Vec::new(), Vec::new(), Vec::new());
    for &(d, r, notification, host, instances) in recoveries {
        let (e, n, m) = recovery(d, r, notification, host, instances);
        engine.extend(e.lines().map(str::to_string));
        access.extend(n);
        api.extend(m.lines().map(str::to_string));
    }
    // Each log in the order it was written.
    engine.sort();
    access.sort();
    api.sort();
    let text = |lines: Vec<String>| lines.join("\n") + "\n";
    for host in ["ctl01", "api01"] {
        write(&root, &format!("{host}/etc/hostname"), &format!("{host}\n"));
        write(&root, &format!("{host}/etc/timezone"), "Etc/UTC\n");
    }
    write(
        &root,
        "ctl01/var/log/masakari/masakari-engine.log",
        &text(engine),
    );
    let access: String = access.into_iter().map(|(_, l)| l).collect();
    write(
        &root,
        "api01/var/log/apache2/nova-api-os-compute_access.log",
        &shift_stamps(&access, secs),
    );
    write(
        &root,
        "api01/var/log/nova/nova-api-wsgi.log",
        &shift_stamps(&text(api), secs),
    );
    dir
}

const ONE_HOST: &[(u32, &str, &str, &str, &[&str])] = &[(
    0,
    "a1",
    "4d0f6c2e-9b13-4a57-8e21-7c6b5a4d3e2f",
    "cmp02",
    &[A, B],
)];
const TWO_HOSTS: &[(u32, &str, &str, &str, &[&str])] = &[
    (
        0,
        "a1",
        "4d0f6c2e-9b13-4a57-8e21-7c6b5a4d3e2f",
        "cmp02",
        &[A],
    ),
    (
        20,
        "b2",
        "9e8d7c6b-5a49-4382-a716-151413121110",
        "cmp03",
        &[B],
    ),
];

fn analyze_bundle(dir: &tempfile::TempDir) -> Analysis {
    analyze(&[dir.path().join("bundle")], &Options::default()).unwrap()
}

fn findings(a: &Analysis) -> Vec<String> {
    detect(a, &DetectOptions::default())
        .into_iter()
        .map(|f| format!("{} {}", f.id, f.title))
        .collect()
}

/// The skew estimate of nova-api's host.
fn api_skew(a: &Analysis) -> &evacdoc::correlate::skew::SkewEstimate {
    let api = a.hosts.iter().find(|h| h.hostname == "api01").unwrap().id;
    a.skew
        .iter()
        .find(|s| s.host == api)
        .unwrap_or_else(|| panic!("{:?}", a.skew))
}

#[test]
fn two_id_tied_pairs_that_agree_pin_and_correct_95_s() {
    // Two hosts' recoveries side by side: only the two returned Request-IDs pair.
    let a = analyze_bundle(&bundle(95, TWO_HOSTS));
    let s = api_skew(&a);
    assert!(s.applied, "{s:?}");
    assert_eq!(s.pairs, 2, "{s:?}");
    assert!(
        s.offset_ms.is_some_and(|v| (v - 95_000).abs() < 100),
        "{s:?}"
    );
    assert!(s.note.contains("tied by ids"), "{s:?}");
}

#[test]
fn a_race_behind_a_95_s_clock_is_classified() {
    let a = analyze_bundle(&bundle(95, ONE_HOST));
    let s = api_skew(&a);
    assert!(s.applied, "{s:?}");
    assert!(
        s.offset_ms.is_some_and(|v| (v - 95_000).abs() < 100),
        "{s:?}"
    );
    let found = findings(&a);
    assert!(
        found.iter().any(|f| f.starts_with("evacuate-400-race")),
        "{found:?}"
    );
    assert!(
        found.iter().all(|f| !f.contains("unclassified")),
        "{found:?}"
    );
    // Each evacuate call is joined to its 400, a few ms after it.
    let refused: Vec<i64> = a
        .joins
        .iter()
        .filter(|j| {
            a.events[j.request.index()]
                .http()
                .is_some_and(|h| h.status == 400)
        })
        .map(|j| j.delay_ms)
        .collect();
    assert_eq!(refused.len(), 2, "{:?}", a.joins);
    assert!(refused.iter().all(|d| d.abs() < 1_500), "{refused:?}");
}

#[test]
fn on_time_the_same_bundle_is_not_corrected() {
    let a = analyze_bundle(&bundle(0, ONE_HOST));
    assert!(a.skew.iter().all(|s| !s.applied), "{:?}", a.skew);
    let found = findings(&a);
    assert!(
        found.iter().any(|f| f.starts_with("evacuate-400-race")),
        "{found:?}"
    );
}
