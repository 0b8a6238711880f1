//! oslo.log lines under other time formats than the default one: a `log_date_format` with
//! a `T`, `%(isotime)s` (local time with its offset, any zone), some hosts so and others
//! not. The bundles written by real Nova and Masakari (`samples/realstack`) are rewritten
//! line by line into each format: every finding and its window (in UTC) must stay as the
//! default format gave them.

use std::path::Path;

use evacdoc_parsers::DateTime;
use evacdoc_parsers::time::Offset;
use evacdoc_parsers::time::oslo_timestamp;
use serde_json::Value;

use crate::util::{copy_tree, evacdoc, samples, stdout};

/// How a line's default timestamp (`2026-12-05 21:36:52.939`, UTC in these bundles) is
/// written instead.
#[derive(Clone, Copy, Debug)]
enum Format {
    /// `log_date_format = %Y-%m-%dT%H:%M:%S`: `2026-12-05T21:36:52.939`.
    DateWithT,
    /// `%(isotime)s` on a host at `offset` seconds from UTC:
    /// `2026-12-05T23:36:52.939000+02:00`.
    IsoTime(Offset),
}

/// The line with its leading timestamp written in `format`; other lines as they are.
fn rewrite(line: &str, format: Format) -> String {
    let Some(head) = line.get(..23) else {
        return line.to_string();
    };
    let Ok(("", utc)) = oslo_timestamp(head) else {
        return line.to_string();
    };
    let rest = &line[23..];
    match format {
        Format::DateWithT => format!("{}T{}{rest}", &head[..10], &head[11..]),
        Format::IsoTime(offset) => {
            let local =
                DateTime::from_unix_nanos(utc.unix_nanos(0) + i64::from(offset) * 1_000_000_000)
                    .unwrap();
            // `DateTime` shows `2026-12-05T23:36:52.939`; isotime has six digits.
            let shown = format!("{local}");
            let (seconds, millis) = shown.split_once('.').unwrap();
            let sign = if offset < 0 { '-' } else { '+' };
            let (h, m) = (offset.abs() / 3600, offset.abs() % 3600 / 60);
            format!("{seconds}.{millis:0<6}{sign}{h:02}:{m:02}{rest}")
        }
    }
}

/// The format of a host's lines, by its name (`None`: left as they are).
type FormatOf<'a> = &'a dyn Fn(&str) -> Option<Format>;

/// A copy of `bundle` in `to` whose `.log` files on the hosts `format_of` names are
/// rewritten.
fn rewritten(bundle: &Path, to: &Path, format_of: FormatOf<'_>) {
    copy_tree(bundle, to);
    let mut stack = vec![to.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let host = path.strip_prefix(to).unwrap().iter().next().unwrap();
            let Some(format) = format_of(&host.to_string_lossy()) else {
                continue;
            };
            if path.extension().is_some_and(|e| e == "log") {
                let text = std::fs::read_to_string(&path).unwrap();
                let lines: Vec<String> = text.lines().map(|l| rewrite(l, format)).collect();
                std::fs::write(&path, lines.join("\n") + "\n").unwrap();
            }
        }
    }
}

/// Each finding's id and window.
fn findings(bundle: &Path) -> Vec<(String, Value)> {
    let out = evacdoc(&["analyze", "--format", "json", bundle.to_str().unwrap()]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let doc: Value = serde_json::from_str(&stdout(&out)).unwrap();
    let mut found: Vec<(String, Value)> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| (f["id"].as_str().unwrap().to_string(), f["window"].clone()))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0));
    found
}

#[test]
fn a_rewritten_line_reads_back_as_the_same_time() {
    let line = "2026-12-05 21:36:52.939 2349 INFO masakari.compute.nova [-] x";
    assert_eq!(
        rewrite(line, Format::DateWithT),
        "2026-12-05T21:36:52.939 2349 INFO masakari.compute.nova [-] x"
    );
    assert_eq!(
        rewrite(line, Format::IsoTime(-5 * 3600)),
        "2026-12-05T16:36:52.939000-05:00 2349 INFO masakari.compute.nova [-] x"
    );
    assert_eq!(
        rewrite("  File \"x.py\"", Format::DateWithT),
        "  File \"x.py\""
    );
}

#[test]
fn real_bundles_give_the_same_findings_under_other_oslo_time_formats() {
    let formats: [(&str, FormatOf<'_>); 4] = [
        ("log_date_format with T", &|_| Some(Format::DateWithT)),
        ("isotime +02:00", &|_| Some(Format::IsoTime(2 * 3600))),
        ("isotime -05:00", &|_| Some(Format::IsoTime(-5 * 3600))),
        ("isotime +01:00 on the controller alone", &|host| {
            (host == "ctl1").then_some(Format::IsoTime(3600))
        }),
    ];
    for scenario in ["race", "pending"] {
        let bundle = samples().join("realstack").join(scenario).join("bundle");
        let expected = findings(&bundle);
        assert!(
            expected.iter().any(|(_, window)| !window.is_null()),
            "{scenario}: a finding with a window"
        );
        for (name, format_of) in formats {
            let dir = tempfile::tempdir().unwrap();
            let copy = dir.path().join("bundle");
            rewritten(&bundle, &copy, format_of);
            assert_eq!(findings(&copy), expected, "{scenario}, {name}");
        }
    }
}
