//! An analysis that read nothing it could use (no log line, no config, no capture) is
//! not "no finding": it is said so, with what the inputs held, so that random bytes or
//! a stray file never show as a healthy cloud.

use std::fmt;

use crate::ingest::discover::Found;
use crate::ingest::place::Placed;
use crate::ingest::role::Role;
use crate::model::inventory::{CaptureFile, ConfigValue, FileInfo, Skipped};

/// What the inputs held, counted before anything is read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FoundTally {
    /// Files found (archives unpacked).
    pub files: u64,
    /// Their bytes on disk.
    pub bytes: u64,
    /// Files of no type evacdoc reads.
    pub unknown: u64,
    /// Their bytes.
    pub unknown_bytes: u64,
    /// The inputs given as files of no known type (listed as skipped too: said once).
    pub unknown_given: Vec<String>,
}

impl FoundTally {
    pub(crate) fn of(placed: &[Placed<'_>]) -> FoundTally {
        let mut tally = FoundTally::default();
        for p in placed {
            tally.files += 1;
            tally.bytes += p.file.size;
            if matches!(p.role, Role::Ignored(_)) {
                tally.unknown += 1;
                tally.unknown_bytes += p.file.size;
                if p.file.given {
                    tally.unknown_given.push(p.file.rel.clone());
                }
            }
        }
        tally
    }
}

/// No log line, config or capture could be read from the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NothingRead {
    /// The inputs, by name (never a server path).
    pub inputs: Vec<String>,
    /// What was found.
    pub found: FoundTally,
    /// Logs found whose reading gave no line.
    pub empty_logs: u64,
    /// Entries and files skipped, and the first reason.
    pub skipped: u64,
    pub first_skipped: Option<(String, String)>,
}

impl NothingRead {
    /// `Some` when nothing usable was read: no log line, no config value, no capture.
    pub(crate) fn check(
        found: &Found,
        tally: &FoundTally,
        files: &[FileInfo],
        config: &[ConfigValue],
        captures: &[CaptureFile],
        skipped: &[Skipped],
    ) -> Option<NothingRead> {
        let lines: u64 = files.iter().map(|f| f.records).sum();
        if lines > 0 || !config.is_empty() || !captures.is_empty() {
            return None;
        }
        let inputs = found
            .inputs
            .iter()
            .map(|input| {
                std::path::Path::new(input)
                    .file_name()
                    .map_or_else(|| input.clone(), |n| n.to_string_lossy().into_owned())
            })
            .collect();
        let skipped: Vec<&Skipped> = skipped
            .iter()
            .filter(|s| !tally.unknown_given.contains(&s.path))
            .collect();
        Some(NothingRead {
            inputs,
            found: tally.clone(),
            empty_logs: files.len() as u64,
            skipped: skipped.len() as u64,
            first_skipped: skipped.first().map(|s| (s.path.clone(), s.reason.clone())),
        })
    }
}

impl fmt::Display for NothingRead {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no log, config or capture file in {}: ",
            self.inputs.join(", ")
        )?;
        let mut parts = Vec::new();
        let FoundTally {
            files,
            bytes,
            unknown,
            unknown_bytes,
            ..
        } = self.found;
        if files == 0 {
            parts.push("no file".to_string());
        } else if unknown == files {
            parts.push(format!(
                "{} of unknown type, {}",
                plural(unknown, "file"),
                plural(unknown_bytes, "byte")
            ));
        } else {
            parts.push(format!(
                "{}, {}",
                plural(files, "file"),
                plural(bytes, "byte")
            ));
            if unknown > 0 {
                parts.push(format!("{} of unknown type", plural(unknown, "file")));
            }
        }
        if self.empty_logs > 0 {
            parts.push(format!("{} with no line", plural(self.empty_logs, "log")));
        }
        if let Some((path, reason)) = &self.first_skipped {
            parts.push(format!(
                "{} skipped (first {path}: {reason})",
                plural(self.skipped, "entry")
            ));
        }
        write!(f, "{}", parts.join("; "))
    }
}

/// `1 file`, `2 files`, `1,048,576 bytes`, `3 entries`.
fn plural(n: u64, one: &str) -> String {
    let word = match (n, one) {
        (1, _) => one.to_string(),
        (_, "entry") => "entries".to_string(),
        _ => format!("{one}s"),
    };
    format!("{} {word}", thousands(n))
}

/// `1048576` as `1,048,576`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_message_names_the_input_and_what_it_held() {
        let nothing = NothingRead {
            inputs: vec!["upload.bin".into()],
            found: FoundTally {
                files: 1,
                bytes: 1 << 20,
                unknown: 1,
                unknown_bytes: 1 << 20,
                unknown_given: vec!["upload.bin".into()],
            },
            empty_logs: 0,
            skipped: 0,
            first_skipped: None,
        };
        assert_eq!(
            nothing.to_string(),
            "no log, config or capture file in upload.bin: 1 file of unknown type, 1,048,576 bytes"
        );
        let mixed = NothingRead {
            inputs: vec!["b.tar".into()],
            found: FoundTally {
                files: 3,
                bytes: 10,
                unknown: 1,
                unknown_bytes: 4,
                unknown_given: Vec::new(),
            },
            empty_logs: 2,
            skipped: 2,
            first_skipped: Some(("b/x".into(), "empty".into())),
        };
        assert_eq!(
            mixed.to_string(),
            "no log, config or capture file in b.tar: 3 files, 10 bytes; 1 file of unknown type; \
             2 logs with no line; 2 entries skipped (first b/x: empty)"
        );
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1000), "1,000");
    }
}
