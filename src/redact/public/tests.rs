use super::*;
use crate::redact::map::PseudonymMap;
use crate::redact::names::Seeds;

struct Fixture {
    names: NameFinder,
    upload: Vec<String>,
    map: PseudonymMap,
    stats: PublicStats,
}

fn fixture() -> Fixture {
    let mut seeds = Seeds::default();
    seeds.add_host("node02ob100.maas");
    seeds.add_host("rabbit-ctl7.acme.internal");
    seeds.add_host("compute-01");
    Fixture {
        names: NameFinder::new(seeds),
        upload: vec![
            "sosreport-node02ob100-acmecorp-case-01234567-2024-09-12-hqzpwa.tar.xz".into(),
            "sosreport-node02ob100-acmecorp-case-01234567-2024-09-12-hqzpwa".into(),
        ],
        map: PseudonymMap::with_key("k"),
        stats: PublicStats::default(),
    }
}

impl Fixture {
    fn run(&mut self, line: &str) -> String {
        let mut step = PublicText::new(&self.names, &self.upload);
        step.line(line, Vocabulary::Log, &mut self.map, &mut self.stats)
    }

    fn lines(&mut self, lines: &[&str]) -> Vec<String> {
        let mut step = PublicText::new(&self.names, &self.upload);
        lines
            .iter()
            .map(|l| step.line(l, Vocabulary::Log, &mut self.map, &mut self.stats))
            .collect()
    }
}

const INSTANCE: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

#[test]
fn the_story_of_the_race_stays_word_for_word_but_the_host() {
    let mut f = fixture();
    let line = "2020-12-08 19:51:12.671 141079 INFO nova.api.openstack.wsgi [req-de081ecf-4201-4542-b092-e21b2f5ce942 req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 masakari service - default default] HTTP exception thrown: Compute service of node02ob100.maas is still in use.".to_string();
    let out = f.run(&line);
    let host = f.map.get(Kind::Host, "node02ob100").unwrap().to_string();
    let domain = f.map.get(Kind::Domain, "maas").unwrap().to_string();
    assert_eq!(
        out,
        line.replace("node02ob100.maas", &format!("{host}.{domain}")),
        "only the host changes"
    );
    let engine = format!(
        "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance {INSTANCE} on host None"
    );
    assert_eq!(f.run(&engine), engine);
    let access = "172.27.100.141 - - [08/Dec/2020:19:51:12 +0000] \"POST /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action HTTP/1.1\" 400 95 \"-\" \"python-novaclient\"";
    let out = f.run(access);
    assert!(!out.contains("172.27.100"), "{out}");
    assert!(out.ends_with(&access[14..]), "{out}");
    // Known names and addresses are not words reduced to the vocabulary.
    assert_eq!(f.stats.reduced_lines, 0, "{:?}", f.stats);
}

#[test]
fn unknown_words_get_pseudonyms_one_per_value_whatever_the_case() {
    let mut f = fixture();
    let a = f.run("Failed to build instance acme-billing-db01 for user JDoe");
    let b = f.run("instance ACME-billing-DB01 deleted by jdoe");
    assert!(
        !a.to_lowercase().contains("acme") && !a.contains("JDoe"),
        "{a}"
    );
    let pseudo = |s: &str, n: usize| s.split(' ').nth(n).unwrap().to_string();
    assert_eq!(pseudo(&a, 4), pseudo(&b, 1));
    assert_eq!(pseudo(&a, 7), pseudo(&b, 4));
    assert!(pseudo(&a, 4).starts_with("name-"), "{a}");
    assert_eq!(f.stats.reduced_lines, 2);
    assert!(!f.stats.examples.is_empty());
    assert_eq!(f.stats.replaced["name"], 4);
}

#[test]
fn leak_kinds_of_issue_23_are_gone() {
    let mut f = fixture();
    let cases: &[(&str, &[&str])] = &[
        (
            "key = AQBx7k5fJ0gQKRAAwcE1wqV9u3zQ8ZfQkq3Y3g==",
            &["AQBx7k5fJ0gQKRAAwcE1wqV9u3zQ8ZfQkq3Y3g"],
        ),
        ("memcache_secret_key = 8fjKx92LmQ0pZt", &["8fjKx92LmQ0pZt"]),
        ("fixed_key = 0a1b2c3d4e5f", &["0a1b2c3d4e5f"]),
        ("backend_argument = password:Zq8rT2mW", &["Zq8rT2mW"]),
        (
            "2024-09-12 10:01:02.123 1234 DEBUG keystoneauth.session [-] REQ: curl -g -i -X GET https://keystone.acme.example:5000/v3 -H \"Authorization: Basic YWRtaW46czNjcjN0\" -H \"Accept: application/json\"",
            &["YWRtaW46czNjcjN0", "acme.example"],
        ),
        (
            "Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqZG9lIn0.sig",
            &["eyJhbGciOiJIUzI1NiJ9"],
        ),
        (
            "root 4242 0.0 0.1 python3 /usr/bin/openstack --os-username jdoe --os-password Hunter2Evacuate! server list",
            &["Hunter2Evacuate", "jdoe"],
        ),
        (
            "2024-09-12 10:01:02.123 1234 INFO keystone.common.wsgi [req-de081ecf-4201-4542-b092-e21b2f5ce942 - - - - -] user jane.smith in project acme-prod of domain AcmeCorp denied",
            &["jane.smith", "acme-prod", "AcmeCorp"],
        ),
        (
            "project 0F1E2D3C4B5A69788796A5B4C3D2E1F0 gone",
            &[
                "0F1E2D3C4B5A69788796A5B4C3D2E1F0",
                "0f1e2d3c4b5a69788796a5b4c3d2e1f0",
            ],
        ),
        (
            "GET /v1/AUTH_0f1e2d3c4b5a69788796a5b4c3d2e1f0/images HTTP/1.1",
            &["0f1e2d3c4b5a69788796a5b4c3d2e1f0"],
        ),
        (
            "connection from ::ffff:172.27.100.5 refused",
            &["172.27.100", "27.100.5"],
        ),
        (
            "bridge fa-16-3e-4b-9c-21 and cisco fa16.3e4b.9c21 up",
            &["fa-16-3e-4b-9c-21", "fa16.3e4b.9c21", "3e4b"],
        ),
        (
            "resolved ctl3.cloud.acme-corp.example to 10.5.0.20",
            &["acme-corp", "ctl3", "10.5.0"],
        ),
        (
            "endpoint https://nova.region1.acme.com:8774/v2.1 ok",
            &["acme", "region1"],
        ),
        (
            "[instance: 56ce6206-3659-495e-a6ea-f4d3d578cc96] Instance acme-payroll-vm spawned as instance-0000004f",
            &["acme-payroll-vm", "instance-0000004f", "payroll"],
        ),
        (
            "address 2001:0db8:0000:0000:0000:0000:1428:57ab up",
            &["1428:57ab", "2001:0db8"],
        ),
        ("listening on fe80::f816:3eff:fe12:3456: ok", &["f816:3eff"]),
        (
            "CN=ctl1.acme.internal, O=Acme Widgets Ltd",
            &["acme", "Widgets"],
        ),
        (
            "{\"server\": {\"display_name\": \"web\", \"user_data\": \"I2Nsb3VkLWNvbmZpZwpwYXNzd29yZDogaHVudGVyMg==\"}}",
            &["I2Nsb3VkLWNvbmZpZwpwYXNzd29yZDogaHVudGVyMg", "\"web\""],
        ),
        (
            "uploaded sosreport-node02ob100-acmecorp-case-01234567-2024-09-12-hqzpwa.tar.xz ok",
            &["acmecorp", "hqzpwa"],
        ),
    ];
    for (line, gone) in cases {
        let out = f.run(line);
        for g in *gone {
            assert!(
                !out.to_lowercase().contains(&g.to_lowercase()),
                "{g:?} in {out:?} (from {line:?})"
            );
        }
    }
    // The same address keeps one pseudonym whatever surrounds it.
    let a = f.run("from fe80::f816:3eff:fe12:3456 in");
    let b = f.run("listening on fe80::f816:3eff:fe12:3456: ok");
    let addr = a.split(' ').nth(1).unwrap();
    assert!(b.contains(&format!("{addr}: ok")), "{a} / {b}");
    // A dashed and a colon MAC are one MAC.
    let c = f.run("mac fa:16:3e:4b:9c:21");
    let d = f.run("mac FA-16-3E-4B-9C-21");
    assert_eq!(c, d);
}

#[test]
fn continuation_lines_of_secrets_and_private_keys() {
    let mut f = fixture();
    let out = f.lines(&[
        "transport_url = rabbit://nova:Rb8kQ3xZ7mWp2LsT@172.27.100.137:5672,",
        "    nova:Rb8kQ3xZ7mWp2LsT@172.27.100.138:5672/openstack",
        "-----BEGIN RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7MhgHcTz6sE2I2yPB",
        "-----END RSA PRIVATE KEY-----",
    ]);
    let all = out.join("\n");
    assert!(
        !all.contains("Rb8kQ3xZ7mWp2LsT") && !all.contains("MIIEowIBAAKCAQEA0Z3VS5"),
        "{all}"
    );
}

#[test]
fn config_values_not_read_as_words() {
    let mut f = fixture();
    let mut step = PublicText::new(&f.names, &f.upload);
    let out = step.line("Compute Region", Vocabulary::None, &mut f.map, &mut f.stats);
    assert!(
        out.starts_with("name-") && !out.contains("Compute"),
        "{out}"
    );
    let out = step.line("30", Vocabulary::None, &mut f.map, &mut f.stats);
    assert_eq!(out, "30");
}

#[test]
fn tracebacks_and_module_names_stay() {
    let mut f = fixture();
    for line in [
        "  File \"/usr/lib/python3/dist-packages/nova/compute/manager.py\", line 3564, in rebuild_instance",
        "2020-12-08 19:51:12.671 141079 ERROR oslo_messaging.rpc.server nova.exception.ComputeServiceInUse: Compute service is still in use.",
        "2024-09-12T10:01:02.123456+00:00 took 0.52s (12ms) with microversion 2.95",
    ] {
        assert_eq!(f.run(line), line);
    }
}

#[test]
fn a_known_template_keeps_its_text_and_judges_its_arguments_as_values() {
    let mut f = fixture();
    // `Compute service of %(host)s is still in use.`: the host is a value even when it
    // is a word of the vocabulary.
    let out = f.run(
        "2020-12-08 19:51:12.671 141079 ERROR oslo_messaging.rpc.server nova.exception.ComputeServiceInUse: Compute service of compute is still in use.",
    );
    assert!(
        out.starts_with("2020-12-08 19:51:12.671 141079 ERROR oslo_messaging.rpc.server nova.exception.ComputeServiceInUse: Compute service of name-")
            && out.ends_with(" is still in use."),
        "{out}"
    );
    // `Instance %(uuid)s ... %(vm_state)s`-like arguments of the allow-list keep words;
    // ids and statuses stay.
    let line = "2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None";
    assert_eq!(f.run(line), line);
    // A display name made of vocabulary words is no longer kept in an argument.
    let out = f.run(
        "2020-12-08 19:51:12.309 235 INFO masakari.engine.manager [-] Processing notification 9ace2da7-97d1-48cb-a96a-08ad4624481b of type: COMPUTE_HOST",
    );
    assert!(out.ends_with("of type: COMPUTE_HOST"), "{out}");
    assert_eq!(f.stats.templated, 3, "{:?}", f.stats);
    assert_eq!(f.stats.reduced_lines, 0, "arguments are not reduced lines");
}

mod planted {
    use super::*;
    use proptest::prelude::*;

    /// Realistic lines with a slot for an identifier.
    const TEMPLATES: &[&str] = &[
        "2020-12-08 19:51:12.671 141079 INFO nova.compute.manager [req-de081ecf-4201-4542-b092-e21b2f5ce942 {} acme - default default] [instance: 56ce6206-3659-495e-a6ea-f4d3d578cc96] Took 1.2 seconds to build instance.",
        "2020-12-08 19:51:12.671 141079 WARNING nova.compute.api [-] Compute service of {}.maas is still in use.",
        "  File \"/var/lib/{}/nova/compute/manager.py\", line 3564, in rebuild_instance",
        "{} - - [08/Dec/2020:19:51:12 +0000] \"GET /v2.1/servers HTTP/1.1\" 200 95 \"-\" \"python-novaclient\"",
        "root 4242 0.0 python3 /usr/bin/openstack --os-username {} server list",
        "{\"server\": {\"name\": \"{}\", \"status\": \"ACTIVE\"}}",
    ];

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// An identifier (letters and digits, in any case, not a word of the vocabulary)
        /// planted in a line never comes out, and comes out as one pseudonym each time.
        #[test]
        fn planted_identifiers_never_appear(
            id in "[a-z]{3,8}[0-9]{1,3}[a-z0-9-]{0,6}[a-z0-9]",
            upper in any::<bool>(),
            template in 0..TEMPLATES.len(),
        ) {
            let planted = if upper { id.to_ascii_uppercase() } else { id.clone() };
            let line = TEMPLATES[template].replacen("{}", &planted, 1);
            let mut f = fixture();
            let a = f.run(&line);
            let b = f.run(&TEMPLATES[template].replacen("{}", &id, 1));
            prop_assert!(!a.to_ascii_lowercase().contains(&id), "{a}");
            prop_assert_eq!(a, b, "one pseudonym whatever the case");
        }
    }
}

#[test]
fn a_long_command_file_name_is_judged_as_its_command_line_and_stays_distinct() {
    let mut f = fixture();
    let mut path = |p: &str| {
        let mut step = PublicText::new(&f.names, &f.upload);
        step.path(p, &mut f.map, &mut f.stats)
    };
    let dir = "sos_commands/kubernetes/cluster-info/openstack/podlogs/masakari-0";
    let api = path(&format!(
        "{dir}/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_masakari-api"
    ));
    let engine = path(&format!(
        "{dir}/k8s_kubectl_--namespace_openstack_logs_masakari-0_-c_masakari-engine"
    ));
    // Two logs of one pod keep two names, and the command stays readable.
    assert_ne!(api, engine);
    assert!(api.ends_with("_-c_masakari-api"), "{api}");
    assert!(engine.contains("_--namespace_openstack_logs_"), "{engine}");
    assert!(!engine.contains(HIDDEN), "{engine}");
    // A secret given as a flag's value in such a name is still hidden.
    let secret = path(
        "sos_commands/x/openstack_--os-password_Sup3rS3cr3tValue_server_list_--long_--all-projects",
    );
    assert!(!secret.contains("Sup3rS3cr3tValue"), "{secret}");
    // A customer name in it gets a pseudonym, as in a line.
    let named = path(
        "sos_commands/x/k8s_kubectl_--namespace_acmecorp-prod_logs_node02ob100_-c_masakari-engine",
    );
    assert!(!named.to_lowercase().contains("acmecorp"), "{named}");
    assert!(!named.contains("node02ob100"), "{named}");
}

/// A text judged by one step (its words remembered: kept words, verdicts of the others,
/// key classes) reads as by a step that forgets every word before each line, with the
/// same counts: every
/// line of the sample scenarios, each text twice over (the second time from the caches),
/// and lines where a word shown before is a key, a value after a key, a name, a host,
/// a number, a MAC, a Keystone id and the upload's name.
#[test]
fn remembered_words_read_and_count_as_words_judged_anew() {
    let mut texts: Vec<Vec<String>> = vec![
        [
            "login jdoe password hunter2 user jdoe token=0123456789abcdef0123456789abcdef",
            "jdoe logs in as JDoe from fa-16-3e-4b-9c-21 and fa16.3e4b.9c21 (12345678901234 17 1234.5678.9012)",
            "0123456789abcdef0123456789abcdef 01234567890123456789012345678901 8656 0.087217 21.0.0",
            "--os-username acme-admin --os-password s3cr3t display_name=acme-billing-db01 acme-billing-db01",
            "sosreport-node02ob100-acmecorp-case-01234567-2024-09-12-hqzpwa node02ob100 compute-01 ctl7.acme.internal",
            "Authorization: Basic Zm9vOmJhcg== authorization basic Zm9vOmJhcg== bearer abc",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect(),
    ];
    for text in crate::redact::sample_texts::sample_texts() {
        texts.push(text.lines().map(str::to_string).collect());
    }
    let mut lines = 0;
    for text in &texts {
        let (mut once, mut anew) = (fixture(), fixture());
        let mut step = PublicText::new(&once.names, &once.upload);
        let mut forgetful = PublicText::new(&anew.names, &anew.upload);
        for _ in 0..2 {
            for line in text {
                for vocabulary in [Vocabulary::Log, Vocabulary::None] {
                    let remembered = step.line(line, vocabulary, &mut once.map, &mut once.stats);
                    forgetful.forget_words();
                    let judged = forgetful.line(line, vocabulary, &mut anew.map, &mut anew.stats);
                    assert_eq!(remembered, judged, "{line}");
                    lines += 1;
                }
            }
        }
        assert_eq!(once.stats, anew.stats);
    }
    assert!(lines > 20_000, "{lines}");
}

/// What one text's step judged, carried into the next text's step
/// ([`PublicText::resuming`]), shows every line and counts every pseudonym as a fresh
/// step does: over the sample texts one after another, each twice, and after a text that
/// ends inside a private key (the secret state does not carry over).
#[test]
fn what_one_text_judged_carries_into_the_next_as_judging_anew() {
    let open_key =
        "key_file_body:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA3J0s".to_string();
    let mut texts = vec![open_key];
    texts.extend(crate::redact::sample_texts::sample_texts());
    texts.extend(texts.clone());
    let (mut carried, mut fresh) = (fixture(), fixture());
    let mut judged = Judged::default();
    let mut lines = 0;
    for text in &texts {
        let mut step = PublicText::resuming(&carried.names, &carried.upload, judged);
        let mut anew = PublicText::new(&fresh.names, &fresh.upload);
        for line in text.lines() {
            let shown = step.line(line, Vocabulary::Log, &mut carried.map, &mut carried.stats);
            let judged_anew = anew.line(line, Vocabulary::Log, &mut fresh.map, &mut fresh.stats);
            assert_eq!(shown, judged_anew, "{line}");
            lines += 1;
        }
        judged = step.into_judged();
    }
    assert_eq!(carried.stats, fresh.stats);
    assert!(lines > 10_000, "{lines}");
    // The text after the open key is not hidden as the key's body.
    let mut step = PublicText::resuming(&carried.names, &carried.upload, judged);
    let first = step.line(
        "2024-09-12 10:00:00.123 7 INFO nova.compute.manager [-] Started",
        Vocabulary::Log,
        &mut carried.map,
        &mut carried.stats,
    );
    assert!(first.ends_with("Started"), "{first}");
}

/// Numbers are shown as they are without the seed lookups only while no seed is made
/// of digits and dots: one that is (a project named `4711`, a host `8086`) is still
/// replaced, alone or as a part of a dotted number.
#[test]
fn a_number_that_is_a_seeded_name_or_host_is_still_replaced() {
    let mut seeds = Seeds::default();
    seeds.names.insert("4711".into(), Kind::Project);
    seeds.hosts.insert("8086".into());
    let names = NameFinder::new(seeds);
    assert!(names.may_name_a_number());
    let upload = Vec::new();
    let mut map = PseudonymMap::with_key("k");
    let mut stats = PublicStats::default();
    let mut step = PublicText::new(&names, &upload);
    for _ in 0..2 {
        let out = step.line(
            "project 4711 on 8086 and 8086.1 took 1234 ms",
            Vocabulary::Log,
            &mut map,
            &mut stats,
        );
        assert!(!out.contains("4711") && !out.contains("8086"), "{out}");
        assert!(out.contains(" 1234 "), "{out}");
    }
    assert!(!fixture().names.may_name_a_number());
}

mod messages;
