//! A host's own word on its clock: `chronyc tracking`, `ntpq -p` and `timedatectl`
//! captures (as sos and hand collections save them).
//!
//! ```
//! use evacdoc_parsers::clock::{ClockTool, parse_clock};
//! let tracking = "Reference ID    : A9FEA97B (169.254.169.123)\n\
//! System time     : 0.000012000 seconds fast of NTP time\n\
//! Leap status     : Normal\n";
//! let status = parse_clock("sos_commands/chrony/chronyc_-n_tracking", tracking).unwrap();
//! assert_eq!(status.tool, ClockTool::Chrony);
//! assert_eq!(status.synchronized, Some(true));
//! assert!((status.ahead_ms.unwrap() - 0.012).abs() < 1e-9);
//! ```

use serde::{Deserialize, Serialize};

/// The tool a capture came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ClockTool {
    /// `chronyc tracking`.
    Chrony,
    /// `ntpq -p`.
    Ntpq,
    /// `timedatectl`.
    Timedatectl,
}

impl ClockTool {
    /// The tool's name.
    pub fn as_str(self) -> &'static str {
        match self {
            ClockTool::Chrony => "chrony",
            ClockTool::Ntpq => "ntpq",
            ClockTool::Timedatectl => "timedatectl",
        }
    }
}

/// What one capture says about the host's clock.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ClockStatus {
    /// The tool.
    pub tool: ClockTool,
    /// How far the host's clock is ahead of NTP time, in milliseconds (negative:
    /// behind), when the tool says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ahead_ms: Option<f64>,
    /// Whether the clock is synchronised (chrony leap status, an `ntpq` system peer,
    /// `timedatectl`'s `System clock synchronized`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub synchronized: Option<bool>,
    /// Whether an NTP service runs (`timedatectl`'s `NTP service`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ntp_service: Option<bool>,
    /// The time source (chrony's reference, the `ntpq` system peer).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// chrony's leap status as written (`Normal`, `Not synchronised`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub leap_status: Option<String>,
}

impl ClockStatus {
    fn new(tool: ClockTool) -> ClockStatus {
        ClockStatus {
            tool,
            ahead_ms: None,
            synchronized: None,
            ntp_service: None,
            source: None,
            leap_status: None,
        }
    }

    fn is_empty(&self) -> bool {
        self.ahead_ms.is_none() && self.synchronized.is_none() && self.ntp_service.is_none()
    }
}

/// The tool a capture's file name says it holds (`chronyc_-n_tracking`, `ntpq_-p`,
/// `ntpq_-pn`, `timedatectl`), from the last path component.
pub fn tool_of(path: &str) -> Option<ClockTool> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if name.starts_with("chronyc") && name.ends_with("tracking") {
        Some(ClockTool::Chrony)
    } else if name.starts_with("ntpq_-p") || name == "ntpq" {
        Some(ClockTool::Ntpq)
    } else if name.starts_with("timedatectl") {
        Some(ClockTool::Timedatectl)
    } else {
        None
    }
}

/// Parses a capture by the tool its path names; `None` when the path is no clock
/// capture or the text says nothing about the clock.
pub fn parse_clock(path: &str, text: &str) -> Option<ClockStatus> {
    match tool_of(path)? {
        ClockTool::Chrony => parse_chronyc_tracking(text),
        ClockTool::Ntpq => parse_ntpq_peers(text),
        ClockTool::Timedatectl => parse_timedatectl(text),
    }
}

/// `key : value` lines (chrony) or `key: value` lines (timedatectl).
fn fields(text: &str) -> impl Iterator<Item = (&str, &str)> {
    text.lines().filter_map(|l| {
        let (k, v) = l.split_once(':')?;
        Some((k.trim(), v.trim()))
    })
}

/// `chronyc tracking`: `System time : 0.000012 seconds fast of NTP time` and
/// `Leap status : Normal` / `Not synchronised`.
pub fn parse_chronyc_tracking(text: &str) -> Option<ClockStatus> {
    let mut s = ClockStatus::new(ClockTool::Chrony);
    for (key, value) in fields(text) {
        match key {
            "System time" => {
                let mut words = value.split_whitespace();
                let secs: f64 = words.next().and_then(|w| w.parse().ok())?;
                let sign = match words.nth(1) {
                    Some("fast") => 1.0,
                    Some("slow") => -1.0,
                    _ => continue,
                };
                if secs.is_finite() {
                    s.ahead_ms = Some(sign * secs * 1000.0);
                }
            }
            "Leap status" => {
                s.synchronized = Some(!value.eq_ignore_ascii_case("not synchronised"));
                s.leap_status = Some(value.to_string());
            }
            "Reference ID" => {
                // `A9FEA97B (169.254.169.123)`: the name in brackets, else the id.
                let name = value
                    .split_once('(')
                    .map(|(_, r)| r.trim_end_matches(')'))
                    .unwrap_or(value);
                if !name.is_empty() {
                    s.source = Some(name.to_string());
                }
            }
            _ => {}
        }
    }
    (!s.is_empty()).then_some(s)
}

/// `ntpq -p`: the system peer's line (tally `*`) and its `offset` column (ms, the peer
/// minus this host); no system peer means not synchronised.
pub fn parse_ntpq_peers(text: &str) -> Option<ClockStatus> {
    let mut lines = text.lines();
    let header = lines
        .by_ref()
        .find(|l| l.contains("remote") && l.contains("offset"))?;
    let column = header.split_whitespace().position(|w| w == "offset")?;
    let mut s = ClockStatus::new(ClockTool::Ntpq);
    s.synchronized = Some(false);
    for line in lines {
        let Some(peer) = line.strip_prefix('*') else {
            continue;
        };
        let words: Vec<&str> = peer.split_whitespace().collect();
        if words.len() <= column {
            continue;
        }
        s.synchronized = Some(true);
        s.source = Some(words[0].to_string());
        s.ahead_ms = words[column]
            .trim_start_matches('+')
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite())
            .map(|x| -x);
        break;
    }
    Some(s)
}

/// `timedatectl`: `System clock synchronized: no`, `NTP service: inactive` (and the
/// older `NTP synchronized:` / `Network time on:` / `NTP enabled:`).
pub fn parse_timedatectl(text: &str) -> Option<ClockStatus> {
    let mut s = ClockStatus::new(ClockTool::Timedatectl);
    let yes = |v: &str| match v {
        "yes" | "active" => Some(true),
        "no" | "inactive" | "n/a" => Some(false),
        _ => None,
    };
    for (key, value) in fields(text) {
        match key {
            "System clock synchronized" | "NTP synchronized" => s.synchronized = yes(value),
            "NTP service" | "Network time on" | "NTP enabled" => s.ntp_service = yes(value),
            _ => {}
        }
    }
    (!s.is_empty()).then_some(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chrony_not_synchronised_and_slow() {
        let text = "Reference ID    : 00000000 ()\n\
                    Stratum         : 0\n\
                    Ref time (UTC)  : Thu Jan 01 00:00:00 1970\n\
                    System time     : 95.128000000 seconds slow of NTP time\n\
                    Last offset     : +0.000000000 seconds\n\
                    Leap status     : Not synchronised\n";
        let s = parse_chronyc_tracking(text).unwrap();
        assert_eq!(s.synchronized, Some(false));
        assert_eq!(s.leap_status.as_deref(), Some("Not synchronised"));
        assert!((s.ahead_ms.unwrap() + 95_128.0).abs() < 1e-6);
        assert_eq!(s.source, None);
        assert_eq!(parse_chronyc_tracking("506 Cannot talk to daemon\n"), None);
    }

    #[test]
    fn ntpq_system_peer_offset() {
        let text = "     remote           refid      st t when poll reach   delay   offset  jitter\n\
                    ==============================================================================\n\
                    +10.0.0.2        .GPS.            1 u   33   64  377    0.512    0.200   0.045\n\
                    *10.0.0.1        .PPS.            1 u   12   64  377    0.401   -1.250   0.031\n";
        let s = parse_ntpq_peers(text).unwrap();
        assert_eq!(s.synchronized, Some(true));
        assert_eq!(s.source.as_deref(), Some("10.0.0.1"));
        assert_eq!(s.ahead_ms, Some(1.25));
        let none = "     remote           refid      st t when poll reach   delay   offset  jitter\n\
                    ==============================================================================\n\
                     10.0.0.1        .INIT.          16 u    -   64    0    0.000    0.000   0.000\n";
        assert_eq!(parse_ntpq_peers(none).unwrap().synchronized, Some(false));
        assert_eq!(parse_ntpq_peers("ntpq: read: Connection refused\n"), None);
    }

    #[test]
    fn timedatectl_new_and_old() {
        let text = "               Local time: Tue 2026-12-01 19:40:00 UTC\n\
                    Time zone: Etc/UTC (UTC, +0000)\n\
                    System clock synchronized: no\n\
                    NTP service: inactive\n\
                    RTC in local TZ: no\n";
        let s = parse_timedatectl(text).unwrap();
        assert_eq!((s.synchronized, s.ntp_service), (Some(false), Some(false)));
        let old = "NTP enabled: yes\nNTP synchronized: yes\n";
        let s = parse_timedatectl(old).unwrap();
        assert_eq!((s.synchronized, s.ntp_service), (Some(true), Some(true)));
    }

    #[test]
    fn tools_by_file_name() {
        assert_eq!(
            tool_of("sos_commands/chrony/chronyc_tracking"),
            Some(ClockTool::Chrony)
        );
        assert_eq!(tool_of("sos_commands/ntp/ntpq_-pn"), Some(ClockTool::Ntpq));
        assert_eq!(
            tool_of("sos_commands/systemd/timedatectl"),
            Some(ClockTool::Timedatectl)
        );
        assert_eq!(tool_of("sos_commands/chrony/chronyc_-n_sources"), None);
    }
}
