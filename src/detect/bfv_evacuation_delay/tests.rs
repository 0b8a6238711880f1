use crate::detect::context::testing::{engine, findings, start};

const N: &str = "e0b2c6a9-4d17-4f3e-8b5a-1c9d7e2f6a38";
const G: &str = "3c6da5d7-4da4-41a6-b8a1-7a97656412a9";
const BFV: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
const EPH: &str = "89606586-ae8d-49a4-aa24-fdaec2e518bb";
const NOVA: &str = "masakari.compute.nova";

fn bundle(bfv_disk_at: &str, bfv_disk: &str) -> Vec<(&'static str, String)> {
    let mut log = start(N, G, "sunbeam-3", 180);
    for (t, i) in [("10:05:48.100", BFV), ("10:05:48.200", EPH)] {
        log += &engine(
            t,
            G,
            "INFO",
            NOVA,
            &format!("Call evacuate command for instance {i} on host None"),
        );
    }
    log += &engine(
        "10:06:30.000",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: finished."),
    );
    let compute = format!(
        "2024-05-21 10:06:01.000 77 INFO nova.compute.manager [req-{G} req-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {EPH}] disk on shared storage, evacuating using existing disk\n\
         2024-05-21 {bfv_disk_at} 77 INFO nova.compute.manager [req-{G} req-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {BFV}] {bfv_disk}\n"
    );
    vec![
        ("ctl/var/log/masakari/masakari-engine.log", log),
        ("cmp1/var/log/nova/nova-compute.log", compute),
    ]
}

fn run(files: &[(&'static str, String)]) -> Vec<crate::detect::Finding> {
    let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
    findings("bfv-evacuation-delay", &borrowed)
}

#[test]
fn a_volume_backed_rebuild_thirteen_minutes_late() {
    let found = run(&bundle(
        "10:19:20.000",
        "disk on volume, evacuating using existing volume",
    ));
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [BFV]);
    assert!(found[0].title.contains("13 min 31 s"), "{}", found[0].title);
    // Masakari said finished at 10:06:30, long before the rebuild.
    assert_eq!(found[0].severity, crate::detect::Severity::Critical);
}

/// The compute line that says the disk is on a volume carries no instance tag, only
/// the evacuation's request context (nova-api's local id of the evacuate POST).
#[test]
fn an_untagged_volume_line_under_the_evacuation_request_counts() {
    const L: &str = "req-995253fd-49c7-46e5-b38d-3bb4294c4ea3";
    let ctx = |l: &str| {
        format!(
            "[req-{G} {l} 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - - default default]"
        )
    };
    let mut files = bundle(
        "10:06:02.000",
        "disk on shared storage, evacuating using existing disk",
    );
    // Only the ephemeral instance's lines: replace the BFV line.
    files[1].1 = files[1].1.lines().next().unwrap().to_string() + "\n";
    files[1].1 += &format!(
        "2024-05-21 10:05:49.000 77 INFO nova.compute.manager {} [instance: {BFV}] Evacuating instance\n\
         2024-05-21 10:20:51.000 77 INFO nova.compute.manager {} disk on volume, evacuating using existing volume\n\
         2024-05-21 10:21:20.000 77 INFO nova.compute.manager {} [instance: {BFV}] Instance spawned successfully.\n",
        ctx(L),
        ctx(L),
        ctx(L)
    );
    files.push((
        "ctl/var/log/nova/nova-api-wsgi.log",
        format!(
            "2024-05-21 10:05:48.400 23 INFO nova.api.openstack.requestlog {} 10.0.0.5 \"POST /v2.1/servers/{BFV}/action\" status: 200 len: 0 microversion: 2.53 time: 0.251\n",
            ctx(L)
        ),
    ));
    let found = run(&files);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [BFV]);
    assert!(
        found[0]
            .title
            .contains("15 min 31 s from Nova's acceptance to the rebuild"),
        "{}",
        found[0].title
    );
    assert!(
        found[0].evidence.iter().any(|e| e
            .text
            .ends_with("disk on volume, evacuating using existing volume")),
        "{:#?}",
        found[0].evidence
    );
}

/// The destination's clock is 3 s behind and its offset not pinned: it logs `disk on
/// volume` before Masakari's call. The line carries the accepted evacuate request's
/// id, which ties it to the move whatever the clocks say.
#[test]
fn a_volume_line_before_the_call_on_a_late_clock_counts_by_its_request_id() {
    const L: &str = "req-995253fd-49c7-46e5-b38d-3bb4294c4ea3";
    let ctx = format!(
        "[req-{G} {L} 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - - default default]"
    );
    let mut files = bundle(
        "10:06:02.000",
        "disk on shared storage, evacuating using existing disk",
    );
    files[1].1 = files[1].1.lines().next().unwrap().to_string() + "\n";
    files[1].1 += &format!(
        "2024-05-21 10:05:45.600 77 INFO nova.compute.manager {ctx} [instance: {BFV}] disk on volume, evacuating using existing volume\n\
         2024-05-21 10:19:20.000 77 INFO nova.virt.libvirt.driver [-] [instance: {BFV}] Instance spawned successfully.\n"
    );
    files.push((
        "ctl/var/log/nova/nova-api-wsgi.log",
        format!(
            "2024-05-21 10:05:48.400 23 INFO nova.api.openstack.requestlog {ctx} 10.0.0.5 \"POST /v2.1/servers/{BFV}/action\" status: 200 len: 0 microversion: 2.53 time: 0.251\n"
        ),
    ));
    let found = run(&files);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].instance_uuids, [BFV]);
    assert!(
        found[0].title.contains("to the rebuild"),
        "{}",
        found[0].title
    );
}

/// The race, then the retry: Nova refused the first evacuate (400, the host still
/// up), the periodic task ran the flow again six minutes later and the volume-backed
/// instance was rebuilt 20 s after that call. The refused call started nothing: no
/// slow move (a second generator's tripleo mix found this).
#[test]
fn a_refused_call_then_a_prompt_retry_is_not_this() {
    let nova = |t: &str, l: &str, status: u16| {
        format!(
            "2024-05-21 {t} 23 INFO nova.api.openstack.requestlog [req-{G} {l} 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - default default] 127.0.0.1 \"POST /v2.1/servers/{BFV}/action\" status: {status} len: 0 microversion: 2.53 time: 0.100000\n"
        )
    };
    let mut log = start(N, G, "cmp-7", 10);
    log += &engine(
        "10:05:48.100",
        G,
        "INFO",
        NOVA,
        &format!("Call evacuate command for instance {BFV} on host None"),
    );
    log += &engine(
        "10:05:48.500",
        G,
        "WARNING",
        "masakari.engine.drivers.taskflow.host_failure",
        "Invalid input received: Compute service of cmp-7 is still in use. (HTTP 400) (Request-ID: req-5d0e8a31-7c2b-4f19-9e46-3a8b1c2d4e5f)",
    );
    log += &engine(
        "10:05:48.700",
        G,
        "INFO",
        NOVA,
        &format!("Call unlock server command for instance {BFV}"),
    );
    log += &engine(
        "10:05:49.000",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: error."),
    );
    log += &format!(
        "2024-05-21 10:11:50.000 41 INFO masakari.engine.manager [None req-{G} - - - - - -] Processing notification {N} of type: COMPUTE_HOST\n"
    );
    log += &engine(
        "10:12:00.100",
        G,
        "INFO",
        NOVA,
        &format!("Call evacuate command for instance {BFV} on host None"),
    );
    log += &engine(
        "10:12:30.000",
        G,
        "INFO",
        "masakari.engine.manager",
        &format!("Notification {N} exits with status: finished."),
    );
    let api = nova(
        "10:05:48.300",
        "req-5d0e8a31-7c2b-4f19-9e46-3a8b1c2d4e5f",
        400,
    ) + &nova(
        "10:12:00.300",
        "req-6e1f9b42-8d3c-4a2a-8f57-4b9c2d3e5f60",
        200,
    );
    let compute = format!(
        "2024-05-21 10:12:01.000 77 INFO nova.compute.manager [req-{G} req-6e1f9b42-8d3c-4a2a-8f57-4b9c2d3e5f60 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {BFV}] disk on volume, evacuating using existing volume\n\
         2024-05-21 10:12:20.000 77 INFO nova.virt.libvirt.driver [-] [instance: {BFV}] Instance spawned successfully.\n"
    );
    let files = [
        ("ctl/var/log/masakari/masakari-engine.log", log),
        ("ctl/var/log/nova/nova-api-wsgi.log", api),
        ("cmp1/var/log/nova/nova-compute.log", compute),
    ];
    assert_eq!(run(&files), []);
}

/// Seed 001: Masakari's progress details say the evacuation started at 19:24:20;
/// Nova recorded the `evacuate` action only at 19:37:51 and rebuilt within 30 s.
/// The engine's and Nova API's logs of that span are gone, as in the seed.
#[test]
fn nova_accepting_thirteen_minutes_after_masakari_started_fires_on_the_first_gap() {
    const SEED: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
    let ctx = "[None req-2b7d4e61-0c3a-4f5e-8d9b-6a1c2e3f4b5d 3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f a7d812868cb74f1a978035530f55f1d0 - - default default]";
    let compute = format!(
        "2024-05-02 19:37:52.210 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] Evacuating instance\n\
         2024-05-02 19:37:52.640 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] disk on volume, evacuating using existing volume\n\
         2024-05-02 19:38:21.020 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] Instance spawned successfully.\n"
    );
    let found = findings(
        "bfv-evacuation-delay",
        &[
            (
                "notification-show.txt",
                include_str!("../../../samples/parsers/capture/notification_show_bfv_json.txt"),
            ),
            (
                "server-event-list.txt",
                include_str!("../../../samples/parsers/capture/server_event_list_long_bfv.txt"),
            ),
            (
                "volume-show.txt",
                include_str!("../../../samples/parsers/capture/volume_show_bfv.txt"),
            ),
            ("node01/var/log/nova/nova-compute.log", &compute),
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert_eq!(f.instance_uuids, [SEED]);
    assert!(
        f.title.contains("13 min 30 s before Nova accepted it"),
        "{}",
        f.title
    );
    // The fast second gap is not what is reported.
    assert!(!f.title.contains("to the rebuild"), "{}", f.title);
    assert!(f.explanation.contains("Evacuation of instance started"));
    assert!(f.explanation.contains("`evacuate` server event"));
    // Both ends are in the evidence: the progress detail and the server event.
    assert!(
        f.evidence.iter().any(|e| e.path == "notification-show.txt"
            && e.text.contains("Evacuation of instance started"))
    );
    assert!(
        f.evidence
            .iter()
            .any(|e| e.path == "server-event-list.txt" && e.text.contains("evacuate"))
    );
}

/// The same seed with only Nova's migration records to say when it accepted the
/// call: the evacuation's record was created at 19:37:51.
#[test]
fn a_migration_record_alone_dates_nova_acceptance() {
    const SEED: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
    let ctx = "[None req-2b7d4e61-0c3a-4f5e-8d9b-6a1c2e3f4b5d 3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f a7d812868cb74f1a978035530f55f1d0 - - default default]";
    let compute = format!(
        "2024-05-02 19:37:52.640 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] disk on volume, evacuating using existing volume\n\
         2024-05-02 19:38:21.020 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] Instance spawned successfully.\n"
    );
    let migrations = format!(
        "$ openstack server migration list --server {SEED}\n\
         +----+--------------------------------------+-------------+------------+----------------+--------------+-----------+--------+--------------------------------------+------------+------------+------------+----------------------------+----------------------------+\n\
         | Id | UUID                                 | Source Node | Dest Node  | Source Compute | Dest Compute | Dest Host | Status | Server UUID                          | Old Flavor | New Flavor | Type       | Created At                 | Updated At                 |\n\
         +----+--------------------------------------+-------------+------------+----------------+--------------+-----------+--------+--------------------------------------+------------+------------+------------+----------------------------+----------------------------+\n\
         | 12 | 7e6d5c4b-3a29-4180-9f6e-5d4c3b2a1908 | node02      | node01     | node02         | node01       | 10.0.0.11 | done   | {SEED} | 3          | 3          | evacuation | 2024-05-02T19:37:51.000000 | 2024-05-02T19:38:21.000000 |\n\
         +----+--------------------------------------+-------------+------------+----------------+--------------+-----------+--------+--------------------------------------+------------+------------+------------+----------------------------+----------------------------+\n"
    );
    let found = findings(
        "bfv-evacuation-delay",
        &[
            (
                "notification-show.txt",
                include_str!("../../../samples/parsers/capture/notification_show_bfv_json.txt"),
            ),
            ("migration-list.txt", &migrations),
            (
                "volume-show.txt",
                include_str!("../../../samples/parsers/capture/volume_show_bfv.txt"),
            ),
            ("node01/var/log/nova/nova-compute.log", &compute),
        ],
    );
    assert_eq!(found.len(), 1, "{found:#?}");
    let f = &found[0];
    assert!(
        f.title.contains("13 min 30 s before Nova accepted it"),
        "{}",
        f.title
    );
    assert!(
        f.explanation.contains("migration record"),
        "{}",
        f.explanation
    );
    assert!(
        f.evidence.iter().any(|e| e.path == "migration-list.txt"),
        "{:#?}",
        f.evidence
    );
}

#[test]
fn prompt_or_ephemeral_moves_are_not_this() {
    assert!(
        run(&bundle(
            "10:06:20.000",
            "disk on volume, evacuating using existing volume"
        ))
        .is_empty()
    );
    assert!(
        run(&bundle(
            "10:19:20.000",
            "disk on shared storage, evacuating using existing disk"
        ))
        .is_empty()
    );
}
