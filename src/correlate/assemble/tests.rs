use super::*;
use crate::model::EventKind;

/// An oslo line of `file` on `host` at `secs`, its message after the level.
fn event(file: u32, line: u32, host: u32, secs: i64, message: &str) -> Event {
    let text = format!("2023-03-15 10:00:{secs:02}.000 7 INFO masakari.engine [-] {message}");
    let mut e = Event::new(file, line, host, EventKind::Log);
    e.set_text(&text, &[]);
    e.message_start = (text.len() - message.len()) as u32;
    e.message_len = message.len() as u32;
    e.time = secs * 1_000_000_000;
    e
}

fn names(events: &[Event]) -> Vec<(u32, u32)> {
    events.iter().map(|e| (e.file, e.line)).collect()
}

#[test]
fn a_record_in_two_files_of_one_host_is_kept_once() {
    // The journal (file 1) repeats what the log file (file 0) wrote, at the same
    // instant; another host's identical line and the file's own repeat stay.
    let mut events = vec![
        event(0, 1, 0, 1, "Disable nova-compute on cmp1"),
        event(0, 2, 0, 1, "Disable nova-compute on cmp1"),
        event(1, 9, 0, 1, "Disable nova-compute on cmp1"),
        event(2, 4, 1, 1, "Disable nova-compute on cmp1"),
        event(1, 10, 0, 2, "Disable nova-compute on cmp1"),
        event(1, 11, 0, 2, "Enable nova-compute on cmp1"),
        event(0, 3, 0, 3, "Disable nova-compute on cmp1"),
    ];
    sort_events(&mut events);
    drop_copies(&mut events);
    assert_eq!(
        names(&events),
        vec![(0, 1), (0, 2), (2, 4), (1, 10), (1, 11), (0, 3)]
    );
}

#[test]
fn the_first_file_in_event_order_keeps_a_copy() {
    let mut events = vec![
        event(5, 1, 0, 4, "Evacuation of instance started"),
        event(3, 8, 0, 4, "Evacuation of instance started"),
    ];
    sort_events(&mut events);
    drop_copies(&mut events);
    assert_eq!(names(&events), vec![(3, 8)]);
}
