//! The analysis of the sample scenarios: layouts, hosts, services, time zones,
//! rotations, id indexes, Masakari↔Nova joins and clock skew.

use std::path::{Path, PathBuf};

use evacdoc::correlate::Analysis;
use evacdoc::model::inventory::Layout;
use evacdoc::model::inventory::ZoneSource;
use evacdoc::model::{EventId, Uuid};
use evacdoc::run::{Options, analyze};

use crate::util::samples;

pub fn scenario(name: &str) -> PathBuf {
    samples().join("scenarios").join(name)
}

pub fn analyze_scenario(name: &str) -> Analysis {
    analyze(&[scenario(name)], &Options::default()).expect("analysis runs")
}

fn host_of<'a>(a: &'a Analysis, path: &str) -> &'a str {
    let file = a
        .files
        .iter()
        .find(|f| f.path == path)
        .unwrap_or_else(|| panic!("no file {path}"));
    &a.hosts[file.host as usize].hostname
}

fn uuid(s: &str) -> Uuid {
    Uuid::parse(s).unwrap()
}

const SEED_INSTANCE: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

#[test]
fn juju_crashdump_layout_hosts_and_services() {
    let a = analyze_scenario("2020-juju-evacuate-race");
    assert_eq!(a.layout, Layout::JujuCrashdump);
    assert_eq!(
        host_of(&a, "3/lxd/4/var/log/masakari/masakari-engine.log"),
        "juju-4f2a1c-3-lxd-4"
    );
    assert_eq!(
        host_of(&a, "1/baremetal/var/log/nova/nova-compute.log"),
        "node02ob100"
    );
    let masakari = a
        .hosts
        .iter()
        .find(|h| h.hostname == "juju-4f2a1c-3-lxd-4")
        .unwrap();
    assert!(
        masakari.aliases.iter().any(|x| x == "masakari_0"),
        "{:?}",
        masakari.aliases
    );
    assert_eq!(masakari.hostname_source, "juju_status.yaml");
    let access = a
        .files
        .iter()
        .find(|f| f.path == "3/lxd/6/var/log/apache2/nova-api-os-compute_access.log")
        .unwrap();
    assert_eq!(access.service.name(), "nova-api-access");
    assert_eq!(access.format, "access");
    assert_eq!(access.unparsed, 0);
    // Every host logs in UTC, and the bundle says so.
    for host in &a.hosts {
        assert_eq!(host.zone, "Etc/UTC", "{}", host.hostname);
        assert!(matches!(host.zone_source, ZoneSource::Bundle(_)));
    }
}

#[test]
fn rotations_are_read_in_order_and_dropped_files_reported() {
    let a = analyze_scenario("2020-juju-evacuate-race");
    let mut engine: Vec<_> = a
        .files
        .iter()
        .filter(|f| f.log == "3/lxd/4/var/log/masakari/masakari-engine.log")
        .map(|f| (f.rotation, f.path.as_str(), f.records))
        .collect();
    engine.sort();
    assert_eq!(engine.len(), 3);
    assert_eq!(
        engine[2].1,
        "3/lxd/4/var/log/masakari/masakari-engine.log.2.gz"
    );
    assert!(engine.iter().all(|(_, _, records)| *records > 0));
    // The gzipped rotation was decompressed and its events sit before the others.
    let first_of = |path: &str| {
        let id = a.files.iter().position(|f| f.path == path).unwrap() as u32;
        a.events.iter().position(|e| e.file == id).unwrap()
    };
    assert!(first_of(engine[2].1) < first_of(engine[1].1));
    assert!(first_of(engine[1].1) < first_of(engine[0].1));
    let missing: Vec<_> = a.missing.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(missing, ["3/lxd/6/var/log/nova/nova-api-wsgi.log.1"]);
    assert!(
        a.missing[0]
            .reason
            .contains("juju-crashdump skips files over 5 MB")
    );
}

#[test]
fn id_indexes_cover_every_kind_of_id() {
    let a = analyze_scenario("2020-juju-evacuate-race");
    // The lock, the evacuate, and the warning with Nova's 400, under one request id.
    let lock_and_evacuate = &a.index.request
        [&Uuid::parse_request_id("req-de081ecf-4201-4542-b092-e21b2f5ce942").unwrap()];
    let messages: Vec<std::borrow::Cow<str>> = lock_and_evacuate
        .iter()
        .map(|&i| a.events[i.index()].message())
        .collect();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert!(messages[0].starts_with("Call lock server command"));
    assert!(messages[1].starts_with("Call evacuate command"));
    assert!(messages[2].starts_with(
        "Invalid input received: Compute service of node02ob100.maas is still in use. (HTTP 400)"
    ));
    let instance = &a.index.instance[&uuid(SEED_INSTANCE)];
    let kinds: Vec<_> = instance
        .iter()
        .map(|&i| {
            a.files[a.events[i.index()].file as usize]
                .service
                .name()
                .to_string()
        })
        .collect();
    for service in [
        "masakari-engine",
        "nova-api-access",
        "nova-api",
        "nova-compute",
    ] {
        assert!(
            kinds.iter().any(|k| k == service),
            "{service} missing from {kinds:?}"
        );
    }
    let notification = &a.index.notification[&uuid("9ace2da7-97d1-48cb-a96a-08ad4624481b")];
    assert!(notification.len() >= 3);
    // Short and fully qualified names are one host: the failed host's own lines and
    // the lines that name it.
    let node02 = &a.index.host["node02ob100"];
    assert!(node02.iter().any(|&i| {
        a.events[i.index()]
            .text()
            .contains("Disable nova-compute on node02ob100.maas")
    }));
    assert!(node02.iter().any(|&i| {
        a.files[a.events[i.index()].file as usize]
            .path
            .starts_with("1/baremetal/")
    }));

    let sunbeam = analyze_scenario("2024-sunbeam-bfv-delay");
    assert_eq!(sunbeam.layout, Layout::Sunbeam);
    let volume = &sunbeam.index.volume[&uuid("35ab2ef8-5508-4401-bff4-06c2f119c225")];
    assert!(!volume.is_empty());
    let global = &sunbeam.index.global_request
        [&Uuid::parse_request_id("req-3c6da5d7-4da4-41a6-b8a1-7a97656412a9").unwrap()];
    let services: std::collections::BTreeSet<_> = global
        .iter()
        .map(|&i| {
            sunbeam.files[sunbeam.events[i.index()].file as usize]
                .service
                .name()
                .to_string()
        })
        .collect();
    assert!(
        services.contains("masakari-engine") && services.contains("nova-api"),
        "{services:?}"
    );
}

#[test]
fn masakari_calls_join_the_nova_requests_they_made() {
    let a = analyze_scenario("2020-juju-evacuate-race");
    let evacuate = a
        .events
        .iter()
        .position(|e| {
            e.text().starts_with("2020-12-08 19:51:12.309")
                && e.message().starts_with("Call evacuate command")
        })
        .map(EventId::at)
        .unwrap();
    let statuses: Vec<(bool, u16)> = a
        .joins
        .iter()
        .filter(|j| j.call == evacuate)
        .map(|j| {
            let r = &a.events[j.request.index()];
            (r.second_precision, r.http().unwrap().status)
        })
        .collect();
    // The access line and the request-log line of the same 400.
    assert_eq!(statuses.len(), 2, "{statuses:?}");
    assert!(statuses.iter().all(|(_, status)| *status == 400));
    assert!(a.joins.iter().all(|j| j.delay_ms.abs() < 5_000));
    assert!(a.skew.iter().all(|s| !s.applied), "{:?}", a.skew);
}

#[test]
fn kolla_local_time_is_read_in_the_hosts_zone() {
    let a = analyze_scenario("2025-kolla-healthy-recovery");
    assert_eq!(a.layout, Layout::Kolla);
    let ctl01 = a.hosts.iter().find(|h| h.hostname == "ctl01").unwrap();
    assert_eq!(ctl01.zone, "Europe/Amsterdam");
    assert_eq!(
        ctl01.zone_source,
        ZoneSource::Bundle("ctl01/etc/timezone".into())
    );
    // 14:03:04.922 CEST is 12:03:04.922 UTC.
    let processing = a
        .events
        .iter()
        .find(|e| e.message().starts_with("Processing notification 9c1f4e2a"))
        .unwrap();
    assert_eq!(
        evacdoc::correlate::timeline::utc(processing.time),
        "2025-06-17T12:03:04.922Z"
    );
    assert!(a.skew.iter().all(|s| !s.applied), "{:?}", a.skew);
}

#[test]
fn sunbeam_pod_zones_are_inferred_from_pebble_stamps() {
    let a = analyze_scenario("2024-sunbeam-bfv-delay");
    let pod = a.hosts.iter().find(|h| h.hostname == "masakari-0").unwrap();
    assert_eq!(pod.zone, "UTC");
    assert_eq!(
        pod.zone_source,
        ZoneSource::Inferred("pebble timestamps".into())
    );
    // nova-compute's journal and its log file hold the same records: one copy is kept,
    // from the file read first.
    let disk_lines: Vec<_> = a
        .events
        .iter()
        .filter(|e| {
            e.message().contains("disk on volume")
                && e.instances
                    .iter()
                    .any(|i| i.to_string().starts_with("caad8b3d"))
        })
        .collect();
    assert_eq!(disk_lines.len(), 1, "{disk_lines:#?}");
}

/// Writes a two-host bundle whose Nova API clock runs `skew_s` seconds ahead: six
/// calls, each followed by the engine's next line of its call.
fn skewed_bundle(dir: &Path, skew_s: i64) {
    let engine = dir.join("ctl1/var/log/masakari");
    let api = dir.join("api1/var/log/apache2");
    std::fs::create_dir_all(&engine).unwrap();
    std::fs::create_dir_all(&api).unwrap();
    let mut masakari = String::new();
    let mut access = String::new();
    for i in 0..6i64 {
        let sec = 10 + i * 7;
        masakari.push_str(&format!(
            "2024-05-21 08:05:{sec:02}.200 41 INFO masakari.compute.nova [req-aaaaaaaa-0000-4000-8000-{i:012} req-bbbbbbbb-0000-4000-8000-{i:012} nova - - - - -] Call get server command for instance 7d1e5f0a-0000-4000-8000-00000000000{i}\n"
        ));
        // The engine's next line of that green thread: the answer had come.
        masakari.push_str(&format!(
            "2024-05-21 08:05:{sec:02}.700 41 INFO masakari.compute.nova [req-aaaaaaaa-0000-4000-8000-{i:012} req-bbbbbbbb-0000-4000-8000-{i:012} nova - - - - -] Call lock server command for instance 7d1e5f0a-0000-4000-8000-00000000000{i}\n"
        ));
        let t = sec + skew_s;
        access.push_str(&format!(
            "127.0.0.1 - - [21/May/2024:08:{:02}:{:02} +0000] \"GET /v2.1/servers/7d1e5f0a-0000-4000-8000-00000000000{i} HTTP/1.1\" 200 2321 \"-\" \"python-novaclient\"\n",
            5 + t / 60,
            t % 60
        ));
    }
    std::fs::write(engine.join("masakari-engine.log"), masakari).unwrap();
    std::fs::write(api.join("nova-api-os-compute_access.log"), access).unwrap();
}

#[test]
fn clock_skew_is_estimated_from_joined_pairs_and_corrected() {
    let dir = tempfile::tempdir().unwrap();
    skewed_bundle(dir.path(), 25);
    let a = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert_eq!(a.joins.len(), 6, "{:?}", a.joins);
    assert_eq!(a.skew.len(), 1);
    let skew = &a.skew[0];
    assert!(
        skew.offset_ms
            .is_some_and(|v| (24_000..=26_000).contains(&v)),
        "{skew:?}"
    );
    assert!(skew.applied);
    assert_eq!(a.hosts[skew.host as usize].hostname, "api1");
    // Corrected: each request now follows its call.
    for join in &a.joins {
        let call = &a.events[join.call.index()];
        let request = &a.events[join.request.index()];
        assert!(request.sort_key() >= call.time && request.time - call.time < 2_000_000_000);
    }

    let dir = tempfile::tempdir().unwrap();
    skewed_bundle(dir.path(), 0);
    let a = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    assert!(!a.skew[0].applied);
}

#[test]
fn an_archive_gives_the_same_analysis_as_its_folder() {
    let folder = scenario("2025-kolla-healthy-recovery");
    let dir = tempfile::tempdir().unwrap();
    let archive = dir.path().join("kolla-case.tar.gz");
    let file = std::fs::File::create(&archive).unwrap();
    let mut tar = tar::Builder::new(flate2::write::GzEncoder::new(
        file,
        flate2::Compression::fast(),
    ));
    tar.append_dir_all("kolla-case", &folder).unwrap();
    tar.into_inner().unwrap().finish().unwrap();

    let from_folder = analyze(&[folder], &Options::default()).unwrap();
    let from_archive = analyze(&[archive], &Options::default()).unwrap();
    assert_eq!(from_archive.layout, Layout::Kolla);
    assert_eq!(from_archive.hosts.len(), from_folder.hosts.len());
    assert_eq!(from_archive.events.len(), from_folder.events.len());
    assert_eq!(from_archive.stats.records, from_folder.stats.records);
    assert!(
        from_archive
            .files
            .iter()
            .all(|f| f.path.starts_with("kolla-case/"))
    );
}

#[test]
fn several_inputs_make_one_analysis() {
    let a = analyze(
        &[
            scenario("2025-kolla-healthy-recovery"),
            scenario("2024-sunbeam-bfv-delay"),
        ],
        &Options::default(),
    )
    .unwrap();
    assert!(a.hosts.iter().any(|h| h.hostname == "ctl01"));
    assert!(a.hosts.iter().any(|h| h.hostname == "masakari-0"));
    assert!(
        a.events
            .windows(2)
            .all(|w| w[0].sort_key() <= w[1].sort_key())
    );
}

#[test]
fn a_missing_input_is_an_error_naming_it() {
    let error = analyze(
        &[PathBuf::from("/nonexistent/case-00123")],
        &Options::default(),
    )
    .unwrap_err();
    assert!(
        error.to_string().contains("/nonexistent/case-00123"),
        "{error}"
    );
}

#[test]
fn two_hosts_in_two_time_zones_line_up_in_utc() {
    let a = analyze_scenario("2024-sosreports-two-timezones");
    assert_eq!(a.layout, Layout::Sosreport);
    let zone = |name: &str| {
        let h = a
            .hosts
            .iter()
            .find(|h| h.hostname.starts_with(name))
            .unwrap();
        (h.zone.as_str(), h.zone_source.clone())
    };
    assert_eq!(zone("ctl1").0, "Europe/Berlin");
    assert!(matches!(zone("ctl1").1, ZoneSource::Bundle(_)));
    assert_eq!(zone("cmp2").0, "Etc/UTC");
    // 10:05:48.522 CEST on the controller is 08:05:48.522 UTC.
    let get_a = a
        .events
        .iter()
        .find(|e| {
            e.message()
                .starts_with("Call get server command for instance 8acc20ac")
        })
        .unwrap();
    assert_eq!(
        evacdoc::correlate::timeline::utc(get_a.time),
        "2024-05-21T08:05:48.522Z"
    );
    // The evacuation on cmp3 (logged in UTC) follows Masakari's evacuate call (logged
    // in CEST) by seconds, not by two hours.
    let evacuate_b = a
        .events
        .iter()
        .find(|e| {
            e.message()
                .starts_with("Call evacuate command for instance f91be2ed")
        })
        .unwrap();
    let rebuild_b = a
        .events
        .iter()
        .find(|e| {
            e.message().contains("Evacuating instance")
                && e.instances
                    .iter()
                    .any(|i| i.to_string().starts_with("f91be2ed"))
        })
        .unwrap();
    let gap = rebuild_b.time - evacuate_b.time;
    assert!((0..30_000_000_000).contains(&gap), "gap {gap} ns");
    assert!(a.skew.iter().all(|s| !s.applied), "{:?}", a.skew);
    // The loose captures at the case root are read.
    let kinds: Vec<String> = a
        .captures
        .iter()
        .map(|c| {
            serde_json::to_value(&c.capture).unwrap()["kind"]
                .as_str()
                .unwrap()
                .to_string()
        })
        .collect();
    assert!(kinds.contains(&"notification".to_string()), "{kinds:?}");
    assert!(kinds.contains(&"vmove_list".to_string()), "{kinds:?}");
}

#[test]
fn progress_details_in_utc_reveal_the_engine_zone() {
    let dir = tempfile::tempdir().unwrap();
    let engine = dir.path().join("ctl9/var/log/masakari");
    std::fs::create_dir_all(&engine).unwrap();
    // The engine logs in CEST; the bundle says nothing of its zone.
    std::fs::write(
        engine.join("masakari-engine.log"),
        "2024-05-21 10:02:47.100 41 INFO masakari.engine.manager [None req-c9966a7e-7166-42c6-9cf6-81e501b54559 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification 46fcd802-f9c7-4094-b452-4517b84b2606 of type: COMPUTE_HOST\n\
         2024-05-21 10:02:47.300 41 INFO masakari.compute.nova [req-c9966a7e-7166-42c6-9cf6-81e501b54559 req-7a1c0e52-9b3d-4f6e-8a21-0c4d5e6f7a8b nova - - - - -] Disable nova-compute on cmp2\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("notification-show.json"),
        r#"{"notification_uuid": "46fcd802-f9c7-4094-b452-4517b84b2606", "type": "COMPUTE_HOST", "status": "finished",
            "recovery_workflow_details": [{"name": "DisableComputeServiceTask", "state": "SUCCESS", "progress": 1.0,
              "progress_details": [{"timestamp": "2024-05-21 08:02:47.251337", "progress": "0.0", "message": "Disabling compute service on host: 'cmp2'"}]}]}"#,
    )
    .unwrap();
    let a = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
    let ctl = a.hosts.iter().find(|h| h.hostname == "ctl9").unwrap();
    assert_eq!(ctl.zone, "UTC+02:00");
    assert_eq!(
        ctl.zone_source,
        ZoneSource::Inferred("masakari progress details".into())
    );
}
