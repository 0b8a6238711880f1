//! `evacdoc sim` over real HTTP on a loopback port: Keystone, Nova's liveness and
//! evacuate rules, volumes holding a rebuild, scripted faults, and logs that
//! `evacdoc analyze` reads.

use std::path::Path;
use std::time::{Duration, Instant};

use evacdoc::sim::{RunningSim, Scenario, start};
use reqwest::StatusCode;
use serde_json::{Value, json};

const VM: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
const VOLUME: &str = "7c1e9a3b-2f4d-4a6c-8b0e-1d2f3a4b5c01";
const STILL_IN_USE: &str =
    r#"{"badRequest":{"code":400,"message":"Compute service of compute-1 is still in use."}}"#;

/// A simulator of `toml` on a free port.
async fn sim(toml: &str, log_dir: Option<&Path>) -> RunningSim {
    let scenario = Scenario::parse(toml).unwrap();
    start(scenario, "127.0.0.1:0".parse().unwrap(), log_dir)
        .await
        .unwrap()
}

/// A signed-in client: the token and the catalog's compute and volume URLs.
struct Client {
    http: reqwest::Client,
    token: String,
    compute: String,
    volume: String,
}

fn password_auth(password: &str) -> Value {
    json!({"auth": {
        "identity": {"methods": ["password"], "password": {"user": {
            "name": "admin", "domain": {"name": "Default"}, "password": password}}},
        "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}}}})
}

fn endpoint(token: &Value, kind: &str) -> String {
    token["token"]["catalog"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["type"] == kind)
        .and_then(|s| {
            s["endpoints"]
                .as_array()
                .unwrap()
                .iter()
                .find(|e| e["interface"] == "public")
        })
        .and_then(|e| e["url"].as_str())
        .unwrap()
        .to_string()
}

impl Client {
    async fn sign_in(sim: &RunningSim) -> Client {
        let http = reqwest::Client::new();
        let response = http
            .post(format!("{}/v3/auth/tokens", sim.auth_url()))
            .json(&password_auth("secret"))
            .send()
            .await
            .unwrap();
        assert_eq!(response.status(), StatusCode::CREATED);
        let token = response.headers()["x-subject-token"]
            .to_str()
            .unwrap()
            .to_string();
        let body: Value = response.json().await.unwrap();
        Client {
            compute: endpoint(&body, "compute"),
            volume: endpoint(&body, "volumev3"),
            http,
            token,
        }
    }

    async fn call(
        &self,
        method: &str,
        url: &str,
        version: &str,
        body: Option<Value>,
    ) -> (StatusCode, String) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut request = self
            .http
            .request(method, url)
            .header("x-auth-token", &self.token)
            .header("openstack-api-version", version)
            .header("user-agent", "python-novaclient");
        if let Some(body) = body {
            request = request.json(&body);
        }
        let response = request.send().await.unwrap();
        (response.status(), response.text().await.unwrap())
    }

    async fn nova(&self, method: &str, path: &str, body: Option<Value>) -> (StatusCode, String) {
        self.call(
            method,
            &format!("{}{path}", self.compute),
            "compute 2.53",
            body,
        )
        .await
    }

    async fn server(&self, id: &str) -> Value {
        let (status, body) = self.nova("GET", &format!("/servers/{id}"), None).await;
        assert_eq!(status, StatusCode::OK, "{body}");
        serde_json::from_str::<Value>(&body).unwrap()["server"].clone()
    }

    async fn evacuate(&self, id: &str) -> (StatusCode, String) {
        self.nova(
            "POST",
            &format!("/servers/{id}/action"),
            Some(json!({"evacuate": {}})),
        )
        .await
    }

    async fn compute_service(&self, host: &str) -> Value {
        let (_, body) = self
            .nova(
                "GET",
                &format!("/os-services?host={host}&binary=nova-compute"),
                None,
            )
            .await;
        serde_json::from_str::<Value>(&body).unwrap()["services"][0].clone()
    }
}

/// Polls `check` every 20 ms until it is true or `limit` passes.
async fn wait_for<F, Fut>(limit: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let start = Instant::now();
    while start.elapsed() < limit {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    false
}

fn race_scenario(extra: &str) -> String {
    format!(
        r#"
[nova]
service_down_time = 60
report_interval = 10
[timing]
rebuild_s = 10
time_scale = 30
[[hosts]]
name = "compute-1"
dies_at_s = 20
[[hosts]]
name = "compute-2"
[[instances]]
id = "{VM}"
name = "web-1"
host = "compute-1"
{extra}
"#
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keystone_signs_in_with_password_or_app_credential_and_refuses_the_rest() {
    let sim = sim(
        "[auth.application_credential]\nid = \"ac-1\"\nsecret = \"s3cret\"\n",
        None,
    )
    .await;
    let http = reqwest::Client::new();
    let tokens = format!("{}/v3/auth/tokens", sim.auth_url());
    let bad = http
        .post(&tokens)
        .json(&password_auth("wrong"))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), StatusCode::UNAUTHORIZED);
    let app = json!({"auth": {"identity": {"methods": ["application_credential"],
        "application_credential": {"id": "ac-1", "secret": "s3cret"}}}});
    let ok = http.post(&tokens).json(&app).send().await.unwrap();
    assert_eq!(ok.status(), StatusCode::CREATED);
    let body: Value = ok.json().await.unwrap();
    assert_eq!(body["token"]["project"]["name"], "admin");
    assert!(body["token"]["expires_at"].as_str().unwrap().ends_with('Z'));

    let client = Client::sign_in(&sim).await;
    assert_eq!(client.compute, format!("{}/compute/v2.1", sim.base_url));
    assert!(
        client
            .volume
            .starts_with(&format!("{}/volume/v3/", sim.base_url))
    );
    // The token validates; a made-up one does not open Nova.
    let check = http
        .get(&tokens)
        .header("x-auth-token", &client.token)
        .header("x-subject-token", &client.token)
        .send()
        .await
        .unwrap();
    assert_eq!(check.status(), StatusCode::OK);
    let denied = http
        .get(format!("{}/servers/detail", client.compute))
        .header("x-auth-token", "gAAAAAnope")
        .send()
        .await
        .unwrap();
    assert_eq!(denied.status(), StatusCode::UNAUTHORIZED);
    // The version document gives the microversion range; above it is 406.
    let (status, body) = client
        .call("GET", &format!("{}/", client.compute), "compute 2.1", None)
        .await;
    assert_eq!(status, StatusCode::OK);
    let doc: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (
            doc["version"]["version"].as_str(),
            doc["version"]["min_version"].as_str()
        ),
        (Some("2.95"), Some("2.1"))
    );
    let (status, _) = client
        .call(
            "GET",
            &format!("{}/servers/detail", client.compute),
            "compute 2.96",
            None,
        )
        .await;
    assert_eq!(status, StatusCode::NOT_ACCEPTABLE);
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evacuate_is_refused_while_nova_sees_the_host_up_then_rebuilds_elsewhere() {
    let logs = tempfile::tempdir().unwrap();
    let sim = sim(&race_scenario(""), Some(logs.path())).await;
    let client = Client::sign_in(&sim).await;
    let (status, body) = client.evacuate(VM).await;
    assert_eq!(
        (status, body.as_str()),
        (StatusCode::BAD_REQUEST, STILL_IN_USE)
    );
    assert_eq!(client.compute_service("compute-1").await["state"], "up");

    // Dies at 20 s, last heartbeat at 20 s, down after 80 s: under 3 s at 30x.
    assert!(
        wait_for(Duration::from_secs(10), || async {
            client.compute_service("compute-1").await["state"] == "down"
        })
        .await
    );
    let (status, body) = client.evacuate(VM).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let server = client.server(VM).await;
    assert_eq!(server["status"], "REBUILD");
    // A second evacuate while it rebuilds is a conflict.
    let (status, body) = client.evacuate(VM).await;
    assert_eq!(status, StatusCode::CONFLICT, "{body}");
    assert!(body.contains("while it is in task_state rebuild"), "{body}");
    assert!(
        wait_for(Duration::from_secs(10), || async {
            client.server(VM).await["status"] == "ACTIVE"
        })
        .await
    );
    let server = client.server(VM).await;
    assert_eq!(server["OS-EXT-SRV-ATTR:host"], "compute-2");
    assert_eq!(server["OS-EXT-STS:task_state"], Value::Null);

    let (_, list) = client
        .nova("GET", &format!("/servers/{VM}/os-instance-actions"), None)
        .await;
    let list: Value = serde_json::from_str(&list).unwrap();
    let evacuate = &list["instanceActions"][0];
    assert_eq!(evacuate["action"], "evacuate");
    let request = evacuate["request_id"].as_str().unwrap();
    let (_, shown) = client
        .nova(
            "GET",
            &format!("/servers/{VM}/os-instance-actions/{request}"),
            None,
        )
        .await;
    let shown: Value = serde_json::from_str(&shown).unwrap();
    let events: Vec<(&str, &str)> = shown["instanceAction"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| (e["event"].as_str().unwrap(), e["result"].as_str().unwrap()))
        .collect();
    assert_eq!(
        events,
        [
            ("rebuild_server", "Success"),
            ("compute_rebuild_instance", "Success")
        ]
    );
    sim.shutdown().await;

    // The logs: every line parses, and the analysis sees both evacuate calls.
    let report =
        evacdoc::run::analyze_inputs(&[logs.path().to_path_buf()], &Default::default()).unwrap();
    let analysis = &report.analysis;
    assert_eq!(analysis.stats.unparsed, 0);
    let services: Vec<&str> = analysis.files.iter().map(|f| f.service.name()).collect();
    for service in ["nova-api-access", "nova-api", "nova-compute"] {
        assert!(services.contains(&service), "{service} not in {services:?}");
    }
    let calls: Vec<(String, u16)> = analysis
        .events
        .iter()
        .filter_map(|e| e.http())
        .filter(|h| h.method == "POST" && h.path.ends_with(&format!("/servers/{VM}/action")))
        .map(|h| (h.path.to_string(), h.status))
        .collect();
    // Each call shows in the access log and the request log.
    let statuses: Vec<u16> = calls.iter().map(|c| c.1).collect();
    assert_eq!(
        statuses.iter().filter(|s| **s == 400).count(),
        2,
        "{calls:?}"
    );
    assert_eq!(
        statuses.iter().filter(|s| **s == 200).count(),
        2,
        "{calls:?}"
    );
    let hosts: Vec<&str> = analysis.hosts.iter().map(|h| h.hostname.as_str()).collect();
    assert!(
        hosts.contains(&"controller-0") && hosts.contains(&"compute-2"),
        "{hosts:?}"
    );
    // The command reads the same.
    let output =
        crate::util::evacdoc(&["analyze", "--format", "json", logs.path().to_str().unwrap()]);
    assert!(output.status.success(), "{}", crate::util::stderr(&output));
    let document: Value = serde_json::from_str(&crate::util::stdout(&output)).unwrap();
    assert_eq!(document["stats"]["unparsed"], 0, "{document}");
    assert!(
        document["stats"]["records"].as_u64().unwrap() >= 10,
        "{document}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn forced_down_lets_evacuate_go_at_once() {
    // Nova would take an hour to see compute-1 down.
    let toml = race_scenario("").replace("service_down_time = 60", "service_down_time = 3600");
    let sim = sim(&toml, None).await;
    let client = Client::sign_in(&sim).await;
    let service = client.compute_service("compute-1").await;
    assert_eq!(
        (service["state"].as_str(), service["forced_down"].as_bool()),
        (Some("up"), Some(false))
    );
    let uuid = service["id"].as_str().unwrap().to_string();
    let (status, body) = client
        .nova(
            "PUT",
            &format!("/os-services/{uuid}"),
            Some(json!({"forced_down": true, "status": "disabled", "disabled_reason": "fenced"})),
        )
        .await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let service = client.compute_service("compute-1").await;
    assert_eq!(
        (service["state"].as_str(), service["status"].as_str()),
        (Some("down"), Some("disabled"))
    );
    assert_eq!(client.server(VM).await["host_status"], "DOWN");
    let (status, body) = client.evacuate(VM).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        wait_for(Duration::from_secs(10), || async {
            client.server(VM).await["status"] == "ACTIVE"
        })
        .await
    );

    // Forcing it up again: 2.53 refuses the by-name form; the 2.11 form is refused as
    // Nova (24.0.0+) refuses it while the evacuation from compute-1 is `done` (until its
    // nova-compute starts again).
    let up = json!({"host": "compute-1", "binary": "nova-compute", "forced_down": false});
    let url = format!("{}/os-services/force-down", client.compute);
    let (status, _) = client
        .call("PUT", &url, "compute 2.53", Some(up.clone()))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, body) = client.call("PUT", &url, "compute 2.11", Some(up)).await;
    assert_eq!(status, StatusCode::BAD_REQUEST, "{body}");
    assert!(
        body.to_string().contains(
            "Unable to force up host compute-1 as `done` evacuation migration records remain"
        ),
        "{body}"
    );
    let service = client.compute_service("compute-1").await;
    assert_eq!(
        (service["state"].as_str(), service["forced_down"].as_bool()),
        (Some("down"), Some(true))
    );
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_volume_attached_to_the_dead_host_holds_the_rebuild_until_cleared() {
    let toml = race_scenario(&format!("volume = \"{VOLUME}\"\nmultiattach = false\n"))
        .replace("dies_at_s = 20", "state = \"down\"");
    let sim = sim(&toml, None).await;
    let client = Client::sign_in(&sim).await;
    let volumes = format!("{}/volumes/{VOLUME}", client.volume);
    let (_, body) = client.call("GET", &volumes, "volume 3.27", None).await;
    let volume: Value = serde_json::from_str(&body).unwrap();
    let attachment = volume["volume"]["attachments"][0].clone();
    assert_eq!(
        (
            attachment["host_name"].as_str(),
            volume["volume"]["multiattach"].as_bool()
        ),
        (Some("compute-1"), Some(false))
    );
    let attachment_id = attachment["attachment_id"].as_str().unwrap().to_string();

    let (status, body) = client.evacuate(VM).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    // rebuild_s is 10 s (a third of a second here): held well past that.
    tokio::time::sleep(Duration::from_millis(800)).await;
    let server = client.server(VM).await;
    assert_eq!(
        (
            server["status"].as_str(),
            server["OS-EXT-STS:task_state"].as_str()
        ),
        (Some("REBUILD"), Some("rebuilding"))
    );
    assert_eq!(server["OS-EXT-SRV-ATTR:host"], "compute-1");

    // Before 3.27 there is no attachments API.
    let url = format!("{}/attachments/{attachment_id}", client.volume);
    let (status, _) = client.call("DELETE", &url, "volume 3.26", None).await;
    assert_eq!(status, StatusCode::NOT_FOUND);
    let (status, body) = client.call("DELETE", &url, "volume 3.27", None).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert!(
        wait_for(Duration::from_secs(10), || async {
            client.server(VM).await["status"] == "ACTIVE"
        })
        .await
    );
    assert_eq!(client.server(VM).await["OS-EXT-SRV-ATTR:host"], "compute-2");
    let (_, body) = client.call("GET", &volumes, "volume 3.27", None).await;
    let volume: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(volume["volume"]["attachments"][0]["host_name"], "compute-2");
    sim.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_scripted_fault_answers_k_times_then_the_real_answer() {
    let fault = format!(
        "[[faults]]\nmethod = \"GET\"\npath = \"/compute/v2.1/servers/{VM}\"\nstatus = 503\ncount = 2\n"
    );
    let sim = sim(
        &race_scenario(&fault).replace("[[faults]]", "\n[[faults]]"),
        None,
    )
    .await;
    let client = Client::sign_in(&sim).await;
    let mut statuses = Vec::new();
    for _ in 0..3 {
        statuses.push(
            client
                .nova("GET", &format!("/servers/{VM}"), None)
                .await
                .0
                .as_u16(),
        );
    }
    assert_eq!(statuses, [503, 503, 200]);
    sim.shutdown().await;
}

#[test]
fn every_sample_scenario_loads() {
    let dir = crate::util::samples().join("sim");
    let mut loaded = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
            loaded += 1;
        }
    }
    assert!(loaded >= 4, "{loaded} scenarios in {}", dir.display());
}

#[test]
fn a_bad_scenario_is_refused_naming_the_file_and_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("typo.toml");
    std::fs::write(&path, "[[hosts]]\nname = \"c1\"\nstate = \"sleeping\"\n").unwrap();
    let output = crate::util::evacdoc(&["sim", "--scenario", path.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = crate::util::stderr(&output);
    assert!(
        stderr.contains("typo.toml") && stderr.contains("sleeping"),
        "{stderr}"
    );
}

/// `evacdoc sim` as a command: it prints its URL and a clouds.yaml entry, and serves.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_prints_its_url_and_clouds_yaml_and_serves() {
    use std::io::{BufRead, BufReader};
    let scenario = crate::util::samples().join("sim/evacuate-race.toml");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_evacdoc"))
        .args([
            "sim",
            "--scenario",
            scenario.to_str().unwrap(),
            "--listen",
            "127.0.0.1:0",
        ])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut printed = Vec::new();
    while let Some(Ok(line)) = lines.next() {
        let end = line.contains("identity_api_version");
        printed.push(line);
        if end {
            break;
        }
    }
    let url = printed[0].rsplit(' ').next().unwrap().to_string();
    let yaml = printed.join("\n");
    assert!(
        yaml.contains(&format!("auth_url: {url}/identity")),
        "{yaml}"
    );
    assert!(yaml.contains("project_domain_name: 'Default'"), "{yaml}");
    let versions = reqwest::get(format!("{url}/compute/")).await.unwrap();
    assert_eq!(versions.status(), StatusCode::OK);
    child.kill().unwrap();
    child.wait().unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn force_detach_releases_a_held_rebuild_and_reset_status_checks_its_input() {
    let toml = race_scenario(&format!("volume = \"{VOLUME}\"\n"))
        .replace("dies_at_s = 20", "state = \"down\"");
    let sim = sim(&toml, None).await;
    let client = Client::sign_in(&sim).await;
    let action = format!("{}/volumes/{VOLUME}/action", client.volume);
    let (status, body) = client.evacuate(VM).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(
        client.server(VM).await["OS-EXT-STS:task_state"],
        "rebuilding"
    );
    let wrong =
        json!({"os-force_detach": {"attachment_id": "00000000-0000-4000-8000-000000000000"}});
    let (status, _) = client
        .call("POST", &action, "volume 3.0", Some(wrong))
        .await;
    assert_eq!(status, StatusCode::BAD_REQUEST);
    let (status, _) = client
        .call(
            "POST",
            &action,
            "volume 3.0",
            Some(json!({"os-force_detach": {}})),
        )
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    assert!(
        wait_for(Duration::from_secs(10), || async {
            client.server(VM).await["status"] == "ACTIVE"
        })
        .await
    );
    let reset = json!({"os-reset_status": {"status": "deleting"}});
    let (status, body) = client
        .call("POST", &action, "volume 3.0", Some(reset))
        .await;
    assert_eq!(
        (status, body.contains("Cannot reset-state to deleting")),
        (StatusCode::BAD_REQUEST, true)
    );
    let reset = json!({"os-reset_status": {"status": "available", "attach_status": "detached"}});
    let (status, _) = client
        .call("POST", &action, "volume 3.0", Some(reset))
        .await;
    assert_eq!(status, StatusCode::ACCEPTED);
    let (_, body) = client
        .call(
            "GET",
            &format!("{}/volumes/{VOLUME}", client.volume),
            "volume 3.0",
            None,
        )
        .await;
    let volume: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (
            volume["volume"]["status"].as_str(),
            volume["volume"]["attachments"].as_array().map(Vec::len)
        ),
        (Some("available"), Some(0))
    );
    sim.shutdown().await;
}
