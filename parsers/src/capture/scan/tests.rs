use super::*;

const MULTI: &str = "\
ubuntu@infra1:~$ openstack notification list
+--------------------------------------+----------------------------+--------+--------------+--------------------------------------+----------------------------------------------------------------------------+
| notification_uuid                    | generated_time             | status | type         | source_host_uuid                     | payload                                                                    |
+--------------------------------------+----------------------------+--------+--------------+--------------------------------------+----------------------------------------------------------------------------+
| 9ace2da7-97d1-48cb-a96a-08ad4624481b | 2020-12-08T19:48:33.000000 | error  | COMPUTE_HOST | d2b5c5a4-1f9e-4d4b-9a57-5b0a3e0d6c11 | {'event': 'STOPPED', 'host_status': 'NORMAL', 'cluster_status': 'OFFLINE'} |
+--------------------------------------+----------------------------+--------+--------------+--------------------------------------+----------------------------------------------------------------------------+

ubuntu@infra1:~$ openstack segment list
+--------------------------------------+------+-------------+--------------+-----------------+
| uuid                                 | name | description | service_type | recovery_method |
+--------------------------------------+------+-------------+--------------+-----------------+
| 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d | az1  | None        | COMPUTE      | auto            |
+--------------------------------------+------+-------------+--------------+-----------------+

ubuntu@infra1:~$ openstack server show 56ce6206-3659-495e-a6ea-f4d3d578cc96 -c OS-EXT-SRV-ATTR:host -c status -f json
{
  \"OS-EXT-SRV-ATTR:host\": \"node02ob100.maas\",
  \"status\": \"ACTIVE\"
}
ubuntu@infra1:~$ openstack server event list 56ce6206-3659-495e-a6ea-f4d3d578cc96 -f yaml
- Action: unlock
  Request ID: req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8
  Server ID: 56ce6206-3659-495e-a6ea-f4d3d578cc96
  Start Time: '2020-12-08T19:51:14.000000'
- Action: lock
  Request ID: req-de081ecf-4201-4542-b092-e21b2f5ce942
  Server ID: 56ce6206-3659-495e-a6ea-f4d3d578cc96
  Start Time: '2020-12-08T19:51:11.000000'

ubuntu@infra1:~$ openstack server show does-not-exist
No server with a name or ID of 'does-not-exist' exists.
ubuntu@infra1:~$ openstack volume show 35ab2ef8-5508-4401-bff4-06c2f119c225 -c multiattach -f value
False
";

#[test]
fn several_captures_with_command_lines() {
    let all = parse_captures(MULTI);
    assert_eq!(all.len(), 4, "{all:#?}");
    let Capture::NotificationList(rows) = &all[0] else {
        panic!("{:?}", all[0])
    };
    assert_eq!(
        rows[0].notification_uuid,
        "9ace2da7-97d1-48cb-a96a-08ad4624481b"
    );
    let Capture::Server(s) = &all[1] else {
        panic!("{:?}", all[1])
    };
    assert_eq!(s.id, "56ce6206-3659-495e-a6ea-f4d3d578cc96");
    assert_eq!(s.host.as_deref(), Some("node02ob100.maas"));
    assert_eq!(s.boot_from_volume, None);
    let Capture::ServerEvents { server_id, events } = &all[2] else {
        panic!("{:?}", all[2])
    };
    assert_eq!(
        server_id.as_deref(),
        Some("56ce6206-3659-495e-a6ea-f4d3d578cc96")
    );
    assert_eq!(events.len(), 2);
    assert_eq!(events[1].action, "lock");
    let Capture::Volume(v) = &all[3] else {
        panic!("{:?}", all[3])
    };
    assert_eq!(v.multiattach, Some(false));
    assert_eq!(parse_capture(MULTI).as_ref(), all.first());
}

#[test]
fn back_to_back_tables_without_command_lines() {
    let text = "\
+-------------+--------------------------------------+
| Field       | Value                                |
+-------------+--------------------------------------+
| id          | 35ab2ef8-5508-4401-bff4-06c2f119c225 |
| multiattach | False                                |
| status      | reserved                             |
+-------------+--------------------------------------+
+--------------------------------------+--------------------------------------+--------------------------------------+----------+
| ID                                   | Volume ID                            | Server ID                            | Status   |
+--------------------------------------+--------------------------------------+--------------------------------------+----------+
| e1f2a3b4-c5d6-4e7f-8a9b-0c1d2e3f4a5b | 35ab2ef8-5508-4401-bff4-06c2f119c225 | caad8b3d-c2c3-43ec-845f-7c5f056ebcd4 | reserved |
+--------------------------------------+--------------------------------------+--------------------------------------+----------+
";
    let all = parse_captures(text);
    assert_eq!(all.len(), 2);
    assert!(matches!(&all[0], Capture::Volume(v) if v.status.as_deref() == Some("reserved")));
    assert!(matches!(&all[1], Capture::VolumeAttachments(a) if a.len() == 1));
}

#[test]
fn ordinary_text_is_not_a_capture() {
    let oslo = "\
2020-12-08 19:51:12.309 235 INFO masakari.compute.nova [req-de081ecf-4201-4542-b092-e21b2f5ce942 masakari - - - -] Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None
2020-12-08 19:51:15.122 235 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):
2020-12-08 19:51:15.122 235 ERROR masakari.engine.drivers.taskflow.driver masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '56ce6206-3659-495e-a6ea-f4d3d578cc96' from host 'node02ob100.maas'
[pid: 1234|app: 0|req: 1/1] 10.0.0.1 () {34 vars in 567 bytes} [Fri Aug  1 10:00:00 2025] GET /v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96 => generated 2321 bytes in 12 msecs (HTTP/1.1 200) 4 headers in 155 bytes (1 switches on core 0)
";
    assert!(parse_captures(oslo).is_empty());
    let ini = "[DEFAULT]\nwait_period_after_service_update = 60\n[taskflow]\nconnection = ********\n\
                   [host_failure]\nevacuate_all_instances = True\n";
    assert!(parse_captures(ini).is_empty());
    let other_table = "\
+----+--------------+---------------+------+---------+-------+----------------------------+
| ID | Binary       | Host          | Zone | Status  | State | Updated At                 |
+----+--------------+---------------+------+---------+-------+----------------------------+
|  7 | nova-compute | node02ob100   | nova | enabled | down  | 2020-12-08T19:47:31.000000 |
+----+--------------+---------------+------+---------+-------+----------------------------+
";
    assert!(parse_captures(other_table).is_empty());
    let other_show = "\
+-----------------+--------------------------------------+
| Field           | Value                                |
+-----------------+--------------------------------------+
| uuid            | 0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d |
| name            | az1                                  |
| recovery_method | auto                                 |
+-----------------+--------------------------------------+
";
    assert!(parse_captures(other_show).is_empty());
    let prose = "server_id: is what the bug report calls it\nNote: nothing here\n{not json\n[]\n";
    assert!(parse_captures(prose).is_empty());
}

#[test]
fn truncated_table_still_reads() {
    let text = "\
+-------------------+--------------------------------------+
| Field             | Value                                |
+-------------------+--------------------------------------+
| notification_uuid | 9ace2da7-97d1-48cb-a96a-08ad4624481b |
| status            | err";
    let Some(Capture::Notification(n)) = parse_capture(text) else {
        panic!()
    };
    assert_eq!(n.notification_uuid, "9ace2da7-97d1-48cb-a96a-08ad4624481b");
    assert_eq!(n.status, None, "a row cut short is not a row");
}

#[test]
fn crlf_and_indentation() {
    let text = "    $ openstack volume show 35ab2ef8-5508-4401-bff4-06c2f119c225 -f yaml\r\n    \
                    id: 35ab2ef8-5508-4401-bff4-06c2f119c225\r\n    multiattach: true\r\n    status: in-use\r\n";
    let Some(Capture::Volume(v)) = parse_capture(text) else {
        panic!()
    };
    assert_eq!(v.multiattach, Some(true));
    assert_eq!(v.status.as_deref(), Some("in-use"));
}

#[test]
fn value_line_split() {
    assert_eq!(split_value_line("a  b c d", 3), ["a", "b", "c d"]);
    assert_eq!(split_value_line("a", 3), ["a"]);
    assert!(split_value_line("", 3).is_empty());
}

proptest::proptest! {
    #[test]
    fn never_panics(s in "\\PC*") {
        let _ = parse_captures(&s);
    }

    #[test]
    fn never_panics_on_capture_like_text(
        parts in proptest::collection::vec(
            proptest::prop_oneof![
                proptest::strategy::Just("+----+-----+\n".to_string()),
                proptest::strategy::Just("| Field | Value |\n".to_string()),
                proptest::strategy::Just("| payload | {'a': [1, (2, 'x\n".to_string()),
                proptest::strategy::Just("|  | é |\n".to_string()),
                proptest::strategy::Just("$ openstack notification show x -f json\n".to_string()),
                proptest::strategy::Just("$ openstack server event list -f value\n".to_string()),
                proptest::strategy::Just("{\"notification_uuid\": [\n".to_string()),
                proptest::strategy::Just("- Request ID: r\n  Action: a\n".to_string()),
                proptest::strategy::Just("recovery_workflow_details: [{\n".to_string()),
                "[|+{}\\[\\]'\":a-z \n-]{0,20}",
            ],
            0..12,
        )
    ) {
        let _ = parse_captures(&parts.concat());
    }
}
