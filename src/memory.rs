//! The process's resident memory (Linux `/proc/self/status`), for the stage logs: where
//! the peak is reached, and what a stage leaves behind, tell what to make smaller. The
//! command logs the run's peak as it ends (`EVACDOC_LOG=evacdoc::memory=info`).

/// One `kB` field of `/proc/self/status`, in MB.
fn status_mb(field: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(field))?;
    let kb: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb / 1024)
}

/// The peak resident memory so far in MB (`VmHWM`); `None` off Linux.
pub fn peak_rss_mb() -> Option<u64> {
    status_mb("VmHWM:")
}

/// The resident memory now in MB (`VmRSS`); `None` off Linux.
pub fn rss_mb() -> Option<u64> {
    status_mb("VmRSS:")
}
