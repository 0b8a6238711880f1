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
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );
    let check = Command::new("python3")
        .arg(repo.join("scripts/unseen29/check.py"))
        .arg(out)
        .arg(env!("CARGO_BIN_EXE_evacdoc"))
        .output()
        .unwrap();
    let table = String::from_utf8_lossy(&check.stdout);
    assert!(
        check.status.success(),
        "{table}\n{}",
        String::from_utf8_lossy(&check.stderr)
    );
}

/// A host-failure recovery of masakari 16 (evacuate call at 21:43:02.500 UTC).
const ENGINE_PCMK_CMP_2: &str = "\
2024-01-30 21:40:00.000 24117 INFO masakari.engine.manager [None req-ddee71a7-4207-4d6b-ab03-18f41dd94126 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification dc627c18-ce27-404e-8113-26f82463950f of type: COMPUTE_HOST
2024-01-30 21:40:00.030 24117 INFO masakari.engine.manager [None req-ddee71a7-4207-4d6b-ab03-18f41dd94126 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Set host pcmk-cmp-2 on maintenance.
2024-01-30 21:40:00.100 24117 INFO masakari.compute.nova [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-8d1816db-b6db-48ba-9106-a4e48ad45611 nova - - - - -] Disable nova-compute on pcmk-cmp-2
2024-01-30 21:40:00.600 24117 INFO masakari.engine.drivers.taskflow.host_failure [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-8d1816db-b6db-48ba-9106-a4e48ad45611 nova - - - - -] Sleeping 180 sec before starting recovery thread until nova recognizes the node down.
2024-01-30 21:43:00.700 24117 INFO masakari.compute.nova [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-3262247e-3493-47f1-a88a-e9ac4099c21d nova - - - - -] Fetch Server list on pcmk-cmp-2
2024-01-30 21:43:01.700 24117 INFO masakari.compute.nova [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-0a8d1d45-6f0e-45a8-8a3c-8ad3b2c1e0f1 nova - - - - -] Call get server command for instance 97004ec6-4bf5-41d0-a531-06bf1602436e
2024-01-30 21:43:02.200 24117 INFO masakari.compute.nova [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-07c3fe5b-bf2f-4dff-8038-2605c57fa771 nova - - - - -] Call lock server command for instance 97004ec6-4bf5-41d0-a531-06bf1602436e
2024-01-30 21:43:02.500 24117 INFO masakari.compute.nova [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-7b337978-e26a-4c0c-939b-eb787832582f nova - - - - -] Call evacuate command for instance 97004ec6-4bf5-41d0-a531-06bf1602436e on host None
2024-01-30 21:43:27.200 24117 INFO masakari.compute.nova [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-230a0cad-2e09-4c3e-a1f0-da3ece97608c nova - - - - -] Call unlock server command for instance 97004ec6-4bf5-41d0-a531-06bf1602436e
2024-01-30 21:43:28.400 24117 INFO masakari.engine.manager [req-ddee71a7-4207-4d6b-ab03-18f41dd94126 req-6e90bb81-ff08-48c7-a9f2-de63a5347450 nova - - - - -] Notification dc627c18-ce27-404e-8113-26f82463950f exits with status: finished.
";

/// `crm_mon -1 -A -n -r -t` (Pacemaker 2.1.2): its default sections list only failed and
/// pending fencing, each failure with ` (a later attempt from <node> succeeded)` when one did.
fn crm_mon(failed_item: &str) -> String {
    format!(
        "Cluster Summary:\n  * Stack: corosync\n  * Current DC: pcmk-ctl-b (version 2.1.2-ada5c3b36e2) - partition with quorum\n\
         \nNode List:\n  * Online: [ pcmk-ctl-a pcmk-ctl-b pcmk-ctl-c ]\n  * RemoteOFFLINE: [ pcmk-cmp-2 ]\n\
         \nFailed Fencing Actions:\n  * {failed_item}\n"
    )
}

#[test]
fn a_failed_fencing_in_crm_mon_with_no_later_success_is_an_unfenced_evacuation() {
    let failed = "reboot of pcmk-cmp-2 failed: delegate=pcmk-ctl-c, client=pacemaker-controld.1702, origin=pcmk-ctl-b, last-failed='2024-01-30 21:40:40.000000 +00:00'";
    let run = |item: &str| {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("sosreport-pcmk-ctl-a-20240130-0a1b2c");
        write(&root, "hostname", "pcmk-ctl-a\n");
        write(&root, "etc/timezone", "UTC\n");
        write(
            &root,
            "var/log/masakari/masakari-engine.log",
            ENGINE_PCMK_CMP_2,
        );
        write(
            &root,
            "sos_commands/pacemaker/crm_mon_-1_-A_-n_-r_-t",
            &crm_mon(item),
        );
        findings(dir.path())
            .into_iter()
            .filter(|f| f.detector == "evacuated-unfenced")
            .collect::<Vec<_>>()
    };
    let found = run(failed);
    assert_eq!(found.len(), 1, "{found:#?}");
    assert_eq!(found[0].failed_host.as_deref(), Some("pcmk-cmp-2"));
    assert!(
        found[0]
            .evidence
            .iter()
            .any(|e| e.text.contains("failed: delegate=pcmk-ctl-c"))
    );
    // a later attempt fenced it: crm_mon's default sections cannot say when, no finding
    let made_good = format!("{failed} (a later attempt from pcmk-ctl-a succeeded)");
    assert!(run(&made_good).is_empty());
}
