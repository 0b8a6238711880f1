//! JSON views of the cloud's records, as Nova and Cinder render them at a microversion.

use serde_json::{Value, json};

use crate::sim::clock::api_time;
use crate::sim::cloud::model::{Migration, Server, Service, Volume};
use crate::sim::cloud::state::Cloud;
use crate::sim::microversion::Microversion;

/// Nova's `status` for a vm_state and task_state.
fn server_status(server: &Server) -> &'static str {
    match (server.vm_state.as_str(), server.task_state.as_deref()) {
        (_, Some("rebuilding" | "rebuild_spawning" | "rebuild_block_device_mapping")) => "REBUILD",
        ("active", _) => "ACTIVE",
        ("stopped", _) => "SHUTOFF",
        ("error", _) => "ERROR",
        ("building", _) => "BUILD",
        _ => "UNKNOWN",
    }
}

/// Nova's `hostId`: a hash of the project and the host, the same for both.
fn host_id(project: &str, host: &str) -> String {
    use sha2::{Digest, Sha224};
    hex::encode(Sha224::digest(format!("{project}{host}").as_bytes()))
}

/// A server as `GET /servers/{id}` and `/servers/detail` show it.
pub fn server(cloud: &Cloud, s: &Server, version: Microversion, base: &str) -> Value {
    let at = |t: f64| cloud.clock.at(t).strftime("%Y-%m-%dT%H:%M:%SZ").to_string();
    let now = cloud.now();
    let service = cloud.compute_service(&s.host);
    let mut metadata = serde_json::Map::new();
    if s.ha_enabled {
        metadata.insert("HA_Enabled".into(), json!("True"));
    }
    let volumes: Vec<Value> = s
        .volume
        .iter()
        .map(|v| {
            let mut entry = json!({"id": v});
            if version >= Microversion::new(2, 3) {
                entry["delete_on_termination"] = json!(false);
            }
            entry
        })
        .collect();
    let power_state = if s.vm_state == "active" { 1 } else { 4 };
    let mut body = json!({
        "id": s.id,
        "name": s.name,
        "status": server_status(s),
        "tenant_id": cloud.project_id,
        "user_id": cloud.user_id,
        "metadata": metadata,
        "hostId": host_id(&cloud.project_id, &s.host),
        "image": if s.volume.is_some() { json!("") } else { json!({"id": "5e2b2e0c-9c42-4f64-9a5c-000000000001"}) },
        "flavor": {"id": "m1.small", "links": []},
        "created": at(s.created_s),
        "updated": at(s.updated_s),
        "addresses": {},
        "accessIPv4": "",
        "accessIPv6": "",
        "links": [{"rel": "self", "href": format!("{base}/compute/v2.1/servers/{}", s.id)}],
        "OS-DCF:diskConfig": "MANUAL",
        "OS-EXT-AZ:availability_zone": "nova",
        "OS-EXT-SRV-ATTR:host": s.host,
        "OS-EXT-SRV-ATTR:hypervisor_hostname": s.host,
        "OS-EXT-SRV-ATTR:instance_name": s.instance_name,
        "OS-EXT-STS:power_state": power_state,
        "OS-EXT-STS:task_state": s.task_state,
        "OS-EXT-STS:vm_state": s.vm_state,
        "OS-SRV-USG:launched_at": api_time(cloud.clock.at(s.created_s)),
        "OS-SRV-USG:terminated_at": null,
        "os-extended-volumes:volumes_attached": volumes,
        "config_drive": "",
        "key_name": null,
        "progress": 0,
        "security_groups": [{"name": "default"}],
    });
    if version >= Microversion::new(2, 9) {
        body["locked"] = json!(s.locked.is_some());
    }
    if version >= Microversion::new(2, 73) {
        body["locked_reason"] = json!(s.locked_reason);
    }
    if version >= Microversion::new(2, 16) {
        let status = match service {
            Some(svc) if svc.forced_down => "DOWN",
            Some(svc) if !cloud.service_is_up(svc, now) => "UNKNOWN",
            Some(svc) if svc.disabled => "MAINTENANCE",
            Some(_) => "UP",
            None => "",
        };
        body["host_status"] = json!(status);
    }
    body
}

/// A service as `os-services` shows it (UUID ids from 2.53).
pub fn service(cloud: &Cloud, s: &Service, version: Microversion, now: f64) -> Value {
    let id = if version >= Microversion::new(2, 53) {
        json!(s.uuid)
    } else {
        json!(s.id)
    };
    let mut body = json!({
        "id": id,
        "binary": s.binary,
        "host": s.host,
        "zone": if s.binary == "nova-compute" { "nova" } else { "internal" },
        "status": if s.disabled { "disabled" } else { "enabled" },
        "state": if cloud.service_is_up(s, now) { "up" } else { "down" },
        "updated_at": api_time(cloud.clock.at(cloud.last_heartbeat(s, now))),
        "disabled_reason": s.disabled_reason,
    });
    if version >= Microversion::new(2, 11) {
        body["forced_down"] = json!(s.forced_down);
    }
    body
}

/// A migration as `os-migrations` shows it.
pub fn migration(cloud: &Cloud, m: &Migration, version: Microversion) -> Value {
    let at = |t: f64| api_time(cloud.clock.at(t));
    let mut body = json!({
        "id": m.id,
        "instance_uuid": m.instance,
        "source_compute": m.source,
        "source_node": m.source,
        "dest_compute": m.destination,
        "dest_node": m.destination,
        "dest_host": m.destination.as_ref().map(|_| "127.0.0.1"),
        "status": m.status,
        "migration_type": "evacuation",
        "created_at": at(m.created_s),
        "updated_at": at(m.updated_s),
        "old_instance_type_id": 1,
        "new_instance_type_id": 1,
        "source_region": cloud.scenario.auth.region,
        "dest_region": cloud.scenario.auth.region,
    });
    if version >= Microversion::new(2, 59) {
        body["uuid"] = json!(m.uuid);
    }
    if version >= Microversion::new(2, 80) {
        body["user_id"] = json!(cloud.user_id);
        body["project_id"] = json!(cloud.project_id);
    }
    body
}

/// A volume as Cinder shows it.
pub fn volume(cloud: &Cloud, v: &Volume, base: &str) -> Value {
    let at = |t: f64| api_time(cloud.clock.at(t));
    let attachments: Vec<Value> = v
        .attachments
        .iter()
        .map(|a| {
            json!({
                "id": v.id,
                "attachment_id": a.id,
                "volume_id": v.id,
                "server_id": a.server_id,
                "host_name": a.host_name,
                "device": "/dev/vda",
                "attached_at": at(a.attached_s),
            })
        })
        .collect();
    json!({
        "id": v.id,
        "name": v.name,
        "status": v.status,
        "size": v.size,
        "multiattach": v.multiattach,
        "bootable": "true",
        "attachments": attachments,
        "availability_zone": "nova",
        "volume_type": if v.multiattach { "multiattach" } else { "__DEFAULT__" },
        "encrypted": false,
        "replication_status": null,
        "snapshot_id": null,
        "source_volid": null,
        "description": null,
        "metadata": {},
        "user_id": cloud.user_id,
        "os-vol-tenant-attr:tenant_id": cloud.project_id,
        "os-vol-host-attr:host": "controller@lvm#lvm",
        "created_at": at(v.created_s),
        "updated_at": at(v.updated_s),
        "links": [{"rel": "self", "href": format!("{base}/volume/v3/{}/volumes/{}", cloud.project_id, v.id)}],
    })
}
