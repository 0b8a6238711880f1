//! Triage output for bug trackers that show plain text, as Launchpad does: prose wrapped at
//! 100 columns, no tables, log lines in indented blocks (code blocks in Markdown, readable
//! as they are in plain text).

use std::fmt::Write as _;

use crate::correlate::Analysis;
use crate::detect::Finding;
use crate::triage::document::Triage;
use crate::triage::matching::BugMatch;

/// The widest line of prose.
pub const WIDTH: usize = 100;
/// How many evidence lines of a finding the bug report shows.
const EVIDENCE_SHOWN: usize = 40;

/// `text` wrapped at [`WIDTH`] columns, every line starting with `indent`.
pub fn wrap(text: &str, indent: &str) -> String {
    hanging(text, indent, indent)
}

/// `text` wrapped at [`WIDTH`] columns, its first line starting with `first`, the
/// others with `rest` (a list item's continuation lines under its text).
pub fn hanging(text: &str, first: &str, rest: &str) -> String {
    let mut out = String::new();
    let mut indent = first;
    let mut line = String::from(indent);
    for word in text.split_whitespace() {
        let empty = line.len() == indent.len();
        if !empty && line.len() + 1 + word.len() > WIDTH {
            out.push_str(&line);
            out.push('\n');
            indent = rest;
            line = String::from(indent);
        }
        if line.len() > indent.len() {
            line.push(' ');
        }
        line.push_str(word);
    }
    if line.len() > indent.len() {
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The id of a match as a reader writes it (`LP #2158101`, or the title without an id).
fn bug_name(m: &BugMatch) -> String {
    match (m.tracker.as_str(), m.id.is_empty()) {
        (_, true) => format!("{} (no bug number)", m.tracker),
        ("launchpad", false) => format!("LP #{}", m.id),
        (tracker, false) => format!("{tracker} #{}", m.id),
    }
}

fn write_matches(out: &mut String, triage: &Triage) {
    if triage.matches.is_empty() {
        out.push_str(&wrap(
            "No known bug matches: no finding points to a bug in evacdoc's catalog.",
            "",
        ));
        return;
    }
    for m in &triage.matches {
        let head = format!(
            "- {}: {} (confidence {}, {:.2})",
            bug_name(m),
            m.title,
            m.confidence.as_str(),
            m.score
        );
        out.push_str(&hanging(&head, "", "  "));
        let _ = writeln!(out, "  {}", m.url);
        for r in &m.reasons {
            out.push_str(&hanging(&format!("* {}", r.text), "    ", "      "));
        }
    }
}

/// The triage in Markdown: environment, matches with reasons, findings in brief.
pub fn triage_markdown(triage: &Triage) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "evacdoc triage ({})\n", triage.schema);
    write_environment(&mut out, triage);
    let _ = writeln!(out, "\nKnown bugs\n----------\n");
    write_matches(&mut out, triage);
    let _ = writeln!(out, "\nFindings\n--------\n");
    if triage.findings.is_empty() {
        let _ = writeln!(out, "No findings.");
    }
    for f in &triage.findings {
        out.push_str(&wrap(
            &format!(
                "- {} {}: {} ({})",
                f.severity.to_uppercase(),
                f.detector,
                f.title,
                f.id
            ),
            "",
        ));
    }
    // Log text may carry terminal escapes and NULs: shown, never passed on.
    crate::visible::visible_controls(&out).into_owned()
}

fn write_environment(out: &mut String, triage: &Triage) {
    let env = &triage.environment;
    let _ = writeln!(out, "Environment\n-----------\n");
    let _ = writeln!(
        out,
        "    OpenStack series: {}",
        env.series
            .as_deref()
            .unwrap_or("unknown (no package list names one)")
    );
    for r in &env.releases {
        let _ = writeln!(
            out,
            "    {}: {} {} on {}{}",
            r.component,
            r.package,
            r.version,
            r.host,
            r.series
                .as_deref()
                .map(|s| format!(" ({s})"))
                .unwrap_or_default()
        );
    }
    let _ = writeln!(
        out,
        "    Deployment: {}, {} hosts",
        env.layout,
        env.hosts.len()
    );
    out.push_str(&wrap(&format!("Hosts: {}", env.hosts.join(", ")), "    "));
    out.push_str(&wrap(
        &format!("Services: {}", env.services.join(", ")),
        "    ",
    ));
}

fn write_finding(out: &mut String, n: usize, f: &Finding) {
    out.push_str(&wrap(
        &format!("{n}. {}: {}", f.severity.as_str().to_uppercase(), f.title),
        "",
    ));
    let _ = writeln!(out, "   finding: {}", f.id);
    if let Some(notification) = &f.notification_id {
        let _ = writeln!(out, "   notification: {notification}");
    }
    if let Some(host) = &f.failed_host {
        let _ = writeln!(out, "   failed host: {host}");
    }
    if !f.instance_uuids.is_empty() {
        out.push_str(&wrap(
            &format!("instances: {}", f.instance_uuids.join(", ")),
            "   ",
        ));
    }
    if let Some(w) = &f.window {
        let _ = writeln!(out, "   window (UTC): {} .. {}", w.start, w.end);
    }
    out.push('\n');
    out.push_str(&wrap(&f.explanation, "   "));
    if !f.evidence.is_empty() {
        let _ = writeln!(
            out,
            "\n   Evidence, interleaved across hosts in UTC order:\n"
        );
        for e in f.evidence.iter().take(EVIDENCE_SHOWN) {
            // Captures at the bundle's root belong to no host.
            let host = if e.host.is_empty() {
                String::new()
            } else {
                format!("{} ", e.host)
            };
            let _ = writeln!(out, "        # {host}{}:{}", e.path, e.line);
            let _ = writeln!(out, "        {}", e.text);
        }
        if f.evidence.len() > EVIDENCE_SHOWN {
            let _ = writeln!(
                out,
                "        # ... {} more lines",
                f.evidence.len() - EVIDENCE_SHOWN
            );
        }
    }
    out.push('\n');
    out.push_str(&wrap(&format!("Fix: {}", f.remediation.summary), "   "));
    for c in &f.remediation.config_changes {
        out.push_str(&wrap(
            &format!(
                "- {} [{}] {} = {} (now {}): {}",
                c.file,
                c.section,
                c.option,
                c.recommended,
                c.current.as_deref().unwrap_or("unset"),
                c.note
            ),
            "     ",
        ));
    }
    out.push('\n');
}

/// A complete bug report: title, summary, environment, steps, expected and actual
/// results, findings with evidence, the known bug matched and the fix.
pub fn bug_report(analysis: &Analysis, findings: &[Finding], triage: &Triage) -> String {
    let mut out = String::new();
    let top = findings.first();
    let title = match top {
        Some(f) => f.title.clone(),
        None => "No failed Masakari recovery found in the attached logs".to_string(),
    };
    out.push_str(&wrap(&format!("Title: {title}"), ""));
    let _ = writeln!(out, "\nSummary\n-------\n");
    let summary = match top {
        Some(f) => format!(
            "evacdoc found {} finding(s) in the Masakari recoveries of this bundle. The first: {}",
            findings.len(),
            f.summary
        ),
        None => "evacdoc found no failed or risky Masakari recovery in this bundle.".to_string(),
    };
    out.push_str(&wrap(&summary, ""));
    out.push('\n');
    write_environment(&mut out, triage);
    let clocks = crate::correlate::skew::notes::clock_notes(analysis);
    for note in &clocks {
        out.push_str(&hanging(&format!("Clock: {note}"), "    ", "      "));
    }
    let _ = writeln!(out, "\nSteps to reproduce\n------------------\n");
    let failed: Vec<&str> = findings
        .iter()
        .filter_map(|f| f.failed_host.as_deref())
        .collect();
    if failed.is_empty() {
        out.push_str(&hanging(
            "1. A Masakari recovery runs (see the findings for its notification).",
            "",
            "   ",
        ));
    } else {
        let mut hosts = failed.clone();
        hosts.sort();
        hosts.dedup();
        out.push_str(&hanging(
            &format!(
                "1. Compute host(s) {} fail and Masakari receives a host-failure notification.",
                hosts.join(", ")
            ),
            "",
            "   ",
        ));
        out.push_str(&hanging(
            "2. Masakari's engine runs the host recovery flow and asks Nova to evacuate the \
             host's instances.",
            "",
            "   ",
        ));
    }
    let _ = writeln!(out, "\nExpected result\n---------------\n");
    out.push_str(&wrap(
        "Every HA-enabled instance of the failed host runs on another host, and the \
         notification is reported finished only once that is true.",
        "",
    ));
    let _ = writeln!(out, "\nActual result\n-------------\n");
    if findings.is_empty() {
        let _ = writeln!(out, "As expected: no finding.");
    }
    for f in findings {
        out.push_str(&hanging(&format!("- {}", f.summary), "", "  "));
    }
    let _ = writeln!(out, "\nFindings\n--------\n");
    for (n, f) in findings.iter().enumerate() {
        write_finding(&mut out, n + 1, f);
    }
    let _ = writeln!(out, "Known bugs\n----------\n");
    write_matches(&mut out, triage);
    let _ = writeln!(
        out,
        "\nGenerated by evacdoc {} from: {}",
        env!("CARGO_PKG_VERSION"),
        analysis.inputs.join(", ")
    );
    // Log text may carry terminal escapes and NULs: shown, never passed on.
    crate::visible::visible_controls(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_keeps_words_whole_and_lines_within_the_width() {
        let text = "word ".repeat(60);
        let wrapped = wrap(&text, "   ");
        assert!(wrapped.lines().count() > 2);
        for line in wrapped.lines() {
            assert!(line.len() <= WIDTH, "{line:?}");
            assert!(line.starts_with("   word"));
        }
        assert_eq!(wrapped.split_whitespace().count(), 60);
    }

    #[test]
    fn list_items_continue_under_their_text() {
        let item = format!("- {}", "word ".repeat(40));
        let wrapped = hanging(&item, "", "  ");
        let lines: Vec<&str> = wrapped.lines().collect();
        assert!(lines[0].starts_with("- word"));
        assert!(lines[1..].iter().all(|l| l.starts_with("  word")));
    }

    #[test]
    fn a_word_longer_than_the_width_stands_alone() {
        let long = "x".repeat(150);
        let wrapped = wrap(&format!("a {long} b"), "");
        assert_eq!(wrapped, format!("a\n{long}\nb\n"));
    }
}
