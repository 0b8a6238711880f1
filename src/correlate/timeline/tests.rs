//! Timelines of inline bundles: a Zed+ host recovery of two instances, one evacuated
//! and polled, one refused with a 400; Masakari at DEBUG.

use crate::correlate::Analysis;
use crate::model::{Event, EventId, Uuid};

use super::{Repeated, Row, Subject, entries, fold, render_text, select};

const N: &str = "3330353d-4f69-4f1d-b1f9-3977329fb2cd";
const G: &str = "5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a";
const A: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
const B: &str = "0b7d2c4e-91a3-4f5e-8c6d-2e4f6a8b0c1d";
const NOVA: &str = "masakari.compute.nova";
const ENGINE: &str = "ctl01/var/log/masakari/masakari-engine.log";
const ACCESS: &str = "ctl01/var/log/apache2/nova-api-os-compute_access.log";
const API: &str = "ctl01/var/log/nova/nova-api-wsgi.log";

fn analysis_of(files: &[(&str, String)]) -> Analysis {
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    crate::detect::context::testing::analysis_of(&borrowed)
}

/// `HH:MM:SS.mmm` of `ms` milliseconds after 10:00.
fn clock(ms: u64) -> String {
    let s = ms / 1000;
    format!(
        "{:02}:{:02}:{:02}.{:03}",
        10 + s / 3600,
        s / 60 % 60,
        s % 60,
        ms % 1000
    )
}

/// A request id numbered `n` of a series `series`.
fn req(series: u32, n: u64) -> String {
    format!("{series:08x}-{n:04x}-4000-8000-{n:012x}")
}

/// The three logs of one controller, written in the order of their own lines.
#[derive(Default)]
struct Bundle {
    engine: String,
    access: String,
    api: String,
    next: u64,
}

impl Bundle {
    /// A masakari-engine line under the notification's global id and local id `local`
    /// (masakari builds a context per Nova call).
    fn engine(&mut self, ms: u64, local: &str, level: &str, logger: &str, message: &str) {
        let suffix = if level == "DEBUG" {
            " novaclient /usr/lib/python3/dist-packages/masakari/compute/nova.py:102"
        } else {
            ""
        };
        self.engine += &format!(
            "2024-05-21 {} 41 {level} {logger} [req-{G} req-{local} nova - - - - -] {message}{suffix}\n",
            clock(ms)
        );
    }

    /// One Masakari call to Nova: the client line, the call line, the Apache line and
    /// Nova's request-log line; returns Masakari's and Nova's local request ids.
    fn call(&mut self, ms: u64, message: &str, request: (&str, &str, u16)) -> (String, String) {
        self.next += 1;
        let local = req(0xa, self.next);
        let nova = req(0xb, self.next);
        self.engine(
            ms,
            &local,
            "DEBUG",
            NOVA,
            "Creating a Nova client using \"nova\" user",
        );
        self.engine(ms + 1, &local, "INFO", NOVA, message);
        self.request(ms + 80, &nova, request, "python-novaclient", "10.0.0.5");
        (local, nova)
    }

    fn request(
        &mut self,
        ms: u64,
        nova: &str,
        (method, path, status): (&str, &str, u16),
        agent: &str,
        client: &str,
    ) {
        let s = ms / 1000;
        self.access += &format!(
            "{client} - - [21/May/2024:{:02}:{:02}:{:02} +0000] \"{method} {path} HTTP/1.1\" {status} 1853 \"-\" \"{agent}\"\n",
            10 + s / 3600,
            s / 60 % 60,
            s % 60
        );
        self.api += &format!(
            "2024-05-21 {} 23 INFO nova.api.openstack.requestlog [req-{G} req-{nova} 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] {client} \"{method} {path}\" status: {status} len: 1853 microversion: 2.53 time: 0.0{}\n",
            clock(ms),
            40 + ms % 50
        );
    }

    fn files(self) -> Vec<(&'static str, String)> {
        vec![
            (ENGINE, self.engine),
            (ACCESS, self.access),
            (API, self.api),
        ]
    }
}

/// A recovery of A and B from cmp02: A is evacuated and polled `polls` times (1.13 s
/// apart), B's evacuation is refused (`Compute service of cmp02 is still in use`). With
/// `failing`, Nova answers the last poll with a 500 and the flow gives up on A too.
fn recovery(polls: u64, failing: bool) -> Vec<(&'static str, String)> {
    let mut b = Bundle::default();
    b.engine += &format!(
        "2024-05-21 10:02:47.100 41 INFO masakari.engine.manager [None req-{G} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {N} of type: COMPUTE_HOST\n"
    );
    let (sleep_ctx, _) = b.call(
        167_300,
        "Disable nova-compute on cmp02",
        (
            "PUT",
            "/v2.1/os-services/e2f41b7c-9a6d-4c35-8b10-7f3e2d1c0a9b",
            200,
        ),
    );
    b.engine(
        167_500,
        &sleep_ctx,
        "INFO",
        "masakari.engine.drivers.taskflow.host_failure",
        "Sleeping 30 sec before starting recovery thread until nova recognizes the node down.",
    );
    let list = b.call(
        197_600,
        "Fetch Server list on cmp02",
        (
            "GET",
            "/v2.1/servers/detail?all_tenants=True&host=cmp02",
            200,
        ),
    );
    let server = |i: &str| format!("/v2.1/servers/{i}");
    let action = |i: &str| format!("/v2.1/servers/{i}/action");
    b.call(
        198_000,
        &format!("Call get server command for instance {A}"),
        ("GET", &server(A), 200),
    );
    b.call(
        198_020,
        &format!("Call get server command for instance {B}"),
        ("GET", &server(B), 200),
    );
    b.call(
        198_300,
        &format!("Call lock server command for instance {A}"),
        ("POST", &action(A), 202),
    );
    b.call(
        198_320,
        &format!("Call lock server command for instance {B}"),
        ("POST", &action(B), 202),
    );
    b.call(
        198_500,
        &format!("Call evacuate command for instance {A} on host None"),
        ("POST", &action(A), 200),
    );
    let (_, refused) = b.call(
        198_520,
        &format!("Call evacuate command for instance {B} on host None"),
        ("POST", &action(B), 400),
    );
    b.api += &format!(
        "2024-05-21 10:03:18.590 23 INFO nova.api.openstack.wsgi [req-{G} req-{refused} 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] HTTP exception thrown: Compute service of cmp02 is still in use.\n"
    );
    let warning_ctx = req(0xa, b.next);
    b.engine(
        198_900,
        &warning_ctx,
        "WARNING",
        "masakari.engine.drivers.taskflow.host_failure",
        &format!(
            "Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{refused}): masakari.exception.InvalidInput: Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{refused})"
        ),
    );
    let mut ms = 199_500;
    for poll in 0..polls {
        let broken = failing && poll + 1 == polls;
        let status = if broken { 500 } else { 200 };
        let (local, nova) = b.call(
            ms,
            &format!("Call get server command for instance {A}"),
            ("GET", &server(A), status),
        );
        if broken {
            b.engine(
                ms + 200,
                &local,
                "WARNING",
                "masakari.engine.drivers.taskflow.host_failure",
                &format!(
                    "Unknown Error (HTTP 500) (Request-ID: req-{nova}): novaclient.exceptions.ClientException: Unknown Error (HTTP 500) (Request-ID: req-{nova})"
                ),
            );
        }
        ms += 1130;
    }
    b.call(
        ms,
        &format!("Call unlock server command for instance {A}"),
        ("POST", &action(A), 202),
    );
    // The flow's own thread still has the context of its last call, the listing.
    let end_ctx = list.0;
    b.engine(
        ms + 400,
        &end_ctx,
        "ERROR",
        "masakari.engine.manager",
        &format!(
            "Failed to process notification '{N}'. Reason: Failed to evacuate instances '{B}' from host 'cmp02': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{B}' from host 'cmp02'"
        ),
    );
    b.engine(
        ms + 410,
        &end_ctx,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: error."),
    );
    b.files()
}

fn uuid(s: &str) -> Uuid {
    Uuid::parse(s).unwrap()
}

fn events<'a>(analysis: &'a Analysis, ids: &[EventId]) -> Vec<&'a Event> {
    ids.iter().map(|&i| &analysis.events[i.index()]).collect()
}

fn has(events: &[&Event], needle: &str) -> bool {
    events.iter().any(|e| e.text().contains(needle))
}

#[test]
fn an_instance_keeps_its_lines_and_the_recoverys_not_the_other_instances() {
    let analysis = analysis_of(&recovery(5, false));
    let a = events(&analysis, &select(&analysis, &Subject::Instance(uuid(A))));
    // Nothing that names only B, nor B's lines that name no instance: its 400 as
    // Nova logged it and as Masakari repeated it, its client lines.
    for e in &a {
        assert!(
            e.instances.is_empty() || e.instances.contains(&uuid(A)) || !e.notifications.is_empty(),
            "{}",
            e.text()
        );
    }
    assert!(!has(&a, "HTTP exception thrown"));
    assert!(!has(&a, "Invalid input received"));
    let clients = a
        .iter()
        .filter(|e| e.message().starts_with("Creating a Nova client"));
    // Disable, list, get, lock, evacuate, five polls, unlock: A's calls and the
    // recovery's.
    assert_eq!(clients.count(), 11);
    // The recovery's framing lines.
    for framing in [
        "Processing notification",
        "Disable nova-compute on cmp02",
        "Sleeping 30 sec",
        "Fetch Server list on cmp02",
        "PUT /v2.1/os-services/",
        "Failed to process notification",
        "exits with status: error.",
    ] {
        assert!(has(&a, framing), "missing {framing}");
    }
    assert!(has(&a, &format!("Call evacuate command for instance {A}")));

    // B's timeline has B's refusal and not A's evacuation.
    let b = events(&analysis, &select(&analysis, &Subject::Instance(uuid(B))));
    assert!(has(
        &b,
        "HTTP exception thrown: Compute service of cmp02 is still in use."
    ));
    assert!(has(&b, "Invalid input received"));
    assert!(!has(&b, &format!("Call evacuate command for instance {A}")));
    assert!(!has(&b, &format!("\"GET /v2.1/servers/{A}\"")));
    // The notification's timeline holds both.
    let n = events(
        &analysis,
        &select(&analysis, &Subject::Notification(uuid(N))),
    );
    assert!(has(&n, &format!("Call evacuate command for instance {A}")));
    assert!(has(&n, "Invalid input received"));
}

#[test]
fn a_shared_context_does_not_bring_the_other_instance() {
    // Masakari before per-call contexts: one local request id for the whole run.
    let files: Vec<(&str, String)> = recovery(3, false)
        .into_iter()
        .map(|(path, content)| {
            if path != ENGINE {
                return (path, content);
            }
            let shared = format!("req-{G} req-{} nova", req(0xa, 1));
            let rewritten: Vec<String> = content
                .lines()
                .map(|l| match l.find(&format!("[req-{G} req-")) {
                    Some(at) => format!("{}[{shared}{}", &l[..at], &l[at + 1 + shared.len()..]),
                    None => l.to_string(),
                })
                .collect();
            (path, rewritten.join("\n") + "\n")
        })
        .collect();
    let analysis = analysis_of(&files);
    let a = events(&analysis, &select(&analysis, &Subject::Instance(uuid(A))));
    assert!(
        !has(&a, "Invalid input received"),
        "B's warning cites B's request"
    );
    assert!(!has(&a, &format!("instance {B}")));
    assert!(!has(&a, &format!("/servers/{B}")));
    assert!(has(&a, "Sleeping 30 sec"));
    assert!(has(
        &a,
        &format!("Call unlock server command for instance {A}")
    ));
}

#[test]
fn a_poll_loop_folds_into_one_row_and_a_different_answer_stays() {
    let polls = 120;
    let analysis = analysis_of(&recovery(polls, true));
    let ids = select(&analysis, &Subject::Instance(uuid(A)));
    let rows = fold(&analysis, &ids);
    let text_of = |row: &Row| analysis.events[row.event.index()].text();
    let runs: Vec<&Row> = rows.iter().filter(|r| r.repeated.is_some()).collect();
    // The engine's poll lines are one run: 120 calls, 1.13 s apart.
    let calls = runs
        .iter()
        .find(|r| text_of(r).ends_with(&format!("Call get server command for instance {A}")))
        .unwrap();
    let repeat = calls.repeated.as_ref().unwrap();
    assert_eq!(repeat.count, 120);
    let last = &analysis.events[repeat.last.index()];
    assert_eq!(super::utc(last.time), "2024-05-21T10:05:33.971Z");
    // Nova's 500 for the last poll is shown, in the access and request logs, and so
    // is what Masakari made of it; the 200s before it fold.
    let failed: Vec<&Row> = rows
        .iter()
        .filter(|r| text_of(r).contains("\" 500 ") || text_of(r).contains("status: 500"))
        .collect();
    assert_eq!(failed.len(), 2);
    assert!(failed.iter().all(|r| r.repeated.is_none()));
    assert!(
        rows.iter()
            .any(|r| text_of(r).contains("Unknown Error (HTTP 500)"))
    );
    let nova_runs: Vec<usize> = runs
        .iter()
        .filter(|r| text_of(r).contains(&format!("/v2.1/servers/{A}")))
        .map(|r| r.repeated.as_ref().unwrap().count)
        .collect();
    assert_eq!(nova_runs, vec![119, 119]);
    // Nothing else is hidden: every selected line is a row or a repeat of one.
    let shown: usize = rows
        .iter()
        .map(|r| r.repeated.as_ref().map_or(1, |r| r.count))
        .sum();
    assert_eq!(shown, ids.len());
    assert!(rows.len() < 40, "{} rows", rows.len());

    let text = render_text(&analysis, &rows);
    assert!(
        text.contains(&format!(
            "Call get server command for instance {A}\n    ... repeated 120 times over 2m14s (until 2024-05-21T10:05:33.971Z)\n"
        )),
        "{text}"
    );
    let json = entries(&analysis, &rows);
    let folded = json
        .iter()
        .find(|e| {
            e.text
                .ends_with(&format!("Call get server command for instance {A}"))
                && e.repeated.is_some()
        })
        .unwrap();
    assert_eq!(
        folded.repeated,
        Some(Repeated {
            count: 120,
            until: "2024-05-21T10:05:33.971Z".into(),
            last_line: last.line,
        })
    );
}

#[test]
fn two_gets_and_a_lock_are_not_a_poll() {
    let analysis = analysis_of(&recovery(2, false));
    let rows = fold(&analysis, &select(&analysis, &Subject::Instance(uuid(A))));
    let calls = rows
        .iter()
        .filter(|r| {
            analysis.events[r.event.index()]
                .text()
                .ends_with(&format!("Call get server command for instance {A}"))
        })
        .collect::<Vec<_>>();
    // The get before the lock, then two polls: under three repeats in a row, nothing
    // folds.
    assert_eq!(calls.len(), 3);
    assert!(calls.iter().all(|r| r.repeated.is_none()));
}

#[test]
fn rows_come_in_time_order_with_apache_seconds_at_their_end() {
    let analysis = analysis_of(&recovery(4, false));
    let ids = select(&analysis, &Subject::Instance(uuid(A)));
    let keys: Vec<i64> = events(&analysis, &ids)
        .iter()
        .map(|e| e.sort_key())
        .collect();
    assert!(keys.windows(2).all(|w| w[0] <= w[1]));
    // The Apache line of A's evacuation (10:03:18) follows the call at 10:03:18.501 and
    // Nova's request-log line at 10:03:18.580, and precedes the first poll at 10:03:19.5.
    let position = |needle: &str| {
        ids.iter()
            .position(|&i| analysis.events[i.index()].text().contains(needle))
            .unwrap()
    };
    let access = position(&format!("\"POST /v2.1/servers/{A}/action HTTP/1.1\" 200"));
    assert!(position(&format!("Call evacuate command for instance {A}")) < access);
    assert!(position(&format!("\"POST /v2.1/servers/{A}/action\" status: 200")) < access);
    assert!(access < position("10:03:19.501"));
    // Text and JSON print the rows in one order.
    let rows = fold(&analysis, &ids);
    let text = render_text(&analysis, &rows);
    let from_text: Vec<String> = text
        .lines()
        .filter(|l| l.starts_with("ctl01/"))
        .map(|l| l.splitn(3, ':').take(2).collect::<Vec<_>>().join(":"))
        .collect();
    let from_json: Vec<String> = entries(&analysis, &rows)
        .iter()
        .map(|e| format!("{}:{}", e.path, e.line))
        .collect();
    assert_eq!(from_text, from_json);
}

#[test]
fn two_instances_polled_together_fold_apart() {
    let mut b = Bundle::default();
    b.engine += &format!(
        "2024-05-21 10:02:47.100 41 INFO masakari.engine.manager [None req-{G} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {N} of type: COMPUTE_HOST\n"
    );
    for poll in 0..5 {
        for (offset, instance) in [(0, A), (40, B)] {
            b.call(
                190_000 + poll * 1050 + offset,
                &format!("Call get server command for instance {instance}"),
                ("GET", &format!("/v2.1/servers/{instance}"), 200),
            );
        }
    }
    let (last, _) = b.call(
        196_000,
        &format!("Call unlock server command for instance {A}"),
        ("POST", &format!("/v2.1/servers/{A}/action"), 202),
    );
    b.engine(
        196_500,
        &last,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: finished."),
    );
    let analysis = analysis_of(&b.files());
    let rows = fold(
        &analysis,
        &select(&analysis, &Subject::Notification(uuid(N))),
    );
    let engine_runs: Vec<(Vec<Uuid>, usize)> = rows
        .iter()
        .filter_map(|r| {
            let e = &analysis.events[r.event.index()];
            let count = r.repeated.as_ref()?.count;
            e.message()
                .starts_with("Call get server")
                .then(|| (e.instances.to_vec(), count))
        })
        .collect();
    assert_eq!(engine_runs, vec![(vec![uuid(A)], 5), (vec![uuid(B)], 5)]);
}
