//! `openstack server event list <server>` (columns `Request ID, Server ID, Action,
//! Start Time`) and `--long` (+ `Message, Project ID, User ID`). Nova's own
//! `instanceActions` JSON (`request_id, instance_uuid, action, start_time, …`) is read
//! too.

use serde::{Deserialize, Serialize};

use super::fields::{Obj, has, text};

/// One instance action (`evacuate`, `lock`, `stop`, `rebuild`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ServerEvent {
    /// `Request ID` (`req-…`).
    pub request_id: String,
    /// `Server ID`.
    pub server_id: Option<String>,
    /// `Action`.
    pub action: String,
    /// `Start Time`, as printed.
    pub start_time: Option<String>,
    /// `Message` (`--long`), e.g. `Error`.
    pub message: Option<String>,
    /// `Project ID` (`--long`).
    pub project_id: Option<String>,
    /// `User ID` (`--long`).
    pub user_id: Option<String>,
}

const REQUEST: &[&str] = &["Request ID", "request_id"];

impl ServerEvent {
    /// True when `obj` has the fields of an instance action.
    pub(crate) fn looks_like(obj: &Obj) -> bool {
        has(obj, REQUEST) && has(obj, &["Action"])
    }

    pub(crate) fn from_obj(obj: &Obj) -> Option<ServerEvent> {
        Some(ServerEvent {
            request_id: text(obj, REQUEST)?,
            server_id: text(obj, &["Server ID", "instance_uuid", "server_id"]),
            action: text(obj, &["Action"])?,
            start_time: text(obj, &["Start Time"]),
            message: text(obj, &["Message"]),
            project_id: text(obj, &["Project ID"]),
            user_id: text(obj, &["User ID"]),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::list_table;
    use super::super::{Capture, parse_capture};
    use super::*;

    const CAAD: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";

    fn events(c: Option<Capture>) -> (Option<String>, Vec<ServerEvent>) {
        match c {
            Some(Capture::ServerEvents { server_id, events }) => (server_id, events),
            other => panic!("not server events: {other:?}"),
        }
    }

    #[test]
    fn short_table() {
        let table = list_table(
            &["Request ID", "Server ID", "Action", "Start Time"],
            &[
                vec![
                    "req-5e0c2a1b-7f3d-4b8e-9c6a-2d1e0f9a8b7c",
                    CAAD,
                    "evacuate",
                    "2024-05-02T19:37:51.000000",
                ],
                vec![
                    "req-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
                    CAAD,
                    "lock",
                    "2024-05-02T19:24:20.000000",
                ],
                vec![
                    "req-0f9e8d7c-6b5a-4c3d-8e1f-0a9b8c7d6e5f",
                    CAAD,
                    "create",
                    "2024-04-30T08:12:31.000000",
                ],
            ],
        );
        let (id, ev) = events(parse_capture(&table));
        assert_eq!(id.as_deref(), Some(CAAD), "all rows agree");
        assert_eq!(ev.len(), 3);
        assert_eq!(ev[0].action, "evacuate");
        assert_eq!(
            ev[0].start_time.as_deref(),
            Some("2024-05-02T19:37:51.000000")
        );
        assert_eq!(ev[0].message, None);
    }

    #[test]
    fn long_table_with_command() {
        let table = list_table(
            &[
                "Request ID",
                "Server ID",
                "Action",
                "Start Time",
                "Message",
                "Project ID",
                "User ID",
            ],
            &[
                vec![
                    "req-5e0c2a1b-7f3d-4b8e-9c6a-2d1e0f9a8b7c",
                    CAAD,
                    "evacuate",
                    "2024-05-02T19:37:51.000000",
                    "None",
                    "a7d812868cb74f1a978035530f55f1d0",
                    "3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f",
                ],
                vec![
                    "req-1a2b3c4d-5e6f-4a8b-9c0d-1e2f3a4b5c6d",
                    CAAD,
                    "lock",
                    "2024-05-02T19:24:20.000000",
                    "Error",
                    "a7d812868cb74f1a978035530f55f1d0",
                    "3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f",
                ],
            ],
        );
        let text = format!("ubuntu@juju-c1:~$ openstack server event list --long {CAAD}\n{table}");
        let (id, ev) = events(parse_capture(&text));
        assert_eq!(id.as_deref(), Some(CAAD));
        assert_eq!(ev[1].message.as_deref(), Some("Error"));
        assert_eq!(
            ev[1].user_id.as_deref(),
            Some("3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f")
        );
    }

    #[test]
    fn json_yaml_and_grepped() {
        let json_text = format!(
            r#"[
  {{
    "Request ID": "req-5e0c2a1b-7f3d-4b8e-9c6a-2d1e0f9a8b7c",
    "Server ID": "{CAAD}",
    "Action": "evacuate",
    "Start Time": "2024-05-02T19:37:51.000000"
  }}
]"#
        );
        let (_, j) = events(parse_capture(&json_text));
        assert_eq!(j[0].action, "evacuate");
        let yaml = format!(
            "- Action: evacuate\n  Request ID: req-5e0c2a1b-7f3d-4b8e-9c6a-2d1e0f9a8b7c\n  \
             Server ID: {CAAD}\n  Start Time: '2024-05-02T19:37:51.000000'\n"
        );
        let (_, y) = events(parse_capture(&yaml));
        assert_eq!(y, j);
        let grepped = format!(
            "$ openstack server event list {CAAD} | grep evacuate\n\
             | req-5e0c2a1b-7f3d-4b8e-9c6a-2d1e0f9a8b7c | {CAAD} | evacuate | 2024-05-02T19:37:51.000000 |\n"
        );
        let (id, g) = events(parse_capture(&grepped));
        assert_eq!(id.as_deref(), Some(CAAD));
        assert_eq!(g, j);
    }

    #[test]
    fn nova_instance_actions_json() {
        let text = r#"{"instanceActions": [{"action": "evacuate", "instance_uuid": "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4", "request_id": "req-5e0c2a1b-7f3d-4b8e-9c6a-2d1e0f9a8b7c", "user_id": "u", "project_id": "p", "start_time": "2024-05-02T19:37:51.000000", "message": null, "updated_at": "2024-05-02T19:38:21.000000"}]}"#;
        let (id, ev) = events(parse_capture(text));
        assert_eq!(id.as_deref(), Some(CAAD));
        assert_eq!(
            ev[0].start_time.as_deref(),
            Some("2024-05-02T19:37:51.000000")
        );
    }
}
