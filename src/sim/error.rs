//! Errors of the simulator: a scenario that cannot be used, a port that cannot be had.

/// A scenario file that cannot be read or makes no sense.
#[derive(Debug, thiserror::Error)]
pub enum ScenarioError {
    #[error("{file}: cannot read the scenario: {source}")]
    Read {
        file: String,
        #[source]
        source: std::io::Error,
    },
    #[error("{file}: bad scenario: {reason}")]
    Invalid { file: String, reason: String },
}

/// The simulator could not start.
#[derive(Debug, thiserror::Error)]
pub enum SimError {
    #[error("cannot listen on {addr}: {source}")]
    Listen {
        addr: std::net::SocketAddr,
        #[source]
        source: std::io::Error,
    },
    #[error("{path}: cannot write the logs: {source}")]
    Logs {
        path: String,
        #[source]
        source: std::io::Error,
    },
}
