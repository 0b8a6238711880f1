//! Rendering an analysis and its findings: the `evacdoc.analysis/v1` JSON document, text
//! for a terminal, and Markdown ready to paste into a bug tracker.

use std::fmt::Write as _;

use serde::Serialize;
use serde_json::Value;

use crate::correlate::Analysis;
use crate::correlate::skew::SkewEstimate;
use crate::correlate::timeline::utc;
use crate::detect::{Finding, Severity};
use crate::model::inventory::HostClock;
use crate::model::inventory::ZoneSource;
use crate::model::inventory::{Missing, Skipped};
use crate::model::{HostId, Service};
use crate::visible::visible_controls;

/// The schema name written in every JSON document.
pub const SCHEMA: &str = "evacdoc.analysis/v1";

/// The `evacdoc.analysis/v1` report of an analysis and its findings: what
/// `evacdoc analyze --format json` prints. A view of the [`Analysis`] (the document that
/// round-trips is [`crate::correlate::document`]), typed so that its shape is one place.
#[derive(Debug, Serialize)]
pub struct Report<'a> {
    /// Always [`SCHEMA`].
    pub schema: &'static str,
    /// What was read.
    pub analysis: AnalysisSummary<'a>,
    /// The findings.
    pub findings: &'a [Finding],
    /// Counts.
    pub stats: StatsSummary,
}

/// The analysis part of a [`Report`].
#[derive(Debug, Serialize)]
pub struct AnalysisSummary<'a> {
    /// The inputs as given.
    pub inputs: &'a [String],
    /// The deployment layout.
    pub layout: &'static str,
    /// Hosts.
    pub hosts: Vec<HostSummary<'a>>,
    /// Files read.
    pub files: Vec<FileSummary<'a>>,
    /// Configuration values.
    pub config: Vec<ConfigSummary<'a>>,
    /// First and last event (`null` without events).
    pub time_range: Option<TimeRange>,
    /// Files not read, with the reason.
    pub skipped: &'a [Skipped],
    /// Files a collector dropped.
    pub missing: &'a [Missing],
    /// Clock offsets between hosts.
    pub skew: &'a [SkewEstimate],
    /// What the hosts' clock captures say.
    pub clocks: &'a [HostClock],
}

/// A host in a [`Report`].
#[derive(Debug, Serialize)]
pub struct HostSummary<'a> {
    /// Index in the analysis' hosts.
    pub id: HostId,
    /// The name the bundle gives.
    pub hostname: &'a str,
    /// Services found.
    pub services: &'a [String],
    /// Other names.
    pub aliases: &'a [String],
    /// The time zone its local times are read in.
    pub zone: &'a str,
    /// How that zone was decided.
    pub zone_source: &'a ZoneSource,
}

/// A file in a [`Report`].
#[derive(Debug, Serialize)]
pub struct FileSummary<'a> {
    /// Path relative to the input root.
    pub path: &'a str,
    /// The host.
    pub host: HostId,
    /// The service.
    pub service: &'a Service,
    /// The format most of its records had.
    pub format: &'a str,
    /// Records read.
    pub records: u64,
    /// Records no format fitted.
    pub unparsed: u64,
}

/// A configuration value in a [`Report`].
#[derive(Debug, Serialize)]
pub struct ConfigSummary<'a> {
    /// The file.
    pub file: &'a str,
    /// INI section.
    pub section: &'a str,
    /// Option name.
    pub option: &'a str,
    /// Value as written.
    pub value: &'a str,
    /// 1-based line.
    pub line: usize,
}

/// A span of time, RFC 3339 in UTC.
#[derive(Debug, Serialize)]
pub struct TimeRange {
    /// First event.
    pub start: String,
    /// Last event.
    pub end: String,
}

/// The counts of a [`Report`].
#[derive(Debug, Serialize)]
pub struct StatsSummary {
    /// Bytes of text read.
    pub bytes: u64,
    /// Files read.
    pub files: u64,
    /// Records read.
    pub records: u64,
    /// Records no format fitted.
    pub unparsed: u64,
    /// Wall time of the analysis.
    pub elapsed_ms: u64,
}

impl<'a> Report<'a> {
    /// The report of `analysis` and its `findings`.
    pub fn new(analysis: &'a Analysis, findings: &'a [Finding]) -> Report<'a> {
        let hosts = analysis
            .hosts
            .iter()
            .map(|h| HostSummary {
                id: h.id,
                hostname: &h.hostname,
                services: &h.services,
                aliases: &h.aliases,
                zone: &h.zone,
                zone_source: &h.zone_source,
            })
            .collect();
        let files = analysis
            .files
            .iter()
            .map(|f| FileSummary {
                path: &f.path,
                host: f.host,
                service: &f.service,
                format: &f.format,
                records: f.records,
                unparsed: f.unparsed,
            })
            .collect();
        let config = analysis
            .config
            .iter()
            .map(|c| ConfigSummary {
                file: &c.file,
                section: &c.section,
                option: &c.option,
                value: &c.value,
                line: c.line,
            })
            .collect();
        let time_range = match (analysis.events.first(), analysis.events.last()) {
            (Some(first), Some(last)) => Some(TimeRange {
                start: utc(first.time),
                end: utc(last.time),
            }),
            _ => None,
        };
        let stats = &analysis.stats;
        Report {
            schema: SCHEMA,
            analysis: AnalysisSummary {
                inputs: &analysis.inputs,
                layout: analysis.layout.as_str(),
                hosts,
                files,
                config,
                time_range,
                skipped: &analysis.skipped,
                missing: &analysis.missing,
                skew: &analysis.skew,
                clocks: &analysis.clocks,
            },
            findings,
            stats: StatsSummary {
                bytes: stats.bytes,
                files: stats.files,
                records: stats.records,
                unparsed: stats.unparsed,
                elapsed_ms: stats.elapsed_ms,
            },
        }
    }
}

/// The JSON document of an analysis (`evacdoc analyze --format json`): the [`Report`]
/// as a JSON value (keys in sorted order).
pub fn json_document(analysis: &Analysis, findings: &[Finding]) -> Value {
    serde_json::to_value(Report::new(analysis, findings)).unwrap_or(Value::Null)
}

/// Colours for a terminal (empty strings when not one).
#[derive(Clone, Copy, Debug)]
pub struct Style {
    bold: &'static str,
    red: &'static str,
    yellow: &'static str,
    dim: &'static str,
    reset: &'static str,
}

impl Style {
    /// ANSI colours.
    pub const COLOUR: Style = Style {
        bold: "\u{1b}[1m",
        red: "\u{1b}[31m",
        yellow: "\u{1b}[33m",
        dim: "\u{1b}[2m",
        reset: "\u{1b}[0m",
    };
    /// No colours.
    pub const PLAIN: Style = Style {
        bold: "",
        red: "",
        yellow: "",
        dim: "",
        reset: "",
    };
}

fn severity_label(severity: Severity, style: Style) -> String {
    let colour = match severity {
        Severity::Critical => style.red,
        Severity::Warning => style.yellow,
        Severity::Info => "",
    };
    format!(
        "{colour}{}{}",
        severity.as_str().to_uppercase(),
        style.reset
    )
}

/// The terminal report: findings first, then hosts and files.
pub fn text(analysis: &Analysis, findings: &[Finding], style: Style) -> String {
    let mut out = String::new();
    let Style {
        bold, dim, reset, ..
    } = style;
    if findings.is_empty() {
        let _ = writeln!(
            out,
            "{bold}No findings.{reset} evacdoc found no failed or risky Masakari recovery in these inputs.\n"
        );
    }
    for (n, f) in findings.iter().enumerate() {
        let _ = writeln!(
            out,
            "{bold}{}. [{}] {}{reset}",
            n + 1,
            severity_label(f.severity, style),
            f.title
        );
        let _ = writeln!(out, "   {dim}{}{reset}", f.id);
        let _ = writeln!(out, "   {}", visible_controls(&f.summary));
        if let Some(w) = &f.window {
            let _ = writeln!(out, "   window: {} .. {}", w.start, w.end);
        }
        let _ = writeln!(out, "\n   Why: {}", visible_controls(&f.explanation));
        let _ = writeln!(out, "\n   Evidence:");
        for e in f.evidence.iter().take(30) {
            let _ = writeln!(
                out,
                "     {dim}{}:{}{reset} {}",
                visible_controls(&e.path),
                e.line,
                visible_controls(&e.text)
            );
        }
        if f.evidence.len() > 30 {
            let _ = writeln!(
                out,
                "     ... {} more lines (see --format json)",
                f.evidence.len() - 30
            );
        }
        let _ = writeln!(out, "\n   Fix: {}", f.remediation.summary);
        for c in &f.remediation.config_changes {
            let _ = writeln!(
                out,
                "     {} [{}] {} = {} (now {}): {}",
                c.file,
                c.section,
                c.option,
                c.recommended,
                c.current.as_deref().unwrap_or("unset"),
                c.note
            );
        }
        for a in &f.remediation.actions {
            let _ = writeln!(
                out,
                "     action: {}",
                serde_json::to_string(a).unwrap_or_default()
            );
        }
        for b in &f.known_bugs {
            let id = if b.id.is_empty() { "?" } else { &b.id };
            let _ = writeln!(
                out,
                "   Known bug: {} {id} {} ({})\n     fix: {}",
                b.tracker, b.title, b.url, b.fix_status
            );
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "{bold}Inputs{reset}: {} ({})",
        analysis.inputs.join(", "),
        analysis.layout.as_str()
    );
    let _ = writeln!(out, "{bold}Hosts{reset}:");
    for h in &analysis.hosts {
        let _ = writeln!(
            out,
            "  {:<28} zone {:<16} services {}",
            h.hostname,
            h.zone,
            h.services.join(", ")
        );
    }
    let s = &analysis.stats;
    let _ = writeln!(
        out,
        "{bold}Read{reset}: {} files, {} records ({} unparsed), {:.1} MB in {} ms; {} events kept",
        s.files,
        s.records,
        s.unparsed,
        s.bytes as f64 / 1e6,
        s.elapsed_ms,
        s.events
    );
    for m in &analysis.missing {
        let _ = writeln!(out, "  missing: {} ({})", m.path, m.reason);
    }
    for k in analysis.skipped.iter().take(20) {
        let _ = writeln!(out, "  skipped: {} ({})", k.path, k.reason);
    }
    for note in crate::correlate::skew::notes::clock_notes(analysis) {
        let _ = writeln!(out, "  clock: {note}");
    }
    out
}

/// The Markdown report, for a bug tracker: evidence as code blocks of interleaved lines.
pub fn markdown(analysis: &Analysis, findings: &[Finding]) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "## evacdoc analysis\n");
    let _ = writeln!(
        out,
        "Inputs: `{}` ({} layout, {} hosts, {} files). Schema `{SCHEMA}`.\n",
        analysis.inputs.join("`, `"),
        analysis.layout.as_str(),
        analysis.hosts.len(),
        analysis.files.len()
    );
    let clocks = crate::correlate::skew::notes::clock_notes(analysis);
    if !clocks.is_empty() {
        let _ = writeln!(out, "Clocks:\n\n- {}\n", clocks.join("\n- "));
    }
    if findings.is_empty() {
        let _ = writeln!(out, "No findings.");
    }
    for f in findings {
        let _ = writeln!(
            out,
            "### {}: {}\n",
            f.severity.as_str().to_uppercase(),
            f.title
        );
        let _ = writeln!(out, "- detector: `{}`", f.detector);
        if let Some(n) = &f.notification_id {
            let _ = writeln!(out, "- notification: `{n}`");
        }
        if let Some(h) = &f.failed_host {
            let _ = writeln!(out, "- failed host: `{h}`");
        }
        if !f.instance_uuids.is_empty() {
            let _ = writeln!(
                out,
                "- instances: {}",
                f.instance_uuids
                    .iter()
                    .map(|i| format!("`{i}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        if let Some(w) = &f.window {
            let _ = writeln!(out, "- window: {} .. {}", w.start, w.end);
        }
        let _ = writeln!(out, "\n{}\n", f.explanation);
        let _ = writeln!(out, "Evidence:\n\n```");
        for e in &f.evidence {
            let _ = writeln!(
                out,
                "{}:{}:{}",
                e.path,
                e.line,
                e.text.replace("```", "'''")
            );
        }
        let _ = writeln!(out, "```\n");
        let _ = writeln!(out, "**Fix:** {}\n", f.remediation.summary);
        for c in &f.remediation.config_changes {
            let _ = writeln!(
                out,
                "- `{}` `[{}]` `{} = {}` (now `{}`): {}",
                c.file,
                c.section,
                c.option,
                c.recommended,
                c.current.as_deref().unwrap_or("unset"),
                c.note
            );
        }
        if !f.known_bugs.is_empty() {
            let _ = writeln!(out, "\nKnown bugs:\n");
            for b in &f.known_bugs {
                // A link only to a numbered bug: a tracker's project page is no bug.
                if b.id.trim().is_empty() {
                    let _ = writeln!(out, "- {} {}: {}", b.tracker, b.title, b.fix_status);
                } else {
                    let _ = writeln!(
                        out,
                        "- [{} #{}]({}) {}: {}",
                        b.tracker, b.id, b.url, b.title, b.fix_status
                    );
                }
            }
        }
        out.push('\n');
    }
    // Log text may carry terminal escapes and NULs: shown, never passed on.
    crate::visible::visible_controls(&out).into_owned()
}
