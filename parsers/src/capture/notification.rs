//! `openstack notification show <id>` and `openstack notification list`
//! (python-masakariclient). Show columns: `created_at, updated_at, notification_uuid,
//! type, status, source_host_uuid, generated_time, payload` (+
//! `recovery_workflow_details` from API 1.1, + `failover_segment_uuid, message` in
//! newer releases). List columns: `notification_uuid, generated_time, status, type,
//! source_host_uuid, payload`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::fields::{Obj, get, number_of, objects_of, structured, text, text_of};
use crate::time::{oslo_timestamp, rfc3339};

/// A Masakari notification, as `notification show` prints it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Notification {
    /// `notification_uuid` (or the command line's id when the output lacks it).
    pub notification_uuid: String,
    /// `type`: `COMPUTE_HOST`, `VM` or `PROCESS`.
    pub notification_type: Option<String>,
    /// `status`: `new`, `running`, `error`, `failed`, `ignored`, `finished`.
    pub status: Option<String>,
    /// `source_host_uuid`.
    pub source_host_uuid: Option<String>,
    /// `generated_time`, as printed.
    pub generated_time: Option<String>,
    /// `created_at`, as printed.
    pub created_at: Option<String>,
    /// `updated_at`, as printed.
    pub updated_at: Option<String>,
    /// `failover_segment_uuid` (newer releases).
    pub failover_segment_uuid: Option<String>,
    /// `message` (newer releases).
    pub message: Option<String>,
    /// `payload` (`{"event": "STOPPED", "host_status": "NORMAL", …}`).
    pub payload: Option<Value>,
    /// `recovery_workflow_details`: the taskflow tasks in the order printed.
    pub recovery_workflow_details: Vec<WorkflowTask>,
}

/// One task of `recovery_workflow_details`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WorkflowTask {
    /// `name`, e.g. `EvacuateInstancesTask`.
    pub name: String,
    /// `state`: the taskflow atom state (`SUCCESS`, `FAILURE`, `REVERTED`, …).
    pub state: Option<String>,
    /// `progress`, 0.0 to 1.0.
    pub progress: Option<f64>,
    /// `progress_details`, in order.
    pub details: Vec<ProgressDetail>,
}

/// One entry of a task's `progress_details`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProgressDetail {
    /// UTC, `YYYY-MM-DD HH:MM:SS.ffffff` (converted from `T`/offset forms; kept as
    /// written when it is not a time; empty when missing).
    pub timestamp: String,
    /// `progress` as written (a string such as `"0.5"` in the API).
    pub progress: Option<String>,
    /// `message`.
    pub message: String,
}

/// One row of `notification list`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NotificationRow {
    /// `notification_uuid`.
    pub notification_uuid: String,
    /// `generated_time`, as printed.
    pub generated_time: Option<String>,
    /// `status`.
    pub status: Option<String>,
    /// `type`.
    pub notification_type: Option<String>,
    /// `source_host_uuid`.
    pub source_host_uuid: Option<String>,
    /// `payload`.
    pub payload: Option<Value>,
}

const UUID: &[&str] = &["notification_uuid", "uuid"];
const TYPE: &[&str] = &["type", "notification_type"];

impl Notification {
    /// Reads a `notification show` record; `id` is the command line's argument.
    pub(crate) fn from_obj(obj: &Obj, id: Option<&str>) -> Option<Notification> {
        let notification_uuid = text(obj, UUID).or_else(|| id.map(str::to_string))?;
        let recovery_workflow_details = get(obj, &["recovery_workflow_details"])
            .map(|v| objects_of(v).iter().map(WorkflowTask::from_obj).collect())
            .unwrap_or_default();
        Some(Notification {
            notification_uuid,
            notification_type: text(obj, TYPE),
            status: text(obj, &["status"]),
            source_host_uuid: text(obj, &["source_host_uuid"]),
            generated_time: text(obj, &["generated_time"]),
            created_at: text(obj, &["created_at"]),
            updated_at: text(obj, &["updated_at"]),
            failover_segment_uuid: text(obj, &["failover_segment_uuid"]),
            message: text(obj, &["message"]),
            payload: structured(obj, &["payload"]),
            recovery_workflow_details,
        })
    }
}

impl WorkflowTask {
    fn from_obj(obj: &Obj) -> WorkflowTask {
        WorkflowTask {
            name: text(obj, &["name"]).unwrap_or_default(),
            state: text(obj, &["state"]),
            progress: get(obj, &["progress"]).and_then(number_of),
            details: get(obj, &["progress_details"])
                .map(|v| objects_of(v).iter().map(ProgressDetail::from_obj).collect())
                .unwrap_or_default(),
        }
    }
}

impl ProgressDetail {
    fn from_obj(obj: &Obj) -> ProgressDetail {
        ProgressDetail {
            timestamp: text(obj, &["timestamp"])
                .map(|t| utc_micros(&t))
                .unwrap_or_default(),
            progress: get(obj, &["progress"]).and_then(text_of),
            message: text(obj, &["message"]).unwrap_or_default(),
        }
    }
}

impl NotificationRow {
    pub(crate) fn from_obj(obj: &Obj) -> Option<NotificationRow> {
        Some(NotificationRow {
            notification_uuid: text(obj, UUID)?,
            generated_time: text(obj, &["generated_time"]),
            status: text(obj, &["status"]),
            notification_type: text(obj, TYPE),
            source_host_uuid: text(obj, &["source_host_uuid"]),
            payload: structured(obj, &["payload"]),
        })
    }
}

/// `2019-03-07 13:54:28.842031`, `2019-03-07T13:54:28.842031+02:00`, … as UTC
/// `YYYY-MM-DD HH:MM:SS.ffffff`; a zone-less time is taken as UTC (masakari writes UTC).
fn utc_micros(s: &str) -> String {
    let s = s.trim();
    let parsed = match rfc3339(s) {
        Ok((rest, ts)) if rest.trim().is_empty() => ts
            .to_utc()
            .map(|t| t.local)
            .or(Some(ts.local).filter(|_| ts.offset.is_none())),
        _ => match oslo_timestamp(s) {
            Ok((rest, dt)) if rest.trim().is_empty() => Some(dt),
            _ => None,
        },
    };
    match parsed {
        Some(dt) => format!(
            "{:04}-{:02}-{:02} {:02}:{:02}:{:02}.{:06}",
            dt.year,
            dt.month,
            dt.day,
            dt.hour,
            dt.minute,
            dt.second,
            dt.nanos / 1000
        ),
        None => s.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::super::testutil::show_table;
    use super::super::{Capture, parse_capture};
    use super::*;
    use serde_json::json;

    /// `recovery_workflow_details` as §3.3 of the reference shows it, for node02.
    const WORKFLOW_JSON: &str = r#"[{"progress": 1.0, "state": "SUCCESS", "name": "DisableComputeServiceTask", "progress_details": [{"timestamp": "2020-12-08 19:48:43.947001", "message": "Disabling compute service on host: 'node02ob100.maas'", "progress": "0.0"}, {"timestamp": "2020-12-08 19:48:44.203114", "message": "Disabled compute service on host: 'node02ob100.maas'", "progress": "1.0"}]}, {"progress": 1.0, "state": "SUCCESS", "name": "PrepareHAEnabledInstancesTask", "progress_details": [{"timestamp": "2020-12-08 19:50:57.002311", "message": "Preparing instances for evacuation", "progress": "0.0"}, {"timestamp": "2020-12-08 19:51:09.402178", "message": "Instances to be evacuated are: '56ce6206-3659-495e-a6ea-f4d3d578cc96'", "progress": "1.0"}]}, {"progress": 0.5, "state": "FAILURE", "name": "EvacuateInstancesTask", "progress_details": [{"timestamp": "2020-12-08 19:51:09.618334", "message": "Start evacuation of instances from failed host 'node02ob100.maas', instance uuids are: '56ce6206-3659-495e-a6ea-f4d3d578cc96'", "progress": "0.0"}, {"timestamp": "2020-12-08 19:51:15.120871", "message": "Failed to evacuate instances '56ce6206-3659-495e-a6ea-f4d3d578cc96' from host 'node02ob100.maas'", "progress": "1.0"}]}]"#;

    fn expect_notification(c: Option<Capture>) -> Notification {
        match c {
            Some(Capture::Notification(n)) => n,
            other => panic!("not a notification: {other:?}"),
        }
    }

    #[test]
    fn show_table_with_wrapped_workflow_json() {
        let text = show_table(
            &[
                ("created_at", "2020-12-08T19:48:43.000000"),
                ("updated_at", "2020-12-08T19:51:15.000000"),
                ("notification_uuid", "9ace2da7-97d1-48cb-a96a-08ad4624481b"),
                ("type", "COMPUTE_HOST"),
                ("status", "error"),
                ("source_host_uuid", "d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11"),
                ("generated_time", "2020-12-08T19:48:33.000000"),
                (
                    "payload",
                    "{'event': 'STOPPED', 'host_status': 'NORMAL', 'cluster_status': 'OFFLINE'}",
                ),
                ("recovery_workflow_details", WORKFLOW_JSON),
            ],
            Some(("recovery_workflow_details", 70)),
        );
        assert!(text.lines().count() > 20, "{text}");
        let n = expect_notification(parse_capture(&text));
        assert_eq!(n.notification_uuid, "9ace2da7-97d1-48cb-a96a-08ad4624481b");
        assert_eq!(n.notification_type.as_deref(), Some("COMPUTE_HOST"));
        assert_eq!(n.status.as_deref(), Some("error"));
        assert_eq!(
            n.payload,
            Some(json!({"event": "STOPPED", "host_status": "NORMAL", "cluster_status": "OFFLINE"}))
        );
        let tasks = &n.recovery_workflow_details;
        assert_eq!(tasks.len(), 3);
        assert_eq!(tasks[2].name, "EvacuateInstancesTask");
        assert_eq!(tasks[2].state.as_deref(), Some("FAILURE"));
        assert_eq!(tasks[2].progress, Some(0.5));
        let d = &tasks[2].details[0];
        assert_eq!(d.timestamp, "2020-12-08 19:51:09.618334");
        assert_eq!(d.progress.as_deref(), Some("0.0"));
        assert_eq!(
            d.message,
            "Start evacuation of instances from failed host 'node02ob100.maas', \
             instance uuids are: '56ce6206-3659-495e-a6ea-f4d3d578cc96'"
        );
        assert_eq!(
            tasks[2].details[1].message,
            "Failed to evacuate instances '56ce6206-3659-495e-a6ea-f4d3d578cc96' from host 'node02ob100.maas'"
        );
        // The same table unwrapped reads the same.
        let flat = show_table(
            &[
                ("notification_uuid", "9ace2da7-97d1-48cb-a96a-08ad4624481b"),
                ("recovery_workflow_details", WORKFLOW_JSON),
            ],
            None,
        );
        let flat = expect_notification(parse_capture(&flat));
        assert_eq!(flat.recovery_workflow_details, n.recovery_workflow_details);
    }

    #[test]
    fn show_table_python_repr_and_newer_columns() {
        let workflow = "[{'name': 'EvacuateInstancesTask', 'state': 'SUCCESS', 'progress': 1.0, \
            'progress_details': [{'timestamp': '2024-05-02 19:24:20.118204', 'message': \
            \"Evacuation of instance started: 'caad8b3d-c2c3-43ec-845f-7c5f056ebcd4'\", \
            'progress': '0.5'}, {'timestamp': '2024-05-02 19:26:47.502110', 'message': \
            'Evacuation process completed!', 'progress': '1.0'}]}]";
        let text = show_table(
            &[
                ("created_at", "2024-05-02T19:24:09.000000"),
                ("updated_at", "2024-05-02T19:26:47.000000"),
                ("notification_uuid", "0b6f8f43-8f0a-4a65-b2a8-2c1f5b3c9d10"),
                ("type", "COMPUTE_HOST"),
                ("status", "finished"),
                ("source_host_uuid", "5d0a3c8e-2b8f-4f2e-8d5e-6a1f0c9b7e21"),
                ("generated_time", "2024-05-02T19:24:05.000000"),
                (
                    "payload",
                    "{'event': 'STOPPED', 'host_status': 'NORMAL', 'cluster_status': 'OFFLINE'}",
                ),
                ("recovery_workflow_details", workflow),
                ("failover_segment_uuid", "None"),
                ("message", ""),
            ],
            Some(("recovery_workflow_details", 60)),
        );
        let text = text.as_str();
        let n = expect_notification(parse_capture(text));
        assert_eq!(n.failover_segment_uuid, None);
        assert_eq!(n.message, None);
        let d = &n.recovery_workflow_details[0].details;
        assert_eq!(
            d[0].message,
            "Evacuation of instance started: 'caad8b3d-c2c3-43ec-845f-7c5f056ebcd4'"
        );
        assert_eq!(d[1].message, "Evacuation process completed!");
        assert_eq!(d[1].timestamp, "2024-05-02 19:26:47.502110");
    }

    #[test]
    fn show_json_and_yaml() {
        let json_text = format!(
            "{{\n  \"created_at\": \"2020-12-08T19:48:43.000000\",\n  \"updated_at\": null,\n  \
             \"notification_uuid\": \"9ace2da7-97d1-48cb-a96a-08ad4624481b\",\n  \"type\": \"COMPUTE_HOST\",\n  \
             \"status\": \"running\",\n  \"source_host_uuid\": \"d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11\",\n  \
             \"generated_time\": \"2020-12-08T19:48:33.000000\",\n  \"payload\": {{\"event\": \"STOPPED\", \
             \"host_status\": \"NORMAL\", \"cluster_status\": \"OFFLINE\"}},\n  \
             \"recovery_workflow_details\": {WORKFLOW_JSON}\n}}\n"
        );
        let j = expect_notification(parse_capture(&json_text));
        assert_eq!(j.updated_at, None);
        assert_eq!(j.payload.as_ref().unwrap()["event"], "STOPPED");
        assert_eq!(j.recovery_workflow_details.len(), 3);

        let yaml = "\
created_at: '2020-12-08T19:48:43.000000'
generated_time: '2020-12-08T19:48:33.000000'
notification_uuid: 9ace2da7-97d1-48cb-a96a-08ad4624481b
payload:
  cluster_status: OFFLINE
  event: STOPPED
  host_status: NORMAL
recovery_workflow_details:
- name: EvacuateInstancesTask
  progress: 0.5
  progress_details:
  - message: 'Start evacuation of instances from failed host ''node02ob100.maas'', instance
      uuids are: ''56ce6206-3659-495e-a6ea-f4d3d578cc96'''
    progress: '0.0'
    timestamp: '2020-12-08T19:51:09.618334+00:00'
  state: FAILURE
source_host_uuid: d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11
status: running
type: COMPUTE_HOST
updated_at: null
";
        let y = expect_notification(parse_capture(yaml));
        assert_eq!(y.notification_uuid, j.notification_uuid);
        assert_eq!(y.payload, j.payload);
        let task = &y.recovery_workflow_details[0];
        assert_eq!(task.progress, Some(0.5));
        assert_eq!(task.details[0].timestamp, "2020-12-08 19:51:09.618334");
        assert_eq!(
            task.details[0].message,
            j.recovery_workflow_details[2].details[0].message
        );
    }

    #[test]
    fn list_table_json_yaml() {
        let table = "\
+--------------------------------------+----------------------------+----------+--------------+--------------------------------------+----------------------------------------------------------------------------+
| notification_uuid                    | generated_time             | status   | type         | source_host_uuid                     | payload                                                                    |
+--------------------------------------+----------------------------+----------+--------------+--------------------------------------+----------------------------------------------------------------------------+
| 9ace2da7-97d1-48cb-a96a-08ad4624481b | 2020-12-08T19:48:33.000000 | error    | COMPUTE_HOST | d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11 | {'event': 'STOPPED', 'host_status': 'NORMAL', 'cluster_status': 'OFFLINE'} |
| 3f1c2b7e-5a8d-4c1e-9f0a-7b6d5e4c3a21 | 2020-12-08T18:02:11.000000 | finished | VM           | 7a9e1c3b-2d4f-4e6a-8b0c-1d2e3f4a5b6c | {'event': 'LIFECYCLE', 'instance_uuid': '56ce6206-3659-495e-a6ea-f4d3d578cc96', 'vir_domain_event': 'STOPPED_FAILED'} |
+--------------------------------------+----------------------------+----------+--------------+--------------------------------------+----------------------------------------------------------------------------+
";
        let Some(Capture::NotificationList(rows)) = parse_capture(table) else {
            panic!("not a list");
        };
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].status.as_deref(), Some("error"));
        assert_eq!(
            rows[1].payload.as_ref().unwrap()["instance_uuid"],
            "56ce6206-3659-495e-a6ea-f4d3d578cc96"
        );
        let json_text = r#"[
  {
    "notification_uuid": "9ace2da7-97d1-48cb-a96a-08ad4624481b",
    "generated_time": "2020-12-08T19:48:33.000000",
    "status": "error",
    "type": "COMPUTE_HOST",
    "source_host_uuid": "d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11",
    "payload": {"event": "STOPPED", "host_status": "NORMAL", "cluster_status": "OFFLINE"}
  }
]"#;
        let Some(Capture::NotificationList(j)) = parse_capture(json_text) else {
            panic!("not a list");
        };
        assert_eq!(j[0], rows[0]);
        let yaml = "\
- generated_time: '2020-12-08T19:48:33.000000'
  notification_uuid: 9ace2da7-97d1-48cb-a96a-08ad4624481b
  payload:
    cluster_status: OFFLINE
    event: STOPPED
    host_status: NORMAL
  source_host_uuid: d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11
  status: error
  type: COMPUTE_HOST
";
        let Some(Capture::NotificationList(y)) = parse_capture(yaml) else {
            panic!("not a list");
        };
        assert_eq!(y[0], rows[0]);
    }

    #[test]
    fn timestamps_to_utc() {
        assert_eq!(
            utc_micros("2019-03-07 13:54:28.842031"),
            "2019-03-07 13:54:28.842031"
        );
        assert_eq!(
            utc_micros("2019-03-07T15:54:28.842+02:00"),
            "2019-03-07 13:54:28.842000"
        );
        assert_eq!(
            utc_micros("2019-03-07T13:54:28Z"),
            "2019-03-07 13:54:28.000000"
        );
        assert_eq!(utc_micros("yesterday"), "yesterday");
    }
}
