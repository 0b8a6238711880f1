//! Logs that interleave several services' lines, each prefixed with its writer: a host's
//! whole journal, its syslog, `kubectl logs --all-containers --prefix`. The bundles
//! written by real Nova and Masakari (`samples/realstack`) with the controller's logs
//! merged into one such file, in time order, must give the same findings as the
//! separate files, and each evidence line must be the line the merged file holds there.

use std::path::{Path, PathBuf};

use evacdoc_parsers::time::oslo_timestamp;

use crate::util::{analysis_json, copy_tree, finding_keys, samples};

/// How the merged file prefixes a line of `service` (its first line's time `stamp`,
/// `2026-12-05 21:36:52.939`, for the lines without one).
#[derive(Clone, Copy, Debug)]
enum Merge {
    /// sos's `journalctl --no-pager`: `Dec 05 21:36:52 ctl1 nova-api[2175]: `.
    Journal,
    /// rsyslog's `/var/log/syslog`: `Dec  5 21:36:52 ctl1 nova-api[2175]: `.
    Syslog,
    /// `kubectl logs --all-containers --prefix --timestamps`:
    /// `[pod/nova-api-0/nova-api] 2026-12-05T21:36:52.939000000Z `.
    Kubectl,
    /// DevStack's journal (`screen-*.txt` of upstream CI jobs, `journalctl -o
    /// short-precise`): `Dec 05 21:36:52.939000 ctl1 nova-api[2175]: `, and the oslo.log
    /// line after it without its own time and pid (DevStack's format leaves them to the
    /// journal): `INFO nova.api.openstack.requestlog [...] ...`.
    Devstack,
}

impl Merge {
    /// Where the merged file goes in the controller's folder.
    fn path(self) -> &'static str {
        match self {
            Merge::Journal => "sos_commands/logs/journalctl_--no-pager",
            Merge::Syslog => "var/log/syslog",
            Merge::Devstack => "logs/screen-all.txt",
            Merge::Kubectl => "pods/all-containers.log",
        }
    }

    fn prefix(self, service: &str, stamp: &str) -> String {
        const MONTHS: [&str; 12] = [
            "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
        ];
        let month = MONTHS[stamp[5..7].parse::<usize>().unwrap() - 1];
        let day: u32 = stamp[8..10].parse().unwrap();
        let clock = &stamp[11..19];
        match self {
            Merge::Journal => format!("{month} {day:02} {clock} ctl1 {service}[2175]: "),
            Merge::Syslog => format!("{month} {day:>2} {clock} ctl1 {service}[2175]: "),
            Merge::Devstack => format!(
                "{month} {day:02} {clock}.{}000 ctl1 {service}[2175]: ",
                &stamp[20..23]
            ),
            Merge::Kubectl => format!(
                "[pod/{service}-0/{service}] {}T{}000000Z ",
                &stamp[..10],
                &stamp[11..23]
            ),
        }
    }
}

impl Merge {
    /// What the merged file holds of `line` after its prefix: DevStack's drops an
    /// oslo.log line's own time and pid.
    fn body(self, line: &str) -> &str {
        if !matches!(self, Merge::Devstack)
            || line.get(..23).is_none_or(|h| oslo_timestamp(h).is_err())
        {
            return line;
        }
        let after_time = line[23..].trim_start_matches(' ');
        let after_pid = after_time.trim_start_matches(|c: char| c.is_ascii_digit());
        after_pid.strip_prefix(' ').unwrap_or(after_pid)
    }
}

/// A copy of `bundle` in `to` whose controller logs (`ctl1/var/log/*/*.log`) are one
/// merged file; the merged file's path.
fn merged(bundle: &Path, to: &Path, merge: Merge) -> PathBuf {
    copy_tree(bundle, to);
    let logs = to.join("ctl1/var/log");
    let mut lines: Vec<(String, String, usize, String)> = Vec::new();
    for dir in std::fs::read_dir(&logs).unwrap().flatten() {
        for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
            let path = file.path();
            let service = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let mut stamp = String::new();
            for (i, line) in text.lines().enumerate() {
                if let Some(head) = line.get(..23)
                    && oslo_timestamp(head).is_ok()
                {
                    stamp = head.to_string();
                }
                let prefixed = format!("{}{}", merge.prefix(&service, &stamp), merge.body(line));
                lines.push((stamp.clone(), service.clone(), i, prefixed));
            }
            std::fs::remove_file(&path).unwrap();
        }
    }
    lines.sort();
    let out = to.join("ctl1").join(merge.path());
    std::fs::create_dir_all(out.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|(.., l)| format!("{l}\n")).collect();
    std::fs::write(&out, text).unwrap();
    out
}

#[test]
fn real_bundles_give_the_same_findings_from_a_merged_log() {
    for scenario in ["race", "pending"] {
        let bundle = samples().join("realstack").join(scenario).join("bundle");
        let expected = finding_keys(&analysis_json(&bundle));
        assert!(!expected.is_empty(), "{scenario}");
        for merge in [
            Merge::Journal,
            Merge::Syslog,
            Merge::Kubectl,
            Merge::Devstack,
        ] {
            let dir = tempfile::tempdir().unwrap();
            let copy = dir.path().join("bundle");
            let file = merged(&bundle, &copy, merge);
            let doc = analysis_json(&copy);
            assert_eq!(finding_keys(&doc), expected, "{scenario}, {merge:?}");
            // Evidence from the merged file names it (the part read as one service)
            // and the line it holds there.
            let merged_lines: Vec<String> = std::fs::read_to_string(&file)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            let rel = format!("ctl1/{}", merge.path());
            let mut checked = 0;
            for f in doc["findings"].as_array().unwrap() {
                for e in f["evidence"].as_array().into_iter().flatten() {
                    let Some(path) = e["path"].as_str() else {
                        continue;
                    };
                    if !path.starts_with(&rel) {
                        continue;
                    }
                    assert!(path.starts_with(&format!("{rel}#")), "{path}");
                    let line = e["line"].as_u64().unwrap() as usize;
                    let text = e["text"].as_str().unwrap();
                    assert!(
                        merged_lines[line - 1].ends_with(text.lines().next().unwrap()),
                        "{scenario}, {merge:?}: {path}:{line} is `{}`, evidence `{text}`",
                        merged_lines[line - 1]
                    );
                    checked += 1;
                }
            }
            assert!(checked > 0, "{scenario}, {merge:?}: no evidence from {rel}");
        }
    }
}
