//! `openstack volume show <id>` (`id, name, status, multiattach, bootable,
//! attachments, volume_type, os-vol-host-attr:host, …`; `attachments` is a list of
//! dicts with `server_id, host_name, attachment_id, device, …`) and `openstack volume
//! attachment list` (`ID, Volume ID, Server ID, Status`).

use serde::{Deserialize, Serialize};

use super::fields::{Obj, flag, get, has, objects_of, text};

/// A Cinder volume, as `volume show` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Volume {
    /// `id` (or the command line's argument when the output lacks it, as after
    /// `| grep multiattach`; may then be a name).
    pub id: String,
    /// `name`.
    pub name: Option<String>,
    /// `status`: `available`, `in-use`, `reserved`, `attaching`, `detaching`, `error`, …
    pub status: Option<String>,
    /// `multiattach`.
    pub multiattach: Option<bool>,
    /// `bootable` (Cinder prints `true`/`false`).
    pub bootable: Option<bool>,
    /// `attachments`.
    pub attachments: Vec<VolumeAttachment>,
    /// `volume_type` (`type` in older clients).
    pub volume_type: Option<String>,
    /// `os-vol-host-attr:host`: the cinder-volume backend (`host@backend#pool`).
    pub host: Option<String>,
}

/// One attachment of a volume, or one row of `volume attachment list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VolumeAttachment {
    /// `attachment_id` / `ID`.
    pub attachment_id: Option<String>,
    /// `volume_id` / `Volume ID`.
    pub volume_id: Option<String>,
    /// `server_id` / `Server ID`.
    pub server_id: Option<String>,
    /// `host_name`: the compute host the volume is attached on.
    pub host_name: Option<String>,
    /// `Status` (`attached`, `reserved`, `attaching`, `detached`, `error_attaching`, …);
    /// `volume show` does not print it.
    pub status: Option<String>,
    /// `device`, e.g. `/dev/vda`.
    pub device: Option<String>,
    /// `attached_at`.
    pub attached_at: Option<String>,
}

impl Volume {
    /// True when `obj` has fields only a volume has.
    pub(crate) fn looks_like(obj: &Obj) -> bool {
        has(obj, &["multiattach", "bootable", "os-vol-host-attr:host"])
            || (has(obj, &["attachments"]) && has(obj, &["size"]))
    }

    pub(crate) fn from_obj(obj: &Obj, id: Option<&str>) -> Option<Volume> {
        Some(Volume {
            id: text(obj, &["id", "ID"]).or_else(|| id.map(str::to_string))?,
            name: text(obj, &["name"]),
            status: text(obj, &["status"]),
            multiattach: flag(obj, &["multiattach"]),
            bootable: flag(obj, &["bootable"]),
            attachments: get(obj, &["attachments"])
                .map(|v| {
                    objects_of(v)
                        .iter()
                        .map(VolumeAttachment::from_obj)
                        .collect()
                })
                .unwrap_or_default(),
            volume_type: text(obj, &["volume_type", "type"]),
            host: text(obj, &["os-vol-host-attr:host"]),
        })
    }
}

impl VolumeAttachment {
    /// True when `obj` has the fields of an attachment list row.
    pub(crate) fn looks_like(obj: &Obj) -> bool {
        has(obj, &["Volume ID"]) && has(obj, &["Server ID", "instance", "instance_uuid"])
    }

    pub(crate) fn from_obj(obj: &Obj) -> VolumeAttachment {
        VolumeAttachment {
            attachment_id: text(obj, &["attachment_id", "ID"]),
            volume_id: text(obj, &["volume_id"]),
            server_id: text(obj, &["server_id", "instance_uuid", "instance"]),
            host_name: text(obj, &["host_name", "attached_host", "host"]),
            status: text(obj, &["status", "attach_status"]),
            device: text(obj, &["device", "mountpoint"]),
            attached_at: text(obj, &["attached_at"]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{list_table, show_table};
    use super::super::{Capture, parse_capture};
    use super::*;

    const VOL: &str = "35ab2ef8-5508-4401-bff4-06c2f119c225";
    const CAAD: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";

    fn volume(c: Option<Capture>) -> Volume {
        match c {
            Some(Capture::Volume(v)) => v,
            other => panic!("not a volume: {other:?}"),
        }
    }

    #[test]
    fn seed_grep_multiattach() {
        let text = "  $ openstack volume show 35ab2ef8-5508-4401-bff4-06c2f119c225 | grep multiattach\n  \
                    | multiattach | False |\n";
        let v = volume(parse_capture(text));
        assert_eq!(v.id, VOL);
        assert_eq!(v.multiattach, Some(false));
        assert_eq!(v.status, None);
        assert!(v.attachments.is_empty());
    }

    #[test]
    fn show_table_with_attachments() {
        let attachments = format!(
            "[{{'id': '{VOL}', 'attachment_id': '7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09', \
             'volume_id': '{VOL}', 'server_id': '{CAAD}', 'host_name': 'node03', \
             'device': '/dev/vda', 'attached_at': '2024-04-30T08:12:40.000000'}}]"
        );
        let table = show_table(
            &[
                ("attachments", &attachments),
                ("availability_zone", "nova"),
                ("bootable", "true"),
                ("consistencygroup_id", "None"),
                ("created_at", "2024-04-30T08:12:20.000000"),
                ("description", ""),
                ("encrypted", "False"),
                ("id", VOL),
                ("multiattach", "False"),
                ("name", ""),
                (
                    "os-vol-host-attr:host",
                    "cinder-volume@pure-iscsi#pure-iscsi",
                ),
                (
                    "os-vol-tenant-attr:tenant_id",
                    "a7d812868cb74f1a978035530f55f1d0",
                ),
                ("properties", ""),
                ("replication_status", "None"),
                ("size", "20"),
                ("snapshot_id", "None"),
                ("source_volid", "None"),
                ("status", "in-use"),
                ("type", "pure-iscsi"),
                ("updated_at", "2024-05-02T19:38:20.000000"),
                ("user_id", "9942eb4321644336a0c7383d9f1c2bed"),
                ("volume_image_metadata", "{'image_name': 'jammy'}"),
            ],
            Some(("attachments", 64)),
        );
        let v = volume(parse_capture(&table));
        assert_eq!(v.id, VOL);
        assert_eq!(v.name, None);
        assert_eq!(v.status.as_deref(), Some("in-use"));
        assert_eq!(v.bootable, Some(true));
        assert_eq!(v.multiattach, Some(false));
        assert_eq!(v.volume_type.as_deref(), Some("pure-iscsi"));
        assert_eq!(
            v.host.as_deref(),
            Some("cinder-volume@pure-iscsi#pure-iscsi")
        );
        let a = &v.attachments[0];
        assert_eq!(a.server_id.as_deref(), Some(CAAD));
        assert_eq!(a.host_name.as_deref(), Some("node03"));
        assert_eq!(
            a.attachment_id.as_deref(),
            Some("7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09")
        );
        assert_eq!(a.device.as_deref(), Some("/dev/vda"));
    }

    #[test]
    fn show_json_and_yaml() {
        let json_text = format!(
            r#"{{
  "attachments": [
    {{
      "id": "{VOL}",
      "attachment_id": "7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09",
      "volume_id": "{VOL}",
      "server_id": "{CAAD}",
      "host_name": "node03",
      "device": "/dev/vda",
      "attached_at": "2024-04-30T08:12:40.000000"
    }}
  ],
  "bootable": "true",
  "id": "{VOL}",
  "multiattach": false,
  "status": "in-use",
  "type": "pure-iscsi"
}}"#
        );
        let j = volume(parse_capture(&json_text));
        assert_eq!(j.multiattach, Some(false));
        assert_eq!(j.attachments[0].host_name.as_deref(), Some("node03"));
        let yaml = format!(
            "attachments:\n- attached_at: '2024-04-30T08:12:40.000000'\n  \
             attachment_id: 7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09\n  device: /dev/vda\n  \
             host_name: node03\n  id: {VOL}\n  server_id: {CAAD}\n  volume_id: {VOL}\n\
             bootable: 'true'\nid: {VOL}\nmultiattach: false\nstatus: in-use\ntype: pure-iscsi\n"
        );
        let y = volume(parse_capture(&yaml));
        assert_eq!(y, j);
    }

    #[test]
    fn attachment_list_table_json_yaml() {
        let table = list_table(
            &["ID", "Volume ID", "Server ID", "Status"],
            &[
                vec![
                    "7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09",
                    VOL,
                    CAAD,
                    "attached",
                ],
                vec![
                    "e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b",
                    VOL,
                    CAAD,
                    "reserved",
                ],
            ],
        );
        let text =
            format!("$ openstack --os-volume-api-version 3.27 volume attachment list\n{table}");
        let Some(Capture::VolumeAttachments(rows)) = parse_capture(&text) else {
            panic!("not attachments");
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[1].status.as_deref(), Some("reserved"));
        assert_eq!(rows[0].volume_id.as_deref(), Some(VOL));
        assert_eq!(
            rows[0].attachment_id.as_deref(),
            Some("7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09")
        );
        let json_text = format!(
            r#"[{{"ID": "7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09", "Volume ID": "{VOL}", "Server ID": "{CAAD}", "Status": "attached"}}]"#
        );
        let Some(Capture::VolumeAttachments(j)) = parse_capture(&json_text) else {
            panic!("not attachments");
        };
        assert_eq!(j[0], rows[0]);
        let yaml = format!(
            "- ID: 7d3c2b1a-0f9e-4d8c-b7a6-5e4d3c2b1a09\n  Server ID: {CAAD}\n  Status: attached\n  Volume ID: {VOL}\n"
        );
        let Some(Capture::VolumeAttachments(y)) = parse_capture(&yaml) else {
            panic!("not attachments");
        };
        assert_eq!(y[0], rows[0]);
    }
}
