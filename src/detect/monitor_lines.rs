//! Reading masakari-monitors' lines (the host monitor's status readings, the
//! notifications it sends), shared by the detectors of monitor failures.

use crate::correlate::Analysis;
use crate::model::{Event, EventId};

/// The events of masakari-monitors' host monitor, with their ids, in time order.
pub fn hostmonitor_events(analysis: &Analysis) -> impl Iterator<Item = (EventId, &Event)> + '_ {
    analysis
        .events
        .iter()
        .enumerate()
        .filter(move |(_, e)| {
            analysis
                .file(e.file)
                .is_some_and(|f| f.service.name().starts_with("masakari-hostmonitor"))
        })
        .map(|(i, e)| (EventId::at(i), e))
}

/// A host monitor's reading of a host: `'<host>' is '<status>' (current: '<raw>').`
/// (11.0.0 and later) or `'<host>' is '<status>'.` (earlier).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reading {
    /// The cluster node.
    pub host: String,
    /// The status the monitor decided on (stabilised from 11.0.0).
    pub status: String,
}

/// The reading a message states, if it is one.
pub fn reading(message: &str) -> Option<Reading> {
    let rest = message.strip_prefix('\'')?;
    let (host, rest) = rest.split_once("' is '")?;
    let (status, tail) = rest.split_once('\'')?;
    let tail = tail.trim();
    if !(tail == "." || tail.starts_with("(current: ")) || host.is_empty() {
        return None;
    }
    Some(Reading {
        host: host.to_string(),
        status: status.to_string(),
    })
}

/// The status of `Since host status is '<status>', hostmonitor doesn't send a
/// notification.`
pub fn withheld(message: &str) -> Option<&str> {
    let rest = message.strip_prefix("Since host status is '")?;
    let (status, tail) = rest.split_once('\'')?;
    tail.contains("send a notification").then_some(status)
}

/// A notification a monitor sends: `Send a notification. {'notification': {'type':
/// …, 'hostname': '<host>', …, 'payload': {'event': '<EVENT>', …}}}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sent {
    /// The host it is about.
    pub host: String,
    /// The payload's event (`STOPPED`, `STARTED`, `LIFECYCLE`), when written.
    pub event: Option<String>,
}

/// The notification a message sends, if it is a monitor's `Send a notification.` line.
pub fn sent(message: &str) -> Option<Sent> {
    let rest = message.strip_prefix("Send a notification.")?;
    Some(Sent {
        host: quoted_value(rest, "hostname")?,
        event: quoted_value(rest, "event"),
    })
}

/// The value of `'<key>': '<value>'` (a Python dict's repr) or `"<key>": "<value>"`.
fn quoted_value(text: &str, key: &str) -> Option<String> {
    for quote in ['\'', '"'] {
        let pattern = format!("{quote}{key}{quote}: {quote}");
        if let Some(at) = text.find(&pattern) {
            let value = &text[at + pattern.len()..];
            let end = value.find(quote)?;
            return Some(value[..end].to_string());
        }
    }
    None
}

/// True for a status that is a number: Pacemaker 2.1.7 and later write the node's join
/// epoch in `node_state`'s `crmd` attribute, where earlier releases wrote
/// `online`/`offline`.
pub fn is_epoch(status: &str) -> bool {
    !status.is_empty() && status.len() <= 20 && status.bytes().all(|b| b.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readings_of_both_eras_are_read() {
        let new = reading("'cmp02' is '1750161483' (current: '1750161483').").unwrap();
        assert_eq!(
            (new.host.as_str(), new.status.as_str()),
            ("cmp02", "1750161483")
        );
        let old = reading("'cmp02' is 'offline'.").unwrap();
        assert_eq!(old.status, "offline");
        assert_eq!(reading("'cmp01' is unstable state on cluster."), None);
    }

    #[test]
    fn withheld_and_sent_notifications_are_read() {
        assert_eq!(
            withheld("Since host status is '0', hostmonitor doesn't send a notification."),
            Some("0")
        );
        let s = sent("Send a notification. {'notification': {'type': 'COMPUTE_HOST', 'hostname': 'cmp02', 'generated_time': datetime.datetime(2025, 6, 17, 12, 3, 4, 106512), 'payload': {'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'NORMAL'}}}").unwrap();
        assert_eq!(s.host, "cmp02");
        assert_eq!(s.event.as_deref(), Some("STOPPED"));
        assert!(is_epoch("0") && is_epoch("1750161483") && !is_epoch("online"));
    }
}
