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
