//! The time-zone evidence of a host's records ([`OffsetVotes`]): a line's own offset, a
//! collector's UTC stamp beside the content's local time, a journal's offset, Apache's
//! `%z`, a notification's UTC `generated_time`; and which records give none, so that the
//! keeper may pass over them.

use std::sync::LazyLock;

use evacdoc_parsers::Record;
use evacdoc_parsers::line::{Content, Line, Wrapper};
use evacdoc_parsers::oslo::OsloLine;
use memchr::memmem::Finder;

use crate::ingest::timezone::OffsetVotes;

static GENERATED_TIME: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("generated_time"));

/// Votes the offset an oslo.log line's own time gives (`%(isotime)s`), the best
/// evidence of its host's zone; true when it gave one. Apart from [`vote_offsets`] so
/// that a reader passing over such lines votes it all the same (the keeper's `skipped`).
pub fn vote_own_offset(head: &Line<'_>, votes: &mut OffsetVotes) -> bool {
    let Content::Oslo(OsloLine {
        offset: Some(offset),
        ..
    }) = &head.content
    else {
        return false;
    };
    votes.vote(*offset, "oslo.log timestamps with their offset");
    true
}

/// Records the time-zone evidence a record carries for its host.
pub fn vote_offsets(record: &Record<'_>, votes: &mut OffsetVotes) {
    if vote_own_offset(&record.head, votes) {
        return;
    }
    match (&record.head.wrapper, &record.head.content) {
        // Pebble, CRI, Docker and `kubectl logs --timestamps` stamp each line in UTC
        // beside the content's local time.
        (
            Some(
                w @ (Wrapper::Pebble(_)
                | Wrapper::Cri(_)
                | Wrapper::Docker(_)
                | Wrapper::Kubectl(_)),
            ),
            Content::Oslo(o),
        ) => {
            if let Some(utc) = w.collector_time().and_then(|t| t.unix_nanos()) {
                let how = match w {
                    Wrapper::Pebble(_) => "pebble timestamps",
                    _ => "container runtime timestamps",
                };
                votes.vote_difference(o.timestamp.unix_nanos(0) - utc, how);
            }
        }
        (Some(Wrapper::Syslog(s)), Content::Oslo(_)) => {
            if let Some(offset) = s.time.timestamp().and_then(|t| t.offset) {
                votes.vote(offset, "journal timestamps");
            }
        }
        (_, Content::Access(a)) => {
            if let Some(offset) = a.time.offset {
                votes.vote(offset, "apache access times");
            }
        }
        (_, Content::Oslo(o)) => {
            // masakari-monitors log the notification they send, whose generated_time
            // is UTC, on a line stamped in local time.
            if let Some(utc) = generated_time(o.message) {
                votes.vote_difference(
                    o.timestamp.unix_nanos(0) - utc.unix_nanos(0),
                    "masakari generated_time",
                );
            }
        }
        _ => {}
    }
}

/// True when [`vote_offsets`] of a record whose first line is `head` votes nothing but
/// the line's own offset ([`vote_own_offset`], which the keeper votes when it passes
/// over the line), known cheaply: a line without a wrapper whose content is oslo.log's
/// and gives no offset falls to the arm of oslo lines without a wrapper (the arms before
/// it need a wrapper or an access line), which votes only for a `generated_time` in the
/// message; one that gives an offset votes that alone; an oslo line under a journal
/// prefix falls to the journal's arm, which votes only the prefix's offset. False when
/// unsure.
pub fn votes_nothing(head: &Line<'_>) -> bool {
    match (&head.wrapper, &head.content) {
        (None, Content::Oslo(o)) => {
            o.offset.is_some() || GENERATED_TIME.find(o.message.as_bytes()).is_none()
        }
        // The journal's arm votes the prefix's offset, which a prefix without one (a
        // DevStack `short-precise` journal) does not give.
        (Some(Wrapper::Syslog(s)), Content::Oslo(o)) => {
            o.offset.is_some() || s.time.timestamp().and_then(|t| t.offset).is_none()
        }
        _ => false,
    }
}

/// The UTC `generated_time` of a notification written in a message, if any.
pub(super) fn generated_time(message: &str) -> Option<evacdoc_parsers::DateTime> {
    let at = GENERATED_TIME.find(message.as_bytes())?;
    let rest = message.get(at + "generated_time".len()..)?;
    let start = rest.find(|c: char| c.is_ascii_digit())?;
    // Only a value right after the key (`': '`, `": "`, `=`), not a number further on.
    if start > 4 {
        return None;
    }
    let value = rest.get(start..)?;
    let with_space = value.replacen('T', " ", 1);
    evacdoc_parsers::time::oslo_timestamp(&with_space)
        .ok()
        .map(|(_, t)| t)
}
