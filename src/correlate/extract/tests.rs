use evacdoc_parsers::Records;

use super::*;
use crate::ingest::timezone::OffsetVotes;

fn first(text: &str) -> Record<'_> {
    Records::new(text).next().unwrap()
}

#[test]
fn masakari_call_becomes_an_event_with_ids() {
    let line = "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None";
    let record = first(line);
    assert!(keep(&Service::new("masakari-engine"), &record, &None));
    let raw = event_of(&record, 3, 1);
    let e = raw.event;
    assert_eq!((e.file, e.line, e.host), (3, 1, 1));
    assert_eq!(
        e.request_id.unwrap().request_id(),
        "req-de081ecf-4201-4542-b092-e21b2f5ce942"
    );
    assert_eq!(
        e.instances[0].to_string(),
        "56ce6206-3659-495e-a6ea-f4d3d578cc96"
    );
    assert!(e.message().starts_with("Call evacuate command"));
    assert_eq!(raw.stamp.unwrap().to_string(), "2020-12-08T19:51:12.309");
}

#[test]
fn access_lines_kept_for_server_actions_only() {
    let post = first(
        "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\"",
    );
    let service = Service::new("nova-api-access");
    assert!(keep(&service, &post, &None));
    let e = event_of(&post, 0, 0).event;
    assert!(e.second_precision);
    assert_eq!(e.http().unwrap().status, 400);
    assert_eq!(e.instances.len(), 1);
    // The message of an access line is what follows the time: request and status.
    assert_eq!(
        e.message(),
        "POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\""
    );
    // A successful action on a server Masakari never touched is not part of the
    // story; a failed one is kept all the same.
    let other: Watched =
        Some([crate::model::Uuid::parse("7d1e5f0a-0000-4000-8000-000000000001").unwrap()].into());
    assert!(keep(&service, &post, &other));
    let accepted = first(
        "172.27.100.141 - - [08/Dec/2020:19:51:14 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 202 462 \"-\" \"python-novaclient\"",
    );
    assert!(keep(&service, &accepted, &None));
    assert!(!keep(&service, &accepted, &other));
    let images = first(
        "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"GET /v2/images HTTP/1.1\" 200 540 \"-\" \"x\"",
    );
    assert!(!keep(&service, &images, &None));
}

#[test]
fn server_reads_are_kept_only_from_masakari_s_client_for_watched_instances() {
    let service = Service::new("nova-api-access");
    let read = |path: &str, agent: &str| {
        format!(
            "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"GET {path} HTTP/1.1\" 200 540 \"-\" \"{agent}\""
        )
    };
    let server = "/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96";
    let watched: Watched =
        Some([crate::model::Uuid::parse("56ce6206-3659-495e-a6ea-f4d3d578cc96").unwrap()].into());
    let other: Watched =
        Some([crate::model::Uuid::parse("7d1e5f0a-0000-4000-8000-000000000001").unwrap()].into());
    let by_novaclient = read(server, "python-novaclient");
    assert!(keep(&service, &first(&by_novaclient), &None));
    assert!(keep(&service, &first(&by_novaclient), &watched));
    assert!(!keep(&service, &first(&by_novaclient), &other));
    // Another client's reads are polling, whatever the server.
    assert!(!keep(&service, &first(&read(server, "curl/8.5")), &None));
    // A host's servers listed by Masakari's client; the listing without a host is not.
    let listing = read(
        "/v2.1/servers/detail?all_tenants=1&host=cmp02",
        "python-novaclient",
    );
    assert!(keep(&service, &first(&listing), &other));
    let all = read("/v2.1/servers/detail?all_tenants=1", "python-novaclient");
    assert!(!keep(&service, &first(&all), &None));
    // A path naming a server and a volume is not a read of one server.
    let two = read(
        "/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/volume/7d1e5f0a-0000-4000-8000-000000000001",
        "python-novaclient",
    );
    assert!(!keep(&service, &first(&two), &None));
    // nova-api's request log: the global request id marks Masakari's client.
    let api = Service::new("nova-api");
    let logged = |context: &str| {
        format!(
            "2020-12-08 19:51:12.309 235 INFO nova.api.openstack.requestlog [{context}] 10.0.0.5 \"GET {server}\" status: 200 len: 540 microversion: 2.79 time: 0.05"
        )
    };
    let global = logged(
        "req-11111111-2222-3333-4444-555555555555 req-de081ecf-4201-4542-b092-e21b2f5ce942 nova service - - - -",
    );
    assert!(keep(&api, &first(&global), &watched));
    assert!(!keep(&api, &first(&global), &other));
    let plain = logged("req-de081ecf-4201-4542-b092-e21b2f5ce942 - - - - -");
    assert!(!keep(&api, &first(&plain), &watched));
}

#[test]
fn masakari_debug_lines_are_kept_when_they_tell_the_recovery() {
    let engine = Service::new("masakari-engine");
    let kept = [
        "2026-11-30 09:34:57.028 9133 DEBUG masakari.engine.drivers.taskflow.driver [req-6c1c1e4e-8d3b-4d68-a0c8-1f7a1d2b3c4d req-0f6a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c nova - - - - -] Task 'EvacuateInstancesTask' (0b6f7a3e-1b2c-4d3e-8f4a-5b6c7d8e9f0a) transitioned into state 'RUNNING' from state 'PENDING' _task_receiver /usr/lib/python3/dist-packages/taskflow/listeners/logging.py:190",
        "2023-03-06 10:13:12.001 5711 DEBUG masakari.compute.nova [req-a1fb1992-0cbc-4bb3-acb5-c3816d340e28 req-0f6a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c nova - - - - -] Instance b32b66c9-f717-4d8c-9819-584bf8900519 status: ACTIVE _wait_for_server /usr/lib/python3/dist-packages/masakari/compute/nova.py:120",
    ];
    for line in kept {
        assert!(keep(&engine, &first(line), &None), "{line}");
    }
    let dropped = [
        "2023-03-15 00:00:08.966 571 DEBUG oslo_service.periodic_task [req-2198a667-318e-4440-b453-737541844630 - - - - -] Running periodic task MasakariManager._process_unfinished_notifications run_periodic_tasks /usr/lib/python3/dist-packages/oslo_service/periodic_task.py:210",
        "2023-03-06 10:13:12.001 5711 DEBUG keystoneauth.session [req-a1fb1992-0cbc-4bb3-acb5-c3816d340e28 req-0f6a1b2c-3d4e-4f5a-8b6c-7d8e9f0a1b2c nova - - - - -] RESP BODY: {\"server\": {\"id\": \"b32b66c9-f717-4d8c-9819-584bf8900519\", \"status\": \"ACTIVE\"}} _http_log_response /usr/lib/python3/dist-packages/keystoneauth1/session.py:549",
    ];
    for line in dropped {
        assert!(!keep(&engine, &first(line), &None), "{line}");
    }
    let monitor = Service::new("masakari-instancemonitor");
    let libvirt = "2023-03-06 10:11:52.359 2202 DEBUG masakarimonitors.instancemonitor.libvirt_handler.callback [-] Libvirt Event: type=VM, hostname=node01ob100.maas, uuid=b32b66c9-f717-4d8c-9819-584bf8900519, time=2023-03-06 10:11:52.359, event_id=LIFECYCLE, detail=STARTED_BOOTED) _vir_event_callback /usr/lib/python3/dist-packages/masakarimonitors/instancemonitor/instance.py:95";
    assert!(!keep(&monitor, &first(libvirt), &None));
    let created = "2023-03-06 10:11:53.002 2101 DEBUG keystoneauth.session [-] RESP BODY: {\"notification\": {\"notification_uuid\": \"e0ef461f-2aa2-4d1b-9203-2450cebdf76a\", \"type\": \"COMPUTE_HOST\", \"status\": \"new\"}} _http_log_response /usr/lib/python3/dist-packages/keystoneauth1/session.py:549";
    assert!(keep(&monitor, &first(created), &None));
    // Not DEBUG: kept as before.
    let sent = "2025-06-17 14:03:04.708 19 INFO masakarimonitors.ha.masakari [-] Send a notification. {'notification': {'type': 'COMPUTE_HOST', 'hostname': 'cmp02', 'generated_time': '2025-06-17T12:03:04.650321', 'payload': {'event': 'STOPPED'}}}";
    assert!(keep(&monitor, &first(sent), &None));
}

#[test]
fn monitors_generated_time_votes_for_the_zone() {
    let line = "2025-06-17 14:03:04.708 19 INFO masakarimonitors.ha.masakari [-] Send a notification. {'notification': {'type': 'COMPUTE_HOST', 'hostname': 'cmp02', 'generated_time': '2025-06-17T12:03:04.650321', 'payload': {'event': 'STOPPED'}}}";
    let mut votes = OffsetVotes::default();
    vote_offsets(&first(line), &mut votes);
    assert_eq!(votes.winner(), Some((7200, "masakari generated_time")));
    assert_eq!(
        generated_time("generated_time 12 of 2025-06-17 12:00:00"),
        None
    );
}

#[test]
fn container_runtime_stamps_vote_for_the_zone() {
    // A pod logging in CEST, read through containerd's CRI file (stamped in UTC).
    let line = "2025-06-17T12:03:04.708123456Z stdout F 2025-06-17 14:03:04.708 19 INFO masakari.engine.manager [-] Processing notification 9ace2da7-97d1-48cb-a96a-08ad4624481b of type: COMPUTE_HOST";
    let mut votes = OffsetVotes::default();
    vote_offsets(&first(line), &mut votes);
    assert_eq!(votes.winner(), Some((7200, "container runtime timestamps")));
}

#[test]
fn nova_noise_is_dropped_and_errors_kept() {
    let service = Service::new("nova-compute");
    let noise = first(
        "2024-05-21 08:00:01.100 2211 INFO nova.compute.resource_tracker [None req-c6c75849-7ccc-4e27-a6ab-d494c093fdb5 - - - - - -] Final resource view",
    );
    assert!(!keep(&service, &noise, &None));
    let evac = first(
        "2024-05-21 08:06:01.100 2211 INFO nova.compute.manager [None req-c6c75849-7ccc-4e27-a6ab-d494c093fdb5 - - - - - -] [instance: 56ce6206-3659-495e-a6ea-f4d3d578cc96] Evacuating instance",
    );
    assert!(keep(&service, &evac, &None));
    let err = first("2024-05-21 08:06:01.100 2211 ERROR nova.compute.manager [-] boom");
    assert!(keep(&service, &err, &None));
    // The rebuild's disk step without an instance tag, under the evacuation's
    // request: kept, so that its request can name the instance.
    let untagged = first(
        "2024-05-21 08:19:20.000 77 INFO nova.compute.manager [req-3c6da5d7-4da4-41a6-b8a1-7a97656412a9 req-995253fd-49c7-46e5-b38d-3bb4294c4ea3 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - - default default] disk on volume, evacuating using existing volume",
    );
    assert!(keep(&service, &untagged, &None));
    let no_context = first(
        "2024-05-21 08:19:20.000 77 INFO nova.compute.manager [-] disk on volume, evacuating using existing volume",
    );
    assert!(!keep(&service, &no_context, &None));
}
