//! What an analysis read, in one sentence, and whether "no finding" can be said of it:
//! "No detector fired" means nothing when nothing (or nothing parseable) was read, so the
//! page never shows it without the figures, and shows it green only over parsed lines of
//! Masakari's or Nova's logs.

use super::format::{count, human_bytes};
use crate::correlate::Analysis;
use crate::correlate::analysis::Stats;
use crate::model::Project;

/// How far an empty list of findings can be trusted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Readable {
    /// No line was parsed: nothing readable.
    Nothing,
    /// Lines were parsed, none of Masakari's or Nova's logs: nothing about recoveries.
    NoRecoveryLogs,
    /// Masakari's or Nova's lines were parsed.
    Recoveries,
}

/// The figures of what was read.
pub(super) struct ReadSummary {
    /// `Read 3 files, 12 345 log lines (17 unparsed), 1.2 MiB; 2 entries skipped.`
    pub text: String,
    /// What an empty list of findings would mean.
    pub readable: Readable,
    /// Why nothing was readable: the skipped entries and the files no line of which was
    /// parsed, with the reason (at most [`MAX_REASONS`]).
    pub reasons: Vec<(String, String)>,
}

/// The reasons listed beside "Nothing readable"; the files section has them all.
const MAX_REASONS: usize = 20;

impl ReadSummary {
    /// No line was parsed at all.
    pub(super) fn nothing(&self) -> bool {
        self.readable == Readable::Nothing
    }

    /// Lines were parsed, none of a Masakari or Nova log.
    pub(super) fn no_recovery_logs(&self) -> bool {
        self.readable == Readable::NoRecoveryLogs
    }

    /// The summary of `analysis`, with what an empty list of findings would mean.
    pub(super) fn of_analysis(analysis: &Analysis) -> ReadSummary {
        let mut summary = ReadSummary::of(&analysis.stats, analysis.skipped.len());
        let parsed_some = summary.readable != Readable::Nothing;
        let recovery_logs = analysis.files.iter().any(|f| {
            matches!(f.service.project(), Project::Masakari | Project::Nova)
                && f.format != "ini"
                && f.records > f.unparsed
        });
        summary.readable = if !parsed_some {
            Readable::Nothing
        } else if !recovery_logs {
            Readable::NoRecoveryLogs
        } else {
            Readable::Recoveries
        };
        if summary.readable != Readable::Recoveries {
            let skipped = analysis
                .skipped
                .iter()
                .map(|s| (s.path.clone(), s.reason.clone()));
            let unparsed = analysis
                .files
                .iter()
                .filter(|f| f.records == f.unparsed)
                .map(|f| {
                    let reason = if f.records == 0 {
                        "no line in it".to_string()
                    } else {
                        format!("none of its {} lines fits a known format", count(f.records))
                    };
                    (f.path.clone(), reason)
                });
            summary.reasons = skipped.chain(unparsed).take(MAX_REASONS).collect();
        }
        summary
    }

    pub(super) fn of(stats: &Stats, skipped: usize) -> ReadSummary {
        let files = if stats.files == 1 { "file" } else { "files" };
        let lines = if stats.records == 1 { "line" } else { "lines" };
        let mut text = format!(
            "Read {} {files}, {} log {lines} ({} unparsed), {}",
            count(stats.files),
            count(stats.records),
            count(stats.unparsed),
            human_bytes(stats.bytes)
        );
        if skipped > 0 {
            let entries = if skipped == 1 { "entry" } else { "entries" };
            text.push_str(&format!("; {} {entries} skipped", count(skipped as u64)));
        }
        text.push('.');
        let parsed_some = stats.records > stats.unparsed;
        ReadSummary {
            text,
            readable: if parsed_some {
                Readable::Recoveries
            } else {
                Readable::Nothing
            },
            reasons: Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_summary_gives_files_lines_and_unparsed_and_says_when_nothing_parsed() {
        let stats = Stats {
            files: 3,
            records: 12_345,
            unparsed: 17,
            bytes: 2048,
            ..Stats::default()
        };
        let summary = ReadSummary::of(&stats, 2);
        assert_eq!(
            summary.text,
            format!(
                "Read 3 files, {} log lines (17 unparsed), 2.0 KiB; 2 entries skipped.",
                count(12_345)
            )
        );
        assert_eq!(summary.readable, Readable::Recoveries);
        let junk = Stats {
            files: 1,
            records: 40,
            unparsed: 40,
            bytes: 900,
            ..Stats::default()
        };
        let summary = ReadSummary::of(&junk, 0);
        assert_eq!(
            summary.text,
            "Read 1 file, 40 log lines (40 unparsed), 900 B."
        );
        assert!(summary.nothing());
    }
}
