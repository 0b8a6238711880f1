//! The real lines quoted in the reference (shared/reference/masakari-nova-logs.md,
//! sections 1.5, 6.4, 7.1 and 7.4) parse with the right fields.

// A panic in a test is a failed test, not a crash on input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use evacdoc_parsers::line::Wrapper;
use evacdoc_parsers::{Content, Format, Records, parse_line};

fn oslo_fields(line: &str) -> (String, String, Option<String>, Option<String>, String) {
    let parsed = parse_line(line);
    let Content::Oslo(o) = parsed.content else {
        panic!("not oslo: {line}")
    };
    (
        o.level.as_str().to_string(),
        o.logger.to_string(),
        o.request_id().map(str::to_string),
        o.global_request_id().map(str::to_string),
        o.message.to_string(),
    )
}

#[test]
fn section_1_5_run_lines() {
    let (level, logger, req, global, msg) = oslo_fields(
        "2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [None req-11111111-2222-3333-4444-555555555555 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10 of type: COMPUTE_HOST",
    );
    assert_eq!(
        (level.as_str(), logger.as_str()),
        ("INFO", "masakari.engine.manager")
    );
    assert_eq!(
        req.as_deref(),
        Some("req-11111111-2222-3333-4444-555555555555")
    );
    assert_eq!(global, None);
    assert!(msg.starts_with("Processing notification c5e0e0c8"));

    let (_, _, req, global, msg) = oslo_fields(
        "2026-11-30 09:34:22.845 7502 INFO masakari.compute.nova [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Disable nova-compute on compute-1",
    );
    assert_eq!(
        global.as_deref(),
        Some("req-11111111-2222-3333-4444-555555555555")
    );
    assert_eq!(
        req.as_deref(),
        Some("req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be")
    );
    assert_eq!(msg, "Disable nova-compute on compute-1");

    let (level, _, req, _, msg) = oslo_fields(
        "2026-11-30 09:34:57.339 9162 ERROR masakari.engine.manager [req-ceba6651-a42e-4c80-aec9-8128099a8ded nova - - - -] Failed to process notification 'c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10'. Reason: Failed to evacuate instances '7d1e5f0a-0000-4000-8000-000000000001' from host 'compute-1': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '7d1e5f0a-0000-4000-8000-000000000001' from host 'compute-1'",
    );
    assert_eq!(level, "ERROR");
    assert_eq!(
        req.as_deref(),
        Some("req-ceba6651-a42e-4c80-aec9-8128099a8ded")
    );
    let records: Vec<_> = Records::new(
        "2026-11-30 09:34:57.339 9162 ERROR masakari.engine.manager [req-ceba6651-a42e-4c80-aec9-8128099a8ded nova - - - -] Failed to process notification 'c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10'. Reason: Failed to evacuate instances '7d1e5f0a-0000-4000-8000-000000000001' from host 'compute-1': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '7d1e5f0a-0000-4000-8000-000000000001' from host 'compute-1'",
    )
    .collect();
    let summary = records[0].error_summary().unwrap();
    assert_eq!(
        summary.class,
        "masakari.exception.HostRecoveryFailureException"
    );
    assert!(msg.contains("Reason: Failed to evacuate"));
}

#[test]
fn section_6_4_request_lines() {
    let records: Vec<_> = Records::new(
        "2021-09-24 14:16:42.589 2289 INFO nova.osapi_compute.wsgi.server [req-de76dedd-c998-4325-9546-0034cfab78e3 9942eb4321644336a0c7383d9f1c2bed a7d812868cb74f1a978035530f55f1d0 - default default] 192.168.112.146 \"GET /v2.1/servers/sixthVM HTTP/1.1\" status: 404 len: 517 time: 0.2916870
2022-03-22 09:23:49.121 2720 INFO nova.osapi_compute.wsgi.server [-] 192.168.137.11 \"GET /v2.1/os-services HTTP/1.1\" status: 503 len: 498 time: 0.0100830
2019-07-25 08:48:57.448 22 INFO nova.api.openstack.requestlog [req-9d369ea4-1812-4aee-b334-fdb0aa9ddd27 7a59ab2d44ff4d5ba9be756d6e1fe199 902e2a271f844f189dc61719ab44bc22 - default default] 192.168.24.1 \"OPTIONS /\" status: 200 len: 405 microversion: - time: 0.001091
2022-11-11 09:50:24.935 12 INFO nova.api.openstack.requestlog [req-7590b5c4-185f-48d7-95aa-baa178d73d3a - - - - -] 192.168.130.1 \"GET /\" status: 200 len: 415 microversion: - time: 0.001104
",
    )
    .collect();
    let requests: Vec<_> = records.iter().map(|r| r.nova_request().unwrap()).collect();
    assert_eq!(requests[0].status, 404);
    assert_eq!(requests[0].uri, "/v2.1/servers/sixthVM");
    assert_eq!(requests[0].protocol, Some("HTTP/1.1"));
    assert_eq!(requests[0].time_us, 291_687);
    assert_eq!(requests[1].status, 503);
    assert_eq!(requests[2].method, "OPTIONS");
    assert_eq!(requests[2].microversion, None);
    assert_eq!(requests[3].client, "192.168.130.1");
    assert_eq!(requests[3].time_us, 1_104);
}

#[test]
fn section_7_1_charm_access_lines() {
    let line = parse_line(
        "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1\" 200 3984 \"-\" \"python-novaclient\"",
    );
    let Content::Access(a) = line.content else {
        panic!("not access")
    };
    assert_eq!(
        (a.method, a.status, a.bytes),
        (Some("GET"), 200, Some(3984))
    );
    assert_eq!(a.instance(), Some("cd3fb57b-9f28-422f-9a0c-d56dfb89ee94"));
    assert_eq!(a.user_agent, Some("python-novaclient"));
    assert_eq!(a.time.to_string(), "2024-12-27T00:00:11.000Z");

    let line = parse_line(
        "127.0.0.1 - - [27/Dec/2021:00:00:10 +0000] \"GET /v2.1/servers/detail?name=juju-.%2A HTTP/1.1\" 200 40168 \"-\" \"goose (0.1.0)\"",
    );
    let Content::Access(a) = line.content else {
        panic!("not access")
    };
    assert_eq!(a.instance(), None);
    assert_eq!(a.user_agent, Some("goose (0.1.0)"));
}

#[test]
fn section_7_4_sunbeam_lines() {
    let access = parse_line(
        "2025-05-14T04:29:00.317Z [wsgi-nova-api] 10.1.0.50 - - [14/May/2025:04:26:38 +0000] \"GET / HTTP/1.1\" 500 840 \"-\" \"Go-http-client/1.1\"",
    );
    let Some(Wrapper::Pebble(p)) = &access.wrapper else {
        panic!("no pebble prefix")
    };
    assert_eq!(p.service, "wsgi-nova-api");
    assert_eq!(p.apache_time, None);
    assert_eq!(access.content.format(), Format::Access);
    // The access time (when the request came) is older than pebble's: the line's own wins.
    assert_eq!(
        access.timestamp().unwrap().to_string(),
        "2025-05-14T04:26:38.000Z"
    );

    let warning = parse_line(
        "2025-05-14T04:27:20.100Z [wsgi-nova-api] 2025-05-14 04:27:20.100583 2025-05-14 04:27:20.061 31 WARNING oslo_db.sqlalchemy.engines [None req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] SQL connection failed. 10 attempts left.: oslo_db.exception.DBConnectionError: (pymysql.err.OperationalError) (2003, \"Can't connect to MySQL server on 'nova-api-mysql-router-service.openstack.svc.cluster.local' ([Errno 1] EPERM)\")\\x1b[00m",
    );
    let Some(Wrapper::Pebble(p)) = &warning.wrapper else {
        panic!("no pebble prefix")
    };
    assert_eq!(
        p.apache_time.map(|t| t.to_string()).as_deref(),
        Some("2025-05-14T04:27:20.100583")
    );
    let Content::Oslo(o) = &warning.content else {
        panic!("not oslo")
    };
    assert_eq!(o.pid, 31);
    assert_eq!(o.logger, "oslo_db.sqlalchemy.engines");
    assert!(o.message.ends_with("EPERM)\")"));
    let (_, summary) = evacdoc_parsers::oslo::split_error_summary(o.message).unwrap();
    assert_eq!(summary.class, "oslo_db.exception.DBConnectionError");

    let audit = parse_line(
        "2025-06-12T09:45:55.775Z [wsgi-nova-api] 2025-06-12 09:45:55.775335 2025-06-12 09:45:55.774 80 INFO oslo.messaging.notification.audit.http.request [None req-4cf54a26-26b3-4cd3-9442-2630480563b4 1c6dfb96f6ad40cab32a5add1daef45e 123e60b3cd024672b6dfdd0b6db8c32d - - 756f65bca3e74610aed6fffb0cc771c3 756f65bca3e74610aed6fffb0cc771c3] {\"message\": 1}",
    );
    let Content::Oslo(o) = &audit.content else {
        panic!("not oslo")
    };
    let ctx = o.context().unwrap();
    assert_eq!(ctx.user, Some("1c6dfb96f6ad40cab32a5add1daef45e"));
    assert_eq!(ctx.user_domain, Some("756f65bca3e74610aed6fffb0cc771c3"));
}

#[test]
fn seed_000_lines() {
    let line = parse_line(
        "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\"",
    );
    let Content::Access(a) = line.content else {
        panic!("not access")
    };
    assert_eq!((a.method, a.status), (Some("POST"), 400));
    assert_eq!(a.instance(), Some("56ce6206-3659-495e-a6ea-f4d3d578cc96"));

    let (_, logger, req, _, msg) = oslo_fields(
        "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None",
    );
    assert_eq!(logger, "masakari.compute.nova");
    assert_eq!(
        req.as_deref(),
        Some("req-de081ecf-4201-4542-b092-e21b2f5ce942")
    );
    assert!(msg.ends_with("on host None"));
}
