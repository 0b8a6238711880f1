//! What each host's clock captures (`chronyc tracking`, `ntpq -p`, `timedatectl`) say,
//! shown beside the offsets measured from the logs.

use serde::{Deserialize, Serialize};

use evacdoc_parsers::clock::{ClockStatus, parse_clock};

use crate::model::HostId;

/// One clock capture of a host.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct HostClock {
    /// The host.
    pub host: HostId,
    /// The capture (path relative to the input root).
    pub file: String,
    /// What it says.
    pub status: ClockStatus,
}

impl HostClock {
    /// The capture of `host` at `rel` (`inner`: the path inside the host's folder), if
    /// it is a clock capture that says something.
    pub fn read(host: HostId, rel: &str, inner: &str, text: &str) -> Option<HostClock> {
        Some(HostClock {
            host,
            file: rel.to_string(),
            status: parse_clock(inner, text)?,
        })
    }

    /// A short reading: `chrony: not synchronised, 95.128 s slow`.
    pub fn summary(&self) -> String {
        let s = &self.status;
        let mut parts: Vec<String> = Vec::new();
        match s.synchronized {
            Some(true) => parts.push("synchronised".into()),
            Some(false) => parts.push("not synchronised".into()),
            None => {}
        }
        if s.ntp_service == Some(false) {
            parts.push("NTP service inactive".into());
        }
        if let Some(ahead) = s.ahead_ms {
            let (size, way) = (ahead.abs(), if ahead >= 0.0 { "fast" } else { "slow" });
            if size >= 1000.0 {
                parts.push(format!("{:.3} s {way}", size / 1000.0));
            } else {
                parts.push(format!("{size:.3} ms {way}"));
            }
        }
        if let Some(source) = &s.source {
            parts.push(format!("source {source}"));
        }
        format!("{}: {}", s.tool.as_str(), parts.join(", "))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timedatectl_reads_as_not_synchronised() {
        let text = "System clock synchronized: no\nNTP service: inactive\n";
        let c = HostClock::read(
            2,
            "node03/sos_commands/systemd/timedatectl",
            "sos_commands/systemd/timedatectl",
            text,
        )
        .unwrap();
        assert_eq!(
            c.summary(),
            "timedatectl: not synchronised, NTP service inactive"
        );
        assert_eq!(HostClock::read(2, "x", "etc/timezone", "Etc/UTC\n"), None);
    }
}
