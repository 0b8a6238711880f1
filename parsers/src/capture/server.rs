//! `openstack server show <id>` (python-openstackclient): `id, name, status,
//! OS-EXT-SRV-ATTR:host, OS-EXT-SRV-ATTR:hypervisor_hostname, OS-EXT-STS:vm_state,
//! OS-EXT-STS:task_state, OS-EXT-STS:power_state, locked, volumes_attached, image,
//! updated, …`. A boot-from-volume server shows `image` as `""` (older clients) or
//! `N/A (booted from volume)`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fields::{Obj, flag, get, has, is_absent, text, text_of};
use crate::text::uuids_in;

/// A Nova server, as `server show` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Server {
    /// `id` (or the command line's argument when the output lacks it; may be a name).
    pub id: String,
    /// `name`.
    pub name: Option<String>,
    /// `status`: `ACTIVE`, `SHUTOFF`, `ERROR`, `REBUILD`, …
    pub status: Option<String>,
    /// `OS-EXT-SRV-ATTR:host`: the compute service host.
    pub host: Option<String>,
    /// `OS-EXT-SRV-ATTR:hypervisor_hostname`.
    pub hypervisor_hostname: Option<String>,
    /// `OS-EXT-STS:vm_state`.
    pub vm_state: Option<String>,
    /// `OS-EXT-STS:task_state` (absent when `None`).
    pub task_state: Option<String>,
    /// `OS-EXT-STS:power_state` (`Running`, `Shutdown`, `NOSTATE`, …).
    pub power_state: Option<String>,
    /// `locked`.
    pub locked: Option<bool>,
    /// Volume ids of `volumes_attached`.
    pub volumes_attached: Vec<String>,
    /// `image` as printed (absent for a boot-from-volume server).
    pub image: Option<String>,
    /// From `image`: `Some(true)` when it is empty or `N/A (booted from volume)`,
    /// `Some(false)` when it names an image, `None` when the output has no `image`.
    pub boot_from_volume: Option<bool>,
    /// `updated`.
    pub updated: Option<String>,
}

const HOST: &[&str] = &["OS-EXT-SRV-ATTR:host", "host", "compute_host"];
const HYPERVISOR: &[&str] = &["OS-EXT-SRV-ATTR:hypervisor_hostname", "hypervisor_hostname"];
const VM_STATE: &[&str] = &["OS-EXT-STS:vm_state", "vm_state"];

impl Server {
    /// True when `obj` has fields only a server has.
    pub(crate) fn looks_like(obj: &Obj) -> bool {
        has(
            obj,
            &[HOST[0], HYPERVISOR[0], VM_STATE[0], "OS-EXT-STS:task_state"],
        ) || (has(obj, &["flavor"]) && has(obj, &["id"]) && has(obj, &["status"]))
    }

    pub(crate) fn from_obj(obj: &Obj, id: Option<&str>) -> Option<Server> {
        let image_value = get(obj, &["image"]);
        let image = image_value.and_then(image_text);
        let boot_from_volume = image_value.map(|_| image.is_none());
        Some(Server {
            id: text(obj, &["id", "ID"]).or_else(|| id.map(str::to_string))?,
            name: text(obj, &["name"]),
            status: text(obj, &["status"]),
            host: text(obj, HOST),
            hypervisor_hostname: text(obj, HYPERVISOR),
            vm_state: text(obj, VM_STATE),
            task_state: text(obj, &["OS-EXT-STS:task_state", "task_state"]),
            power_state: text(obj, &["OS-EXT-STS:power_state", "power_state"]),
            locked: flag(obj, &["locked"]),
            volumes_attached: get(
                obj,
                &["volumes_attached", "os-extended-volumes:volumes_attached"],
            )
            .map(volume_ids)
            .unwrap_or_default(),
            image,
            boot_from_volume,
            updated: text(obj, &["updated", "updated_at"]),
        })
    }
}

/// The image as text; `None` for the boot-from-volume spellings.
fn image_text(value: &Value) -> Option<String> {
    let t = match value {
        Value::Object(o) => o.get("name").or_else(|| o.get("id")).and_then(text_of),
        other => text_of(other),
    }?;
    let bfv = t.starts_with("N/A") || t == "{}" || t == "[]" || is_absent(&t);
    (!bfv).then_some(t)
}

/// Volume ids from `volumes_attached`: a list of `{"id": …}` (JSON/YAML), or table text
/// (`id='…'` lines, possibly with `delete_on_termination='False', `).
fn volume_ids(value: &Value) -> Vec<String> {
    match value {
        Value::Array(items) => items
            .iter()
            .filter_map(|item| match item {
                Value::Object(o) => o.get("id").and_then(text_of),
                other => text_of(other),
            })
            .collect(),
        Value::Object(o) => o.get("id").and_then(text_of).into_iter().collect(),
        Value::String(s) => uuids_in(s).map(str::to_string).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::show_table;
    use super::super::{Capture, parse_capture};
    use super::*;

    fn server(c: Option<Capture>) -> Server {
        match c {
            Some(Capture::Server(s)) => s,
            other => panic!("not a server: {other:?}"),
        }
    }

    const BFV_ROWS: &[(&str, &str)] = &[
        ("OS-DCF:diskConfig", "MANUAL"),
        ("OS-EXT-AZ:availability_zone", "nova"),
        ("OS-EXT-SRV-ATTR:host", "node03"),
        ("OS-EXT-SRV-ATTR:hypervisor_hostname", "node03.maas"),
        ("OS-EXT-SRV-ATTR:instance_name", "instance-0000002a"),
        ("OS-EXT-STS:power_state", "NOSTATE"),
        ("OS-EXT-STS:task_state", "None"),
        ("OS-EXT-STS:vm_state", "active"),
        ("OS-SRV-USG:launched_at", "2024-04-30T08:12:44.000000"),
        ("OS-SRV-USG:terminated_at", "None"),
        ("accessIPv4", ""),
        ("accessIPv6", ""),
        ("addresses", "internal=192.168.10.37"),
        ("config_drive", ""),
        ("created", "2024-04-30T08:12:31Z"),
        ("flavor", "m1.small (2)"),
        (
            "hostId",
            "5b1c8e0f6a7d2e4c9b3a1f0e8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a",
        ),
        ("id", "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4"),
        ("image", "N/A (booted from volume)"),
        ("key_name", "None"),
        ("locked", "False"),
        ("name", "bfv-vm-1"),
        ("progress", "0"),
        ("project_id", "a7d812868cb74f1a978035530f55f1d0"),
        ("properties", "HA_Enabled='True'"),
        ("security_groups", "name='default'"),
        ("status", "ACTIVE"),
        ("updated", "2024-05-02T19:24:20Z"),
        ("user_id", "9942eb4321644336a0c7383d9f1c2bed"),
        (
            "volumes_attached",
            "delete_on_termination='False', id='35ab2ef8-5508-4401-bff4-06c2f119c225'",
        ),
    ];

    #[test]
    fn bfv_table() {
        let table = show_table(BFV_ROWS, None);
        let s = server(parse_capture(&table));
        assert_eq!(s.id, "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4");
        assert_eq!(s.host.as_deref(), Some("node03"));
        assert_eq!(s.hypervisor_hostname.as_deref(), Some("node03.maas"));
        assert_eq!(s.vm_state.as_deref(), Some("active"));
        assert_eq!(s.task_state, None);
        assert_eq!(s.power_state.as_deref(), Some("NOSTATE"));
        assert_eq!(s.locked, Some(false));
        assert_eq!(s.volumes_attached, ["35ab2ef8-5508-4401-bff4-06c2f119c225"]);
        assert_eq!(s.image, None);
        assert_eq!(s.boot_from_volume, Some(true));
    }

    #[test]
    fn old_client_empty_image_and_multiline_volumes() {
        let mut rows: Vec<(&str, &str)> = BFV_ROWS
            .iter()
            .filter(|(k, _)| *k != "image" && *k != "volumes_attached")
            .copied()
            .collect();
        rows.push(("image", ""));
        let mut table = show_table(&rows, None);
        // An older client prints one `id='…'` line per volume.
        let last_border = table.trim_end().rfind('\n').unwrap();
        let width = table.lines().next().unwrap().len();
        let kw = table.lines().next().unwrap()[1..].find('+').unwrap() - 2;
        let vw = width - kw - 7;
        let row = |k: &str, v: &str| format!("| {k:<kw$} | {v:<vw$} |\n");
        let extra = row(
            "volumes_attached",
            "id='35ab2ef8-5508-4401-bff4-06c2f119c225'",
        ) + &row("", "id='4c1a7d2e-0b3f-4e5a-9c8d-7e6f5a4b3c2d'");
        table.insert_str(last_border + 1, &extra);
        let s = server(parse_capture(&table));
        assert_eq!(s.boot_from_volume, Some(true));
        assert_eq!(
            s.volumes_attached,
            [
                "35ab2ef8-5508-4401-bff4-06c2f119c225",
                "4c1a7d2e-0b3f-4e5a-9c8d-7e6f5a4b3c2d"
            ]
        );
    }

    #[test]
    fn json_and_yaml() {
        let json_text = r#"{
  "OS-EXT-SRV-ATTR:host": "node01",
  "OS-EXT-SRV-ATTR:hypervisor_hostname": "node01.maas",
  "OS-EXT-STS:task_state": "rebuilding",
  "OS-EXT-STS:vm_state": "active",
  "flavor": "m1.small (2)",
  "id": "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4",
  "image": "",
  "locked": true,
  "name": "bfv-vm-1",
  "status": "REBUILD",
  "updated": "2024-05-02T19:37:51Z",
  "volumes_attached": [{"delete_on_termination": false, "id": "35ab2ef8-5508-4401-bff4-06c2f119c225"}]
}"#;
        let j = server(parse_capture(json_text));
        assert_eq!(j.task_state.as_deref(), Some("rebuilding"));
        assert_eq!(j.locked, Some(true));
        assert_eq!(j.boot_from_volume, Some(true));
        assert_eq!(j.volumes_attached, ["35ab2ef8-5508-4401-bff4-06c2f119c225"]);
        let yaml = "\
$ openstack server show 0e7d4a61-3b2c-4f8e-9a1d-5c6b7a8e9f01 -f yaml
OS-EXT-SRV-ATTR:host: node01
OS-EXT-SRV-ATTR:hypervisor_hostname: node01.maas
OS-EXT-STS:task_state: null
OS-EXT-STS:vm_state: active
flavor: m1.small (2)
id: 0e7d4a61-3b2c-4f8e-9a1d-5c6b7a8e9f01
image: cirros-0.6.2 (a1b2c3d4-0000-4000-8000-00000000c1a0)
locked: false
name: web-1
status: ACTIVE
updated: '2024-05-02T19:26:45Z'
volumes_attached: []
";
        let y = server(parse_capture(yaml));
        assert_eq!(y.id, "0e7d4a61-3b2c-4f8e-9a1d-5c6b7a8e9f01");
        assert_eq!(y.task_state, None);
        assert_eq!(y.boot_from_volume, Some(false));
        assert_eq!(
            y.image.as_deref(),
            Some("cirros-0.6.2 (a1b2c3d4-0000-4000-8000-00000000c1a0)")
        );
        assert!(y.volumes_attached.is_empty());
        assert_eq!(y.updated.as_deref(), Some("2024-05-02T19:26:45Z"));
    }
}
