//! `openstack notification vmove list <notification>` and `… vmove show <notification>
//! <vmove>` (python-masakariclient, Masakari 15.0.0 / 2023.1+). List columns: `uuid,
//! server_id, server_name, source_host, dest_host, start_time, end_time, type, status`;
//! show adds `created_at, updated_at, message`. JSON from the API itself names the
//! server `instance_uuid` / `instance_name`.

use serde::{Deserialize, Serialize};

use super::fields::{Obj, has, text};

/// One VM move of a host-failure notification.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Vmove {
    /// `uuid` of the move (absent from the API sample and some outputs).
    pub uuid: Option<String>,
    /// `server_id` (`instance_uuid`).
    pub server_id: String,
    /// `server_name` (`instance_name`).
    pub server_name: Option<String>,
    /// `source_host`.
    pub source_host: Option<String>,
    /// `dest_host`, set after a successful evacuation.
    pub dest_host: Option<String>,
    /// `start_time`, set when the move turns `ongoing`.
    pub start_time: Option<String>,
    /// `end_time`.
    pub end_time: Option<String>,
    /// `type`: `evacuation` (the only one the engine creates), `migration`, `live_migration`.
    pub move_type: Option<String>,
    /// `status`: `pending`, `ongoing`, `ignored`, `failed`, `succeeded`.
    pub status: Option<String>,
    /// `message` (show only), the error of a failed move.
    pub message: Option<String>,
}

const SERVER: &[&str] = &["server_id", "instance_uuid"];

impl Vmove {
    /// True when `obj` has the fields of a VM move.
    pub(crate) fn looks_like(obj: &Obj) -> bool {
        has(obj, SERVER) && has(obj, &["source_host", "dest_host"])
    }

    pub(crate) fn from_obj(obj: &Obj) -> Option<Vmove> {
        Some(Vmove {
            uuid: text(obj, &["uuid"]),
            server_id: text(obj, SERVER)?,
            server_name: text(obj, &["server_name", "instance_name"]),
            source_host: text(obj, &["source_host"]),
            dest_host: text(obj, &["dest_host"]),
            start_time: text(obj, &["start_time"]),
            end_time: text(obj, &["end_time"]),
            move_type: text(obj, &["type", "move_type"]),
            status: text(obj, &["status"]),
            message: text(obj, &["message"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::{list_table, show_table};
    use super::super::{Capture, parse_capture, parse_captures};
    use super::*;

    const COLUMNS: &[&str] = &[
        "uuid",
        "server_id",
        "server_name",
        "source_host",
        "dest_host",
        "start_time",
        "end_time",
        "type",
        "status",
    ];

    fn moves(c: Option<Capture>) -> (Option<String>, Vec<Vmove>) {
        match c {
            Some(Capture::VmoveList {
                notification_id,
                moves,
            }) => (notification_id, moves),
            other => panic!("not a vmove list: {other:?}"),
        }
    }

    #[test]
    fn list_table_pending_and_succeeded() {
        let table = list_table(
            COLUMNS,
            &[
                vec![
                    "6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f",
                    "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4",
                    "bfv-vm-1",
                    "node03",
                    "None",
                    "None",
                    "None",
                    "evacuation",
                    "pending",
                ],
                vec![
                    "8b2d1e3f-4a5b-4c6d-9e0f-1a2b3c4d5e6f",
                    "0e7d4a61-3b2c-4f8e-9a1d-5c6b7a8e9f01",
                    "web-1",
                    "node03",
                    "node01",
                    "2024-05-02T19:24:20.000000",
                    "2024-05-02T19:26:47.000000",
                    "evacuation",
                    "succeeded",
                ],
            ],
        );
        let text = format!(
            "$ openstack notification vmove list 0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10\n{table}"
        );
        let (id, m) = moves(parse_capture(&text));
        assert_eq!(id.as_deref(), Some("0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10"));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].status.as_deref(), Some("pending"));
        assert_eq!(m[0].start_time, None);
        assert_eq!(m[0].dest_host, None);
        assert_eq!(m[1].dest_host.as_deref(), Some("node01"));
        assert_eq!(m[1].end_time.as_deref(), Some("2024-05-02T19:26:47.000000"));
        // Without the command line, the columns alone identify it.
        let (id, m2) = moves(parse_capture(&table));
        assert_eq!(id, None);
        assert_eq!(m2, m);
    }

    #[test]
    fn api_json_with_instance_keys() {
        let text = r#"{
    "vmoves": [
        {
            "created_at": "2023-01-28T14:55:27.000000",
            "updated_at": null,
            "deleted_at": null,
            "deleted": false,
            "id": 1,
            "notification_uuid": "a0e70d3a-b3a2-4616-b65d-a7c03a2c85fc",
            "instance_uuid": "1c2f1795-ce78-4d4c-afd0-ce141fdb3952",
            "instance_name": "vm1",
            "source_host": "host1",
            "dest_host": "host2",
            "start_time": "2023-01-28T14:55:27.000000",
            "end_time": "2023-01-28T14:55:31.000000",
            "status": "succeeded",
            "type": "evacuation",
            "message": null
        }
    ]
}"#;
        let (id, m) = moves(parse_capture(text));
        assert_eq!(id.as_deref(), Some("a0e70d3a-b3a2-4616-b65d-a7c03a2c85fc"));
        assert_eq!(m[0].server_id, "1c2f1795-ce78-4d4c-afd0-ce141fdb3952");
        assert_eq!(m[0].server_name.as_deref(), Some("vm1"));
        assert_eq!(m[0].uuid, None);
        assert_eq!(m[0].message, None);
    }

    #[test]
    fn cli_json_and_yaml_lists() {
        let json_text = r#"$ openstack notification vmove list 0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10 -f json
[
  {
    "uuid": "6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f",
    "server_id": "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4",
    "server_name": "bfv-vm-1",
    "source_host": "node03",
    "dest_host": null,
    "start_time": null,
    "end_time": null,
    "type": "evacuation",
    "status": "pending"
  }
]
$ openstack notification vmove list 0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10 -f yaml
- dest_host: null
  end_time: null
  server_id: caad8b3d-c2c3-43ec-845f-7c5f056ebcd4
  server_name: bfv-vm-1
  source_host: node03
  start_time: null
  status: pending
  type: evacuation
  uuid: 6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f
$ openstack notification vmove list 0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10 -f json
[]
"#;
        let all = parse_captures(json_text);
        assert_eq!(all.len(), 3, "{all:#?}");
        let (_, j) = moves(all.first().cloned());
        let (_, y) = moves(all.get(1).cloned());
        let (id, empty) = moves(all.get(2).cloned());
        assert_eq!(j, y);
        assert_eq!(j[0].status.as_deref(), Some("pending"));
        assert_eq!(id.as_deref(), Some("0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10"));
        assert!(empty.is_empty());
    }

    #[test]
    fn show_table_with_message() {
        let table = show_table(
            &[
                ("created_at", "2026-03-02T10:14:05.000000"),
                ("updated_at", "2026-03-02T10:14:09.000000"),
                ("uuid", "6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f"),
                ("server_id", "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4"),
                ("server_name", "bfv-vm-1"),
                ("source_host", "node03"),
                ("dest_host", "None"),
                ("start_time", "2026-03-02T10:14:05.000000"),
                ("end_time", "2026-03-02T10:14:09.000000"),
                ("type", "evacuation"),
                ("status", "failed"),
                (
                    "message",
                    "Unknown Error (HTTP 503) while getting server caad8b3d-c2c3-43ec-845f-7c5f056ebcd4",
                ),
            ],
            Some(("message", 40)),
        );
        let text = format!(
            "# openstack notification vmove show 0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10 \
             6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f\n{table}"
        );
        let (id, m) = moves(parse_capture(&text));
        assert_eq!(id.as_deref(), Some("0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10"));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].status.as_deref(), Some("failed"));
        assert_eq!(
            m[0].message.as_deref(),
            Some(
                "Unknown Error (HTTP 503) while getting server caad8b3d-c2c3-43ec-845f-7c5f056ebcd4"
            )
        );
    }

    #[test]
    fn value_format_list() {
        let text = "\
$ openstack notification vmove list 0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10 -f value
6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f caad8b3d-c2c3-43ec-845f-7c5f056ebcd4 bfv-vm-1 node03 None None None evacuation pending
8b2d1e3f-4a5b-4c6d-9e0f-1a2b3c4d5e6f 0e7d4a61-3b2c-4f8e-9a1d-5c6b7a8e9f01 web-1 node03 node01 2024-05-02T19:24:20.000000 2024-05-02T19:26:47.000000 evacuation succeeded
";
        let (_, m) = moves(parse_capture(text));
        assert_eq!(m.len(), 2);
        assert_eq!(m[0].dest_host, None);
        assert_eq!(m[1].status.as_deref(), Some("succeeded"));
    }
}
