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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_seeded_value_leaves_through_any_share_of_any_scope() {
    let server = started(GENEROUS).await;
    let id = server.upload(UPLOAD_NAME, seeded_bundle()).await;
    let view = server.wait_done(&id).await;
    assert_eq!(view["status"], "done", "{view}");
    // The private view does hold the seeded values: the test would catch them.
    let private = server
        .get(&format!(
            "/api/v1/analyses/{id}/timeline?instance={RACE_INSTANCE}"
        ))
        .await
        .text()
        .await
        .unwrap();
    for seeded in [
        "jdoe-operator",
        "ops-oncall@acme-corp.example",
        "rabbit-ctl7",
        "node02ob100.maas",
    ] {
        assert!(
            private.contains(seeded),
            "{seeded} is not in the private timeline"
        );
    }
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let race = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .unwrap()
        .clone();
    let scopes = [
        json!({"kind": "finding", "finding": race["id"]}),
        json!({"kind": "timeline", "instance": RACE_INSTANCE}),
        json!({"kind": "timeline", "notification": RACE_NOTIFICATION}),
        json!({"kind": "timeline", "host": "node02ob100.maas", "from": "2020-12-08T19:40:00Z", "to": "2020-12-08T20:00:00Z"}),
        json!({"kind": "timeline", "host": "juju-4f2a1c-3-lxd-6"}),
        json!({"kind": "analysis"}),
    ];
    let mut fetched = 0;
    let mut bundle_checked = false;
    for scope in scopes {
        let created = create_share(
            &server,
            &id,
            json!({"scope": scope, "note": "for launchpad"}),
        )
        .await;
        let url = created["url"].as_str().unwrap().to_string();
        let token = url.strip_prefix("/s/").unwrap();
        assert_eq!(token.len(), 64, "{url}");
        assert_eq!(created["state"], "live");
        let mut paths = vec![
            url.clone(),
            format!("{url}/data.json"),
            format!("{url}/picture.svg"),
        ];
        if scope["kind"] == "analysis" {
            for n in 0..findings.as_array().unwrap().len() {
                paths.push(format!("{url}/findings/{n}"));
                paths.push(format!("{url}/findings/{n}/picture.svg"));
            }
        }
        for path in paths {
            let response = public(&server, &path).await;
            assert_public_headers(&path, &response);
            let status = response.status();
            let body = response.text().await.unwrap();
            if path.ends_with("picture.svg")
                && scope["kind"] == "analysis"
                && !path.contains("/findings/")
            {
                assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "{path}");
                continue;
            }
            assert_eq!(status, reqwest::StatusCode::OK, "{path}: {body}");
            assert_no_leak(&format!("{scope} {path}"), &body);
            if scope["kind"] == "timeline"
                && scope["instance"].is_string()
                && path.ends_with("picture.svg")
            {
                // The tooltips carry the lines as the public step gives them (the seeded
                // lines, one fold of repeated lines, show their secrets hidden).
                assert!(
                    body.contains("<title>") && body.contains("********"),
                    "the seeded lines' public form is not in the picture's tooltips"
                );
            }
            if scope["kind"] == "timeline"
                && scope["instance"].is_string()
                && path.ends_with("data.json")
            {
                // The seeded lines are shown, redacted, with their shape kept.
                for kept in [
                    "X-Auth-Token: ********",
                    r#"\"password\": \"********\""#,
                    "transport_url=********",
                    "@example.invalid",
                    "fd00::",
                    "02:00:",
                    "user-",
                    "project-",
                ] {
                    assert!(body.contains(kept), "{kept} not in {body}");
                }
            }
            fetched += 1;
        }
        if scope["kind"] == "analysis" {
            let response = public(&server, &format!("{url}/bundle.tar.gz")).await;
            assert_public_headers("bundle", &response);
            assert_eq!(response.status(), reqwest::StatusCode::OK);
            let bytes = response.bytes().await.unwrap();
            let mut archive = tar::Archive::new(flate2::read::GzDecoder::new(&bytes[..]));
            let mut files = 0;
            let mut report_seen = false;
            for entry in archive.entries().unwrap() {
                let mut entry = entry.unwrap();
                let name = entry.path().unwrap().to_string_lossy().into_owned();
                // The upload's content under a neutral name, never its own.
                let top = name.trim_start_matches("./").split('/').next().unwrap();
                assert!(
                    matches!(top, "" | "bundle" | "redaction-report.json"),
                    "{name}"
                );
                report_seen |= name.ends_with("redaction-report.json");
                assert_no_leak(&format!("bundle entry name {name}"), &name);
                if let Ok(Some(target)) = entry.link_name() {
                    assert_no_leak(&format!("bundle link {name}"), &target.to_string_lossy());
                }
                let mut content = Vec::new();
                entry.read_to_end(&mut content).unwrap();
                let text = if name.ends_with(".gz") {
                    let mut s = String::new();
                    flate2::read::MultiGzDecoder::new(&content[..])
                        .read_to_string(&mut s)
                        .unwrap();
                    s
                } else {
                    String::from_utf8_lossy(&content).into_owned()
                };
                assert_no_leak(&format!("bundle file {name}"), &text);
                files += 1;
            }
            assert!(files > 20, "{files} files in the bundle");
            assert!(report_seen, "the bundle holds its redaction report");
            bundle_checked = true;
        }
    }
    assert!(fetched >= 15, "{fetched} answers checked");
    assert!(bundle_checked);
    // The redacted bug template: the same engine, the story and the instance kept.
    let template = server
        .get(&format!(
            "/api/v1/analyses/{id}/triage?format=bug-template&redact=true"
        ))
        .await
        .text()
        .await
        .unwrap();
    assert_no_leak("redacted bug template", &template);
    assert!(template.contains(RACE_INSTANCE), "{template}");
    assert!(template.contains("is still in use"), "{template}");
    let plain = server
        .get(&format!("/api/v1/analyses/{id}/triage?format=bug-template"))
        .await
        .text()
        .await
        .unwrap();
    assert!(
        plain.contains("node02ob100"),
        "the private template is not redacted"
    );
    // The map and the seeds are private files of the analysis, never under the output.
    let share_dir = server
        .data
        .path()
        .join("data/analyses")
        .join(&id)
        .join("share");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        for name in ["map.json", "seeds.json"] {
            let mode = std::fs::metadata(share_dir.join(name))
                .unwrap()
                .permissions()
                .mode();
            assert_eq!(mode & 0o777, 0o600, "{name}");
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_race_share_reads_like_the_seed_with_names_changed() {
    let server = started(GENEROUS).await;
    let id = server
        .upload(
            "race.tar.gz",
            crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race"),
        )
        .await;
    server.wait_done(&id).await;
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let race = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .unwrap()
        .clone();
    // The preview gives what the link will show, before any link exists.
    let mut preview: Value = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{id}/shares/preview")))
        .bearer_auth(TOKEN)
        .json(&json!({"scope": {"kind": "finding", "finding": race["id"]}}))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let listed = server
        .get_json(&format!("/api/v1/analyses/{id}/shares"))
        .await;
    assert_eq!(listed, json!([]), "a preview makes no link");

    let created = create_share(
        &server,
        &id,
        json!({"scope": {"kind": "finding", "finding": race["id"]}}),
    )
    .await;
    let url = created["url"].as_str().unwrap();
    let shared: Value = public(&server, &format!("{url}/data.json"))
        .await
        .json()
        .await
        .unwrap();
    // The preview comes with the redaction report, which the link never shows.
    let report = preview
        .as_object_mut()
        .unwrap()
        .remove("redaction")
        .expect("the preview has its redaction report");
    assert!(report["lines"].as_u64().unwrap() > 10, "{report}");
    assert!(report["replaced"]["host"].as_u64().unwrap() > 0, "{report}");
    assert!(shared.get("redaction").is_none());
    assert_eq!(shared, preview, "the link shows what the preview showed");
    let f = &shared["finding"];
    assert_eq!(f["detector"], "evacuate-400-race");
    assert_eq!(f["severity"], race["severity"]);
    assert_eq!(
        f["instance_uuids"], race["instance_uuids"],
        "instance ids stay"
    );
    assert_eq!(f["notification_id"], RACE_NOTIFICATION);
    assert_eq!(f["request_ids"], race["request_ids"], "request ids stay");
    let failed = f["failed_host"].as_str().unwrap();
    assert!(
        failed.starts_with("host-") && failed.ends_with(".invalid"),
        "{failed}"
    );
    // The seed's key lines, word for word but for the host.
    let evidence: Vec<&str> = f["evidence"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["text"].as_str().unwrap())
        .collect();
    let still_in_use = format!("Compute service of {failed} is still in use.");
    assert!(
        evidence
            .iter()
            .any(|t| t.contains(&still_in_use) && t.contains(EVACUATE_REQUEST)),
        "{evidence:#?}"
    );
    assert!(
        evidence.iter().any(|t| t.contains(&format!(
            "Instance compute service state on {failed} expected to be down, but it was up."
        ))),
        "{evidence:#?}"
    );
    assert_eq!(
        evidence.len(),
        race["evidence"].as_array().unwrap().len(),
        "every evidence line is shown"
    );
    // The same pseudonym in the summary, the explanation, the evidence hosts and paths.
    let short = failed.split('.').next().unwrap();
    assert!(
        f["summary"].as_str().unwrap().contains(short)
            || f["explanation"].as_str().unwrap().contains(short)
    );
    assert!(!f.to_string().contains("node02ob100"));
    // The story stays: the explanation has every word it had, names changed, none of
    // its words reduced to a pseudonym by default-deny.
    let (private_text, public_text) = (
        race["explanation"].as_str().unwrap(),
        f["explanation"].as_str().unwrap(),
    );
    assert_eq!(
        private_text.split_whitespace().count(),
        public_text.split_whitespace().count(),
        "{private_text}\n---\n{public_text}"
    );
    assert!(!public_text.contains("name-"), "{public_text}");
    assert!(!f["summary"].as_str().unwrap().contains("name-"), "{f}");
    // Evidence paths point at pseudonymous hosts' folders; the file names stay.
    assert!(f["evidence"].as_array().unwrap().iter().any(|e| {
        e["path"]
            .as_str()
            .unwrap()
            .ends_with("var/log/masakari/masakari-engine.log")
    }));
    // The page shows the same, with its picture inline.
    let page = public(&server, url).await.text().await.unwrap();
    assert!(page.contains(&still_in_use), "the page shows the 400");
    assert!(page.contains("<svg"), "the picture is inline");
    assert!(page.contains(RACE_INSTANCE));
    let svg = public(&server, &format!("{url}/picture.svg"))
        .await
        .text()
        .await
        .unwrap();
    assert!(svg.contains("is still in use") && !svg.contains("node02ob100"));
    server.stop().await;
}

/// The preview's report of `scope` (the share's `redaction`).
async fn preview_report(server: &TestServer, id: &str, scope: Value) -> Value {
    let mut preview: Value = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{id}/shares/preview")))
        .bearer_auth(TOKEN)
        .json(&json!({ "scope": scope }))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    preview
        .as_object_mut()
        .unwrap()
        .remove("redaction")
        .expect("the preview has its redaction report")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_report_counts_lines_of_a_known_template_and_lines_reduced_to_the_vocabulary() {
    let server = started(GENEROUS).await;
    let id = server
        .upload(
            "race.tar.gz",
            crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race"),
        )
        .await;
    server.wait_done(&id).await;

    // The whole analysis: every line is either of a known Masakari or Nova message or
    // reduced to the vocabulary, and the known ones are the lines whose message a
    // template matches, counted here from the unredacted analysis.
    let report = preview_report(&server, &id, json!({"kind": "analysis"})).await;
    let count = |key: &str| {
        report[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {report}"))
    };
    let analysis = evacdoc::run::analyze(
        &[scenario("2020-juju-evacuate-race")],
        &evacdoc::run::Options::default(),
    )
    .unwrap();
    let known = analysis
        .events
        .iter()
        .filter(|e| evacdoc::redact::templates::find(&e.message()).is_some())
        .count() as u64;
    assert_eq!(count("lines"), analysis.events.len() as u64, "{report}");
    assert_eq!(count("templated"), known, "{report}");
    assert_eq!(
        count("templated") + count("vocabulary_lines"),
        count("lines"),
        "{report}"
    );
    assert!(
        count("templated") > 0 && count("vocabulary_lines") > 0,
        "{report}"
    );
    assert!(count("reduced_lines") <= count("lines"), "{report}");

    // A finding's link: its lines only, split the same way.
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let race = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .unwrap()
        .clone();
    let finding = preview_report(
        &server,
        &id,
        json!({"kind": "finding", "finding": race["id"]}),
    )
    .await;
    let n = |key: &str| {
        finding[key]
            .as_u64()
            .unwrap_or_else(|| panic!("{key}: {finding}"))
    };
    assert!(n("lines") > 0 && n("lines") < count("lines"), "{finding}");
    assert_eq!(
        n("templated") + n("vocabulary_lines"),
        n("lines"),
        "{finding}"
    );
    // The race's story is told by known messages (`Call evacuate command for instance
    // …`, `Compute service of … is still in use.`).
    assert!(n("templated") > 0, "{finding}");
    assert!(n("templated") <= count("templated"), "{finding}");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn guessed_expired_and_revoked_links_and_other_analyses_are_one_404() {
    let server = started(GENEROUS).await;
    let a = server
        .upload(
            "race.tar.gz",
            crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race"),
        )
        .await;
    let b = server
        .upload(
            "keystone.tar.gz",
            crate::serve_api::scenario_tar_gz("2023-keystone-401-failure"),
        )
        .await;
    server.wait_done(&a).await;
    server.wait_done(&b).await;
    let b_findings = server
        .get_json(&format!("/api/v1/analyses/{b}/findings"))
        .await;
    let b_titles: Vec<String> = b_findings
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["detector"].as_str().unwrap().to_string())
        .filter(|d| d != "evacuate-400-race")
        .collect();
    assert!(!b_titles.is_empty());

    let unknown = public(&server, &format!("/s/{}", "ab".repeat(32))).await;
    assert_public_headers("unknown", &unknown);
    assert_eq!(unknown.status(), reqwest::StatusCode::NOT_FOUND);
    let not_found = unknown.text().await.unwrap();
    let same_404 = |what: &'static str| {
        let expected = not_found.clone();
        move |status: reqwest::StatusCode, body: String| {
            assert_eq!(status, reqwest::StatusCode::NOT_FOUND, "{what}");
            assert_eq!(body, expected, "{what}");
        }
    };
    for path in [
        "/s/short".to_string(),
        format!("/s/{}", "AB".repeat(32)),
        format!("/s/{}/data.json", "0".repeat(64)),
    ] {
        let r = public(&server, &path).await;
        same_404("malformed")(r.status(), r.text().await.unwrap());
    }

    // Expired: stored with a past expiry.
    let token = "e".repeat(64);
    let store = server.service.as_ref().unwrap().state().store.clone();
    store
        .create_share(&NewShare {
            id: uuid::Uuid::new_v4().hyphenated().to_string(),
            token_hash: evacdoc::http::auth::hash_secret(&token),
            analysis_id: a.clone(),
            scope_kind: "analysis".into(),
            scope_json: r#"{"kind":"analysis"}"#.into(),
            note: String::new(),
            expires_at: "2020-01-01T00:00:00Z".into(),
        })
        .unwrap();
    let r = public(&server, &format!("/s/{token}")).await;
    same_404("expired")(r.status(), r.text().await.unwrap());

    // A finding link of A: no analysis routes, no bundle, nothing of B.
    let race_id = server
        .get_json(&format!("/api/v1/analyses/{a}/findings"))
        .await[0]["id"]
        .clone();
    let finding_link = create_share(
        &server,
        &a,
        json!({"scope": {"kind": "finding", "finding": race_id}}),
    )
    .await;
    let url = finding_link["url"].as_str().unwrap().to_string();
    for tail in [
        "/findings/0",
        "/bundle.tar.gz",
        "/files/0",
        "/search?q=x",
        "/map.json",
        "/../../api/v1/analyses",
    ] {
        let r = public(&server, &format!("{url}{tail}")).await;
        assert_ne!(r.status(), reqwest::StatusCode::OK, "{tail}");
    }
    // A finding of B is not a finding of A.
    let b_race = b_findings[0]["id"].clone();
    let refused = server
        .client
        .post(server.url(&format!("/api/v1/analyses/{a}/shares")))
        .bearer_auth(TOKEN)
        .json(&json!({"scope": {"kind": "finding", "finding": b_race}}))
        .send()
        .await
        .unwrap();
    if b_findings[0]["id"] != race_id {
        assert_eq!(refused.status(), reqwest::StatusCode::NOT_FOUND);
    }
    let whole_a = create_share(&server, &a, json!({"scope": {"kind": "analysis"}})).await;
    let whole_url = whole_a["url"].as_str().unwrap();
    let data = public(&server, &format!("{whole_url}/data.json"))
        .await
        .text()
        .await
        .unwrap();
    for detector in &b_titles {
        assert!(
            !data.contains(detector.as_str()) || detector == "evacuate-400-race",
            "{detector} of B in A's link"
        );
    }
    assert!(!data.contains(&b), "B's id");

    // No raw file, search or analysis route answers without signing in.
    for path in [
        format!("/api/v1/analyses/{a}/files/0/lines"),
        format!("/api/v1/analyses/{a}/search?q=x"),
        format!("/api/v1/analyses/{a}/shares"),
        format!("/analyses/{a}/files/0"),
        format!("/analyses/{a}/share?scope=analysis"),
    ] {
        let r = no_redirects().get(server.url(&path)).send().await.unwrap();
        assert!(
            matches!(r.status().as_u16(), 401 | 303 | 404),
            "{path}: {}",
            r.status()
        );
    }

    // Revoked: the same 404 from then on; listed as revoked.
    let share_id = finding_link["id"].as_str().unwrap();
    assert_eq!(
        public(&server, &url).await.status(),
        reqwest::StatusCode::OK
    );
    let revoked = server
        .client
        .delete(server.url(&format!("/api/v1/analyses/{b}/shares/{share_id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(
        revoked.status(),
        reqwest::StatusCode::NOT_FOUND,
        "through another analysis"
    );
    let revoked = server
        .client
        .delete(server.url(&format!("/api/v1/analyses/{a}/shares/{share_id}")))
        .bearer_auth(TOKEN)
        .send()
        .await
        .unwrap();
    assert_eq!(revoked.status(), reqwest::StatusCode::NO_CONTENT);
    for path in [
        url.clone(),
        format!("{url}/data.json"),
        format!("{url}/picture.svg"),
    ] {
        let r = public(&server, &path).await;
        same_404("revoked")(r.status(), r.text().await.unwrap());
    }
    let listed = server
        .get_json(&format!("/api/v1/analyses/{a}/shares"))
        .await;
    let states: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["state"].as_str().unwrap())
        .collect();
    assert!(
        states.contains(&"revoked") && states.contains(&"expired") && states.contains(&"live"),
        "{states:?}"
    );
    assert!(
        !listed
            .to_string()
            .contains(whole_url.trim_start_matches("/s/")),
        "tokens are never listed"
    );

    // Bad scopes and lifetimes are refused.
    for body in [
        json!({"scope": {"kind": "timeline"}}),
        json!({"scope": {"kind": "timeline", "instance": "nope"}}),
        json!({"scope": {"kind": "timeline", "host": "x", "from": "yesterday"}}),
        json!({"scope": {"kind": "analysis"}, "expires_in_days": 0}),
        json!({"scope": {"kind": "analysis"}, "expires_in_days": 1000}),
    ] {
        let r = server
            .client
            .post(server.url(&format!("/api/v1/analyses/{a}/shares")))
            .bearer_auth(TOKEN)
            .json(&body)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), reqwest::StatusCode::BAD_REQUEST, "{body}");
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_routes_are_rate_limited_per_client() {
    let server = started(RateLimit {
        burst: 3,
        per_second: 0.01,
    })
    .await;
    let path = format!("/s/{}", "ab".repeat(32));
    for _ in 0..3 {
        assert_eq!(
            public(&server, &path).await.status(),
            reqwest::StatusCode::NOT_FOUND
        );
    }
    let limited = public(&server, &path).await;
    assert_eq!(limited.status(), reqwest::StatusCode::TOO_MANY_REQUESTS);
    assert_public_headers("429", &limited);
    let wait: u64 = limited.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=100).contains(&wait), "{wait}");
    // Signed-in routes are not limited.
    assert_eq!(
        server.get("/api/v1/analyses").await.status(),
        reqwest::StatusCode::OK
    );
    server.stop().await;
}

/// The failed host of the race finding as analysis `id`'s finding link shows it.
async fn shared_failed_host(server: &TestServer, id: &str) -> String {
    let findings = server
        .get_json(&format!("/api/v1/analyses/{id}/findings"))
        .await;
    let race = findings
        .as_array()
        .unwrap()
        .iter()
        .find(|f| f["detector"] == "evacuate-400-race")
        .unwrap()
        .clone();
    let created = create_share(
        server,
        id,
        json!({"scope": {"kind": "finding", "finding": race["id"]}}),
    )
    .await;
    let url = created["url"].as_str().unwrap();
    let shared: Value = public(server, &format!("{url}/data.json"))
        .await
        .json()
        .await
        .unwrap();
    shared["finding"]["failed_host"]
        .as_str()
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_later_upload_of_the_same_case_keeps_the_pseudonyms() {
    let server = started(GENEROUS).await;
    let bundle = crate::serve_api::scenario_tar_gz("2020-juju-evacuate-race");
    let first = server.upload("race.tar.gz", bundle.clone()).await;
    server.wait_done(&first).await;
    let response = server
        .client
        .post(server.url(&format!(
            "/api/v1/analyses?name=race-again.tar.gz&case={first}"
        )))
        .bearer_auth(TOKEN)
        .body(bundle.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), reqwest::StatusCode::ACCEPTED);
    let second = response.json::<Value>().await.unwrap()["id"]
        .as_str()
        .unwrap()
        .to_string();
    let other = server.upload("race-other-case.tar.gz", bundle).await;
    server.wait_done(&second).await;
    server.wait_done(&other).await;

    let a = shared_failed_host(&server, &first).await;
    let b = shared_failed_host(&server, &second).await;
    let c = shared_failed_host(&server, &other).await;
    assert!(a.starts_with("host-"), "{a}");
    assert_eq!(a, b, "one case map: one pseudonym");
    assert_ne!(a, c, "another case: its own map");
    // An unknown case is refused before anything is kept.
    let refused = server
        .client
        .post(server.url(&format!(
            "/api/v1/analyses?name=x.log&case={}",
            uuid::Uuid::new_v4()
        )))
        .bearer_auth(TOKEN)
        .body("x")
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), reqwest::StatusCode::NOT_FOUND);
    server.stop().await;
}

#[test]
fn the_leak_check_catches_every_encoding() {
    let value = "ops-oncall@acme-corp.example";
    for form in encodings(value) {
        let page = format!("<p>before {form} after</p>");
        let caught = std::panic::catch_unwind(|| assert_no_leak("page", &page)).is_err();
        assert!(caught, "{form} not caught");
    }
    let data_url = format!(
        "<img src=\"data:text/plain;base64,{}\">",
        base64(format!("xx{value}").as_bytes())
    );
    assert!(std::panic::catch_unwind(|| assert_no_leak("data url", &data_url)).is_err());
    assert_no_leak("clean", "<p>user-1a2b3c@example.invalid on host-4d5e6f</p>");
}
