//! The cloud's rules without HTTP: liveness from heartbeats, evacuate's checks at each
//! microversion, rebuilds held by volumes. Times are passed in, so nothing sleeps.

use serde_json::json;

use super::model::RequestIds;
use super::state::Cloud;
use crate::sim::logs::Logs;
use crate::sim::microversion::Microversion;
use crate::sim::scenario::Scenario;

const VM: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
const BFV: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc97";
const VOLUME: &str = "7c1e9a3b-2f4d-4a6c-8b0e-1d2f3a4b5c01";

fn cloud(source_state: &str, extra: &str) -> Cloud {
    let toml = format!(
        r#"
[nova]
service_down_time = 60
report_interval = 10
[timing]
rebuild_s = 5
{extra}
[[hosts]]
name = "compute-1"
{source_state}
[[hosts]]
name = "compute-2"
[[instances]]
id = "{VM}"
name = "vm"
host = "compute-1"
[[instances]]
id = "{BFV}"
name = "bfv"
host = "compute-1"
volume = "{VOLUME}"
"#
    );
    Cloud::new(Scenario::parse(&toml).unwrap(), Logs::default())
}

fn ids() -> RequestIds {
    RequestIds {
        request_id: "req-9d369ea4-1812-4aee-b334-fdb0aa9ddd27".into(),
        ..RequestIds::default()
    }
}

fn v(minor: u16) -> Microversion {
    Microversion::new(2, minor)
}

#[test]
fn nova_sees_a_dead_host_down_service_down_time_after_its_last_heartbeat() {
    let cloud = cloud("dies_at_s = 25", "");
    let service = cloud.compute_service("compute-1").unwrap().clone();
    // Heartbeats at 0, 10, 20; none after it dies at 25.
    assert_eq!(cloud.last_heartbeat(&service, 24.0), 20.0);
    assert_eq!(cloud.last_heartbeat(&service, 500.0), 20.0);
    assert!(cloud.service_is_up(&service, 80.0));
    assert!(!cloud.service_is_up(&service, 80.5));
    let mut forced = service.clone();
    forced.forced_down = true;
    assert!(!cloud.service_is_up(&forced, 0.0));
    let live = cloud.compute_service("compute-2").unwrap();
    assert!(cloud.service_is_up(live, 1e6));
    let down = super::state::Cloud::new(
        Scenario::parse("[[hosts]]\nname = \"c\"\nstate = \"down\"\n").unwrap(),
        Logs::default(),
    );
    assert!(!down.service_is_up(down.compute_service("c").unwrap(), 0.0));
}

#[test]
fn a_report_interval_not_below_service_down_time_is_raised_as_nova_does() {
    let cloud = Cloud::new(
        Scenario::parse("[nova]\nservice_down_time = 10\nreport_interval = 10\n").unwrap(),
        Logs::default(),
    );
    assert_eq!(cloud.service_down_time, 25.0);
}

#[test]
fn evacuate_bodies_follow_the_microversion() {
    let mut cloud = cloud("state = \"down\"", "");
    let refused = |cloud: &mut Cloud, body: serde_json::Value, version| {
        cloud.evacuate(VM, &body, version, &ids()).unwrap_err()
    };
    let r = refused(&mut cloud, json!({}), v(1));
    assert!(
        r.message
            .contains("'onSharedStorage' is a required property"),
        "{r:?}"
    );
    let r = refused(&mut cloud, json!({"onSharedStorage": false}), v(14));
    assert!(
        r.message.contains("'onSharedStorage' was unexpected"),
        "{r:?}"
    );
    let r = refused(&mut cloud, json!({"force": true}), v(29));
    assert_eq!(r.message, "Can't force to a non-provided destination");
    let r = refused(
        &mut cloud,
        json!({"host": "compute-2", "force": true}),
        v(68),
    );
    assert!(r.message.contains("'force' was unexpected"), "{r:?}");
    let r = refused(&mut cloud, json!({"host": "compute-1"}), v(53));
    assert_eq!(
        (r.status, r.message.as_str()),
        (400, "The target host can't be the same one.")
    );
    let r = refused(&mut cloud, json!({"host": "compute-9"}), v(53));
    assert_eq!(
        (r.status, r.message.as_str()),
        (404, "Compute host compute-9 not found.")
    );
    let r = cloud.evacuate(
        "00000000-0000-4000-8000-000000000000",
        &json!({}),
        v(53),
        &ids(),
    );
    assert_eq!(r.unwrap_err().status, 404);
    // 2.29 with force and a host is accepted.
    cloud
        .evacuate(
            VM,
            &json!({"host": "compute-2", "force": true}),
            v(29),
            &ids(),
        )
        .unwrap();
}

#[test]
fn a_server_locked_by_someone_else_or_rebuilding_is_a_conflict() {
    let mut cloud = cloud("state = \"down\"", "");
    cloud.server_mut(VM).unwrap().locked = Some(super::model::LockOwner::Other);
    let r = cloud.evacuate(VM, &json!({}), v(53), &ids()).unwrap_err();
    assert_eq!(
        (r.status, r.message),
        (409, format!("Instance {VM} is locked"))
    );
    cloud.unlock(VM, &ids()).unwrap();
    cloud.lock(VM, None, &ids()).unwrap();
    // Our own lock does not stop us.
    cloud.evacuate(VM, &json!({}), v(53), &ids()).unwrap();
    let r = cloud.evacuate(VM, &json!({}), v(53), &ids()).unwrap_err();
    assert_eq!(r.status, 409);
    let actions: Vec<&str> = cloud
        .server(VM)
        .unwrap()
        .actions
        .iter()
        .map(|a| a.action.as_str())
        .collect();
    assert_eq!(actions, ["unlock", "lock", "evacuate"]);
}

#[test]
fn a_volume_on_the_dead_host_holds_the_rebuild_until_attachment_hold() {
    let mut cloud = cloud("state = \"down\"", "attachment_hold = 100");
    cloud.evacuate(BFV, &json!({}), v(53), &ids()).unwrap();
    cloud.evacuate(VM, &json!({}), v(95), &ids()).unwrap();
    cloud.advance(50.0);
    let held = cloud.server(BFV).unwrap();
    assert_eq!(
        (held.host.as_str(), held.task_state.as_deref()),
        ("compute-1", Some("rebuilding"))
    );
    // The image-backed one went on (spawning for rebuild_s); at 2.95 it ends stopped.
    let spawning = cloud.server(VM).unwrap();
    assert_eq!(spawning.task_state.as_deref(), Some("rebuild_spawning"));
    cloud.advance(60.0);
    let moved = cloud.server(VM).unwrap();
    assert_eq!(
        (
            moved.host.as_str(),
            moved.vm_state.as_str(),
            moved.task_state.as_deref()
        ),
        ("compute-2", "stopped", None)
    );
    cloud.advance(101.0);
    assert_eq!(
        cloud.server(BFV).unwrap().task_state.as_deref(),
        Some("rebuild_spawning")
    );
    cloud.advance(106.0);
    let done = cloud.server(BFV).unwrap();
    assert_eq!(
        (
            done.host.as_str(),
            done.vm_state.as_str(),
            done.task_state.as_deref()
        ),
        ("compute-2", "active", None)
    );
    let volume = &cloud.volumes[0];
    assert_eq!(volume.attachments.len(), 1);
    assert_eq!(volume.attachments[0].host_name, "compute-2");
    assert_eq!(
        cloud
            .migrations
            .iter()
            .filter(|m| m.status == "done")
            .count(),
        2
    );
}

#[test]
fn with_no_live_host_left_the_conductor_fails_the_rebuild() {
    let mut cloud = cloud("state = \"down\"", "");
    let service = cloud
        .services
        .iter_mut()
        .find(|s| s.host == "compute-2")
        .unwrap();
    service.disabled = true;
    cloud.evacuate(VM, &json!({}), v(53), &ids()).unwrap();
    cloud.advance(1.0);
    let failed = cloud.server(VM).unwrap();
    assert_eq!(
        (failed.vm_state.as_str(), failed.task_state.as_deref()),
        ("error", None)
    );
    assert_eq!(cloud.migrations[0].status, "error");
}
