//! Share links of `evacdoc serve`: a real scenario seeded with secrets, names, addresses
//! and ids, shared in every scope; every public answer checked for every seeded value in
//! every encoding a page uses; access (guessed, expired, revoked tokens, another
//! analysis, raw files, the rate limit); the race reads like the seed with names changed.

use std::io::Read as _;

use evacdoc::http::share::limit::RateLimit;
use evacdoc::store::NewShare;
use serde_json::{Value, json};

use crate::analysis::scenario;
use crate::serve_api::{RACE_INSTANCE, TOKEN, TestServer};
use crate::util::copy_tree;

/// The race scenario's masakari-engine notification.
const RACE_NOTIFICATION: &str = "9ace2da7-97d1-48cb-a96a-08ad4624481b";
const FERNET: &str = "gAAAAABfz3Yx8kL2mN4pQ6rS8tU0vW2xY4zA6bC8dE0fG2hI4jK6lM8nO0pQ2rS4tU6vW8xY0zA2bC4dE6fG8hI0jK2lM4nO6pQ8";

/// Values that must not leave the service through a share link, in any encoding.
const SEEDED: &[&str] = &[
    // secrets
    "Jw8b4XnTqLcYm3VdRkp2HsF9gZ6tNe7C",
    "Pq4mT8vXc2KsL9yWf6NbR3hD7jGz5aUe",
    "Zr7cV2nH8qKx4TbW9mYs3LfP6dGj5eAu",
    "Rb8kQ3xZ7mWp2LsT",
    "Hunter2Evacuate!pw",
    FERNET,
    "5c0ffee5c0ffee5c0ffee5c0ffee0042",
    // host names: short, FQDN, juju machines, one known only from /etc/hosts
    "node01ob100",
    "node02ob100",
    "node03ob100",
    "node02ob100.maas",
    "juju-4f2a1c-3-lxd-4",
    "juju-4f2a1c-3-lxd-6",
    "rabbit-ctl7",
    "acme.internal",
    // addresses
    "172.27.100.137",
    "172.27.100.141",
    "172.27.100.120",
    "10.5.0.20",
    "2001:db8:4:1::17",
    "fa:16:3e:4b:9c:21",
    // users, projects, e-mail, Keystone ids
    "jdoe-operator",
    "acme-prod-project",
    "ops-oncall@acme-corp.example",
    "1bad1f0b42df4ed3800231d7bf091b59",
    "226937c2155f42ac87679f550135fa62",
    "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3",
    // the leak kinds of issue 23
    "AQBx7k5fJ0gQKRAAwcE1wqV9u3zQ8ZfQkq3Y3g",
    "Mc9sK2Lp0Qx7vB3n",
    "YWRtaW46czNjcjN0",
    "eyJhbGciOiJIUzI1NiJ9",
    "Os8PwD4xZq1Lm",
    "jane.smith",
    "acme-finance",
    "AcmeDomain",
    "0F1E2D3C4B5A69788796A5B4C3D2E1F0",
    "9f8e7d6c5b4a39281706f5e4d3c2b1a0",
    "172.27.100.99",
    "fa-16-3e-4b-9c-22",
    "fa16.3e4b.9c23",
    "ctl3.cloud.acme-corp.example",
    "acme-payroll-vm",
    "acme-svc-user",
    // given in one file (config, /etc/hosts with a zone id, certificate SAN, a CLI
    // list's Name column), said plainly in a log line: the two passes of issue 23
    "cloud-ops",
    "storage-primary",
    "73914826",
    "backup-store",
    "secure-zone",
    "secure-storage",
    // the upload's own name
    "acmecorp",
];

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

/// The upload's file name: a sosreport named after its host, company and case.
const UPLOAD_NAME: &str = "sosreport-node02ob100-acmecorp-case-01234567.tar.gz";

const EVACUATE_REQUEST: &str = "req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35";

/// Lines added to nova-api's log under the failing evacuate request (each names the
/// instance, so it is kept and shown): secrets, names and addresses in every form.
fn added_api_lines() -> String {
    let ctx = format!("[{EVACUATE_REQUEST} jdoe-operator acme-prod-project - default default]");
    let ids = format!(
        "[{EVACUATE_REQUEST} 1bad1f0b42df4ed3800231d7bf091b59 226937c2155f42ac87679f550135fa62 - default default]"
    );
    [
        format!(
            "2020-12-08 19:51:12.500 141079 INFO nova.api.openstack.wsgi {ctx} [instance: {RACE_INSTANCE}] Action: 'action', body: {{\"evacuate\": {{\"host\": null, \"password\": \"Hunter2Evacuate!pw\"}}}} from 2001:db8:4:1::17 via node02ob100"
        ),
        format!(
            "2020-12-08 19:51:12.510 141079 WARNING nova.compute.api {ids} [instance: {RACE_INSTANCE}] REQ: curl -g -i -X GET http://172.27.100.120:8774/v2.1 -H \"X-Auth-Token: {FERNET}\" -H \"X-Subject-Token: 5c0ffee5c0ffee5c0ffee5c0ffee0042\""
        ),
        format!(
            "2020-12-08 19:51:12.511 141079 DEBUG nova.compute.api {ids} [instance: {RACE_INSTANCE}] REQ: curl -g -i -X GET https://ctl3.cloud.acme-corp.example:5000/v3 -H \"Authorization: Basic YWRtaW46czNjcjN0\" -H \"Accept: application/json\""
        ),
        format!(
            "2020-12-08 19:51:12.512 141079 DEBUG nova.compute.api {ids} [instance: {RACE_INSTANCE}] Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqZG9lIn0 from ::ffff:172.27.100.99"
        ),
        format!(
            "2020-12-08 19:51:12.513 141079 INFO nova.compute.api {ids} [instance: {RACE_INSTANCE}] ran openstack --os-username acme-svc-user --os-password Os8PwD4xZq1Lm server evacuate for user jane.smith in project acme-finance of domain AcmeDomain"
        ),
        format!(
            "2020-12-08 19:51:12.514 141079 INFO nova.compute.api {ids} [instance: {RACE_INSTANCE}] Instance acme-payroll-vm of project 0F1E2D3C4B5A69788796A5B4C3D2E1F0 backed up to /v1/AUTH_9f8e7d6c5b4a39281706f5e4d3c2b1a0/backups via fa-16-3e-4b-9c-22 and fa16.3e4b.9c23"
        ),
        format!(
            "2020-12-08 19:51:12.515 141079 WARNING nova.compute.api {ids} [instance: {RACE_INSTANCE}] Authorization failed for cloud-ops in storage-primary; backup-store and vault.secure-zone.io unreachable for secure-storage; retried with 73914826"
        ),
        format!(
            "2020-12-08 19:51:12.520 141079 WARNING nova.compute.api {ids} [instance: {RACE_INSTANCE}] port fa:16:3e:4b:9c:21 on node02ob100.maas (juju-4f2a1c-3-lxd-4) owner ops-oncall@acme-corp.example notified via rabbit-ctl7.acme.internal transport_url=rabbit://nova:Rb8kQ3xZ7mWp2LsT@172.27.100.137:5672/openstack"
        ),
    ]
    .join("\n")
}

/// The race scenario with the seeded lines, config and `/etc/hosts`, as a `.tar.gz`.
fn seeded_bundle() -> Vec<u8> {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("2020-juju-evacuate-race");
    copy_tree(&scenario("2020-juju-evacuate-race"), &root);
    let api = root.join("3/lxd/6/var/log/nova/nova-api-wsgi.log");
    let text = std::fs::read_to_string(&api).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("2020-12-08 19:51:12.671"))
        .unwrap();
    lines.insert(at, added_api_lines());
    std::fs::write(&api, lines.join("\n") + "\n").unwrap();
    let conf = root.join("3/lxd/6/etc/nova/nova.conf");
    let mut nova = std::fs::read_to_string(&conf).unwrap();
    nova.push_str(
        "\n[database]\nconnection = mysql+pymysql://nova:Rb8kQ3xZ7mWp2LsT@172.27.100.137/nova\n\
         [keystone_authtoken]\nmemcache_secret_key = Mc9sK2Lp0Qx7vB3n\nusername = acme-svc-user\n\
         [service_user]\nusername = cloud-ops\npassword = 73914826\nproject_name = storage-primary\n",
    );
    std::fs::create_dir_all(root.join("3/lxd/6/etc/ssl/certs")).unwrap();
    std::fs::write(root.join("3/lxd/6/etc/ssl/certs/vault.pem"), CERT).unwrap();
    std::fs::create_dir_all(root.join("3/lxd/6/sos_commands/openstack")).unwrap();
    std::fs::write(
        root.join("3/lxd/6/sos_commands/openstack/openstack_server_list_--all-projects"),
        "+--------------------------------------+----------------+--------+\n\
         | ID                                   | Name           | Status |\n\
         +--------------------------------------+----------------+--------+\n\
         | 56ce6206-3659-495e-a6ea-f4d3d578cc96 | secure-storage | ACTIVE |\n\
         +--------------------------------------+----------------+--------+\n",
    )
    .unwrap();
    std::fs::create_dir_all(root.join("3/lxd/6/etc/ceph")).unwrap();
    std::fs::write(
        root.join("3/lxd/6/etc/ceph/ceph.client.nova.keyring"),
        "[client.nova]\n\tkey = AQBx7k5fJ0gQKRAAwcE1wqV9u3zQ8ZfQkq3Y3g==\n",
    )
    .unwrap();
    std::fs::write(&conf, nova).unwrap();
    std::fs::write(
        root.join("3/lxd/4/etc/hosts"),
        "127.0.0.1 localhost\n172.27.100.150 rabbit-ctl7.acme.internal rabbit-ctl7\nfe80::1ff:fe23:4567:890a%ens3 backup-store\n",
    )
    .unwrap();
    let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    let mut tar = tar::Builder::new(encoder);
    tar.follow_symlinks(false);
    tar.append_dir_all("2020-juju-evacuate-race", &root)
        .unwrap();
    tar.into_inner().unwrap().finish().unwrap()
}

/// Every form a value can take in a page or an answer.
fn encodings(value: &str) -> Vec<String> {
    let html = value
        .replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
        .replace('\'', "&#39;");
    let html_numeric = value
        .replace('&', "&#38;")
        .replace('<', "&#60;")
        .replace('>', "&#62;")
        .replace('"', "&#34;")
        .replace('\'', "&#39;");
    let url: String = value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect();
    let json = serde_json::to_string(value).unwrap();
    let json = json[1..json.len() - 1].to_string();
    let b64 = base64(value.as_bytes());
    let b64url = b64.replace('+', "-").replace('/', "_");
    vec![
        value.to_string(),
        html,
        html_numeric,
        url.clone(),
        url.to_lowercase(),
        json,
        b64.trim_end_matches('=').to_string(),
        b64url.trim_end_matches('=').to_string(),
    ]
}

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
fn base64(bytes: &[u8]) -> String {
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

/// Standard base64 decoded (padding and unknown bytes skipped).
fn unbase64(text: &str) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut acc, mut bits) = (0u32, 0);
    for c in text.bytes() {
        let Some(v) = B64.iter().position(|&b| b == c) else {
            continue;
        };
        acc = acc << 6 | v as u32;
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits & 0xff) as u8);
        }
    }
    out
}

/// The decoded payloads of `data:…;base64,` URLs in `text`.
fn data_urls(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(";base64,") {
        let tail = &rest[at + 8..];
        let end = tail
            .find(|c: char| !(c.is_ascii_alphanumeric() || "+/=".contains(c)))
            .unwrap_or(tail.len());
        out.push(String::from_utf8_lossy(&unbase64(&tail[..end])).into_owned());
        rest = &tail[end..];
    }
    out
}

/// Panics naming `what` when any seeded value is in `text` in any encoding.
fn assert_no_leak(what: &str, text: &str) {
    assert_eq!(base64(b"node02ob100.maas"), "bm9kZTAyb2IxMDAubWFhcw==");
    assert_eq!(unbase64("bm9kZTAyb2IxMDAubWFhcw=="), b"node02ob100.maas");
    let lower = text.to_lowercase();
    let decoded = data_urls(text).join("\n").to_lowercase();
    for value in SEEDED {
        for form in encodings(value) {
            let form = form.to_lowercase();
            assert!(
                !lower.contains(&form) && !decoded.contains(&form),
                "{what}: {value:?} leaks as {form:?}"
            );
        }
    }
}

/// A client that does not follow redirects (a 303 to the sign-in page stays a 303).
fn no_redirects() -> reqwest::Client {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .unwrap()
}

/// A public GET without any credentials.
async fn public(server: &TestServer, path: &str) -> reqwest::Response {
    server.client.get(server.url(path)).send().await.unwrap()
}

async fn create_share(server: &TestServer, id: &str, body: Value) -> Value {
    let response = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{id}/shares")))
        .bearer_auth(TOKEN)
        .json(&body)
        .send()
        .await
        .unwrap();
    let status = response.status();
    let text = response.text().await.unwrap();
    assert_eq!(status, reqwest::StatusCode::CREATED, "{body}: {text}");
    serde_json::from_str(&text).unwrap()
}

fn assert_public_headers(what: &str, response: &reqwest::Response) {
    let h = response.headers();
    let get = |name: &str| h.get(name).map(|v| v.to_str().unwrap()).unwrap_or("");
    assert!(get("x-robots-tag").contains("noindex"), "{what}");
    assert_eq!(get("referrer-policy"), "no-referrer", "{what}");
    assert_eq!(get("cache-control"), "private, no-store", "{what}");
    let csp = get("content-security-policy");
    assert!(
        csp.starts_with("default-src 'none'") && !csp.contains("script-src"),
        "{what}: {csp}"
    );
}

async fn started(rate: RateLimit) -> TestServer {
    TestServer::start_with(|c| c.public_rate = rate).await
}

const GENEROUS: RateLimit = RateLimit {
    burst: 10_000,
    per_second: 1000.0,
};

/// Access to share links.
mod access;
/// Seeded values stay off every public answer.
mod leaks;
/// The redaction report of a preview.
mod report;
/// The shared story and its stable pseudonyms.
mod story;
