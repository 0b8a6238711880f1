//! The analysis page's environment card: what the bundle says of the deployment (layout,
//! series and package versions, as triage works them out) and of what was read (hosts,
//! the logs' time range, files, unparsed lines).

use super::format::{count, human_bytes, readable_time};
use crate::correlate::Analysis;
use crate::correlate::timeline::utc;
use crate::triage::document::Environment;

/// The card: label and value pairs, in reading order.
pub(super) struct EnvironmentView {
    pub facts: Vec<(&'static str, String)>,
    /// One line per component and version: `masakari 13.0.1-1 (Yoga) on ctl1`.
    pub releases: Vec<String>,
}

pub(super) fn environment(analysis: &Analysis) -> EnvironmentView {
    let env = Environment::of(analysis);
    let stats = &analysis.stats;
    let version = |component: &str| {
        env.releases
            .iter()
            .find(|r| r.component == component)
            .map(|r| r.version.clone())
            .unwrap_or_else(|| "not in the package lists".to_string())
    };
    let range = match (analysis.events.first(), analysis.events.last()) {
        (Some(first), Some(last)) => format!(
            "{} – {} UTC",
            readable_time(&utc(first.time)),
            readable_time(&utc(last.time))
        ),
        _ => "no timed line".to_string(),
    };
    let facts = vec![
        ("layout", env.layout.clone()),
        (
            "series",
            env.series
                .clone()
                .unwrap_or_else(|| "unknown (no OpenStack package list)".to_string()),
        ),
        ("OpenStack (nova)", version("nova")),
        ("Masakari", version("masakari")),
        ("hosts", count(analysis.hosts.len() as u64)),
        ("log time range", range),
        ("files read", count(stats.files)),
        ("text read", human_bytes(stats.bytes)),
        ("records", count(stats.records)),
        ("unparsed lines", count(stats.unparsed)),
        ("events kept", count(stats.events)),
        (
            "analysed in",
            format!("{:.1} s", stats.elapsed_ms as f64 / 1000.0),
        ),
    ];
    let releases = env
        .releases
        .iter()
        .map(|r| {
            let series = r
                .series
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default();
            format!(
                "{} {}{series} · {} on {}",
                r.component, r.version, r.package, r.host
            )
        })
        .collect();
    EnvironmentView { facts, releases }
}
