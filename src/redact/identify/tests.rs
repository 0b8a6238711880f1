//! The two passes over a whole bundle: identifiers given in one file (a config, `/etc/hosts`,
//! a certificate, a CLI capture, a DEBUG request dump, base64 `user_data`, JSON inside
//! JSON, a record wrapped over lines) are gone from every other file of the public copy,
//! even where a line gives them without any key and they are made of vocabulary words.

use std::path::{Path, PathBuf};

use crate::redacted_copy::{RedactOptions, redact_bundle};

const RACE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/samples/scenarios/2020-juju-evacuate-race"
);

/// A certificate for `vault.secure-zone.io` and `store-primary.secure-zone.io`, of
/// `O=Widget Holdings` (made with `openssl req -x509`).
const CERT: &str = "-----BEGIN CERTIFICATE-----
MIICIjCCAcigAwIBAgIUAca3YoRsy8YpLBw9UBBtlaxuYXwwCgYIKoZIzj0EAwIw
RjELMAkGA1UEBhMCR0IxGDAWBgNVBAoMD1dpZGdldCBIb2xkaW5nczEdMBsGA1UE
AwwUdmF1bHQuc2VjdXJlLXpvbmUuaW8wHhcNMjYxMjA1MjExMTMwWhcNMzYxMjAy
MjExMTMwWjBGMQswCQYDVQQGEwJHQjEYMBYGA1UECgwPV2lkZ2V0IEhvbGRpbmdz
MR0wGwYDVQQDDBR2YXVsdC5zZWN1cmUtem9uZS5pbzBZMBMGByqGSM49AgEGCCqG
SM49AwEHA0IABOVDB/hLj6cLtzUPK1fnhL250nAeiQnhk3DTNJxpq9jOp405ueJD
sGhmQWU0/NVSnUjnZYWxkMZwWB3NB6H8YcyjgZMwgZAwHQYDVR0OBBYEFELqE5Jh
XIb7kP1qmPB2z+IjJEOpMB8GA1UdIwQYMBaAFELqE5JhXIb7kP1qmPB2z+IjJEOp
MA8GA1UdEwEB/wQFMAMBAf8wPQYDVR0RBDYwNIIUdmF1bHQuc2VjdXJlLXpvbmUu
aW+CHHN0b3JlLXByaW1hcnkuc2VjdXJlLXpvbmUuaW8wCgYIKoZIzj0EAwIDSAAw
RQIgdJ9vGyr9nOP5Ed4wUNdJ87n6BxJnzKCe3FLYfAlBpr8CIQC4RL6uuIs79IXJ
F1VikEEQ/MdBgD1CjGqiSwIHngiULA==
-----END CERTIFICATE-----
";

/// Values that must not survive, each given in one place and said plainly elsewhere.
pub(crate) const PLANTED: &[&str] = &[
    // config: keystone_authtoken credentials and the endpoint's domain
    "cloud-ops",
    "storage-primary",
    "partner-zone",
    "73914826",
    "acmecorp",
    // /etc/hosts entry whose address has a zone id
    "backup-store",
    // certificate SAN and O=
    "vault.secure-zone.io",
    "secure-zone",
    "store-primary",
    "Widget",
    // CLI captures: a server list's Name column, `openstack user show`, `ps`
    "secure-storage",
    "deploy-ops",
    "31415926",
    // base64 user_data
    "27182818",
    "primary-zone",
    // JSON-escaped JSON
    "16180339",
    // wrapped transport_url, Fernet token, private key
    "81726354",
    "I4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8",
    "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgYBhuOY9DDcIuZftr",
    "PF3oLmyxUEq",
    // a context bracket's user, said again in free text
    "jane.smith",
];

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let (src, dst) = (entry.path(), to.join(entry.file_name()));
        let kind = entry.file_type().unwrap();
        if kind.is_symlink() {
            std::os::unix::fs::symlink(std::fs::read_link(&src).unwrap(), &dst).unwrap();
        } else if kind.is_dir() {
            copy_tree(&src, &dst);
        } else {
            std::fs::copy(&src, &dst).unwrap();
        }
    }
}

fn append(path: &Path, text: &str) {
    use std::io::Write;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

fn base64(bytes: &[u8]) -> String {
    const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(B64[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// The race scenario with every kind planted.
pub(crate) fn planted_bundle(root: &Path) {
    copy_tree(Path::new(RACE), root);
    let api = root.join("3/lxd/6");
    append(
        &api.join("etc/nova/nova.conf"),
        "\n[keystone_authtoken]\nauth_url = https://keystone.prod.acmecorp.io:5000/v3\n\
         username = cloud-ops\npassword = 73914826\nuser_domain_name = partner-zone\n\
         project_name = storage-primary\n",
    );
    append(
        &root.join("3/lxd/4/etc/hosts"),
        "127.0.0.1 localhost\nfe80::1ff:fe23:4567:890a%ens3 backup-store\n",
    );
    append(&api.join("etc/ssl/certs/vault.pem"), CERT);
    append(
        &api.join("sos_commands/openstack/openstack_server_list_--all-projects"),
        "+--------------------------------------+----------------+--------+\n\
         | ID                                   | Name           | Status |\n\
         +--------------------------------------+----------------+--------+\n\
         | 56ce6206-3659-495e-a6ea-f4d3d578cc96 | secure-storage | ACTIVE |\n\
         +--------------------------------------+----------------+--------+\n",
    );
    append(
        &api.join("sos_commands/openstack/openstack_user_show_deploy"),
        "+---------------------+----------------------------------+\n\
         | Field               | Value                            |\n\
         +---------------------+----------------------------------+\n\
         | domain_id           | default                          |\n\
         | enabled             | True                             |\n\
         | id                  | 3d1e6a0c9b8f47e2a5d4c3b2a1908f7e |\n\
         | name                | deploy-ops                       |\n\
         +---------------------+----------------------------------+\n",
    );
    append(
        &api.join("sos_commands/process/ps_auxwww"),
        "USER PID %CPU %MEM VSZ RSS TTY STAT START TIME COMMAND\n\
         root 4242 0.0 0.1 51232 10240 ? S 19:40 0:00 python3 /usr/bin/openstack --os-username deploy-ops --os-password 31415926 server list\n",
    );
    let user_data = base64(
        b"#cloud-config\npassword: 27182818\nchpasswd: { expire: False }\nhostname: primary-zone\n",
    );
    let ctx = "[req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 jane.smith acme-prod - default default]";
    let lines = [
        // DEBUG request dump naming the config's user, domain and password.
        "2020-12-08 19:59:01.001 141077 DEBUG keystoneauth.session [-] REQ: curl -g -i -X POST https://keystone.prod.acmecorp.io:5000/v3/auth/tokens -H \"Content-Type: application/json\" -d '{\"auth\": {\"identity\": {\"methods\": [\"password\"], \"password\": {\"user\": {\"name\": \"cloud-ops\", \"domain\": {\"name\": \"partner-zone\"}, \"password\": \"73914826\"}}}}}'".to_string(),
        format!("2020-12-08 19:59:02.001 141077 DEBUG nova.api.openstack.wsgi {ctx} Action: 'create', calling method: create, body: {{\"server\": {{\"name\": \"web\", \"user_data\": \"{user_data}\"}}}}"),
        format!("2020-12-08 19:59:03.001 141077 DEBUG nova.api.openstack.wsgi {ctx} Action: 'create', body: \"{{\\\"server\\\": {{\\\"name\\\": \\\"secure-storage\\\", \\\"adminPass\\\": \\\"16180339\\\"}}}}\""),
        "2020-12-08 19:59:04.001 141077 DEBUG oslo_service.service [-] transport_url = rabbit://nova:81726354@rabbit-a.acmecorp.io:5672,\n    nova:81726354@rabbit-b.acmecorp.io:5672/openstack log_opt_values".to_string(),
        "2020-12-08 19:59:05.001 141077 DEBUG keystonemiddleware.auth_token [-] Authenticating user token gAAAAABfz3Yx8kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2h\nI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8 __call__".to_string(),
        "2020-12-08 19:59:06.001 141077 DEBUG nova.virt.libvirt.driver [-] Injecting key -----BEGIN PRIVATE KEY-----\nMIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgYBhuOY9DDcIuZftr\nPF3oLmyxUEq+fKE/FG+bUtWatKChRANCAATlQwf4S4+nC7c1DytX54S9udJwHokJ\n-----END PRIVATE KEY-----".to_string(),
        // Each value again, plainly, with no key before it.
        format!("2020-12-08 19:59:07.001 141077 WARNING keystonemiddleware.auth_token {ctx} Authorization failed for cloud-ops in storage-primary of partner-zone; retried with 73914826, 31415926, 27182818, 16180339 and 81726354"),
        format!("2020-12-08 19:59:08.001 141077 WARNING nova.compute.api {ctx} Connection to backup-store refused; SSL handshake with vault.secure-zone.io and store-primary.secure-zone.io failed (issuer Widget Holdings)"),
        format!("2020-12-08 19:59:09.001 141077 INFO nova.compute.api {ctx} Instance secure-storage of deploy-ops on primary-zone requested by jane.smith"),
    ];
    append(
        &api.join("var/log/nova/nova-api-wsgi.log"),
        &(lines.join("\n") + "\n"),
    );
}

/// Every file of `dir` (gzip decoded), with its path.
fn texts(dir: &Path, out: &mut Vec<(PathBuf, String)>) {
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        let meta = std::fs::symlink_metadata(&path).unwrap();
        if meta.is_dir() {
            texts(&path, out);
        } else if meta.is_file() {
            let bytes = std::fs::read(&path).unwrap();
            let text = if path.extension().is_some_and(|e| e == "gz") {
                let mut s = String::new();
                std::io::Read::read_to_string(
                    &mut flate2::read::MultiGzDecoder::new(&bytes[..]),
                    &mut s,
                )
                .unwrap();
                s
            } else {
                String::from_utf8_lossy(&bytes).into_owned()
            };
            out.push((path, text));
        }
    }
}

/// The planted values found in `text` (raw, JSON-escaped or URL-encoded, any case).
pub(crate) fn leaks(text: &str) -> Vec<&'static str> {
    let lower = text.to_lowercase();
    PLANTED
        .iter()
        .copied()
        .filter(|v| {
            let v = v.to_lowercase();
            lower.contains(&v) || lower.contains(&v.replace('.', "%2e"))
        })
        .collect()
}

#[test]
fn identifiers_given_anywhere_are_gone_from_the_whole_public_copy() {
    let tmp = tempfile::tempdir().unwrap();
    let bundle = tmp.path().join("bundle-in");
    planted_bundle(&bundle);
    let out = tmp.path().join("out");
    let mut options = RedactOptions::new(out.clone(), Some(tmp.path().join("map.json")));
    options.public = Some("bundle-in".into());
    redact_bundle(std::slice::from_ref(&bundle), &options).unwrap();
    let mut files = Vec::new();
    texts(&out, &mut files);
    assert!(files.len() > 20, "{}", files.len());
    let mut leaked = std::collections::BTreeMap::new();
    for (path, text) in &files {
        let rel = path
            .strip_prefix(&out)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        for v in leaks(&rel).into_iter().chain(leaks(text)) {
            leaked.entry(v).or_insert_with(Vec::new).push(rel.clone());
        }
    }
    assert!(
        leaked.is_empty(),
        "{} of {} planted values leaked: {leaked:#?}",
        leaked.len(),
        PLANTED.len()
    );
    // Folder names of the vocabulary stay (`sos_commands` is one word of it).
    assert!(
        files
            .iter()
            .any(|(p, _)| p.to_string_lossy().contains("sos_commands/openstack")),
        "{:?}",
        files.iter().map(|(p, _)| p).collect::<Vec<_>>()
    );
    // One pseudonym per user: the context bracket's, in free text too.
    let api = files
        .iter()
        .find(|(p, _)| p.ends_with("var/log/nova/nova-api-wsgi.log"))
        .map(|(_, t)| t.as_str())
        .unwrap();
    let last = api.lines().last().unwrap();
    let bracket_user = last.split(' ').nth(6).unwrap();
    assert!(bracket_user.starts_with("user-"), "{last}");
    assert!(
        last.ends_with(&format!("requested by {bracket_user}")),
        "{last}"
    );
}

mod sources;

mod planted {
    use super::*;
    use crate::redact::identify::Identifier;
    use crate::redact::map::PseudonymMap;
    use crate::redact::names::NameFinder;
    use crate::redact::public::{PublicStats, PublicText, Vocabulary};
    use proptest::prelude::*;

    /// Where a file gives a secret (`{}`).
    const SECRET_FORMS: &[&str] = &[
        "password = {}",
        "  admin_password: {}",
        "REQ: curl -d '{\"auth\": {\"password\": {\"user\": {\"password\": \"{}\"}}}}'",
        "body: \"{\\\"server\\\": {\\\"adminPass\\\": \\\"{}\\\"}}\"",
        "python3 /usr/bin/openstack --os-password {} server list",
        "transport_url = rabbit://nova:{}@ctl1.acme.example:5672/openstack",
        "| password | {} |",
        "user_data: {b64}",
        "Authorization: Basic {basic}",
    ];

    /// Where a file gives a user name (`{}`).
    const NAME_FORMS: &[&str] = &[
        "username = {}",
        "{\"token\": {\"user\": {\"name\": \"{}\", \"id\": \"3d1e6a0c9b8f47e2a5d4c3b2a1908f7e\"}}}",
        "root 1 0.0 openstack --os-username {} server list",
        "2020-12-08 19:51:12.671 141079 INFO nova.api.openstack.wsgi [req-de081ecf-4201-4542-b092-e21b2f5ce942 {} acme - default default] hi",
        "| user | {} |",
    ];

    fn planted(form: &str, value: &str) -> String {
        form.replace(
            "{b64}",
            &base64(format!("#cloud-config\npassword: {value}\n").as_bytes()),
        )
        .replace("{basic}", &base64(format!("svc:{value}").as_bytes()))
        .replacen("{}", value, 1)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]
        /// A secret and a user name given in any form in one file, then said plainly, in
        /// any letter case, in a line of another: neither comes out, and the name gets one
        /// pseudonym.
        #[test]
        fn given_once_gone_everywhere(
            secret in "[A-Z][a-z]{3,6}[0-9]{2,6}",
            user in "(store|zone|cloud|primary|secure|backup)-(ops|store|zone|team|admin)[0-9]?",
            upper in any::<bool>(),
            s in 0..SECRET_FORMS.len(),
            n in 0..NAME_FORMS.len(),
            in_record in any::<bool>(),
        ) {
            let mut identify = Identifier::default();
            let given = format!("{}\n{}\n", planted(SECRET_FORMS[s], &secret), planted(NAME_FORMS[n], &user));
            if in_record {
                for line in given.lines() {
                    identify.record(line, []);
                }
            } else {
                identify.file("etc/nova/nova.conf", &given);
            }
            let names = NameFinder::new(identify.into_seeds());
            let upload = Vec::new();
            let mut map = PseudonymMap::with_key("k");
            let mut stats = PublicStats::default();
            let mut step = PublicText::new(&names, &upload);
            let said = if upper { user.to_ascii_uppercase() } else { user.clone() };
            let a = step.line(
                &format!("2020-12-08 19:59:07.001 141077 WARNING nova.compute.api [-] Authorization failed for {said}; retried with {secret}"),
                Vocabulary::Log, &mut map, &mut stats,
            );
            let b = step.line(&format!("{user} logged in"), Vocabulary::Log, &mut map, &mut stats);
            prop_assert!(!a.contains(&secret), "{} {}", given, a);
            prop_assert!(!a.to_ascii_lowercase().contains(&user), "{} {}", given, a);
            let pseudonym = b.split(' ').next().unwrap();
            prop_assert!(a.contains(&format!("for {pseudonym};")), "{} / {}", a, b);
        }
    }
}

/// The bracket reader finds what the regex it replaced finds, in the same order.
#[test]
fn context_brackets_read_as_the_regex_did() {
    let regex = regex::Regex::new(
        r"\[(?:(?:req-[0-9a-f-]{36}|None) )?req-[0-9a-f-]{36} ([^\s\]]+) ([^\s\]]+)",
    )
    .unwrap();
    let id = "req-0b4a8a3e-5c7e-4f55-9d6f-2a1b3c4d5e6f";
    let other = "req-9f8e7d6c-5b4a-4321-8fed-cba987654321";
    let lines = [
        format!("2024-01-01 00:00:00.000 1 INFO nova.api [{id} jane.smith ops-team - - -] x"),
        format!("[None {id} u1 p1 - - default default] then [{other} {id} u2 p2 -] and [{id} u3]"),
        format!("[{other} {id} u4 p4] [[{id} u5 p5] [None {id}x u6 p6] [{id} a]b c]"),
        format!("[{id} é\u{a0}ü p] [{id}  u7 p7] [{id} u8 p8]"),
        "[req-short u p] [ no brackets here".to_string(),
    ];
    for line in &lines {
        let want: Vec<(&str, &str)> = regex
            .captures_iter(line)
            .map(|c| (c.get(1).unwrap().as_str(), c.get(2).unwrap().as_str()))
            .collect();
        let got: Vec<(&str, &str)> = super::context::context_brackets(line).collect();
        assert_eq!(got, want, "{line}");
    }
    assert_eq!(super::hints::HINTS[super::hints::BASIC_HINT], "basic ");
    // The sink answers a prefix holding `[req-` without the automaton.
    assert!(super::hints::HINTS.contains(&"[req-"));
}

/// The prefix of an oslo line gives its bracket's names alone unless another `[` in it
/// opens like a context; and a prefix is plain (read for its bracket only) unless it
/// holds what a key or value could be made of.
#[test]
fn prefixes_read_for_their_bracket_only() {
    let id = "req-de081ecf-4201-4542-b092-e21b2f5ce942";
    let bracket = format!("{id} jdoe acme - default default");
    let prefixes = [
        (
            format!(
                "2020-12-08 19:51:12.309 235 INFO nova.compute.manager [{bracket}] [instance: 56ce6206-3659-495e-a6ea-f4d3d578cc96] "
            ),
            true,
            true,
        ),
        (
            format!(
                "[pod/nova-0/nova-compute] 2020-12-08 19:51:12.309 235 INFO nova.compute.manager [{bracket}] "
            ),
            true,
            true,
        ),
        (
            format!(
                "[None {id} u1 p1 - - - -] 2020-12-08 19:51:12.309 235 INFO nova.api [{bracket}] "
            ),
            false,
            true,
        ),
        (
            format!("2020-12-08 19:51:12.309 235 INFO nova.api host: ctl1 [{bracket}] "),
            true,
            false,
        ),
        (
            format!("2020-12-08 19:51:12.309 235 DEBUG nova.api --os-x [{bracket}] "),
            true,
            false,
        ),
        (
            format!("2020-12-08 19:51:12.309 235 INFO nova.api Basic [{bracket}] "),
            true,
            false,
        ),
    ];
    for (prefix, alone, plain) in &prefixes {
        let at = prefix.rfind(&bracket).unwrap();
        let raw = &prefix[at..at + bracket.len()];
        assert_eq!(super::sink::only_context(prefix, raw), *alone, "{prefix}");
        assert_eq!(super::sink::plain_prefix(prefix), *plain, "{prefix}");
    }
    // A part of another text is not the prefix's bracket.
    assert!(!super::sink::only_context(&prefixes[0].0, &bracket));
}

/// The prefix test passes over a byte by its table only when the byte's own test would
/// pass it: with every ASCII byte put twice anywhere in a prefix, the table-driven pass
/// answers as testing every byte does (a byte missing from the table would be passed
/// over untested).
#[test]
fn the_prefix_table_passes_over_only_bytes_that_start_nothing() {
    use super::sink::{plain_at, plain_prefix};
    let plain = "2020-12-08 19:51:12.309 235 INFO nova.api [req-1 u p - - -] ";
    assert!(plain_prefix(plain));
    let mut tested = 0;
    for c in (0u8..128).map(char::from) {
        for at in [0, 11, 24, 30, plain.len() - 2] {
            let mut prefix = plain.to_string();
            prefix.insert(at, c);
            prefix.insert(at, c);
            let every_byte = prefix.trim_end().ends_with(']')
                && (0..prefix.len()).all(|at| plain_at(&prefix, at));
            assert_eq!(plain_prefix(&prefix), every_byte, "{c:?} in {prefix:?}");
            tested += usize::from(!every_byte);
        }
    }
    assert!(tested > 20, "{tested}");
}
