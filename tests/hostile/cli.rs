//! Each hostile case through `evacdoc analyze`: a clear message or a partial analysis
//! listing what was skipped, nothing written outside the work folder, memory within a
//! bound, no panic.

use std::process::Command;

use super::corpus::{self, LIMIT_FLAGS};
use super::{check, snapshot};

/// The most resident memory one case may take, in MB. These inputs are small and the
/// limits tight (`LIMIT_FLAGS`): the cases took 26 to 47 MB when this was written, so
/// only a blow-up (a bomb unpacked in memory, a line held whole) comes near this.
const PEAK_RSS_MB: u64 = 512;

/// The peak resident memory the run reported at its end (`EVACDOC_LOG=evacdoc::memory=info`),
/// read by the kernel as `VmHWM` just before the process returned from `main`.
fn peak_rss_mb(stderr: &str) -> Option<u64> {
    let (_, after) = stderr.split_once("peak_rss_mb=")?;
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[test]
fn every_hostile_case_through_analyze() {
    let root = tempfile::tempdir().unwrap();
    let inputs = root.path().join("in");
    let tmp = root.path().join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    std::fs::create_dir(root.path().join("around")).unwrap();
    std::fs::write(root.path().join("around/canary"), "untouched\n").unwrap();
    let cases = corpus::build(&inputs);
    let before = snapshot(root.path());
    for case in &cases {
        let started = std::time::Instant::now();
        let output = Command::new(env!("CARGO_BIN_EXE_evacdoc"))
            .args(["analyze", "--format", "json"])
            .args(LIMIT_FLAGS)
            .arg(&case.path)
            .env("TMPDIR", &tmp)
            .env("EVACDOC_LOG", "evacdoc::memory=info")
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(!stderr.contains("panicked"), "{}: {stderr}", case.name);
        let doc: Option<serde_json::Value> = match output.status.code() {
            Some(0) => Some(serde_json::from_slice(&output.stdout).unwrap()),
            Some(2) => None,
            other => panic!("{}: exit {other:?}: {stderr}", case.name),
        };
        check(case, doc.as_ref(), stderr.trim());
        // Messages name what was given, never the work folder.
        let tmp_text = tmp.display().to_string();
        assert!(
            !String::from_utf8_lossy(&output.stdout).contains(&tmp_text)
                && !stderr.contains(&tmp_text),
            "{}: the work folder is named: {stderr}",
            case.name
        );
        assert_eq!(
            snapshot(root.path()),
            before,
            "{}: files written",
            case.name
        );
        assert!(!std::path::Path::new(&corpus::absolute_target()).exists());
        let peak = peak_rss_mb(&stderr)
            .unwrap_or_else(|| panic!("{}: no peak memory reported: {stderr}", case.name));
        assert!(
            peak <= PEAK_RSS_MB,
            "{}: {peak} MB resident at the peak, more than {PEAK_RSS_MB} MB",
            case.name
        );
        let skipped = doc.as_ref().map(|d| d["analysis"]["skipped"].to_string());
        eprintln!(
            "{}: {:?} {peak} MB {skipped:?}",
            case.name,
            started.elapsed()
        );
    }
}
