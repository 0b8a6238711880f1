//! Masakari's notification vocabulary (masakari/objects/fields.py): the status a
//! notification has and the type it is, as typed values.

use std::fmt;

/// `NotificationStatus`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum RecoveryStatus {
    /// `new`: created, not yet processed.
    New,
    /// `running`.
    Running,
    /// `error`: failed; the periodic task retries it.
    Error,
    /// `failed`: failed again on retry, or expired.
    Failed,
    /// `ignored`: not recovered on purpose (host_status, unrecoverable VM event).
    Ignored,
    /// `finished`.
    Finished,
}

impl RecoveryStatus {
    /// Every status.
    pub const ALL: [RecoveryStatus; 6] = [
        RecoveryStatus::New,
        RecoveryStatus::Running,
        RecoveryStatus::Error,
        RecoveryStatus::Failed,
        RecoveryStatus::Ignored,
        RecoveryStatus::Finished,
    ];

    /// The name Masakari uses.
    pub fn as_str(self) -> &'static str {
        match self {
            RecoveryStatus::New => "new",
            RecoveryStatus::Running => "running",
            RecoveryStatus::Error => "error",
            RecoveryStatus::Failed => "failed",
            RecoveryStatus::Ignored => "ignored",
            RecoveryStatus::Finished => "finished",
        }
    }

    /// A status as a log line or a capture writes it (any case).
    pub fn parse(text: &str) -> Option<RecoveryStatus> {
        let text = text.trim();
        RecoveryStatus::ALL
            .into_iter()
            .find(|s| s.as_str().eq_ignore_ascii_case(text))
    }

    /// The recovery did not recover: `error`, `failed` or `ignored`.
    pub fn is_failure(self) -> bool {
        matches!(
            self,
            RecoveryStatus::Error | RecoveryStatus::Failed | RecoveryStatus::Ignored
        )
    }
}

impl fmt::Display for RecoveryStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// `NotificationType`.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum NotificationType {
    /// `COMPUTE_HOST`: a host failed.
    ComputeHost,
    /// `VM`: an instance failed.
    Vm,
    /// `PROCESS`: a process on a host failed.
    Process,
}

impl NotificationType {
    /// The name Masakari uses.
    pub fn as_str(self) -> &'static str {
        match self {
            NotificationType::ComputeHost => "COMPUTE_HOST",
            NotificationType::Vm => "VM",
            NotificationType::Process => "PROCESS",
        }
    }

    /// A type as a log line or a capture writes it.
    pub fn parse(text: &str) -> Option<NotificationType> {
        [
            NotificationType::ComputeHost,
            NotificationType::Vm,
            NotificationType::Process,
        ]
        .into_iter()
        .find(|t| t.as_str().eq_ignore_ascii_case(text.trim()))
    }
}

impl fmt::Display for NotificationType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for s in RecoveryStatus::ALL {
            assert_eq!(RecoveryStatus::parse(s.as_str()), Some(s));
        }
        assert_eq!(
            RecoveryStatus::parse("FINISHED"),
            Some(RecoveryStatus::Finished)
        );
        assert_eq!(RecoveryStatus::parse("done"), None);
        assert_eq!(
            NotificationType::parse("COMPUTE_HOST"),
            Some(NotificationType::ComputeHost)
        );
        assert_eq!(NotificationType::parse("HOST"), None);
    }
}
