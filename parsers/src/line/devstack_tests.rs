//! DevStack's journal lines: an oslo.log line without its own time and pid after a
//! journal prefix, which gives them ([`parse_line_written`]).

use super::*;
use crate::oslo::Level;

fn saved() -> DateTime {
    DateTime::new(2027, 1, 3, 8, 0, 0, 0).unwrap()
}

#[test]
fn a_yearless_journal_line_takes_the_year_before_the_file_was_saved() {
    let line = parse_line_written(
        "Dec 05 21:38:13.897412 ctl1 devstack@n-api.service[2175]: INFO nova.api.openstack.requestlog \
         [None req-1df88116-c8b9-416a-90c5-5b92a77b049f admin admin] 127.0.0.1 \
         \"POST /v2.1/servers/5d4c4aca-cd3c-4c19-8b93-d15cedf75253/action\" status: 400 len: 84",
        Some(&saved()),
    );
    assert!(matches!(line.wrapper, Some(Wrapper::Syslog(_))));
    let Content::Oslo(o) = &line.content else {
        panic!("{:?}", line.content);
    };
    assert_eq!(
        o.timestamp,
        DateTime::new(2026, 12, 5, 21, 38, 13, 897_412_000).unwrap()
    );
    assert_eq!(
        (o.pid, o.level, o.logger),
        (2175, Level::Info, "nova.api.openstack.requestlog")
    );
    assert_eq!(
        o.request_id(),
        Some("req-1df88116-c8b9-416a-90c5-5b92a77b049f")
    );
    assert!(o.message.starts_with("127.0.0.1 \"POST /v2.1/servers/"));
    assert_eq!(line.timestamp().unwrap().local.year, 2026);
    // Without the file's time the year is unknown: the line stays text.
    let unsaved = parse_line_written(line.raw, None);
    assert!(matches!(unsaved.content, Content::Text { .. }));
}

#[test]
fn a_journal_line_with_its_year_and_offset_needs_no_file_time() {
    let line = parse_line(
        "2026-12-05T21:38:13.897412+0100 ctl1 nova-compute[83123]: DEBUG oslo_concurrency.lockutils \
         [None req-c8cd4884-6858-4438-ab57-07ac3adeefbe admin admin] Lock \"compute_resources\" \
         acquired by \"nova.compute.resource_tracker.ResourceTracker.instance_claim\" :: waited \
         0.000s {{(pid=83123) inner /opt/stack/oslo.concurrency/oslo_concurrency/lockutils.py:404}}",
    );
    let Content::Oslo(o) = &line.content else {
        panic!("{:?}", line.content);
    };
    assert_eq!((o.pid, o.level), (83123, Level::Debug));
    assert_eq!(o.offset, Some(3600));
    assert_eq!(
        line.timestamp().unwrap().unix_nanos(),
        DateTime::new(2026, 12, 5, 20, 38, 13, 897_412_000)
            .unwrap()
            .checked_unix_nanos(0)
    );
}

#[test]
fn a_traceback_line_is_an_exception_prefixed_one() {
    let line = parse_line_written(
        "Dec 05 21:38:13.897412 cmp1 nova-compute[83123]: ERROR nova.compute.manager \
         [instance: 5d4c4aca-cd3c-4c19-8b93-d15cedf75253] Traceback (most recent call last):",
        Some(&saved()),
    );
    let Content::Oslo(o) = &line.content else {
        panic!("{:?}", line.content);
    };
    assert!(o.is_exception_prefixed());
    assert_eq!(o.instance, Some("5d4c4aca-cd3c-4c19-8b93-d15cedf75253"));
}

#[test]
fn other_daemons_lines_stay_text() {
    for raw in [
        "Dec 05 21:38:13 ctl1 systemd[1]: Started Session 5 of user root.",
        "Dec 05 21:38:13 ctl1 dnsmasq[811]: INFO something happened",
        "Dec 05 21:38:13 ctl1 etcd[811]: WARNING apply request took too long",
        "Dec 05 21:38:13 ctl1 app[811]: ERROR ./run.sh failed",
    ] {
        let line = parse_line_written(raw, Some(&saved()));
        assert!(
            matches!(line.content, Content::Text { .. }),
            "{raw}: {:?}",
            line.content
        );
    }
}
