//! Pacemaker's fencing results in its logs (`pacemaker.log`, the system log), put in UTC
//! beside the bundle's captures.
//!
//! The keeper of a log that may hold Pacemaker's lines takes the fencing result lines
//! ([`evacdoc_parsers::capture::fence_log_line`]) with their time as written; once every
//! host's zone and the bundle's events are known, [`fence_captures`] puts each time in
//! UTC: the host's zone for a local time, and, for the classic syslog and pacemaker.log
//! times that carry no year, the year that puts the line nearest the bundle's last event.

use evacdoc_parsers::capture::{Capture, FenceAction, FenceLogResult, fence_log_line};
use evacdoc_parsers::syslog::SyslogTime;
use evacdoc_parsers::time::DateTime;

use crate::ingest::timezone::HostZone;
use crate::model::Service;
use crate::model::inventory::CaptureFile;

/// A fencing result line of a log, its time as written.
#[derive(Clone, Debug, PartialEq)]
pub struct LoggedFence {
    /// 1-based line in the file.
    pub line: usize,
    /// The line as written.
    pub text: String,
    /// Its time.
    pub time: SyslogTime,
    /// What it says.
    pub result: FenceLogResult,
}

/// Whether a log of `service` may hold Pacemaker's lines: the system log, a log named
/// after Pacemaker (`var/log/pacemaker/pacemaker.log`, a pacemaker unit's journal), or
/// corosync's log, where Pacemaker 1.1 writes when corosync.conf names a log file (RHEL
/// 7's `var/log/cluster/corosync.log`; mcp/corosync.c takes `logging.logfile`).
pub fn may_hold(service: &Service) -> bool {
    let name = service.name();
    name == "syslog" || name.contains("pacemaker") || name.contains("corosync")
}

/// The fencing result of a record's first line `raw`, at `line`.
pub fn of_line(raw: &str, line: usize) -> Option<LoggedFence> {
    let (time, result) = fence_log_line(raw)?;
    Some(LoggedFence {
        line,
        text: raw.trim_end_matches(['\r', '\n']).to_string(),
        time,
        result,
    })
}

/// The UTC nanoseconds of `local` on a host of `zone`.
fn utc_of(local: &DateTime, zone: &HostZone) -> Option<i64> {
    local.checked_unix_nanos(zone.offset_at(local))
}

/// The UTC time of a logged time on a host of `zone`; a time without a year takes the
/// one that puts it nearest `reference` (UTC nanoseconds), none without a reference.
pub fn utc_time(time: &SyslogTime, zone: &HostZone, reference: Option<i64>) -> Option<i64> {
    match time {
        SyslogTime::Unix { nanos } => Some(*nanos),
        SyslogTime::Full(t) => match t.offset {
            Some(offset) => t.local.checked_unix_nanos(offset),
            None => utc_of(&t.local, zone),
        },
        SyslogTime::Yearless(t) => {
            let reference = reference?;
            let year = DateTime::from_unix_nanos(reference)?.year;
            [year.checked_sub(1), Some(year), year.checked_add(1)]
                .into_iter()
                .flatten()
                .filter_map(|y| utc_of(&t.with_year(y)?, zone))
                .min_by_key(|utc| utc.abs_diff(reference))
        }
    }
}

/// One capture per log with fencing results, its times in UTC (`zones[host]`, the year
/// nearest `reference`); a line whose time cannot be placed is left out.
pub fn fence_captures(
    logged: Vec<(String, u32, Vec<LoggedFence>)>,
    zones: &[HostZone],
    reference: Option<i64>,
) -> Vec<CaptureFile> {
    let utc = HostZone::utc_default();
    logged
        .into_iter()
        .filter_map(|(file, host, lines)| {
            let zone = zones.get(host as usize).unwrap_or(&utc);
            let actions: Vec<FenceAction> = lines
                .into_iter()
                .filter_map(|l| {
                    let completed = utc_time(&l.time, zone, reference)?;
                    Some(FenceAction {
                        action: l.result.action,
                        target: l.result.target,
                        state: l.result.state,
                        delegate: l.result.delegate,
                        completed: Some(completed),
                        line: l.line,
                        text: l.text,
                    })
                })
                .collect();
            (!actions.is_empty()).then(|| CaptureFile {
                file,
                capture: Capture::FenceLog { actions },
                lines: Vec::new(),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::inventory::ZoneSource;

    const LINE: &str = "Dec 31 23:59:58 ctl-1 pacemaker-fenced[2152]:  notice: Operation 'reboot' targeting compute-1 by ctl-2 for pacemaker-controld.2156@ctl-1: OK | id=b94a2d6c";

    fn nanos(text: &str) -> i64 {
        let (_, t) = evacdoc_parsers::time::oslo_timestamp(text).unwrap();
        t.unix_nanos(0)
    }

    #[test]
    fn a_time_without_a_year_takes_the_one_nearest_the_bundle() {
        let logged = of_line(LINE, 7).unwrap();
        let utc = HostZone::utc_default();
        // Early January: the line is from the last day of the year before.
        let reference = nanos("2025-01-01 00:10:00.000");
        assert_eq!(
            utc_time(&logged.time, &utc, Some(reference)),
            Some(nanos("2024-12-31 23:59:58.000"))
        );
        // Mid-December: the same year.
        let reference = nanos("2024-12-15 08:00:00.000");
        assert_eq!(
            utc_time(&logged.time, &utc, Some(reference)),
            Some(nanos("2024-12-31 23:59:58.000"))
        );
        // No event to take a year from: no time.
        assert_eq!(utc_time(&logged.time, &utc, None), None);
    }

    #[test]
    fn a_local_time_is_put_in_utc_with_the_hosts_zone() {
        let berlin = HostZone::named("Europe/Berlin", ZoneSource::Default).unwrap();
        let line = LINE.replace("Dec 31 23:59:58", "May 21 12:05:58");
        let captures = fence_captures(
            vec![(
                "ctl-1/var/log/syslog".into(),
                0,
                vec![of_line(&line, 3).unwrap()],
            )],
            &[berlin],
            Some(nanos("2024-05-21 11:00:00.000")),
        );
        let [
            CaptureFile {
                capture: Capture::FenceLog { actions },
                ..
            },
        ] = &captures[..]
        else {
            panic!("{captures:?}");
        };
        // CEST is UTC+2.
        assert_eq!(actions[0].completed, Some(nanos("2024-05-21 10:05:58.000")));
        assert_eq!(
            (actions[0].line, actions[0].target.as_str()),
            (3, "compute-1")
        );
    }
}
