//! Who logged a line: the project, the service and the level.

use std::fmt;

use serde::{Deserialize, Serialize};

/// The project a service belongs to: how timelines group their lines.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Project {
    /// Masakari: engine, API, monitors.
    Masakari,
    /// Nova: API, conductor, scheduler, compute.
    Nova,
    /// Cinder.
    Cinder,
    /// Keystone.
    Keystone,
    /// Anything else (system logs, other services).
    Other,
}

impl Project {
    /// Capitalised name, as timeline headers print it.
    pub fn title(self) -> &'static str {
        match self {
            Project::Masakari => "Masakari",
            Project::Nova => "Nova",
            Project::Cinder => "Cinder",
            Project::Keystone => "Keystone",
            Project::Other => "Other",
        }
    }
}

/// A service whose log or config a file holds, e.g. `masakari-engine`, `nova-api-access`.
///
/// Kept as a name (the conventional binary or log name) rather than a closed enum:
/// deployments name things in many ways and an unknown service is still worth reading.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Service(pub String);

impl Service {
    /// A service by name.
    pub fn new(name: impl Into<String>) -> Service {
        Service(name.into())
    }

    /// The name.
    pub fn name(&self) -> &str {
        &self.0
    }

    /// The project the service belongs to, from its name.
    pub fn project(&self) -> Project {
        let name = self.0.as_str();
        if name.starts_with("masakari") {
            Project::Masakari
        } else if name.starts_with("nova") {
            Project::Nova
        } else if name.starts_with("cinder") {
            Project::Cinder
        } else if name.starts_with("keystone") {
            Project::Keystone
        } else {
            Project::Other
        }
    }
}

impl fmt::Display for Service {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The level of a log line, in five steps.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum LogLevel {
    /// DEBUG or TRACE.
    Debug,
    /// INFO, AUDIT or an unknown level.
    Info,
    /// WARNING.
    Warning,
    /// ERROR.
    Error,
    /// CRITICAL.
    Critical,
}

impl LogLevel {
    /// The level of an oslo.log level name.
    pub fn of(level: evacdoc_parsers::oslo::Level<'_>) -> LogLevel {
        use evacdoc_parsers::oslo::Level;
        match level {
            Level::Trace | Level::Debug => LogLevel::Debug,
            Level::Info | Level::Audit | Level::Other(_) => LogLevel::Info,
            Level::Warning => LogLevel::Warning,
            Level::Error => LogLevel::Error,
            Level::Critical => LogLevel::Critical,
        }
    }
}
