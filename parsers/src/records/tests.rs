use super::*;

const WARNING_WITH_TRACEBACK: &str = "\
2026-11-30 09:34:22.846 7502 WARNING masakari.engine.drivers.taskflow.driver [req-11111111-2222-3333-4444-555555555555 req-2062e5d9-57af-4eb6-83f3-9d3d7b9188be nova - - - - -] Task 'EvacuateInstancesTask' (8a1b2c3d-0000-4000-8000-00000000000a) transitioned into state 'FAILURE' from state 'RUNNING'
1 predecessors (most recent first):
  Atom 'PrepareHAEnabledInstancesTask' {...}: masakari.exception.MasakariException: An unknown exception occurred.
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver   File \"/usr/lib/python3/dist-packages/demo.py\", line 49, in <module>
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver     raise MasakariException(\"An unknown exception occurred.\")
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver masakari.exception.MasakariException: An unknown exception occurred.
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.drivers.taskflow.driver 
2026-11-30 09:34:22.846 7502 ERROR masakari.engine.manager [None req-a49b59c8-ae66-4306-938a-49d97c4d3c44 - - - - - -] Periodic task 'process_unfinished_notifications': Notification c5e0e0c8-1c1d-4d71-9a0e-0b0c0d0e0f10 exits with status: failed.
";

#[test]
fn joins_continuation_and_prefixed_traceback() {
    let records: Vec<_> = Records::new(WARNING_WITH_TRACEBACK).collect();
    assert_eq!(records.len(), 2);
    let first = &records[0];
    assert_eq!((first.line, first.line_count()), (1, 8));
    assert_eq!(first.continuation.len(), 2);
    assert_eq!(first.traceback.len(), 5);
    assert_eq!(first.traceback[0], "Traceback (most recent call last):");
    assert_eq!(first.traceback[4], "");
    assert_eq!(
        first.error_summary().map(|s| s.class),
        Some("masakari.exception.MasakariException")
    );
    assert_eq!(records[1].line, 9);
    assert_eq!(records[1].oslo().unwrap().logger, "masakari.engine.manager");
}

#[test]
fn raw_lines_are_the_lines_as_written() {
    let records: Vec<_> = Records::new(WARNING_WITH_TRACEBACK).collect();
    let lines: Vec<&str> = WARNING_WITH_TRACEBACK.lines().collect();
    assert_eq!(records[0].raw_lines().collect::<Vec<_>>(), lines[..8]);
    assert_eq!(records[1].raw_lines().collect::<Vec<_>>(), lines[8..]);
}

#[test]
fn prefixed_lines_of_another_logger_or_pid_do_not_join() {
    let text = "\
2026-11-30 09:34:22.846 7502 WARNING a.b [-] failed
2026-11-30 09:34:22.846 7503 ERROR a.b Traceback (most recent call last):
2026-11-30 09:34:22.846 7502 ERROR a.c Traceback (most recent call last):
";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 3);
    assert!(records.iter().all(|r| r.traceback.is_empty() || r.line > 1));
}

#[test]
fn raw_traceback_between_records() {
    let text = "\
2026-03-02 11:10:01.100 41 INFO masakari.compute.nova [req-aaaaaaaa-2222-3333-4444-555555555555 req-bbbbbbbb-2222-3333-4444-555555555555 nova - - - - -] Call get server command for instance 7d1e5f0a-0000-4000-8000-000000000001
Traceback (most recent call last):
  File \"/usr/lib/python3/dist-packages/eventlet/greenpool.py\", line 87, in _spawn_n_impl
    func(*args, **kwargs)
  File \"/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/host_failure.py\", line 212, in _evacuate_and_confirm
novaclient.exceptions.ClientException: Service Unavailable (HTTP 503) (Request-ID: req-cccccccc-2222-3333-4444-555555555555)
2026-03-02 11:10:02.100 41 INFO masakari.engine.manager [req-aaaaaaaa-2222-3333-4444-555555555555 req-dddddddd-2222-3333-4444-555555555555 nova - - - - -] Notification 1b4fa1a6-0000-4000-8000-000000000009 exits with status: finished.
";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0].continuation.len(), 0);
    assert_eq!(records[1].kind, RecordKind::RawTraceback);
    assert_eq!((records[1].line, records[1].line_count()), (2, 5));
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(records[1].raw_lines().collect::<Vec<_>>(), lines[1..6]);
    assert_eq!(
        records[1].error_summary().map(|s| s.class),
        Some("novaclient.exceptions.ClientException")
    );
    assert_eq!(records[2].line, 7);
}

#[test]
fn chained_raw_traceback_stays_one_record() {
    let text = "\
Traceback (most recent call last):
  File \"a.py\", line 1, in f
KeyError: 'x'

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File \"a.py\", line 3, in f
RuntimeError: boom
after
";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].line_count(), 9);
    assert_eq!(
        records[0].error_summary().map(|s| s.class),
        Some("RuntimeError")
    );
    assert_eq!(records[1].kind, RecordKind::Unparsed);
}

#[test]
fn unparsed_and_blank_lines_are_kept() {
    let text = "garbage line\n\n2020-12-08 19:51:12.309 235 INFO a.b [-] x\n\n";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 3);
    assert_eq!(records[0].unparsed_reason(), Some(Reason::NO_FORMAT));
    assert_eq!(records[1].unparsed_reason(), Some(Reason::BLANK));
    // The blank line after an oslo record is part of its message.
    assert_eq!(records[2].continuation, vec![""]);
}

#[test]
fn a_record_cut_short_is_not_a_continuation() {
    let text = "2020-12-08 19:51:15.122 235 INFO a.b [-] one\n2020-12-08 19:51:15.122 235 ERROR\n";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 2);
    assert_eq!(
        records[1].unparsed_reason().map(|r| r.expected),
        Some("space before logger")
    );
}

#[test]
fn rsyslog_escaped_newlines_are_split() {
    let text = "Dec  1 16:37:15 compute-1 nova-compute[2211]: 2026-12-01 16:37:15.884 2211 ERROR \
            nova.servicegroup.drivers.db [-] Unexpected error#012more text#0122026-12-01 \
            16:37:15.884 2211 ERROR nova.servicegroup.drivers.db Traceback (most recent call last):\
            #0122026-12-01 16:37:15.884 2211 ERROR nova.servicegroup.drivers.db ValueError: x\n";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].message(), "Unexpected error");
    assert_eq!(records[0].continuation, vec!["more text"]);
    assert_eq!(records[0].traceback.len(), 2);
    assert_eq!(records[0].line_count(), 1);
    assert_eq!(
        records[0].error_summary().map(|s| s.class),
        Some("ValueError")
    );
}

/// Each line of a CRI file, continuation and traceback lines too, has its own prefix.
fn cri(text: &str) -> String {
    text.lines()
        .enumerate()
        .map(|(i, l)| format!("2026-11-30T09:34:22.{:09}Z stderr F {l}\n", 846_000_000 + i))
        .collect()
}

#[test]
fn cri_lines_group_like_pebble_lines() {
    let text = cri(WARNING_WITH_TRACEBACK);
    let records: Vec<_> = Records::new(&text).collect();
    assert_eq!(records.len(), 2);
    let first = &records[0];
    assert_eq!(first.format(), Format::Cri);
    assert_eq!(first.inner_format(), Format::Oslo);
    assert_eq!((first.line, first.line_count()), (1, 8));
    assert_eq!(first.continuation.len(), 2);
    assert_eq!(first.traceback.len(), 5);
    assert_eq!(
        first.error_summary().map(|s| s.class),
        Some("masakari.exception.MasakariException")
    );
    assert_eq!(records[1].line, 9);

    // Another stream's line does not join the record.
    let text = "2026-11-30T09:34:22.846Z stdout F 2026-11-30 09:34:22.846 7502 WARNING a.b [-] failed\n\
                    2026-11-30T09:34:22.847Z stderr F   indented text on stderr\n";
    assert_eq!(Records::new(text).count(), 2);
}

#[test]
fn crlf_and_no_final_newline() {
    let text = "2020-12-08 19:51:12.309 235 INFO a.b [-] one\r\n2020-12-08 19:51:13.309 235 INFO a.b [-] two";
    let records: Vec<_> = Records::new(text).collect();
    assert_eq!(records.len(), 2);
    assert_eq!(records[0].message(), "one");
    assert_eq!(records[0].continuation.len(), 0);
    assert_eq!(records[1].message(), "two");
}
