use super::*;
use crate::context::ContextForm;

fn oslo(line: &str) -> OsloLine<'_> {
    let (rest, parsed) = parse_oslo_line(line).unwrap();
    assert_eq!(rest, "");
    parsed
}

#[test]
fn level_reads_known_and_other_words() {
    assert_eq!(level("INFO masakari"), Ok((" masakari", Level::Info)));
    assert_eq!(level("WARNING x"), Ok((" x", Level::Warning)));
    assert_eq!(level("NOTICE x"), Ok((" x", Level::Other("NOTICE"))));
    assert!(level("info x").is_err());
    assert!(level("X x").is_err());
}

#[test]
fn instance_prefix_reads_uuid_and_trailing_space() {
    assert_eq!(
        instance_prefix("[instance: 56ce6206-3659-495e-a6ea-f4d3d578cc96] Evacuating instance"),
        Ok((
            "Evacuating instance",
            "56ce6206-3659-495e-a6ea-f4d3d578cc96"
        ))
    );
    assert!(instance_prefix("[None req-x]").is_err());
}

#[test]
fn a_line_with_its_offset_gives_it() {
    let line = oslo(
        "2026-12-05T23:38:13.897000+02:00 2175 INFO nova.api.openstack.wsgi \
         [req-5eddb4fa-0e34-47d1-9f79-678718d6b7ed req-1df88116-c8b9-416a-90c5-5b92a77b049f \
         2886f1e3089649f8898cb0a1495d5ae2 664c5f5a24ba4a1c9d7666a7713090dd - - default \
         default] HTTP exception thrown: Compute service of cmp1 is still in use.",
    );
    assert_eq!(line.offset, Some(7200));
    assert_eq!(line.level, Level::Info);
    assert_eq!(
        line.request_id(),
        Some("req-1df88116-c8b9-416a-90c5-5b92a77b049f")
    );
    let parsed = crate::parse_line(
        "2026-12-05T23:38:13.897000+02:00 2175 INFO nova.api.openstack.wsgi [-] x",
    );
    assert!(parsed.wrapper.is_none());
    let utc = parsed.timestamp().unwrap().to_utc().unwrap();
    assert_eq!(utc.local.to_string(), "2026-12-05T21:38:13.897");
    // The default format gives no offset.
    assert_eq!(
        oslo("2026-12-05 21:38:13.897 2175 INFO a.b [-] x").offset,
        None
    );
}

#[test]
fn seed_pre_zed_line() {
    let line = oslo(
        "2020-12-08 19:48:44.040 235 INFO masakari.engine.drivers.taskflow.host_failure \
         [req-2275b29c-7a9f-476c-a7dc-25635aab398b masakari - - - -] Sleeping 60 sec before \
         starting recovery thread until nova recognizes the node down.",
    );
    assert_eq!(line.pid, 235);
    assert_eq!(line.timestamp.to_string(), "2020-12-08T19:48:44.040");
    let ctx = line.context().unwrap();
    assert_eq!(ctx.form, ContextForm::PreZed);
    assert_eq!(
        ctx.request_id,
        Some("req-2275b29c-7a9f-476c-a7dc-25635aab398b")
    );
    assert_eq!(ctx.user, Some("masakari"));
    assert_eq!(ctx.global_request_id, None);
    assert!(line.message.starts_with("Sleeping 60 sec"));
}

#[test]
fn zed_line_with_global_request_id_and_error_summary() {
    let line = oslo(
        "2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.host_failure \
         [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be \
         nova - - - - -] Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001: \
         masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance \
         7d1e5f0a-0000-4000-8000-000000000001",
    );
    assert_eq!(
        line.global_request_id(),
        Some("req-11111111-2222-3333-4444-555555555555")
    );
    assert_eq!(
        line.request_id(),
        Some("req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be")
    );
    let (before, summary) = split_error_summary(line.message).unwrap();
    assert_eq!(
        before,
        "Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001"
    );
    assert_eq!(summary.class, "masakari.exception.InstanceEvacuateFailed");
    assert_eq!(
        summary.text,
        "Failed to evacuate instance 7d1e5f0a-0000-4000-8000-000000000001"
    );
}

#[test]
fn default_format_and_exception_prefix_lines() {
    let line = oslo(
        "2026-11-30 09:34:22.845 7502 INFO masakari.engine.manager [-] Starting \
         masakari-engine (version 19.0.0)",
    );
    assert_eq!(line.context().unwrap().form, ContextForm::Empty);
    assert!(!line.is_exception_prefixed());

    let tb = oslo(
        "2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver \
         Traceback (most recent call last):",
    );
    assert!(tb.is_exception_prefixed());
    assert_eq!(tb.message, "Traceback (most recent call last):");

    // The empty last line of a traceback: the prefix and one space.
    let empty = oslo("2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver ");
    assert!(empty.is_exception_prefixed());
    assert_eq!(empty.message, "");
    let bare = oslo("2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver");
    assert_eq!(bare.message, "");
}

#[test]
fn nova_instance_prefix_after_context() {
    let line = oslo(
        "2024-05-02 10:00:01.120 4711 INFO nova.compute.manager [req-3c1f4b0e-7d0a-4b8e-9f55-\
         0123456789ab req-9f8e7d6c-5b4a-4392-8123-456789abcdef 5e2a3c1b9d8e4f7a6b5c4d3e2f1a0b9c \
         7a59ab2d44ff4d5ba9be756d6e1fe199 - default default] [instance: \
         56ce6206-3659-495e-a6ea-f4d3d578cc96] disk on volume, evacuating using existing volume",
    );
    assert_eq!(line.instance, Some("56ce6206-3659-495e-a6ea-f4d3d578cc96"));
    assert_eq!(
        line.message,
        "disk on volume, evacuating using existing volume"
    );
}

#[test]
fn sunbeam_colour_residue_is_stripped() {
    let line = oslo(
        "2025-05-14 04:29:00.318 31 INFO nova.api.openstack.wsgi_app [None \
         req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] Global data already \
         initialized, not re-initializing.\\x1b[00m",
    );
    assert_eq!(
        line.message,
        "Global data already initialized, not re-initializing."
    );
}

#[test]
fn rejects_what_is_not_oslo() {
    assert!(parse_oslo_line("2020-12-08 19:51:12.309").is_err());
    assert!(parse_oslo_line("2020-12-08 19:51:12.309 abc INFO x").is_err());
    assert!(parse_oslo_line("2020-12-08 19:51:12.309 235 info x").is_err());
    assert!(parse_oslo_line("127.0.0.1 - - [08/Dec/2020:19:51:12 +0000]").is_err());
}

#[test]
fn error_summary_variants() {
    assert_eq!(split_error_summary("nothing here"), None);
    assert_eq!(split_error_summary("Reason: Failed to go"), None);
    let (_, s) = split_error_summary(
        "SQL connection failed. 10 attempts left.: oslo_db.exception.DBConnectionError: \
         (pymysql.err.OperationalError) (2003, \"Can't connect\")",
    )
    .unwrap();
    assert_eq!(s.class, "oslo_db.exception.DBConnectionError");
    assert!(s.text.starts_with("(pymysql.err.OperationalError)"));
    let (_, s) = split_error_summary("boom: ValueError: bad").unwrap();
    assert_eq!((s.class, s.text), ("ValueError", "bad"));
    assert_eq!(
        parse_exception_line(
            "keystoneauth1.exceptions.http.Unauthorized: The request you have made \
             requires authentication. (HTTP 401)"
        )
        .map(|s| s.class),
        Some("keystoneauth1.exceptions.http.Unauthorized")
    );
    assert_eq!(parse_exception_line("  File \"x.py\", line 1"), None);
}

#[test]
fn debug_suffix() {
    assert_eq!(split_debug_suffix("plain message"), None);
    let (before, loc) = split_debug_suffix(
        "Acquiring lock: masakari-xyz on resource: abc synchronized_wrapper \
         /usr/lib/python3/dist-packages/masakari/utils.py:298",
    )
    .unwrap();
    assert_eq!(before, "Acquiring lock: masakari-xyz on resource: abc");
    assert_eq!(loc.function, "synchronized_wrapper");
    assert_eq!(loc.path, "/usr/lib/python3/dist-packages/masakari/utils.py");
}

#[test]
fn starts_like_oslo_takes_a_time_a_pid_and_a_level_only() {
    for yes in [
        "2026-12-05T21:36:52.939 2349 INFO masakari.compute.nova [-] x",
        "2026-12-05T23:37:52.988000+02:00 2175 ERROR nova.compute.api [-] x",
        "2026-12-05 21:36:52.939 2349 DEBUG a.b [-] x",
    ] {
        assert!(starts_like_oslo(yes), "{yes}");
    }
    for no in [
        // CRI, kubectl over an oslo line, pebble, a journal short-iso prefix.
        "2026-12-05T21:36:52.939912345Z stdout F 2026-12-05 21:36:52.939 7 INFO a.b [-] x",
        "2026-12-05T21:36:52.939912345Z 2026-12-05T21:36:52.939 7 INFO a.b [-] x",
        "2026-12-05T21:36:52.939Z [nova-api] 2026-12-05 21:36:52.939 7 INFO a.b [-] x",
        "2026-12-05T21:36:52+0000 ctl1 nova-api[2175]: 2026-12-05 21:36:52.939 7 INFO a.b",
        "2026-12-05T21:36:52+0000 10 kernel: x",
        "2026-12-05T21:36:52.939 2349 info x",
    ] {
        assert!(!starts_like_oslo(no), "{no}");
    }
}

#[test]
fn devstack_debug_suffix() {
    let msg = "Lock \"compute_resources\" acquired by \"nova.compute.resource_tracker.\
        ResourceTracker.instance_claim\" :: waited 0.000s {{(pid=83123) inner \
        /opt/stack/oslo.concurrency/oslo_concurrency/lockutils.py:404}}";
    let (before, loc) = split_debug_suffix(msg).unwrap();
    assert!(before.ends_with(":: waited 0.000s"), "{before}");
    assert_eq!((loc.function, loc.line), ("inner", 404));
    assert_eq!(
        loc.path,
        "/opt/stack/oslo.concurrency/oslo_concurrency/lockutils.py"
    );
    assert_eq!(split_debug_suffix("a {{(pid=1) not a location}}"), None);
}
