//! Issue 29's classes on bundles the detectors were not written against: the independent
//! generator `scripts/unseen29/gen.py` (other layouts, wrappers, releases' wording, clock
//! offsets) checked against its ground truth, and the gaps it found, each on real lines.

use std::path::Path;
use std::process::Command;

use evacdoc::detect::{DetectOptions, Finding, detect};
use evacdoc::run::{Options, analyze};

fn write(root: &Path, rel: &str, text: &str) {
    let p = root.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

fn findings(root: &Path) -> Vec<Finding> {
    let analysis = analyze(&[root.to_path_buf()], &Options::default()).unwrap();
    detect(&analysis, &DetectOptions::default())
}

/// nova-compute under systemd without `log_file`: its refusals only in sos's capture of the
/// whole journal (`sos_commands/logs/journalctl_--no-pager`), wrapped by journald.
const JOURNAL_REFUSAL: &str = "\
Mar 04 20:10:00 hv17 nova-compute[2200]: 2025-03-04 20:10:00.000 2200 INFO nova.service [-] Starting compute node (version 30.0.0)
Mar 04 20:10:01 hv17 nova-compute[2200]: 2025-03-04 20:10:01.000 2200 ERROR oslo_service.service [None req-5d3b2a10-7c1e-4f2a-9b8c-0d1e2f3a4b5c - - - - - -] Error starting thread.: nova.exception.InvalidConfiguration: No local node identity found, but this is not our first startup on this host. Refusing to start after potentially having lost that state!
Mar 04 20:10:01 hv17 nova-compute[2200]: 2025-03-04 20:10:01.000 2200 ERROR oslo_service.service Traceback (most recent call last):
Mar 04 20:10:01 hv17 nova-compute[2200]: 2025-03-04 20:10:01.000 2200 ERROR oslo_service.service   File \"/usr/lib/python3/dist-packages/oslo_service/service.py\", line 810, in run_service
Mar 04 20:10:01 hv17 nova-compute[2200]: 2025-03-04 20:10:01.000 2200 ERROR oslo_service.service     service.start()
Mar 04 20:10:01 hv17 nova-compute[2200]: 2025-03-04 20:10:01.000 2200 ERROR oslo_service.service nova.exception.InvalidConfiguration: No local node identity found, but this is not our first startup on this host. Refusing to start after potentially having lost that state!
Mar 04 20:10:01 hv17 nova-compute[2200]: 2025-03-04 20:10:01.000 2200 ERROR oslo_service.service 
Mar 04 20:10:02 hv17 systemd[1]: nova-compute.service: Main process exited, code=exited, status=1/FAILURE
";

#[test]
fn a_compute_refusing_to_start_in_the_journal_only_is_found() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("sosreport-hv17-20250305-a1b2c3");
    write(&root, "hostname", "hv17.prod.example.net\n");
    write(&root, "etc/timezone", "America/Chicago\n");
    write(
        &root,
        "sos_commands/logs/journalctl_--no-pager",
        JOURNAL_REFUSAL,
    );
    let all = findings(dir.path());
    let f = all
        .iter()
        .find(|f| f.detector == "compute-refuses-to-start")
        .unwrap_or_else(|| panic!("{all:#?}"));
    assert_eq!(
        f.failed_host.as_deref().map(|h| h.split('.').next()),
        Some(Some("hv17"))
    );
}

#[test]
fn a_journal_capture_beside_the_syslog_is_not_read_twice() {
    let count = |with_syslog: bool, with_journal: bool| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sosreport-hv17-20250305-a1b2c3");
        write(&root, "hostname", "hv17\n");
        if with_syslog {
            write(&root, "var/log/syslog", JOURNAL_REFUSAL);
        }
        if with_journal {
            write(
                &root,
                "sos_commands/logs/journalctl_--no-pager",
                JOURNAL_REFUSAL,
            );
            write(
                &root,
                "sos_commands/logs/journalctl_--no-pager_--boot",
                JOURNAL_REFUSAL,
            );
        }
        let analysis = analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap();
        let refusals = detect(&analysis, &DetectOptions::default())
            .iter()
            .filter(|f| f.detector == "compute-refuses-to-start")
            .count();
        (analysis.events.len(), refusals)
    };
    let syslog_only = count(true, false);
    assert_eq!(count(true, true), syslog_only);
    assert_eq!(count(false, true), syslog_only);
    assert_eq!(syslog_only.1, 1);
}

/// The generator's bundles against their ground truth (skipped without python3).
#[test]
fn the_unseen_bundles_give_their_ground_truth() {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"));
    if Command::new("python3").arg("--version").output().is_err() {
        eprintln!("python3 not found: skipped");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().to_str().unwrap();
    let generated = Command::new("python3")
        .arg(repo.join("scripts/unseen29/gen.py"))
        .arg(out)
        .output()
        .unwrap();
    assert!(generated.status.success(), "{}", String::from_utf8_lossy(&generated.stderr));
    let check = Command::new("python3")
        .arg(repo.join("scripts/unseen29/check.py"))
        .arg(out)
        .arg(env!("CARGO_BIN_EXE_evacdoc"))
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&check.stdout);
    assert!(check.status.success(), "{table}\n{}", String::from_utf8_lossy(&check.stderr));
}
