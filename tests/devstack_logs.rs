//! An upstream CI job's DevStack logs: each host's `logs/screen-<unit>.txt`, one systemd
//! unit's journal (`journalctl -o short-precise`, no year), each line an oslo.log line in
//! DevStack's format, which leaves the time and the pid to the journal:
//! `Dec 05 21:36:52.939000 ctl1 nova-api[2175]: INFO nova.api.openstack.requestlog [...]`.
//! The bundles written by real Nova and Masakari (`samples/realstack`), so rewritten,
//! must give the findings their own logs give, in the year the files' modification time
//! says.

use std::path::Path;
use std::time::{Duration, SystemTime};

use evacdoc_parsers::time::oslo_timestamp;
use serde_json::Value;

use crate::util::{analysis_json, copy_tree, finding_keys, samples};

/// DevStack's short name of a service's unit.
fn unit(service: &str) -> &str {
    match service {
        "nova-compute" => "n-cpu",
        "nova-api" => "n-api",
        "nova-conductor" => "n-cond-cell1",
        "nova-scheduler" => "n-sch",
        other => other,
    }
}

/// `line` of `service` on `host` as DevStack's journal writes it (`stamp`: the time of
/// the last line that gave one, for lines without).
fn devstack_line(host: &str, service: &str, line: &str, stamp: &str) -> String {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = MONTHS[stamp[5..7].parse::<usize>().unwrap() - 1];
    let body = match line.get(..23).filter(|h| oslo_timestamp(h).is_ok()) {
        // The time and the pid go; the level, logger, context and message stay.
        Some(_) => {
            let after_pid = line[23..]
                .trim_start_matches(' ')
                .trim_start_matches(|c: char| c.is_ascii_digit());
            after_pid.strip_prefix(' ').unwrap_or(after_pid)
        }
        None => line,
    };
    format!(
        "{month} {} {}000 {host} {service}[2175]: {body}",
        &stamp[8..10],
        &stamp[11..23]
    )
}

/// A copy of `bundle` in `to` whose logs are DevStack's, last written at `written`.
fn as_devstack(bundle: &Path, to: &Path, written: SystemTime) {
    copy_tree(bundle, to);
    for host in std::fs::read_dir(to).unwrap().flatten() {
        let host_name = host.file_name().to_string_lossy().into_owned();
        let logs = host.path().join("var/log");
        let Ok(dirs) = std::fs::read_dir(&logs) else {
            continue;
        };
        let screens = host.path().join("logs");
        std::fs::create_dir_all(&screens).unwrap();
        for dir in dirs.flatten() {
            for file in std::fs::read_dir(dir.path()).unwrap().flatten() {
                let path = file.path();
                let service = path.file_stem().unwrap().to_string_lossy().into_owned();
                let mut stamp = String::new();
                let mut out = String::new();
                for line in std::fs::read_to_string(&path).unwrap().lines() {
                    if let Some(head) = line.get(..23).filter(|h| oslo_timestamp(h).is_ok()) {
                        stamp = head.to_string();
                    }
                    out.push_str(&devstack_line(&host_name, &service, line, &stamp));
                    out.push('\n');
                }
                let screen = screens.join(format!("screen-{}.txt", unit(&service)));
                std::fs::write(&screen, out).unwrap();
                let f = std::fs::File::options().write(true).open(&screen).unwrap();
                f.set_modified(written).unwrap();
            }
        }
        std::fs::remove_dir_all(&logs).unwrap();
    }
}

/// 2027-01-03T08:00:00Z: the logs (December 2026) saved in the next year.
fn january_2027() -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(1_798_963_200)
}

#[test]
fn real_bundles_give_the_same_findings_from_devstack_screen_logs() {
    for scenario in ["race", "pending"] {
        let bundle = samples().join("realstack").join(scenario).join("bundle");
        let expected = finding_keys(&analysis_json(&bundle));
        assert!(
            expected.iter().any(|f| !f.1.is_null()),
            "{scenario}: {expected:?}"
        );
        let dir = tempfile::tempdir().unwrap();
        let copy = dir.path().join("bundle");
        as_devstack(&bundle, &copy, january_2027());
        assert!(copy.join("ctl1/logs/screen-n-api.txt").is_file());
        assert!(copy.join("cmp1/logs/screen-n-cpu.txt").is_file());
        let doc = analysis_json(&copy);
        assert_eq!(finding_keys(&doc), expected, "{scenario}");
        // The evidence is the screen logs' lines.
        let evidence: Vec<&str> = doc["findings"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|f| f["evidence"].as_array().into_iter().flatten())
            .filter_map(|e| e["path"].as_str())
            .collect();
        assert!(
            evidence.iter().any(|p| p.contains("/logs/screen-")),
            "{scenario}: {evidence:?}"
        );
    }
}

#[test]
fn journal_lines_without_a_year_take_the_year_before_the_file_was_saved() {
    let bundle = samples().join("realstack/race/bundle");
    let expected = finding_keys(&analysis_json(&bundle));
    let window = expected
        .iter()
        .find(|f| !f.1.is_null())
        .map(|f| f.1["start"].as_str().unwrap().to_string())
        .unwrap();
    assert!(window.starts_with("2026-12-05"), "{window}");
    // Saved in November 2026: December's lines are of 2025.
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("bundle");
    let november_2026 = january_2027() - Duration::from_secs(63 * 86_400);
    as_devstack(&bundle, &copy, november_2026);
    let doc = analysis_json(&copy);
    let starts: Vec<&str> = doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["window"]["start"].as_str())
        .collect();
    assert!(!starts.is_empty());
    assert!(
        starts.iter().all(|s| s.starts_with("2025-12-05")),
        "{starts:?}"
    );
}

/// The window starts of the findings of `doc`.
fn starts(doc: &Value) -> Vec<String> {
    doc["findings"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|f| f["window"]["start"].as_str().map(String::from))
        .collect()
}

/// `dir` as a tar.gz and as a zip, each entry with its file's modification time.
fn archived(dir: &Path, to: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let tar_path = to.join("bundle.tar.gz");
    let gz = flate2::write::GzEncoder::new(
        std::fs::File::create(&tar_path).unwrap(),
        flate2::Compression::fast(),
    );
    let mut tar = tar::Builder::new(gz);
    tar.append_dir_all("bundle", dir).unwrap();
    tar.into_inner().unwrap().finish().unwrap();

    let zip_path = to.join("bundle.zip");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&zip_path).unwrap());
    for entry in walk(dir) {
        let rel = entry
            .strip_prefix(dir)
            .unwrap()
            .to_string_lossy()
            .into_owned();
        let modified = std::fs::metadata(&entry).unwrap().modified().unwrap();
        let secs = modified
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let t = evacdoc_parsers::DateTime::from_unix_nanos(secs as i64).unwrap();
        let options = zip::write::SimpleFileOptions::default().last_modified_time(
            zip::DateTime::from_date_and_time(t.year, t.month, t.day, t.hour, t.minute, t.second)
                .unwrap(),
        );
        zip.start_file(format!("bundle/{rel}"), options).unwrap();
        std::io::Write::write_all(&mut zip, &std::fs::read(&entry).unwrap()).unwrap();
    }
    zip.finish().unwrap();
    (tar_path, zip_path)
}

/// Every file under `dir`.
fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut files = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap().flatten() {
        let path = entry.path();
        if path.is_dir() {
            files.extend(walk(&path));
        } else {
            files.push(path);
        }
    }
    files
}

#[test]
fn archives_keep_the_time_their_files_were_saved() {
    // Saved in November 2026 (so December's lines are of 2025), unpacked now: the year
    // comes from the archive's entries, not from the unpacking.
    let bundle = samples().join("realstack/race/bundle");
    let dir = tempfile::tempdir().unwrap();
    let copy = dir.path().join("bundle");
    let november_2026 = january_2027() - Duration::from_secs(63 * 86_400);
    as_devstack(&bundle, &copy, november_2026);
    let folder = starts(&analysis_json(&copy));
    assert!(!folder.is_empty());
    assert!(
        folder.iter().all(|s| s.starts_with("2025-12-05")),
        "{folder:?}"
    );
    let (tar, zip) = archived(&copy, dir.path());
    for archive in [tar, zip] {
        let found = starts(&analysis_json(&archive));
        assert_eq!(found, folder, "{}", archive.display());
    }
}
