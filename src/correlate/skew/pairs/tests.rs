use super::*;
use crate::model::{EventKind, HttpRequest, Service};

fn file(service: &str, host: HostId) -> FileInfo {
    FileInfo {
        path: format!("{service}.log"),
        host,
        service: Service::new(service),
        format: "oslo".into(),
        records: 0,
        unparsed: 0,
        invalid_utf8_lines: 0,
        bytes: 0,
        log: String::new(),
        rotation: 0,
        incomplete: None,
    }
}

/// An oslo line of `file` (0: the engine on host 0, 1: nova-api on host 1).
fn line(ms: i64, file: u32, logger: &str, req: &str, message: &str) -> Event {
    let text = format!("[{req}] {message}");
    let http = message.split_once(" \"").map(|(_, rest)| {
        let mut words = rest.split(['"', ' ']);
        HttpRequest {
            method: words.next().unwrap_or("").into(),
            path: words.next().unwrap_or("").into(),
            status: 202,
            user_agent: None,
            duration_ns: crate::correlate::extract::stated_duration(message),
        }
    });
    let kind = if http.is_some() {
        EventKind::Request
    } else {
        EventKind::Log
    };
    let mut e = Event::new(file, 1, file, kind);
    e.time = ms * 1_000_000;
    e.set_logger(logger);
    e.request_id = Uuid::parse_request_id(req);
    e.instances = crate::correlate::ids::classified_uuids(message)
        .into_iter()
        .map(|(_, u)| u)
        .collect();
    if let Some(http) = http {
        e.set_http(http);
    }
    e.set_text(&text, &[]);
    e.message_start = (req.len() + 3) as u32;
    e.message_len = message.len() as u32;
    e
}

const A: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
const B: &str = "bdffe5f1-b6f7-4046-a5c1-53c46d4082cc";
const SHARED: &str = "req-50b41bc1-0c0c-411e-a559-43d2add771ec";
const NOVA_A: &str = "req-3789b55f-48f9-4542-b52a-4f6310204c52";

#[test]
fn a_request_id_two_green_threads_share_does_not_close_a_call() {
    // Two instances' threads log under one local id (a generator that keeps the
    // notification's context): B's call is no answer to A's.
    let nova = "masakari.compute.nova";
    let mut events = vec![
        line(
            1_000,
            0,
            nova,
            SHARED,
            &format!("Call lock server command for instance {A}"),
        ),
        line(
            1_010,
            0,
            nova,
            SHARED,
            &format!("Call lock server command for instance {B}"),
        ),
        line(
            1_020,
            0,
            nova,
            SHARED,
            "Creating a Nova client using \"nova\" user",
        ),
        line(
            1_400,
            1,
            "nova.api.openstack.requestlog",
            NOVA_A,
            &format!(
                "10.0.0.1 \"POST /v2.1/servers/{A}/action\" status: 202 len: 0 microversion: 2.53 time: 0.300000"
            ),
        ),
        line(
            1_500,
            0,
            "masakari.engine.drivers.taskflow.host_failure",
            SHARED,
            &format!("Invalid input received: (HTTP 400) (Request-ID: {NOVA_A})"),
        ),
    ];
    events.sort_by_key(|e| e.time);
    let files = [file("masakari-engine", 0), file("nova-api", 1)];
    let pairs = causal_pairs(&events, &files);
    let p = pairs
        .iter()
        .find(|p| p.kind == PairKind::ReturnedRequestId)
        .unwrap();
    assert_eq!(events[p.anchor.index()].instances[0].to_string(), A);
    // Closed by the Request-ID line, not by B's lines 10 and 20 ms later.
    assert_eq!(p.end, Some(1_500_000_000));
    assert_eq!((p.lo, p.hi), (Some(-100_000_000), Some(400_000_000)));
}

#[test]
fn returned_ids_are_read_from_novaclient_messages() {
    let m = "Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) \
             (Request-ID: req-3789b55f-48f9-4542-b52a-4f6310204c52): masakari.exception.InvalidInput: \
             Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) \
             (Request-ID: req-3789b55f-48f9-4542-b52a-4f6310204c52)";
    let ids = returned_ids(m);
    assert_eq!(ids.len(), 2);
    assert_eq!(
        ids[0].request_id(),
        "req-3789b55f-48f9-4542-b52a-4f6310204c52"
    );
    assert!(returned_ids("Request-ID: req-short").is_empty());
    let used = "POST call to compute for http://172.27.102.140:8774/v2.1/servers/\
                e0ef461f-2aa2-4d1b-9203-2450cebdf76a/action used request id \
                req-a403f793-2a8e-4f4b-9a33-0c6d3f1e2b11";
    assert_eq!(
        returned_ids(used)[0].request_id(),
        "req-a403f793-2a8e-4f4b-9a33-0c6d3f1e2b11"
    );
}

#[test]
fn the_http_client_lines_of_a_call_do_not_close_it() {
    // At DEBUG the engine's thread logs the client it creates, the token and the
    // request before Nova answers; novaclient's line naming the answer closes it.
    let events = vec![
        line(
            1_000,
            0,
            "masakari.compute.nova",
            SHARED,
            &format!("Call evacuate command for instance {A} on host None"),
        ),
        line(
            1_006,
            0,
            "masakari.compute.nova",
            SHARED,
            "Creating a Nova client using \"masakari\" user novaclient",
        ),
        line(
            1_019,
            0,
            "keystoneauth.session",
            SHARED,
            &format!("REQ: curl -g -i -X POST http://10.0.0.2:8774/v2.1/servers/{A}/action"),
        ),
        line(
            1_700,
            1,
            "nova.api.openstack.requestlog",
            NOVA_A,
            &format!(
                "10.0.0.1 \"POST /v2.1/servers/{A}/action\" status: 200 len: 0 microversion: 2.53 time: 0.600000"
            ),
        ),
        line(
            1_722,
            0,
            "novaclient.v2.client",
            SHARED,
            &format!(
                "POST call to compute for http://10.0.0.2:8774/v2.1/servers/{A}/action used request id {NOVA_A}"
            ),
        ),
    ];
    let files = [file("masakari-engine", 0), file("nova-api", 1)];
    let pairs = causal_pairs(&events, &files);
    let p = pairs
        .iter()
        .find(|p| p.kind == PairKind::ReturnedRequestId)
        .unwrap_or_else(|| panic!("{pairs:?}"));
    assert_eq!(p.end, Some(1_722_000_000));
    assert_eq!((p.lo, p.hi), (Some(-22_000_000), Some(700_000_000)));
}

#[test]
fn window_requests_are_what_a_scan_of_the_window_keeps() {
    // nova-api's access lines (one-second stamps, sorted at the end of their second)
    // and request-log lines about two instances, interleaved.
    let mut events = vec![line(
        5_000,
        0,
        "masakari.compute.nova",
        SHARED,
        &format!("Call get server command for instance {A}"),
    )];
    for k in 0..300i64 {
        let instance = if k % 3 == 0 { B } else { A };
        let mut e = line(
            k * 37,
            1,
            "nova.api.openstack.requestlog",
            NOVA_A,
            &format!("10.0.0.1 \"GET /v2.1/servers/{instance}\" status: 200 len: 0 time: 0.1"),
        );
        if k % 4 == 0 {
            e.time -= e.time % 1_000_000_000;
            e.second_precision = true;
        }
        events.push(e);
    }
    events.sort_by_key(|e| (e.sort_key(), e.file, e.line));
    let files = [file("masakari-engine", 0), file("nova-api", 1)];
    let ctx = Ctx::new(&events, &files);
    let requests = &ctx.requests_by_host[&1];
    let call = events
        .iter()
        .find(|e| e.logger() == Some("masakari.compute.nova"))
        .unwrap();
    let mut host_call = call.clone();
    host_call.instances = Default::default();
    for from_ms in (-1_000..12_000).step_by(250) {
        for width_ms in [0, 500, 1_000, 2_000, 17_000] {
            let (from, to) = (from_ms * 1_000_000, (from_ms + width_ms) * 1_000_000);
            for c in [call, &host_call] {
                let start = requests.partition_point(|&r| events[r].time < from);
                let scanned: Vec<usize> = requests[start..]
                    .iter()
                    .copied()
                    .take_while(|&r| events[r].time <= to)
                    .filter(|&r| may_make(c, &events[r]))
                    .collect();
                assert_eq!(ctx.window_requests(1, c, from, to), scanned);
            }
        }
    }
}

#[test]
fn a_late_request_of_an_earlier_call_is_no_single_candidate() {
    // lock and evacuate at 0 s; Nova accepts the evacuate 740 s later (a late
    // acceptance); the unlock at 752 s went to another nova-api. The evacuate's request
    // is the only POST within 11 min of the unlock on this nova-api, and is not its.
    let nova = "masakari.compute.nova";
    let call = |ms: i64, what: &str| {
        line(
            ms,
            0,
            nova,
            SHARED,
            &format!("Call {what} command for instance {A}"),
        )
    };
    let mut events = vec![
        call(1_000, "lock server"),
        call(1_300, "evacuate"),
        line(
            741_300,
            1,
            "nova.api.openstack.requestlog",
            NOVA_A,
            &format!(
                "10.0.0.1 \"POST /v2.1/servers/{A}/action\" status: 200 len: 0 microversion: 2.53 time: 0.600000"
            ),
        ),
        call(752_000, "unlock server"),
        line(
            752_400,
            0,
            "masakari.engine.manager",
            SHARED,
            &format!("Instance {A} unlocked"),
        ),
    ];
    events.sort_by_key(|e| e.time);
    let files = [file("masakari-engine", 0), file("nova-api", 1)];
    let pairs = causal_pairs(&events, &files);
    assert!(pairs.iter().all(|p| p.kind != PairKind::Join), "{pairs:?}");
}
