use super::*;
use crate::model::HttpRequest;

fn event(time_s: f64, logger: Option<&str>, text: &str, http: Option<(&str, &str, u16)>) -> Event {
    let kind = if http.is_some() {
        EventKind::Request
    } else {
        EventKind::Log
    };
    let mut e = Event::new(0, 1, 0, kind);
    e.time = (time_s * 1e9) as i64;
    if let Some(logger) = logger {
        e.set_logger(logger);
    }
    e.instances = crate::correlate::ids::classified_uuids(text)
        .into_iter()
        .map(|(_, u)| u)
        .collect::<Vec<_>>()
        .into();
    if let Some((m, p, s)) = http {
        e.set_http(HttpRequest {
            method: m.into(),
            path: p.into(),
            status: s,
            user_agent: None,
            duration_ns: None,
        });
    }
    e.set_text(text, &[]);
    e.message_len = text.len() as u32;
    e.second_precision = http.is_some();
    e
}

const I: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

#[test]
fn seed_calls_join_their_access_lines() {
    let nova = Some("masakari.compute.nova");
    let events = vec![
        event(
            9.618,
            nova,
            &format!("Call get server command for instance {I}"),
            None,
        ),
        event(
            11.0,
            None,
            "",
            Some(("GET", &format!("/v2.1/servers/{I}"), 200)),
        ),
        event(
            11.734,
            nova,
            &format!("Call lock server command for instance {I}"),
            None,
        ),
        event(
            12.0,
            None,
            "",
            Some(("POST", &format!("/v2.1/servers/{I}/action"), 202)),
        ),
        event(
            12.309,
            nova,
            &format!("Call evacuate command for instance {I} on host None"),
            None,
        ),
        event(
            12.0,
            None,
            "",
            Some(("POST", &format!("/v2.1/servers/{I}/action"), 400)),
        ),
        event(
            14.214,
            nova,
            &format!("Call unlock server command for instance {I}"),
            None,
        ),
        event(
            14.0,
            None,
            "",
            Some(("POST", &format!("/v2.1/servers/{I}/action"), 202)),
        ),
    ];
    let mut sorted = events.clone();
    sorted.sort_by_key(|e| e.time);
    let joins = join_calls(
        &sorted,
        |e| {
            if e.http().is_some() {
                Project::Nova
            } else {
                Project::Masakari
            }
        },
        &ClockSlack::none(),
    );
    // Two POSTs stamped in the same second go to the lock and the evacuate in the
    // order they were made.
    let pairs: Vec<(String, u16)> = joins
        .iter()
        .map(|j| {
            (
                sorted[j.call.index()]
                    .text()
                    .split(" command")
                    .next()
                    .unwrap()
                    .to_string(),
                sorted[j.request.index()].http().unwrap().status,
            )
        })
        .collect();
    assert_eq!(
        pairs,
        [
            ("Call get server".to_string(), 200),
            ("Call lock server".to_string(), 202),
            ("Call evacuate".to_string(), 400),
            ("Call unlock server".to_string(), 202)
        ]
    );
}

#[test]
fn an_uncorrected_offset_moves_the_window() {
    // nova-api (host 1) measured 94.9..95.1 s ahead of the engine (host 0), not
    // corrected: its 400 is logged 95 s after the call.
    let nova = Some("masakari.compute.nova");
    let mut call = event(
        10.0,
        nova,
        &format!("Call evacuate command for instance {I} on host None"),
        None,
    );
    call.host = 0;
    let mut request = event(
        105.0,
        None,
        "",
        Some(("POST", &format!("/v2.1/servers/{I}/action"), 400)),
    );
    request.host = 1;
    let events = vec![call, request];
    let project = |e: &Event| {
        if e.http().is_some() {
            Project::Nova
        } else {
            Project::Masakari
        }
    };
    assert!(join_calls(&events, project, &ClockSlack::none()).is_empty());
    let estimate = crate::correlate::skew::SkewEstimate {
        host: 1,
        reference: 0,
        via: None,
        offset_ms: None,
        low_ms: Some(94_900),
        high_ms: Some(95_100),
        pairs: 2,
        total_pairs: 2,
        kinds: Vec::new(),
        applied: false,
        note: String::new(),
    };
    let joins = join_calls(&events, project, &ClockSlack::from_estimates(&[estimate]));
    assert_eq!(joins.len(), 1, "{joins:?}");
    // Counted from the middle of its second, less the middle of the offset.
    assert_eq!(joins[0].delay_ms, 500 - 1);
}

#[test]
fn get_server_needs_the_exact_path() {
    let e = expected_request(
        &format!("Call get server command for instance {I}"),
        crate::model::Uuid::parse(I),
    )
    .unwrap();
    let action = event(
        1.0,
        None,
        "",
        Some((
            "GET",
            &format!("/v2.1/servers/{I}/os-instance-actions"),
            200,
        )),
    );
    let get = event(
        1.0,
        None,
        "",
        Some(("GET", &format!("/v2.1/servers/{I}"), 200)),
    );
    assert!(!matches(&e, &action));
    assert!(matches(&e, &get));
}

#[test]
fn blocks_pair_as_one_table_does() {
    // Polls and actions a second apart, requests around them, delays from a small
    // set so that ties are common.
    let mut x: u64 = 11;
    let mut next = |m: u64| {
        x = x
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (x >> 33) % m
    };
    for round in 0..300 {
        let mut group: Vec<Paired> = Vec::new();
        let calls = 1 + next(40) as u32;
        for c in 0..calls {
            let call = c * 10;
            for _ in 0..next(4) {
                let request = call + next(25) as u32;
                let delay = [0i64, 1_000_000, -3_000_000, 250_000_000][next(4) as usize];
                if group
                    .iter()
                    .all(|(g, _)| (g.call.0, g.request.0) != (call, request))
                {
                    group.push((
                        Candidate {
                            call: EventId(call),
                            request: EventId(request),
                            delay,
                        },
                        0,
                    ));
                }
            }
        }
        assert_eq!(
            pair_in_order(&group, None),
            pair_whole(&group, None),
            "round {round}"
        );
    }
}

#[test]
fn is_call_line_agrees_with_call_key() {
    let nova = Some("masakari.compute.nova");
    for text in [
        format!("Call get server command for instance {I}"),
        "Call get server command for instance".to_string(),
        format!("Call evacuate command for instance {I} on host None"),
        "Call evacuate command for instance None".to_string(),
        "Fetch Server list on node02.maas".to_string(),
        "Disable nova-compute on node02.maas".to_string(),
        "Call aggregate-list command".to_string(),
        "Creating a Nova client using \"nova\" user".to_string(),
    ] {
        let e = event(1.0, nova, &text, None);
        assert_eq!(is_call_line(&e), call_key(&e).is_some(), "{text}");
    }
}
