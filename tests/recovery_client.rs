//! The OpenStack client of the recovery executor (`evacdoc::recovery::openstack`) against
//! the simulator on a loopback port: clouds.yaml, Keystone auth, microversion forms of
//! every call, Nova's refusals and Cinder's attachments, scripted faults.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::time::Duration;

use evacdoc::recovery::openstack::{ConnectOptions, OpenStack};
use evacdoc::recovery::{Cloud, CloudError, CloudVersions};
use evacdoc::sim::clouds_yaml::clouds_yaml;
use evacdoc::sim::{RunningSim, Scenario, start};
use serde_json::{Value, json};

const VM1: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
const VM2: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc97";
pub(crate) const VM3: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc98";
const VOL1: &str = "7c1e9a3b-2f4d-4a6c-8b0e-1d2f3a4b5c01";
const VOL2: &str = "7c1e9a3b-2f4d-4a6c-8b0e-1d2f3a4b5c02";

/// A dead compute-1 (Nova still sees it up for a minute), a live compute-2, and servers:
/// VM1 boots from non-multiattach VOL1, VM2 from multiattach VOL2 without HA_Enabled,
/// VM3 on compute-2.
pub(crate) fn scenario(extra: &str) -> String {
    format!(
        r#"
[auth.application_credential]
id = "ac-1"
secret = "s3cret"
name = "recovery"

[nova]
service_down_time = 60
report_interval = 10

[timing]
rebuild_s = 0.3
attachment_hold = 3600

[[hosts]]
name = "compute-1"
state = "dead"

[[hosts]]
name = "compute-2"

[[instances]]
id = "{VM1}"
name = "db-1"
host = "compute-1"
volume = "{VOL1}"

[[instances]]
id = "{VM2}"
name = "shared-1"
host = "compute-1"
volume = "{VOL2}"
multiattach = true
ha_enabled = false

[[instances]]
id = "{VM3}"
name = "web-2"
host = "compute-2"
{extra}
"#
    )
}

/// A running simulator and a clouds.yaml for it.
pub(crate) struct Fixture {
    pub(crate) sim: RunningSim,
    pub(crate) dir: tempfile::TempDir,
    clouds: PathBuf,
}

impl Fixture {
    /// The simulator of `toml`, its logs under `logs/` of the fixture's folder.
    pub(crate) async fn start(toml: &str) -> Fixture {
        let scenario = Scenario::parse(toml).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let logs = dir.path().join("logs");
        let sim = start(
            scenario.clone(),
            "127.0.0.1:0".parse().unwrap(),
            Some(&logs),
        )
        .await
        .unwrap();
        let clouds = dir.path().join("clouds.yaml");
        std::fs::write(&clouds, clouds_yaml(&scenario, &sim.auth_url())).unwrap();
        Fixture { sim, dir, clouds }
    }

    pub(crate) fn options(&self, cloud: &str) -> ConnectOptions {
        ConnectOptions {
            cloud: Some(cloud.into()),
            config_file: Some(self.clouds.clone()),
        }
    }

    pub(crate) async fn connect(&self) -> OpenStack {
        OpenStack::connect(self.options("evacdoc-sim"))
            .await
            .unwrap()
    }

    /// A server as Nova shows it at `version`, read without the client under test.
    async fn raw_server(&self, id: &str, version: &str) -> Value {
        let http = reqwest::Client::new();
        let auth = json!({"auth": {"identity": {"methods": ["password"], "password": {"user": {
            "name": "admin", "domain": {"name": "Default"}, "password": "secret"}}},
            "scope": {"project": {"name": "admin", "domain": {"name": "Default"}}}}});
        let response = http
            .post(format!("{}/v3/auth/tokens", self.sim.auth_url()))
            .json(&auth)
            .send()
            .await
            .unwrap();
        let token = response.headers()["x-subject-token"]
            .to_str()
            .unwrap()
            .to_string();
        let body: Value = http
            .get(format!("{}/compute/v2.1/servers/{id}", self.sim.base_url))
            .header("x-auth-token", token)
            .header("openstack-api-version", format!("compute {version}"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap();
        body["server"].clone()
    }
}

/// Polls the server until `done` holds or 10 s pass; the last view.
async fn wait_server(
    cloud: &OpenStack,
    id: &str,
    done: impl Fn(&evacdoc::recovery::Server) -> bool,
) -> evacdoc::recovery::Server {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let server = cloud.server(id).await.unwrap();
        if done(&server) || tokio::time::Instant::now() > deadline {
            return server;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn password_and_application_credential_clouds_connect() {
    let fixture = Fixture::start(&scenario("")).await;
    let by_password = fixture.connect().await;
    assert_eq!(
        by_password.versions(),
        CloudVersions {
            compute_max: (2, 95),
            volume_max: (3, 70)
        }
    );
    assert!(by_password.source().contains("evacdoc-sim"));
    let by_credential = OpenStack::connect(fixture.options("evacdoc-sim-appcred"))
        .await
        .unwrap();
    let servers = by_credential.servers_on_host("compute-2").await.unwrap();
    assert_eq!(servers.len(), 1);
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn every_call_carries_the_sessions_global_request_id_and_user_agent() {
    let fixture = Fixture::start(&scenario("")).await;
    let cloud = fixture.connect().await;
    let global = cloud.global_request_id().to_string();
    assert!(global.starts_with("req-") && global.len() == 40, "{global}");
    cloud.server(VM3).await.unwrap();
    cloud.volume(VOL1).await.unwrap();
    fixture.sim.shutdown().await;
    let controller = fixture.dir.path().join("logs/controller-0/var/log");
    let nova_api = std::fs::read_to_string(controller.join("nova/nova-api-wsgi.log")).unwrap();
    let line = nova_api
        .lines()
        .find(|l| l.contains(&format!("GET /compute/v2.1/servers/{VM3}")))
        .unwrap();
    assert!(line.contains(&format!("[{global} req-")), "{line}");
    let access = std::fs::read_to_string(controller.join("apache2/cinder_access.log")).unwrap();
    let line = access.lines().find(|l| l.contains(VOL1)).unwrap();
    assert!(line.contains("\"evacdoc/"), "{line}");
}

#[tokio::test]
async fn a_wrong_password_is_an_auth_error_and_a_wrong_name_a_config_error() {
    let fixture = Fixture::start(&scenario("")).await;
    let text = std::fs::read_to_string(&fixture.clouds).unwrap();
    std::fs::write(&fixture.clouds, text.replace("'secret'", "'wrong'")).unwrap();
    let error = OpenStack::connect(fixture.options("evacdoc-sim"))
        .await
        .unwrap_err();
    assert!(matches!(error, CloudError::Auth(_)), "{error:?}");
    let error = OpenStack::connect(fixture.options("nope"))
        .await
        .unwrap_err();
    let CloudError::Config(message) = error else {
        panic!("{error:?}")
    };
    assert!(message.contains("no cloud named 'nope'"), "{message}");
    assert!(message.contains("evacdoc-sim-appcred"), "{message}");
    assert!(
        message.contains(&fixture.clouds.display().to_string()),
        "{message}"
    );
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn services_show_nova_liveness_and_take_force_down_and_disable() {
    let fixture = Fixture::start(&scenario("")).await;
    let cloud = fixture.connect().await;
    let live = cloud.compute_service("compute-2").await.unwrap().unwrap();
    assert!(live.up && live.enabled && !live.forced_down);
    // Dead, but within service_down_time: Nova still says up.
    let dead = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(dead.up);
    assert!(evacdoc_parsers::text::is_uuid(&dead.id), "{}", dead.id);
    assert_eq!(cloud.compute_service("compute-9").await.unwrap(), None);

    let forced = cloud.force_down(&dead, true).await.unwrap();
    assert!(forced.forced_down && !forced.up);
    let disabled = cloud
        .disable(&forced, "evacdoc: host recovery")
        .await
        .unwrap();
    assert!(!disabled.enabled);
    assert_eq!(
        disabled.disabled_reason.as_deref(),
        Some("evacdoc: host recovery")
    );
    let seen = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(!seen.up && seen.forced_down && !seen.enabled);
    assert_eq!(
        seen.disabled_reason.as_deref(),
        Some("evacdoc: host recovery")
    );
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn before_253_services_are_forced_down_by_host_with_the_211_form() {
    let toml = scenario("").replace("[nova]\n", "[nova]\nmax_microversion = \"2.40\"\n");
    let fixture = Fixture::start(&toml).await;
    let cloud = fixture.connect().await;
    assert_eq!(cloud.versions().compute_max, (2, 40));
    let dead = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(dead.id.parse::<u64>().is_ok(), "{}", dead.id);
    let forced = cloud.force_down(&dead, true).await.unwrap();
    assert!(forced.forced_down && !forced.up);
    let disabled = cloud.disable(&forced, "fenced").await.unwrap();
    assert!(!disabled.enabled);
    let seen = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(!seen.up && seen.forced_down && !seen.enabled);
    assert_eq!(seen.disabled_reason.as_deref(), Some("fenced"));
    // Evacuate in the 2.29 body form, after the force-down.
    cloud.evacuate(VM2).await.unwrap();
    let moved = wait_server(&cloud, VM2, |s| s.status == "ACTIVE").await;
    assert_eq!(moved.host.as_deref(), Some("compute-2"));
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn before_211_services_are_disabled_and_enabled_by_host_and_force_down_is_refused() {
    let toml = scenario("").replace("[nova]\n", "[nova]\nmax_microversion = \"2.10\"\n");
    let fixture = Fixture::start(&toml).await;
    let cloud = fixture.connect().await;
    assert_eq!(cloud.versions().compute_max, (2, 10));
    let dead = cloud.compute_service("compute-1").await.unwrap().unwrap();
    // forced_down came with 2.11: an older cloud cannot be told, and says why.
    let refused = cloud.force_down(&dead, true).await.unwrap_err().to_string();
    assert!(refused.contains("predates forced_down (2.11)"), "{refused}");
    assert!(refused.contains("/os-services/force-down"), "{refused}");
    let disabled = cloud.disable(&dead, "fenced").await.unwrap();
    assert!(!disabled.enabled);
    assert_eq!(disabled.disabled_reason.as_deref(), Some("fenced"));
    let seen = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(!seen.enabled && !seen.forced_down);
    assert_eq!(seen.disabled_reason.as_deref(), Some("fenced"));
    let enabled = cloud.enable(&seen).await.unwrap();
    assert!(enabled.enabled && enabled.disabled_reason.is_none());
    let seen = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(seen.enabled);
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn servers_on_host_are_exactly_the_hosts_with_metadata_locks_and_volumes() {
    let fixture = Fixture::start(&scenario("")).await;
    let cloud = fixture.connect().await;
    let mut servers = cloud.servers_on_host("compute-1").await.unwrap();
    servers.sort_by(|a, b| a.id.cmp(&b.id));
    let ids: Vec<&str> = servers.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, [VM1, VM2]);
    assert_eq!(
        servers[0].metadata.get("HA_Enabled").map(String::as_str),
        Some("True")
    );
    assert!(!servers[1].metadata.contains_key("HA_Enabled"));
    assert_eq!(servers[0].volumes, [VOL1]);
    assert_eq!(servers[0].status, "ACTIVE");
    assert_eq!(servers[0].vm_state.as_deref(), Some("active"));
    assert!(
        servers
            .iter()
            .all(|s| !s.locked && s.host.as_deref() == Some("compute-1"))
    );

    cloud
        .lock(VM1, "evacdoc recovery of compute-1")
        .await
        .unwrap();
    assert!(cloud.server(VM1).await.unwrap().locked);
    let shown = fixture.raw_server(VM1, "2.73").await;
    assert_eq!(shown["locked_reason"], "evacdoc recovery of compute-1");
    let listed = cloud.servers_on_host("compute-1").await.unwrap();
    assert!(listed.iter().any(|s| s.id == VM1 && s.locked));
    cloud.unlock(VM1).await.unwrap();
    assert!(!cloud.server(VM1).await.unwrap().locked);
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn servers_on_host_reads_every_page() {
    let toml = scenario("").replace("[nova]\n", "[nova]\nmax_limit = 1\n");
    let fixture = Fixture::start(&toml).await;
    let cloud = fixture.connect().await;
    let mut ids: Vec<String> = cloud
        .servers_on_host("compute-1")
        .await
        .unwrap()
        .into_iter()
        .map(|s| s.id)
        .collect();
    ids.sort();
    assert_eq!(ids, [VM1, VM2]);
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn evacuate_is_refused_while_nova_sees_the_source_up_and_goes_after_force_down() {
    let fixture = Fixture::start(&scenario("")).await;
    let cloud = fixture.connect().await;
    let error = cloud.evacuate(VM2).await.unwrap_err();
    let CloudError::Status {
        method,
        status,
        message,
        ..
    } = &error
    else {
        panic!("{error:?}")
    };
    assert_eq!((method.as_str(), *status), ("POST", 400));
    assert_eq!(message, "Compute service of compute-1 is still in use.");
    assert_eq!(error.status(), Some(400));

    let service = cloud.compute_service("compute-1").await.unwrap().unwrap();
    cloud.force_down(&service, true).await.unwrap();
    cloud.evacuate(VM2).await.unwrap();
    let moved = wait_server(&cloud, VM2, |s| s.status == "ACTIVE").await;
    assert_eq!(moved.status, "ACTIVE");
    assert_eq!(moved.host.as_deref(), Some("compute-2"));
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn evacuate_takes_the_214_form_without_on_shared_storage() {
    let toml = scenario("").replace("[nova]\n", "[nova]\nmax_microversion = \"2.20\"\n");
    let fixture = Fixture::start(&toml).await;
    let cloud = fixture.connect().await;
    assert_eq!(cloud.versions().compute_max, (2, 20));
    let service = cloud.compute_service("compute-1").await.unwrap().unwrap();
    cloud.force_down(&service, true).await.unwrap();
    // The simulator refuses `onSharedStorage` from 2.14: the 2.14 body goes through.
    cloud.evacuate(VM2).await.unwrap();
    let moved = wait_server(&cloud, VM2, |s| s.status == "ACTIVE").await;
    assert_eq!(moved.host.as_deref(), Some("compute-2"));
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn evacuate_before_214_states_the_disk_is_not_on_shared_storage() {
    // No forced_down before 2.11: compute-1 has been dead long enough for Nova to see it
    // down.
    let toml = scenario("")
        .replace("[nova]\n", "[nova]\nmax_microversion = \"2.10\"\n")
        .replace("state = \"dead\"", "state = \"down\"");
    let fixture = Fixture::start(&toml).await;
    let cloud = fixture.connect().await;
    assert_eq!(cloud.versions().compute_max, (2, 10));
    let service = cloud.compute_service("compute-1").await.unwrap().unwrap();
    assert!(!service.up && !service.forced_down);
    // The simulator requires `onSharedStorage` before 2.14.
    cloud.evacuate(VM2).await.unwrap();
    let moved = wait_server(&cloud, VM2, |s| s.status == "ACTIVE").await;
    assert_eq!(moved.host.as_deref(), Some("compute-2"));
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn volumes_show_multiattach_and_the_dead_hosts_attachment() {
    let fixture = Fixture::start(&scenario("")).await;
    let cloud = fixture.connect().await;
    let volume = cloud.volume(VOL1).await.unwrap();
    assert_eq!(volume.id, VOL1);
    assert!(!volume.multiattach);
    assert_eq!(volume.status, "in-use");
    assert_eq!(volume.attachments.len(), 1);
    assert_eq!(volume.attachments[0].server_id, VM1);
    assert_eq!(volume.attachments[0].host.as_deref(), Some("compute-1"));
    assert!(cloud.volume(VOL2).await.unwrap().multiattach);
    let missing = cloud
        .volume("7c1e9a3b-0000-0000-0000-000000000000")
        .await
        .unwrap_err();
    assert_eq!(missing.status(), Some(404));
    fixture.sim.shutdown().await;
}

/// Evacuates VM1 from a forced-down compute-1: the rebuild waits on VOL1's attachment
/// until `clear_attachment` removes it, then ends ACTIVE on compute-2.
async fn held_rebuild_is_released(cinder: &str) {
    let toml = scenario("").replace("[nova]\n", &format!("[cinder]\n{cinder}\n[nova]\n"));
    let fixture = Fixture::start(&toml).await;
    let cloud = fixture.connect().await;
    let service = cloud.compute_service("compute-1").await.unwrap().unwrap();
    cloud.force_down(&service, true).await.unwrap();
    cloud.evacuate(VM1).await.unwrap();
    tokio::time::sleep(Duration::from_millis(600)).await;
    let held = cloud.server(VM1).await.unwrap();
    assert_eq!(held.status, "REBUILD", "{held:?}");
    let volume = cloud.volume(VOL1).await.unwrap();
    let stale = volume
        .attachments
        .iter()
        .find(|a| a.host.as_deref() == Some("compute-1"))
        .unwrap()
        .clone();
    cloud.clear_attachment(&volume, &stale).await.unwrap();
    let moved = wait_server(&cloud, VM1, |s| s.status == "ACTIVE").await;
    assert_eq!(moved.status, "ACTIVE");
    assert_eq!(moved.host.as_deref(), Some("compute-2"));
    let after = cloud.volume(VOL1).await.unwrap();
    assert!(
        after
            .attachments
            .iter()
            .all(|a| a.attachment_id != stale.attachment_id)
    );
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn clear_attachment_with_the_attachments_api_releases_a_held_rebuild() {
    held_rebuild_is_released("max_microversion = \"3.70\"").await;
}

#[tokio::test]
async fn clear_attachment_with_force_detach_on_old_cinder_releases_a_held_rebuild() {
    held_rebuild_is_released("max_microversion = \"3.20\"").await;
}

#[tokio::test]
async fn clear_attachment_past_cinders_attachment_deletion_guard_releases_a_held_rebuild() {
    held_rebuild_is_released("attachment_deletion_guard = true").await;
}

/// A fault answering `status` to the next `GET /servers/VM3`, once.
pub(crate) fn vm3_answers_once(status: u16) -> String {
    format!(
        "[[faults]]\nmethod = \"GET\"\npath_regex = \"^/compute/v2\\\\.1/servers/{VM3}$\"\nstatus = {status}\ncount = 1\n"
    )
}

#[tokio::test]
async fn a_scripted_503_surfaces_as_a_status_error() {
    let fixture = Fixture::start(&scenario(&vm3_answers_once(503))).await;
    let cloud = fixture.connect().await;
    let error = cloud.server(VM3).await.unwrap_err();
    assert_eq!(error.status(), Some(503), "{error:?}");
    assert!(
        error
            .to_string()
            .contains(&format!("GET /servers/{VM3} answered 503"))
    );
    // Only one call matched: the next one is answered.
    assert_eq!(
        cloud.server(VM3).await.unwrap().host.as_deref(),
        Some("compute-2")
    );
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn os_variables_connect_without_a_clouds_yaml() {
    let fixture = Fixture::start(&scenario("")).await;
    let auth_url = fixture.sim.auth_url();
    let env: BTreeMap<String, String> = [
        ("OS_AUTH_URL", auth_url.as_str()),
        ("OS_APPLICATION_CREDENTIAL_ID", "ac-1"),
        ("OS_APPLICATION_CREDENTIAL_SECRET", "s3cret"),
        ("OS_REGION_NAME", "RegionOne"),
        ("OS_INTERFACE", "public"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    let cloud = OpenStack::connect_with_env(&ConnectOptions::default(), &env)
        .await
        .unwrap();
    assert_eq!(cloud.source(), "OS_* variables");
    let service = cloud.compute_service("compute-2").await.unwrap().unwrap();
    assert!(service.up);
    fixture.sim.shutdown().await;
}

#[tokio::test]
async fn keystone_down_is_an_auth_error_and_a_gone_cloud_a_connection_error() {
    let fault = "[[faults]]\npath = \"/identity\"\nstatus = 503\nuntil_s = 3600\n";
    let fixture = Fixture::start(&scenario(fault)).await;
    let error = OpenStack::connect(fixture.options("evacdoc-sim"))
        .await
        .unwrap_err();
    assert!(matches!(error, CloudError::Auth(_)), "{error:?}");
    fixture.sim.shutdown().await;

    let fixture = Fixture::start(&scenario("")).await;
    let cloud = fixture.connect().await;
    fixture.sim.shutdown().await;
    let error = cloud.server(VM3).await.unwrap_err();
    let CloudError::Connection { method, path, .. } = &error else {
        panic!("{error:?}")
    };
    assert_eq!(
        (method.as_str(), path.as_str()),
        ("GET", format!("/servers/{VM3}").as_str())
    );
}
