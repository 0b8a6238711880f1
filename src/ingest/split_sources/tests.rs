use super::*;

const KERNEL: &str = "Dec 05 21:36:50 ctl1 kernel: [ 12.345678] eth0: link up";
const API: &str = "Dec 05 21:36:52 ctl1 nova-api[2175]: 2026-12-05 21:36:52.988 2175 ERROR nova.compute.api [req-5eddb4fa-0e34-47d1-9f79-678718d6b7ed req-4dc4b041-13c7-4fad-beeb-eea87dc93c28 2886f1e3089649f8898cb0a1495d5ae2 664c5f5a24ba4a1c9d7666a7713090dd - - default default] An error occurred while updating the COMPUTE_STATUS_DISABLED trait";
const ENGINE: &str = "Dec 05 21:36:53 ctl1 masakari-engine[2349]: 2026-12-05 21:36:53.002 2349 INFO masakari.engine.drivers.taskflow.host_failure [req-5eddb4fa-0e34-47d1-9f79-678718d6b7ed req-f054f342-4bde-4d6e-ad11-af2be6011240 nova - - - - -] Sleeping 10 sec before starting recovery thread until nova recognizes the node down.";
/// A line without a prefix: the continuation of the line before (a message with a
/// newline, as a syslog file may hold it).
const CONTINUED: &str = "    and the rest of the message";

fn found(dir: &Path, name: &str, text: &str) -> FoundFile {
    let abs = dir.join(name);
    std::fs::write(&abs, text).unwrap();
    FoundFile {
        rel: format!("ctl1/{name}"),
        abs: abs.clone(),
        name: abs,
        size: text.len() as u64,
        given: false,
        unpacked: false,
    }
}

fn lines_of(part: &Part) -> Vec<String> {
    std::fs::read_to_string(&part.file.abs)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

#[test]
fn each_known_writer_gets_a_part_numbered_as_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let text = [KERNEL, API, CONTINUED, ENGINE, KERNEL, API].join("\n") + "\n";
    let file = found(dir.path(), "syslog", &text);
    let parts = split(&file, dir.path(), 0, u64::MAX).unwrap().unwrap();
    let names: Vec<&str> = parts.iter().map(|p| p.file.rel.as_str()).collect();
    assert_eq!(
        names,
        [
            "ctl1/syslog#masakari-engine",
            "ctl1/syslog#nova-api",
            "ctl1/syslog"
        ]
    );
    let [engine, api, rest] = &parts[..] else {
        panic!("{names:?}")
    };
    assert_eq!(engine.service, Some(Service::new("masakari-engine")));
    assert_eq!(rest.service, None);
    assert_eq!(lines_of(api), [API, CONTINUED, API]);
    assert_eq!(lines_of(engine), [ENGINE]);
    assert_eq!(lines_of(rest), [KERNEL, KERNEL]);
    // The part's lines 1..3 are the file's 2, 3 and 6.
    let span = |first_line| RecordSpan {
        first_line,
        byte_start: 0,
        byte_end: 0,
        invalid_utf8: false,
    };
    let at = |part: &Part, line| part.lines.in_file(span(line)).first_line;
    assert_eq!([at(api, 1), at(api, 2), at(api, 3)], [2, 3, 6]);
    assert_eq!(at(engine, 1), 4);
    assert_eq!([at(rest, 1), at(rest, 2)], [1, 5]);
    // Out of the part's range: left as it is, never a panic.
    assert_eq!(at(api, 9), 9);
    assert_eq!(at(api, 0), 0);
    // The sizes are the parts' own.
    let total: u64 = parts.iter().map(|p| p.file.size).sum();
    assert_eq!(total, text.len() as u64);
}

#[test]
fn one_writer_alone_or_no_prefix_is_read_as_it_is() {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in [
        ("one", [API, CONTINUED, API].join("\n")),
        ("kernel", [KERNEL, KERNEL].join("\n")),
        (
            "plain.log",
            "2026-12-05 21:36:52.988 2175 INFO nova.api.openstack.requestlog [-] x\n".repeat(3),
        ),
        ("empty", String::new()),
    ] {
        let file = found(dir.path(), name, &text);
        assert!(
            split(&file, dir.path(), 0, u64::MAX).unwrap().is_none(),
            "{name}"
        );
    }
}

#[test]
fn kubectl_prefixes_name_the_containers() {
    let dir = tempfile::tempdir().unwrap();
    let oslo = "2026-12-05 21:36:52.939 2349 INFO masakari.compute.nova [-] x";
    let text = format!(
        "[pod/masakari-0/masakari-engine] {oslo}\n[pod/masakari-0/masakari-api] {oslo}\n[pod/masakari-0/charm] unit-masakari-0: hook ran\n"
    );
    let file = found(dir.path(), "all.log", &text);
    let parts = split(&file, dir.path(), 0, u64::MAX).unwrap().unwrap();
    let services: Vec<_> = parts.iter().map(|p| p.service.clone()).collect();
    assert_eq!(
        services,
        [
            Some(Service::new("masakari-api")),
            Some(Service::new("masakari-engine")),
            None
        ]
    );
}

#[test]
fn a_line_longer_than_a_piece_stays_one_line_of_its_part() {
    let dir = tempfile::tempdir().unwrap();
    let long = format!(
        "{API} {}",
        "x".repeat(crate::ingest::chunks::CHUNK_BYTES * 2 + 17)
    );
    let text = [KERNEL, long.as_str(), ENGINE, API].join("\n") + "\n";
    let file = found(dir.path(), "syslog", &text);
    let parts = split(&file, dir.path(), 0, u64::MAX).unwrap().unwrap();
    let api = parts
        .iter()
        .find(|p| p.service == Some(Service::new("nova-api")))
        .unwrap();
    assert_eq!(lines_of(api), [long.as_str(), API]);
    assert_eq!(&*api.lines.0, [2, 4]);
}

#[test]
fn every_known_writer_name_holds_a_service_stem() {
    // The names source_service knows (programs, Kolla and Helm containers, pods): the
    // stem check that spares a full look at a syslog of other daemons must see them.
    for name in [
        "nova-api",
        "nova_compute",
        "nova-compute-0",
        "nova-conductor",
        "nova-scheduler",
        "nova-osapi",
        "nova-api-osapi-7d9f8c6b5-x2x9k",
        "masakari-engine",
        "masakari_api",
        "masakari-engine-api",
        "masakari-hostmonitor",
        "cinder-volume",
        "cinder_scheduler",
        "volume",
        "keystone",
        "placement-api",
    ] {
        assert!(source_service(name).is_some(), "{name}");
        assert!(SERVICE_STEMS.is_match(name), "{name}");
    }
    for other in [
        "kernel",
        "systemd",
        "pacemaker-fenced",
        "ovs-vswitchd",
        "charm",
    ] {
        assert_eq!(source_service(other), None, "{other}");
    }
}

#[test]
fn a_file_cut_short_says_so_in_every_part() {
    let dir = tempfile::tempdir().unwrap();
    let text = [KERNEL, API, ENGINE].join("\n").repeat(200) + "\n";
    let file = found(dir.path(), "syslog", &text);
    let limit = text.len() as u64 / 2;
    let parts = split(&file, dir.path(), 0, limit).unwrap().unwrap();
    assert_eq!(parts.len(), 3);
    for part in &parts {
        let reason = part.incomplete.as_deref().unwrap_or_default();
        assert!(reason.contains("limit"), "{}: {reason}", part.file.rel);
    }
    let whole = split(&file, dir.path(), 1, u64::MAX).unwrap().unwrap();
    assert!(whole.iter().all(|p| p.incomplete.is_none()));
}
