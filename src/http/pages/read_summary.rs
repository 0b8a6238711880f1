//! What an analysis read, in one sentence, and whether "no finding" can be said of it:
//! "No detector fired" means nothing when nothing (or nothing parseable) was read, so the
//! page never shows it without the figures, and shows it green only over parsed lines.

use super::format::{count, human_bytes};
use crate::correlate::analysis::Stats;

/// The figures of what was read.
pub(super) struct ReadSummary {
    /// `Read 3 files, 12 345 log lines (17 unparsed), 1.2 MiB; 2 entries skipped.`
    pub text: String,
    /// Some lines were read and parsed: an empty list of findings says something.
    pub parsed_some: bool,
}

impl ReadSummary {
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
        ReadSummary {
            text,
            parsed_some: stats.records > stats.unparsed,
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
        assert!(summary.parsed_some);
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
        assert!(!summary.parsed_some);
    }
}
