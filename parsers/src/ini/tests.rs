use super::*;

fn entry<'a>(section: &'a str, key: &'a str, value: &'a str, line: usize) -> IniEntry<'a> {
    IniEntry {
        section,
        key,
        value: Cow::Borrowed(value),
        line,
        end_line: line,
    }
}

fn err(line: usize, reason: &'static str) -> IniError {
    IniError { line, reason }
}

#[test]
fn section_header_production() {
    assert_eq!(section_header("[DEFAULT]\nx = 1"), Ok(("x = 1", "DEFAULT")));
    assert_eq!(section_header("[pci]  \r\nx"), Ok(("x", "pci")));
    assert_eq!(section_header("[host_failure]"), Ok(("", "host_failure")));
    // Not stripped, as in oslo.config.
    assert_eq!(section_header("[ libvirt ]\n"), Ok(("", " libvirt ")));
    assert!(section_header("[]\n").is_err());
    assert!(section_header("[DEFAULT\n").is_err());
    assert!(section_header("[DEFAULT] ; main\n").is_err());
    assert!(section_header(" [DEFAULT]\n").is_err());
    assert!(section_header("DEFAULT\n").is_err());
    assert!(section_header("").is_err());
}

#[test]
fn key_value_production() {
    assert_eq!(
        key_value("service_down_time = 60\nreport_interval = 10\n"),
        Ok(("report_interval = 10\n", ("service_down_time", "60")))
    );
    assert_eq!(key_value("debug:true"), Ok(("", ("debug", "true"))));
    // Split at the first of '=' and ':'.
    assert_eq!(
        key_value("connection = mysql+pymysql://masakari:********@10.5.0.9/masakari\n"),
        Ok((
            "",
            (
                "connection",
                "mysql+pymysql://masakari:********@10.5.0.9/masakari"
            )
        ))
    );
    assert_eq!(key_value("a: b = c\n"), Ok(("", ("a", "b = c"))));
    assert_eq!(key_value("empty =\n"), Ok(("", ("empty", ""))));
    assert!(key_value("= 60\n").is_err());
    assert!(key_value(" : 60\n").is_err());
    assert!(key_value("no separator here\n").is_err());
    assert!(key_value("    continued\n").is_err());
    assert!(key_value("# debug = true\n").is_err());
    assert!(key_value("; debug = true\n").is_err());
    assert!(key_value("[DEFAULT]\n").is_err());
    assert!(key_value("\n").is_err());
}

#[test]
fn quotes_are_removed_when_they_match() {
    let kv = |s| key_value(s).map(|(_, (_, v))| v);
    assert_eq!(kv("k = \"a b\""), Ok("a b"));
    assert_eq!(kv("k = 'a b'"), Ok("a b"));
    assert_eq!(kv("k = \"a b'"), Ok("\"a b'"));
    assert_eq!(kv("k = \"\""), Ok(""));
    assert_eq!(kv("k = \""), Ok(""));
    assert_eq!(kv("k = 'é'"), Ok("é"));
    assert_eq!(kv("k = a\"b\""), Ok("a\"b\""));
}

#[test]
fn masakari_conf() {
    let conf = "\
# masakari.conf rendered by the charm
[DEFAULT]
debug = False
wait_period_after_service_update = 60
transport_url = rabbit://masakari:********@10.5.0.4:5672/openstack

[host_failure]
evacuate_all_instances = True
; ignore_instances_in_error_state = True

[taskflow]
connection = ********

[taskflow_driver_recovery_flows]
host_auto_failure_recovery_tasks = {'pre': ['disable_compute_service_task'],
    'main': ['prepare_HA_enabled_instances_task'],
\t'post': ['evacuate_instances_task']}
host_rh_failure_recovery_tasks = {'pre': ['disable_compute_service_task'], 'main': [], 'post': []}
";
    let doc = parse_ini(conf);
    assert_eq!(doc.errors, []);
    assert_eq!(
        doc.sections,
        [
            IniSection {
                name: "DEFAULT",
                line: 2
            },
            IniSection {
                name: "host_failure",
                line: 7
            },
            IniSection {
                name: "taskflow",
                line: 11
            },
            IniSection {
                name: "taskflow_driver_recovery_flows",
                line: 14
            },
        ]
    );
    assert_eq!(
        &doc.entries[..5],
        [
            entry("DEFAULT", "debug", "False", 3),
            entry("DEFAULT", "wait_period_after_service_update", "60", 4),
            entry(
                "DEFAULT",
                "transport_url",
                "rabbit://masakari:********@10.5.0.4:5672/openstack",
                5
            ),
            entry("host_failure", "evacuate_all_instances", "True", 8),
            entry("taskflow", "connection", "********", 12),
        ]
    );
    let tasks = &doc.entries[5];
    assert_eq!(tasks.key, "host_auto_failure_recovery_tasks");
    assert_eq!(
        tasks.value,
        "{'pre': ['disable_compute_service_task'],\n\
             'main': ['prepare_HA_enabled_instances_task'],\n\
             'post': ['evacuate_instances_task']}"
    );
    assert!(matches!(tasks.value, Cow::Owned(_)));
    assert_eq!((tasks.line, tasks.end_line), (15, 17));
    assert_eq!(doc.entries[6].line, 18);
    assert!(matches!(doc.entries[6].value, Cow::Borrowed(_)));
    assert_eq!(doc.entries.len(), 7);
    assert!(
        doc.get("host_failure", "ignore_instances_in_error_state")
            .is_none()
    );
}

#[test]
fn nova_conf_with_crlf_and_repeated_keys() {
    let conf = "[DEFAULT]\r\nservice_down_time = 60\r\nreport_interval = 10\r\n\r\n\
                    [pci]\r\npassthrough_whitelist = {\"vendor_id\": \"8086\", \"product_id\": \
                    \"10fb\"}\r\npassthrough_whitelist = {\"vendor_id\": \"15b3\"}\r\n\
                    [libvirt]\r\nlive_migration_uri = qemu+ssh://%s/system\r\n";
    let doc = parse_ini(conf);
    assert_eq!(doc.errors, []);
    assert_eq!(
        doc.get("DEFAULT", "service_down_time"),
        Some(&entry("DEFAULT", "service_down_time", "60", 2))
    );
    assert_eq!(
        doc.get("DEFAULT", "report_interval"),
        Some(&entry("DEFAULT", "report_interval", "10", 3))
    );
    let all: Vec<_> = doc
        .get_all("pci", "passthrough_whitelist")
        .map(|e| (e.line, e.value.as_ref()))
        .collect();
    assert_eq!(
        all,
        [
            (6, "{\"vendor_id\": \"8086\", \"product_id\": \"10fb\"}"),
            (7, "{\"vendor_id\": \"15b3\"}")
        ]
    );
    assert_eq!(doc.get("pci", "passthrough_whitelist").unwrap().line, 7);
    assert_eq!(
        doc.get("libvirt", "live_migration_uri").unwrap().value,
        "qemu+ssh://%s/system"
    );
}

#[test]
fn old_mac_line_endings_are_lines_too() {
    let doc = parse_ini("[DEFAULT]\rdebug = true\rverbose = false");
    assert_eq!(
        doc.entries,
        [
            entry("DEFAULT", "debug", "true", 2),
            entry("DEFAULT", "verbose", "false", 3)
        ]
    );
}

#[test]
fn section_lookup_follows_oslo_group_names() {
    let doc = parse_ini("[DEFAULT]\na = 1\n[default]\na = 2\n[PCI]\nb = 3\n[pci]\nb = 4\n");
    assert_eq!(doc.get("DEFAULT", "a").unwrap().value, "1");
    assert_eq!(doc.get("default", "a").unwrap().value, "2");
    assert_eq!(doc.get("Default", "a").unwrap().value, "2");
    assert_eq!(doc.get("pci", "b").unwrap().value, "4");
    assert_eq!(doc.get_all("Pci", "b").count(), 2);
    assert!(doc.get("DEFAULT", "b").is_none());
    assert!(doc.get("pci", "B").is_none());
}

#[test]
fn repeated_section_collects_into_one_group() {
    let doc = parse_ini("[DEFAULT]\na = 1\n[api]\nx = y\n[DEFAULT]\na = 2\n");
    assert_eq!(doc.sections.len(), 3);
    assert_eq!(doc.get("DEFAULT", "a").unwrap().line, 6);
    assert_eq!(doc.get_all("DEFAULT", "a").count(), 2);
}

#[test]
fn multi_line_values() {
    let doc = parse_ini(
        "[DEFAULT]\nenabled_apis =\n    osapi_compute,\n    metadata\n\nnext = 1\n\
             a = x\n   \nb = y\n    # not a comment\n",
    );
    assert_eq!(doc.errors, []);
    let apis = doc.get("DEFAULT", "enabled_apis").unwrap();
    // The empty first line stays, as oslo.config joins it.
    assert_eq!(apis.value, "\nosapi_compute,\nmetadata");
    assert_eq!((apis.line, apis.end_line), (2, 4));
    assert_eq!(doc.get("DEFAULT", "next").unwrap().value, "1");
    // A whitespace-only line is blank: it ends the value.
    assert_eq!(doc.get("DEFAULT", "a").unwrap().value, "x");
    // An indented '#' line continues the value.
    assert_eq!(doc.get("DEFAULT", "b").unwrap().value, "y\n# not a comment");
    // Quotes are removed from the first line only.
    let doc = parse_ini("[s]\nk = \"a\n  b\"\n");
    assert_eq!(doc.get("s", "k").unwrap().value, "\"a\nb\"");
}

#[test]
fn errors_are_recorded_and_reading_goes_on() {
    let conf = "debug = true\n\
                    \x20   stray continuation\n\
                    [DEFAULT]\n\
                    = 60\n\
                    no separator\n\
                    # comment\n\
                    \x20   after comment\n\
                    []\n\
                    ok = 1\n\
                    [libvirt # typo\n\
                    virt_type = kvm\n\
                    [libvirt]\n\
                    cpu_mode = host-passthrough\n";
    let doc = parse_ini(conf);
    assert_eq!(
        doc.errors,
        [
            err(1, IniError::NO_SECTION),
            err(4, IniError::EMPTY_KEY),
            err(5, IniError::NO_ASSIGNMENT),
            err(7, IniError::UNEXPECTED_CONTINUATION),
            err(8, IniError::EMPTY_SECTION_NAME),
            err(9, IniError::NO_SECTION),
            err(10, IniError::NO_SECTION_END),
            err(11, IniError::NO_SECTION),
        ]
    );
    // `debug` keeps its continuation: a line before any section is still an
    // assignment. Keys after a broken header belong to no section.
    assert_eq!(
        doc.entries,
        [
            IniEntry {
                section: "",
                key: "debug",
                value: Cow::Owned("true\nstray continuation".to_owned()),
                line: 1,
                end_line: 2,
            },
            entry("", "ok", "1", 9),
            entry("", "virt_type", "kvm", 11),
            entry("libvirt", "cpu_mode", "host-passthrough", 13),
        ]
    );
    assert!(doc.get("libvirt", "virt_type").is_none());
}

#[test]
fn empty_and_odd_inputs() {
    assert_eq!(parse_ini(""), IniDocument::default());
    assert_eq!(parse_ini("\n\n\r\n"), IniDocument::default());
    let doc = parse_ini("\u{feff}[DEFAULT]\nk=v");
    assert_eq!(doc.entries, [entry("DEFAULT", "k", "v", 2)]);
    let doc = parse_ini("[DEFAULT]\nk = v \t\x0c\n");
    assert_eq!(doc.entries, [entry("DEFAULT", "k", "v", 2)]);
    let doc = parse_ini("[DEFAULT]\nnöm = välue\n");
    assert_eq!(doc.entries, [entry("DEFAULT", "nöm", "välue", 2)]);
}

#[test]
fn serializes() {
    let doc = parse_ini("[taskflow]\nconnection = ********\n");
    assert_eq!(
        serde_json::to_string(&doc).unwrap(),
        r#"{"entries":[{"section":"taskflow","key":"connection","value":"********","line":2,"end_line":2}],"sections":[{"name":"taskflow","line":1}],"errors":[]}"#
    );
}

proptest::proptest! {
    #[test]
    fn never_panics(s in "[\\[\\]=:#; \t\r\na-zé'\"\u{feff}]{0,64}") {
        let doc = parse_ini(&s);
        for e in &doc.entries {
            proptest::prop_assert!(e.line <= e.end_line);
        }
        let _ = section_header(&s);
        let _ = key_value(&s);
    }
}
