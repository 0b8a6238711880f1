use super::*;

const LINE: &str = "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} \
        [Thu Aug  1 12:00:00 2025] POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action \
        => generated 0 bytes in 512 msecs (HTTP/1.1 200) 7 headers in 283 bytes \
        (1 switches on core 0)";

fn uwsgi(line: &str) -> UwsgiLine<'_> {
    let (rest, parsed) = parse_uwsgi_line(line).unwrap();
    assert_eq!(rest, "");
    parsed
}

#[test]
fn memory_usage_prefix() {
    assert_eq!(
        memory_usage(
            "{address space usage: 123456789 bytes/117MB} {rss usage: 52428800 bytes/50MB} [pid"
        ),
        Ok((
            "[pid",
            MemoryUsage {
                address_space_bytes: 123_456_789,
                rss_bytes: 52_428_800,
            }
        ))
    );
    assert!(memory_usage("{address space usage: 1 bytes/0MB} [pid").is_err());
    assert!(memory_usage("[pid").is_err());
}

#[test]
fn prefixes_read_vhost_and_memory() {
    assert_eq!(prefixes("[pid: 1"), Ok(("[pid: 1", (None, None))));
    assert_eq!(
        prefixes("nova.example.com [pid: 1"),
        Ok(("[pid: 1", (Some("nova.example.com"), None)))
    );
    let (rest, (vhost, memory)) =
        prefixes("api {address space usage: 10 bytes/0MB} {rss usage: 5 bytes/0MB} [pid: 1")
            .unwrap();
    assert_eq!((rest, vhost), ("[pid: 1", Some("api")));
    assert_eq!(memory.map(|m| m.rss_bytes), Some(5));
    assert!(prefixes("garbage").is_err());
    assert_eq!(prefixes(""), Ok(("", (None, None))));
}

#[test]
fn counters_bracket() {
    assert_eq!(
        counters("[pid: 25|app: 0|req: 1/7] 10.0.0.5"),
        Ok((
            "10.0.0.5",
            Counters {
                pid: 25,
                app: Some(0),
                worker_requests: Some(1),
                total_requests: 7,
            }
        ))
    );
    assert_eq!(
        counters("[pid: 31|app: -1|req: -1/12] x"),
        Ok((
            "x",
            Counters {
                pid: 31,
                app: None,
                worker_requests: None,
                total_requests: 12,
            }
        ))
    );
    assert!(counters("[pid: 25|app: 0|req: 1] x").is_err());
    assert!(counters("[pid: x|app: 0|req: 1/7] x").is_err());
    assert!(counters("[pid: 99999999999|app: 0|req: 1/7] x").is_err());
    assert!(counters("[pid: 25|app: -|req: 1/7] x").is_err());
}

#[test]
fn client_and_user() {
    assert_eq!(
        client_user("10.0.0.5 () {56 vars"),
        Ok(("{56 vars", ("10.0.0.5", None)))
    );
    assert_eq!(
        client_user("10.0.0.1, 10.0.0.2 (admin) {56 vars"),
        Ok(("{56 vars", ("10.0.0.1, 10.0.0.2", Some("admin"))))
    );
    assert_eq!(client_user("() {1 vars"), Ok(("{1 vars", ("", None))));
    assert!(client_user("10.0.0.5 {56 vars").is_err());
    assert!(client_user("10.0.0.5 (admin").is_err());
    assert!(client_user("").is_err());
}

#[test]
fn vars_and_time() {
    assert_eq!(
        vars("{56 vars in 1063 bytes} [Thu"),
        Ok(("[Thu", (56, 1063)))
    );
    assert!(vars("{56 vars in 1063 bytes}").is_err());
    assert!(vars("{56 vars}").is_err());
    let (rest, t) = request_time("[Thu Aug  1 12:00:00 2025] POST /").unwrap();
    assert_eq!(rest, "POST /");
    assert_eq!(t, DateTime::new(2025, 8, 1, 12, 0, 0, 0).unwrap());
    let (_, t) = request_time("[Mon Dec 15 09:34:22 2025] GET /").unwrap();
    assert_eq!((t.day, t.hour), (15, 9));
    assert!(request_time("[Thu Aug  1 12:00:00 2025]").is_err());
    assert!(request_time("[Thu Aug  1 12:00").is_err());
}

#[test]
fn method_and_path() {
    assert_eq!(
        method_path("GET /v2.1/servers/detail?all_tenants=1 => generated 5 bytes"),
        Ok((
            "generated 5 bytes",
            ("GET", "/v2.1/servers/detail?all_tenants=1")
        ))
    );
    assert_eq!(
        method_path("- - => generated 0"),
        Ok(("generated 0", ("-", "-")))
    );
    assert!(method_path("GET / generated 5 bytes").is_err());
    assert!(method_path("GET => generated 5 bytes").is_err());
    assert!(method_path(" / => generated 5 bytes").is_err());
}

#[test]
fn generated_units() {
    assert_eq!(
        generated("generated 0 bytes in 512 msecs (HTTP/1.1 200)"),
        Ok((" (HTTP/1.1 200)", (0, 512_000)))
    );
    assert_eq!(
        generated("generated 1845 bytes in 8123 micros (HTTP"),
        Ok((" (HTTP", (1845, 8123)))
    );
    assert!(generated("generated 0 bytes in 512 secs (").is_err());
    assert!(generated("generated 0 bytes in 512").is_err());
}

#[test]
fn via_variants() {
    assert_eq!(via(" (HTTP/1.1 200)"), Ok(("(HTTP/1.1 200)", None)));
    assert_eq!(
        via(" via sendfile() (HTTP/1.1 200)"),
        Ok(("(HTTP/1.1 200)", Some("sendfile")))
    );
    assert_eq!(
        via(" via offload() (HTTP/1.1 200)"),
        Ok(("(HTTP/1.1 200)", Some("offload")))
    );
    assert!(via(" via () (HTTP").is_err());
    assert!(via(" via sendfile").is_err());
    assert!(via("(HTTP/1.1 200)").is_err());
    assert!(via("").is_err());
}

#[test]
fn protocol_and_status() {
    assert_eq!(
        protocol_status("(HTTP/1.1 200) 7 headers"),
        Ok(("7 headers", ("HTTP/1.1", 200)))
    );
    assert_eq!(
        protocol_status("(- 500) 0 headers"),
        Ok(("0 headers", ("-", 500)))
    );
    assert_eq!(
        protocol_status("(HTTP/1.0 -17) 0 h"),
        Ok(("0 h", ("HTTP/1.0", 0)))
    );
    assert!(protocol_status("(HTTP/1.1 99999) 7").is_err());
    assert!(protocol_status("(HTTP/1.1) 7").is_err());
    assert!(protocol_status("(HTTP/1.1 200").is_err());
}

#[test]
fn headers_switches_core() {
    assert_eq!(
        response_headers("7 headers in 283 bytes (1 switches on core 0)\n"),
        Ok(("\n", (7, 283, 1, 0)))
    );
    assert!(response_headers("7 headers in 283 bytes (1 switches on core 0").is_err());
    assert!(response_headers("7 headers in 283 bytes").is_err());
}

#[test]
fn kolla_example_line() {
    let line = uwsgi(LINE);
    assert_eq!(
        line,
        UwsgiLine {
            vhost: None,
            memory: None,
            pid: 25,
            app: Some(0),
            worker_requests: Some(1),
            total_requests: 7,
            client: "10.0.0.5",
            user: None,
            vars: 56,
            vars_bytes: 1063,
            time: DateTime::new(2025, 8, 1, 12, 0, 0, 0).unwrap(),
            method: "POST",
            path: "/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action",
            generated_bytes: 0,
            duration_us: 512_000,
            via: None,
            protocol: "HTTP/1.1",
            status: 200,
            headers: 7,
            header_bytes: 283,
            switches: 1,
            core: 0,
        }
    );
    assert_eq!(
        line.instance(),
        Some("56ce6206-3659-495e-a6ea-f4d3d578cc96")
    );
}

#[test]
fn variants_micros_via_user_memory_and_trailing_newline() {
    let line = uwsgi(
        "{address space usage: 523763712 bytes/499MB} {rss usage: 104857600 bytes/100MB} \
             [pid: 40|app: 0|req: 12/300] 10.0.0.1, 172.16.0.3 (nova) {40 vars in 800 bytes} \
             [Mon Dec 15 09:34:22 2025] GET /v2.1/os-services => generated 2048 bytes in 3456 \
             micros via sendfile() (HTTP/1.1 503) 5 headers in 190 bytes (2 switches on core 1)\r\n",
    );
    assert_eq!(
        line.memory.map(|m| m.address_space_bytes),
        Some(523_763_712)
    );
    assert_eq!(line.client, "10.0.0.1, 172.16.0.3");
    assert_eq!(line.user, Some("nova"));
    assert_eq!(
        (line.duration_us, line.via, line.status),
        (3456, Some("sendfile"), 503)
    );
    assert_eq!((line.switches, line.core), (2, 1));
    assert_eq!(line.instance(), None);

    // uWSGI's minimal fallback line when the real one would not fit in 4 KiB.
    let line = uwsgi(
        "[pid: 40|app: -1|req: -1/301] 0.0.0.0 () {40 vars in 9000 bytes} [Mon Dec 15 \
             09:34:22 2025] - - => generated 0 bytes in 1 msecs (- 414) 0 headers in 0 bytes \
             (0 switches on core 0)",
    );
    assert_eq!((line.app, line.worker_requests), (None, None));
    assert_eq!(
        (line.method, line.path, line.protocol, line.status),
        ("-", "-", "-", 414)
    );
}

#[test]
fn rejects_truncated_lines_and_garbage() {
    for end in 0..LINE.len() {
        assert!(
            parse_uwsgi_line(&LINE[..end]).is_err(),
            "{:?}",
            &LINE[..end]
        );
    }
    assert!(parse_uwsgi_line("").is_err());
    assert!(
        parse_uwsgi_line("*** Starting uWSGI 2.0.28 (64bit) on [Thu Aug  1 12:00:00 2025] ***")
            .is_err()
    );
    assert!(
        parse_uwsgi_line(
            "2025-08-01 12:00:00.123 25 INFO nova.api.openstack.requestlog [-] 10.0.0.5 \"GET /\""
        )
        .is_err()
    );
    let _ = parse_uwsgi_line("é [pid: 1|app: é");
    let _ = parse_uwsgi_line("[pid: 1|app: 0|req: 1/1] é (é) {1 vars in 1 bytes} [é");
}
const SAMPLES: [&str; 2] = [
    LINE,
    "h {address space usage: 1 bytes/0MB} {rss usage: 1 bytes/0MB} [pid: 40|app: -1|req: -1/12] a, b (u) {40 vars in 800 bytes} [Mon Dec 15 09:34:22 2025] GET / => generated 2 bytes in 3 micros via sendfile() (HTTP/1.1 503) 5 headers in 190 bytes (2 switches on core 1)",
];

proptest::proptest! {
    #[test]
    fn never_panics_on_any_text(s in "\\PC*") {
        let _ = parse_uwsgi_line(&s);
    }

    #[test]
    fn never_panics_on_cut_and_spliced_lines(cut in 0usize..400, junk in "\\PC{0,8}", at in 0usize..400) {
        for sample in SAMPLES {
            let cut = sample.floor_char_boundary(cut.min(sample.len()));
            let at = sample.floor_char_boundary(at.min(sample.len()));
            let _ = parse_uwsgi_line(&sample[..cut]);
            let spliced = format!("{}{}{}", &sample[..at], junk, &sample[at..]);
            let _ = parse_uwsgi_line(&spliced);
        }
    }
}
