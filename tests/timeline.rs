//! `evacdoc timeline` on the sample scenarios.

use serde_json::Value;

use crate::analysis::scenario;
use crate::util::{evacdoc, stderr, stdout};

fn timeline_json(name: &str, args: &[&str]) -> Vec<Value> {
    let path = scenario(name);
    let mut all = vec!["timeline", path.to_str().unwrap()];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--format", "json"]);
    let output = evacdoc(&all);
    assert!(output.status.success(), "{}", stderr(&output));
    serde_json::from_str::<Value>(&stdout(&output))
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

/// The lines the engineer of seed 000 interleaved by hand, in the order they gave
/// (the `Disable`/`Sleeping` lines they pasted after `...` belong before; they are
/// not about the instance).
const SEED_ORDER: [&str; 10] = [
    "2020-12-08 19:50:57.142 235 INFO masakari.compute.nova [req-009aadf7-5b16-4432-b987-2c4db03e5793 masakari - - - -] Call get server command",
    "2020-12-08 19:51:09.618 235 INFO masakari.compute.nova [req-3b8f5237-b8f4-4ae1-9cbc-665f4c75e819 masakari - - - -] Call get server command",
    "2020-12-08 19:51:11.734 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call lock server command",
    "172.27.100.141 - - [08/Dec/2020:19:51:11 +0000] \"GET /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96 HTTP/1.1\" 200 2321",
    "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command",
    "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540",
    "2020-12-08 19:51:14.214 235 INFO masakari.compute.nova [req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8 masakari - - - -] Call unlock server command",
    "172.27.100.141 - - [08/Dec/2020:19:51:14 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 202 462",
    "masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '56ce6206-3659-495e-a6ea-f4d3d578cc96' from host 'node02ob100.maas'",
    "2020-12-08 19:51:15.537 235 ERROR masakari.engine.manager [req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8 masakari - - - -] Failed to process notification '9ace2da7",
];

#[test]
fn the_seed_instance_timeline_keeps_the_engineers_order() {
    let events = timeline_json(
        "2020-juju-evacuate-race",
        &["--instance", "56ce6206-3659-495e-a6ea-f4d3d578cc96"],
    );
    let position = |needle: &str| {
        events
            .iter()
            .position(|e| {
                e["text"].as_str().unwrap().starts_with(needle)
                    || e["more"]
                        .as_array()
                        .is_some_and(|m| m.iter().any(|l| l.as_str() == Some(needle)))
            })
            .unwrap_or_else(|| panic!("missing from the timeline: {needle}"))
    };
    let positions: Vec<usize> = SEED_ORDER.iter().map(|l| position(l)).collect();
    assert!(positions.windows(2).all(|w| w[0] < w[1]), "{positions:?}");
    // Every entry says where it comes from, in UTC.
    let first = &events[positions[0]];
    assert_eq!(
        first["path"],
        "3/lxd/4/var/log/masakari/masakari-engine.log"
    );
    assert_eq!(first["host"], "juju-4f2a1c-3-lxd-4");
    assert_eq!(first["service"], "masakari-engine");
    assert_eq!(first["timestamp"], "2020-12-08T19:50:57.142Z");
    assert!(first["line"].as_u64().unwrap() > 0);
    // Masakari's warning with the 400 names the Nova request, not the instance: it
    // comes with the evacuate call through their shared context.
    assert!(events.iter().any(|e| {
        e["text"].as_str().unwrap().contains(
            "Invalid input received: Compute service of node02ob100.maas is still in use.",
        )
    }));
    // Nova's own explanation of the 400 comes with it, through its request id.
    assert!(events.iter().any(|e| {
        e["text"]
            .as_str()
            .unwrap()
            .contains("HTTP exception thrown: Compute service of node02ob100.maas is still in use.")
    }));
}

#[test]
fn text_timeline_is_grouped_like_the_seed() {
    let path = scenario("2020-juju-evacuate-race");
    let output = evacdoc(&[
        "timeline",
        path.to_str().unwrap(),
        "--instance",
        "56ce6206-3659-495e-a6ea-f4d3d578cc96",
    ]);
    assert!(output.status.success(), "{}", stderr(&output));
    let text = stdout(&output);
    assert!(
        text.starts_with(">>> Masakari (juju-4f2a1c-3-lxd-4)\n"),
        "{text}"
    );
    assert!(text.contains("\n>>> Nova (juju-4f2a1c-3-lxd-6)\n"));
    assert!(text.contains("3/lxd/6/var/log/apache2/nova-api-os-compute_access.log:"));
}

#[test]
fn every_subject_kind_works_on_every_layout() {
    let cases: [(&str, &[&str]); 6] = [
        (
            "2020-juju-evacuate-race",
            &["--notification", "9ace2da7-97d1-48cb-a96a-08ad4624481b"],
        ),
        (
            "2020-juju-evacuate-race",
            &["--request", "req-de081ecf-4201-4542-b092-e21b2f5ce942"],
        ),
        ("2020-juju-evacuate-race", &["--host", "node02ob100.maas"]),
        (
            "2025-kolla-healthy-recovery",
            &["--notification", "9c1f4e2a-6b7d-4e3f-a8c5-2d1b0e9f7a63"],
        ),
        (
            "2024-sunbeam-bfv-delay",
            &["--instance", "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4"],
        ),
        (
            "2024-sunbeam-bfv-delay",
            &["--request", "req-3c6da5d7-4da4-41a6-b8a1-7a97656412a9"],
        ),
    ];
    for (name, args) in cases {
        let events = timeline_json(name, args);
        assert!(events.len() >= 3, "{name} {args:?}: {events:?}");
        let times: Vec<&str> = events
            .iter()
            .map(|e| e["timestamp"].as_str().unwrap())
            .collect();
        assert!(times.iter().all(|t| t.ends_with('Z')));
    }
    // The notification timeline of the race holds both attempts and the Nova side.
    let events = timeline_json(
        "2020-juju-evacuate-race",
        &["--notification", "9ace2da7-97d1-48cb-a96a-08ad4624481b"],
    );
    let texts: Vec<&str> = events.iter().map(|e| e["text"].as_str().unwrap()).collect();
    assert!(texts.iter().any(|t| t.contains("Sleeping 60 sec")));
    assert!(
        texts
            .iter()
            .any(|t| t.contains("exits with status: finished."))
    );
    assert!(texts.iter().any(|t| t.contains(
        "\"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400"
    )));
    assert!(texts.iter().any(|t| t.contains("Evacuating instance")));
}

#[test]
fn bad_subject_is_a_usage_error() {
    let path = scenario("2020-juju-evacuate-race");
    let output = evacdoc(&[
        "timeline",
        path.to_str().unwrap(),
        "--instance",
        "not-a-uuid",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("not a UUID"));
}

/// The instances of the Sunbeam recovery (one notification, six instances).
const SUNBEAM_NOTIFICATION: &str = "e0b2c6a9-4d17-4f3e-8b5a-1c9d7e2f6a38";
const SUNBEAM_INSTANCES: [&str; 6] = [
    "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4",
    "4efcc1bf-8c3b-4467-",
    "89606586-ae8d-49a4-",
    "664cd64a-8a51-4847-",
    "28b8789e-00d0-4d88-",
    "d3f0b6a2-5c7e-4a19-",
];

fn entry_text(entry: &Value) -> String {
    let mut text = entry["text"].as_str().unwrap().to_string();
    for line in entry["more"].as_array().into_iter().flatten() {
        text.push('\n');
        text.push_str(line.as_str().unwrap());
    }
    text
}

#[test]
fn an_instance_timeline_leaves_out_the_other_instances_of_its_recovery() {
    let name = "2024-sunbeam-bfv-delay";
    let (me, others) = SUNBEAM_INSTANCES.split_first().unwrap();
    // The notification's timeline tells all six stories.
    let all = timeline_json(name, &["--notification", SUNBEAM_NOTIFICATION]);
    for other in others {
        assert!(all.iter().any(|e| entry_text(e).contains(other)), "{other}");
    }
    let mine = timeline_json(name, &["--instance", me]);
    for entry in &mine {
        let text = entry_text(entry);
        let names_other = others.iter().any(|o| text.contains(o));
        assert!(
            !names_other || text.contains(me) || text.contains(SUNBEAM_NOTIFICATION),
            "another instance's line: {text}"
        );
    }
    // It keeps its recovery's framing lines.
    let texts: Vec<String> = mine.iter().map(entry_text).collect();
    for framing in [
        "Processing notification e0b2c6a9",
        "Disable nova-compute on sunbeam-3",
        "Fetch Server list on sunbeam-3",
        "exits with status: finished.",
        "\"PUT /v2.1/os-services/",
    ] {
        assert!(texts.iter().any(|t| t.contains(framing)), "{framing}");
    }
    assert!(
        mine.len() * 2 < all.len(),
        "{} of {}",
        mine.len(),
        all.len()
    );
}

/// The key events are ordered by: the UTC time, a one-second Apache stamp at the end
/// of its second (date, nanoseconds in the day).
fn sort_key(entry: &Value) -> (String, u64) {
    let stamp = entry["timestamp"].as_str().unwrap().trim_end_matches('Z');
    let (date, time) = stamp.split_once('T').unwrap();
    let (hms, fraction) = time.split_once('.').unwrap_or((time, "0"));
    let seconds = hms
        .split(':')
        .map(|p| p.parse::<u64>().unwrap())
        .fold(0, |acc, p| acc * 60 + p);
    let mut nanos = seconds * 1_000_000_000 + format!("{fraction:0<9}").parse::<u64>().unwrap();
    if entry["second_precision"] == true {
        nanos += 999_999_999;
    }
    (date.to_string(), nanos)
}

#[test]
fn text_and_json_come_in_one_time_order() {
    let cases: [(&str, &[&str]); 4] = [
        (
            "2020-juju-evacuate-race",
            &["--instance", "56ce6206-3659-495e-a6ea-f4d3d578cc96"],
        ),
        (
            "2020-juju-evacuate-race",
            &["--notification", "9ace2da7-97d1-48cb-a96a-08ad4624481b"],
        ),
        ("2024-sunbeam-bfv-delay", &["--host", "sunbeam-3"]),
        (
            "2024-sunbeam-bfv-delay",
            &["--notification", SUNBEAM_NOTIFICATION],
        ),
    ];
    for (name, args) in cases {
        let json = timeline_json(name, args);
        let keys: Vec<(String, u64)> = json.iter().map(sort_key).collect();
        let out_of_order = keys.windows(2).position(|w| w[0] > w[1]);
        assert_eq!(
            out_of_order,
            None,
            "{name} {args:?}: {:?}",
            out_of_order.map(|i| &json[i..i + 2])
        );
        assert!(json.iter().any(|e| e["second_precision"] == true));
        let path = scenario(name);
        let mut all = vec!["timeline", path.to_str().unwrap()];
        all.extend_from_slice(args);
        let output = evacdoc(&all);
        assert!(output.status.success(), "{}", stderr(&output));
        let text = stdout(&output);
        let from_text: Vec<String> = text
            .lines()
            .filter(|l| !l.starts_with(">>> ") && !l.starts_with("    ") && !l.is_empty())
            .map(|l| {
                let mut parts = l.splitn(3, ':');
                format!("{}:{}", parts.next().unwrap(), parts.next().unwrap())
            })
            .collect();
        let from_json: Vec<String> = json
            .iter()
            .map(|e| format!("{}:{}", e["path"].as_str().unwrap(), e["line"]))
            .collect();
        assert_eq!(from_text, from_json, "{name} {args:?}");
    }
}

#[test]
fn the_seeds_second_attempt_polls_fold_and_the_compute_lines_stay() {
    let events = timeline_json(
        "2020-juju-evacuate-race",
        &["--instance", "56ce6206-3659-495e-a6ea-f4d3d578cc96"],
    );
    // Masakari polled the evacuated server four times, 1.1 s apart (engine lines 44-47),
    // and Nova's access log has the four GETs.
    let folded: Vec<&Value> = events
        .iter()
        .filter(|e| e["repeated"].is_object())
        .collect();
    assert_eq!(folded.len(), 2, "{folded:?}");
    let engine = folded
        .iter()
        .find(|e| e["service"] == "masakari-engine")
        .unwrap();
    assert_eq!(engine["line"], 44);
    assert_eq!(
        engine["repeated"],
        serde_json::json!({"count": 4, "until": "2020-12-08T19:54:13.902Z", "last_line": 47})
    );
    // Lines 45 and 46 are in the run, not beside it; nova-compute's lines of the
    // rebuild, logged during the polls, are shown where they fall.
    let lines = |path_end: &str| -> Vec<u64> {
        events
            .iter()
            .filter(|e| e["path"].as_str().unwrap().ends_with(path_end))
            .map(|e| e["line"].as_u64().unwrap())
            .collect()
    };
    let engine_lines = lines("masakari-engine.log");
    assert!(engine_lines.contains(&44) && engine_lines.contains(&48));
    assert!(!engine_lines.contains(&45) && !engine_lines.contains(&47));
    let rebuild = events
        .iter()
        .position(|e| e["path"] == "0/baremetal/var/log/nova/nova-compute.log" && e["line"] == 56)
        .unwrap();
    let poll = events
        .iter()
        .position(|e| e["line"] == 44 && e["service"] == "masakari-engine");
    assert!(poll.unwrap() < rebuild);

    let path = scenario("2020-juju-evacuate-race");
    let output = evacdoc(&[
        "timeline",
        path.to_str().unwrap(),
        "--instance",
        "56ce6206-3659-495e-a6ea-f4d3d578cc96",
    ]);
    let text = stdout(&output);
    assert!(
        text.contains(
            "Call get server command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96\n    ... repeated 4 times over 3s (until 2020-12-08T19:54:13.902Z)\n"
        ),
        "{text}"
    );
}
