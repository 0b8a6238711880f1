use super::*;

impl Line<'_> {
    /// The wrapper as `<kind> <source>` and the content's format.
    fn to_owned_parts(&self) -> (Option<String>, Format) {
        let wrapper = self
            .wrapper
            .as_ref()
            .map(|w| format!("{} {}", w.format().as_str(), w.source().0));
        (wrapper, self.content.format())
    }
}

#[test]
fn dispatches_each_format() {
    let oslo = parse_line(
        "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-\
         b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance \
         56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None",
    );
    assert_eq!(oslo.content.format(), Format::Oslo);
    assert!(oslo.wrapper.is_none());

    let access = parse_line(
        "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/\
         56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540 \"-\" \
         \"python-novaclient\"",
    );
    assert_eq!(access.content.format(), Format::Access);
    assert_eq!(
        access.timestamp().map(|t| t.to_string()).as_deref(),
        Some("2020-12-08T19:51:12.000Z")
    );

    let uwsgi = parse_line(
        "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} [Thu Aug  1 \
         12:00:00 2025] POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action => \
         generated 0 bytes in 512 msecs (HTTP/1.1 200) 7 headers in 283 bytes (1 switches \
         on core 0)",
    );
    assert_eq!(uwsgi.content.format(), Format::Uwsgi);

    let journal = parse_line(
        "Dec  1 16:36:28 compute-1 nova-compute[2211]: 2026-12-01 16:36:28.512 2211 INFO \
         nova.compute.manager [-] Starting instance...",
    );
    assert!(matches!(journal.wrapper, Some(Wrapper::Syslog(_))));
    assert_eq!(journal.content.format(), Format::Oslo);

    let pebble = parse_line(
        "2025-05-14T07:10:35.743Z [nova-conductor] 2025-05-14 07:10:35.742 17 ERROR \
         nova.conductor.manager [-] Failed (HTTP 503)[00m",
    );
    assert!(matches!(pebble.wrapper, Some(Wrapper::Pebble(_))));
    let Content::Oslo(o) = &pebble.content else {
        panic!("expected oslo")
    };
    assert_eq!(o.message, "Failed (HTTP 503)");
}

#[test]
fn container_wrappers_hold_any_inner_format() {
    let cri = parse_line(
        "2026-11-30T09:34:22.845912345Z stdout F 2026-11-30 09:34:22.845 7502 INFO \
         masakari.compute.nova [req-11111111-2222-3333-4444-555555555555 \
         req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Disable nova-compute on compute-1",
    );
    let Some(Wrapper::Cri(prefix)) = &cri.wrapper else {
        panic!("not cri: {cri:?}")
    };
    assert_eq!(prefix.time.to_string(), "2026-11-30T09:34:22.845912345Z");
    let Content::Oslo(o) = &cri.content else {
        panic!("not oslo")
    };
    assert_eq!(o.message, "Disable nova-compute on compute-1");
    // The content's local time wins over the runtime's.
    assert_eq!(
        cri.timestamp().map(|t| t.to_string()).as_deref(),
        Some("2026-11-30T09:34:22.845")
    );

    // An access line inside CRI, and a CRI line of plain text timed by the runtime.
    let access = parse_line(
        "2024-12-27T00:00:11.000412000Z stdout F 127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \
         \"GET /v2.1/servers/cd3fb57b-9f28-422f-9a0c-d56dfb89ee94 HTTP/1.1\" 200 3984 \"-\" \"python-novaclient\"",
    );
    assert_eq!(access.content.format(), Format::Access);
    let text = parse_line("2026-11-30T09:34:22.845912345+01:00 stderr F     func(*args, **kwargs)");
    assert_eq!(text.text(), Some("    func(*args, **kwargs)"));
    assert_eq!(
        text.timestamp()
            .and_then(|t| t.to_utc())
            .map(|t| t.to_string())
            .as_deref(),
        Some("2026-11-30T08:34:22.845912345Z")
    );

    // Sunbeam: pebble inside CRI names the service.
    let sunbeam = parse_line(
        "2025-05-14T07:10:35.743846598+00:00 stdout F 2025-05-14T07:10:35.743Z [nova-conductor] \
         2025-05-14 07:10:35.742 17 ERROR nova.conductor.manager [-] Failed (HTTP 503)[00m",
    );
    assert!(matches!(&sunbeam.wrapper, Some(Wrapper::Pebble(p)) if p.service == "nova-conductor"));
    assert_eq!(sunbeam.content.format(), Format::Oslo);

    let docker = parse_line(
        r#"{"log":"2018-03-06 10:22:05.640 28651 INFO nova.compute.manager [req-cc37f38f-2e81-42e5-a593-13c3ac47681c admin admin] [instance: 12623a78-4226-4307-b395-1a3e5e1284aa] Evacuating instance\n","stream":"stderr","time":"2018-03-06T10:22:05.640812907Z"}"#,
    );
    assert!(matches!(docker.wrapper, Some(Wrapper::Docker(_))));
    let Content::Oslo(o) = &docker.content else {
        panic!("not oslo: {docker:?}")
    };
    assert_eq!(o.message, "Evacuating instance");
    assert_eq!(
        docker.wrapper.as_ref().map(|w| w.source()),
        Some(("stderr", None))
    );
}

#[test]
fn kubectl_prefixes_are_peeled_over_any_inner_format() {
    const OSLO: &str = "2024-09-18 07:53:42.784 31 INFO nova.api.openstack.wsgi [None \
         req-e6ffeac2-d6b5-469e-83e7-4169ad520421 - - - - - -] HTTP exception thrown: \
         Compute service of cmp02 is still in use.";
    // `--timestamps` over a Pebble-wrapped oslo line: pebble names the service.
    let sunbeam = parse_line(&format!(
        "2024-09-18T07:53:42.784913042Z 2024-09-18T07:53:42.784Z [wsgi-nova-api] \
         2024-09-18 07:53:42.784569 {OSLO}"
    ))
    .to_owned_parts();
    assert_eq!(sunbeam.0, Some("pebble wsgi-nova-api".to_string()));
    assert_eq!(sunbeam.1, Format::Oslo);
    // `--prefix` alone, `--timestamps` alone, both, over oslo, access and uWSGI.
    let access = "10.1.0.50 - - [18/Sep/2024:07:53:42 +0000] \"POST /v2.1/servers/\
         56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\"";
    let uwsgi = "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} [Wed Sep 18 \
         07:53:42 2024] GET / => generated 0 bytes in 1 msecs (HTTP/1.1 200) 7 headers in 283 \
         bytes (1 switches on core 0)";
    for (inner, format) in [
        (OSLO, Format::Oslo),
        (access, Format::Access),
        (uwsgi, Format::Uwsgi),
    ] {
        for prefix in [
            "[pod/nova-0/nova-api] ",
            "2024-09-18T07:53:42.784913042Z ",
            "[pod/nova-0/nova-api] 2024-09-18T07:53:42.784913042Z ",
        ] {
            let line = format!("{prefix}{inner}");
            let parsed = parse_line(&line);
            assert_eq!(parsed.content.format(), format, "{line}");
            let Some(Wrapper::Kubectl(k)) = &parsed.wrapper else {
                panic!("{line}: {parsed:?}")
            };
            assert_eq!(k.container.is_some(), prefix.starts_with('['), "{line}");
            assert_eq!(k.time.is_some(), prefix.contains('T'), "{line}");
        }
    }
    // The runtime's UTC time stands in for a content without one.
    let text = parse_line("2024-09-18T07:53:42.784913042Z   File \"x.py\", line 3");
    assert_eq!(text.text(), Some("  File \"x.py\", line 3"));
    assert_eq!(
        text.timestamp().map(|t| t.to_string()).as_deref(),
        Some("2024-09-18T07:53:42.784913042Z")
    );
}

#[test]
fn text_lines_carry_a_reason() {
    let line = parse_line("2020-12-08 19:51:12.309 235 info lower");
    assert_eq!(
        line.content,
        Content::Text {
            text: "2020-12-08 19:51:12.309 235 info lower",
            reason: Reason {
                expected: "log level",
                column: 28
            }
        }
    );
    assert!(matches!(
        parse_line("").content,
        Content::Text {
            reason: Reason::BLANK,
            ..
        }
    ));
    assert_eq!(parse_line("   ").text(), Some("   "));
    assert_eq!(
        parse_line("  File \"x.py\", line 3").text(),
        Some("  File \"x.py\", line 3")
    );
    assert_eq!(
        parse_line("Traceback (most recent call last):")
            .content
            .format(),
        Format::Text
    );
}
