//! What each kind of source gives the identification: configs, `/etc/hosts`,
//! certificates, CLI captures, request dumps, encoded values.

use super::*;
use crate::redact::identify::Identifier;
use crate::redact::map::Kind;
use crate::redact::names::Seeds;

fn file(rel: &str, text: &str) -> Seeds {
    let mut i = Identifier::default();
    i.file(rel, text);
    i.into_seeds()
}

fn record(head: &str, rest: &[&str]) -> Seeds {
    let mut i = Identifier::default();
    i.record(head, rest.iter().copied());
    i.into_seeds()
}

#[test]
fn config_options_name_users_projects_domains_secrets_and_endpoints() {
    let s = file(
        "etc/nova/nova.conf",
        "[keystone_authtoken]\nauth_url = https://keystone.prod.acmecorp.io:5000/v3\nusername = cloud-ops\n\
         password = 73914826\nuser_domain_name = partner-zone\nproject_name = storage-primary\n\
         ssl_key = /etc/ssl/key.pem\npassword_expires_at = 2020-12-08T19:51:12\n",
    );
    assert_eq!(s.names.get("cloud-ops"), Some(&Kind::User));
    assert_eq!(s.names.get("storage-primary"), Some(&Kind::Project));
    assert_eq!(s.names.get("partner-zone"), Some(&Kind::Name));
    assert!(s.secrets.contains("73914826"), "{s:?}");
    assert!(
        !s.secrets
            .iter()
            .any(|v| v.contains("2020-12-08") || v.starts_with('/')),
        "{s:?}"
    );
    // `keystone` is a word: only the endpoint's domain and its parent are seeded.
    assert!(
        s.domains.contains("prod.acmecorp.io") && s.domains.contains("acmecorp.io"),
        "{s:?}"
    );
    assert!(!s.hosts.contains("keystone"), "{s:?}");
}

#[test]
fn certificates_in_pem_and_in_text() {
    let s = file("etc/ssl/certs/vault.pem", CERT);
    assert!(
        s.hosts.contains("vault") && s.hosts.contains("store-primary"),
        "{s:?}"
    );
    assert!(s.domains.contains("secure-zone.io"), "{s:?}");
    assert!(
        s.names.contains_key("widget") && s.names.contains_key("holdings"),
        "{s:?}"
    );
    let s = file(
        "sos_commands/openssl/x509_-text",
        "        Subject: C = GB, O = Globex Ltd, CN = api.dc-west.globex.example\n\
         \x20               DNS:api.dc-west.globex.example, DNS:mail.globex.example, IP Address:10.5.0.20\n",
    );
    assert!(s.domains.contains("dc-west.globex.example"), "{s:?}");
    assert!(s.domains.contains("globex.example"), "{s:?}");
    assert!(s.names.contains_key("globex"), "{s:?}");
}

#[test]
fn etc_hosts_with_a_zone_id() {
    let s = file(
        "3/lxd/4/etc/hosts",
        "127.0.0.1 localhost\nfe80::1ff:fe23:4567:890a%ens3 backup-store\n",
    );
    assert!(s.hosts.contains("backup-store"), "{s:?}");
}

#[test]
fn cli_tables_ps_and_basic_auth() {
    let s = file(
        "sos_commands/openstack/openstack_server_list",
        "+------+----------------+---------------------+\n\
         | ID   | Name           | Host                |\n\
         +------+----------------+---------------------+\n\
         | 56ce6206-3659-495e-a6ea-f4d3d578cc96 | secure-storage | cmp-rack7-12        |\n\
         +------+----------------+---------------------+\n",
    );
    assert!(s.names.contains_key("secure-storage"), "{s:?}");
    assert!(s.hosts.contains("cmp-rack7-12"), "{s:?}");
    // The header is not a row: `Host` is not a host, `Name` no name.
    assert!(
        !s.hosts.contains("host") && !s.names.contains_key("host"),
        "{s:?}"
    );
    let s = file(
        "sos_commands/openstack/openstack_user_show",
        "+-----------+------------+\n| Field     | Value      |\n+-----------+------------+\n\
         | name      | deploy-ops |\n| domain_id | default    |\n+-----------+------------+\n",
    );
    assert!(s.names.contains_key("deploy-ops"), "{s:?}");
    let s = file(
        "sos_commands/process/ps_auxwww",
        "root 4242 0.0 0.1 51232 10240 ? S 19:40 0:00 python3 /usr/bin/openstack --os-username deploy-ops --os-password 31415926 server list\n",
    );
    assert_eq!(s.names.get("deploy-ops"), Some(&Kind::User));
    assert!(s.secrets.contains("31415926"), "{s:?}");
    let s = record(
        "2024-09-12 10:01:02.123 1234 DEBUG keystoneauth.session [-] REQ: curl -g -i -X GET https://10.5.0.20:5000/v3 -H \"Authorization: Basic ZGVwbG95LWJvdDpTM2NyM3RQYXNz\"",
        &[],
    );
    assert_eq!(s.names.get("deploy-bot"), Some(&Kind::User));
    assert!(s.secrets.contains("S3cr3tPass"), "{s:?}");
}

#[test]
fn request_dumps_base64_and_json_in_json() {
    let s = record(
        "2020-12-08 19:59:01.001 141077 DEBUG keystoneauth.session [-] REQ: curl -d '{\"auth\": {\"identity\": {\"methods\": [\"password\"], \"password\": {\"user\": {\"name\": \"cloud-ops\", \"domain\": {\"name\": \"partner-zone\"}, \"password\": \"73914826\"}}}}}'",
        &[],
    );
    assert_eq!(s.names.get("cloud-ops"), Some(&Kind::User), "{s:?}");
    assert!(s.names.contains_key("partner-zone"), "{s:?}");
    assert!(s.secrets.contains("73914826"), "{s:?}");
    let user_data = base64(b"#cloud-config\npassword: 27182818\nhostname: primary-zone\n");
    let s = record(
        &format!(
            "2020-12-08 19:59:02.001 141077 DEBUG nova.api.openstack.wsgi [-] body: {{\"server\": {{\"user_data\": \"{user_data}\"}}}}"
        ),
        &[],
    );
    assert!(s.secrets.contains("27182818"), "{s:?}");
    assert!(s.hosts.contains("primary-zone"), "{s:?}");
    let s = record(
        "2020-12-08 19:59:03.001 141077 DEBUG nova.api.openstack.wsgi [-] body: \"{\\\"server\\\": {\\\"name\\\": \\\"secure-storage\\\", \\\"adminPass\\\": \\\"16180339\\\"}}\"",
        &[],
    );
    assert!(s.secrets.contains("16180339"), "{s:?}");
    assert!(s.names.contains_key("secure-storage"), "{s:?}");
}

#[test]
fn records_wrapped_over_lines() {
    let s = record(
        "2020-12-08 19:59:04.001 141077 DEBUG oslo_service.service [-] transport_url = rabbit://nova:81726354@rabbit-a.acmecorp.io:5672,",
        &["    nova:95310624@rabbit-b.acmecorp.io:5672/openstack log_opt_values"],
    );
    assert!(
        s.secrets.contains("81726354") && s.secrets.contains("95310624"),
        "{s:?}"
    );
    assert!(s.hosts.contains("rabbit-b"), "{s:?}");
    let s = record(
        "2020-12-08 19:59:05.001 141077 DEBUG keystonemiddleware.auth_token [-] Authenticating user token gAAAAABfz3Yx8kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2h",
        &["I4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8 __call__"],
    );
    assert!(
        s.secrets
            .contains("I4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8"),
        "{s:?}"
    );
    let s = record(
        "2020-12-08 19:59:06.001 141077 DEBUG nova.virt.libvirt.driver [-] Injecting key -----BEGIN PRIVATE KEY-----",
        &[
            "MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgYBhuOY9DDcIuZftr",
            "-----END PRIVATE KEY-----",
        ],
    );
    assert!(
        s.secrets
            .contains("MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgYBhuOY9DDcIuZftr"),
        "{s:?}"
    );
    // A context bracket's user and project.
    let s = record(
        "2020-12-08 19:59:09.001 141077 INFO nova.compute.api [req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 jane.smith acme-prod - default default] done",
        &[],
    );
    assert_eq!(s.names.get("jane.smith"), Some(&Kind::User));
    assert_eq!(s.names.get("acme-prod"), Some(&Kind::Project));
}

#[test]
fn ordinary_lines_give_nothing() {
    let s = record(
        "2020-12-08 19:51:12.671 141079 INFO nova.api.openstack.wsgi [req-de081ecf-4201-4542-b092-e21b2f5ce942 req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 masakari service - default default] HTTP exception thrown: Compute service of node02ob100.maas is still in use.",
        &[],
    );
    assert_eq!(s, Seeds::default());
}
