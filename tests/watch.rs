//! `evacdoc watch`: real-format lines appended over time (with a rotation and a
//! truncation) give exactly the findings a batch analysis gives, once, when their
//! recovery ends; memory stays bounded over many recoveries; the watched system log
//! tells the fencing. Its trigger (webhooks, guards, remediation) is in `watch_triggers`.

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use evacdoc::detect::Finding;
use evacdoc::run::{RunOptions, analyze_inputs};
use evacdoc::watch::{WatchOptions, Watcher};

use crate::util::samples;

pub(crate) const SCENARIO: &str = "scenarios/2023-kolla-evacuate-race-zed";
const ENGINE: &str = "ctl01/var/log/kolla/masakari/masakari-engine.log";
const ACCESS: &str = "ctl01/var/log/kolla/nova/nova-api-access.log";

pub(crate) fn fast_options() -> WatchOptions {
    WatchOptions {
        poll: Duration::from_millis(10),
        rescan: Duration::ZERO,
        ..WatchOptions::default()
    }
}

pub(crate) fn append(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .unwrap();
    f.write_all(text.as_bytes()).unwrap();
}

/// A log's lines cut into `n` slices, each cut before a line that starts a record (a
/// timestamp or an access line's address), so that a record is never split by a cut.
fn slices(text: &str, n: usize) -> Vec<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let per = lines.len().div_ceil(n).max(1);
    let mut out = vec![String::new(); n];
    let mut slice = 0;
    for (i, line) in lines.iter().enumerate() {
        let starts_record = line.as_bytes().first().is_some_and(|b| b.is_ascii_digit());
        if i >= per * (slice + 1) && starts_record && slice + 1 < n {
            slice += 1;
        }
        out[slice].push_str(line);
    }
    out
}

/// Every file of the scenario that is not a log, copied into `live` (configs, zones).
pub(crate) fn copy_small_files(from: &Path, rel: &Path, live: &Path, logs: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(from.join(rel)).unwrap() {
        let entry = entry.unwrap();
        let rel = rel.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_small_files(from, &rel, live, logs);
        } else if rel.to_string_lossy().contains("/var/log/") {
            logs.push(rel);
        } else if !rel.ends_with("README.md") {
            std::fs::create_dir_all(live.join(&rel).parent().unwrap()).unwrap();
            std::fs::copy(from.join(&rel), live.join(&rel)).unwrap();
        }
    }
}

fn poll_until_quiet(watcher: &mut Watcher, into: &mut Vec<Finding>) {
    // Two looks: the first reads, the second finds the writer quiet and hands out the
    // record the assembler held.
    for _ in 0..3 {
        into.extend(watcher.poll());
    }
}

fn ids(findings: &[Finding]) -> Vec<String> {
    let mut ids: Vec<String> = findings.iter().map(|f| f.id.to_string()).collect();
    ids.sort();
    ids
}

#[test]
fn appended_lines_with_a_rotation_and_a_truncation_give_the_batch_findings_once() {
    let scenario = samples().join(SCENARIO);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut logs = Vec::new();
    copy_small_files(&scenario, Path::new(""), &live, &mut logs);
    logs.sort();
    assert!(logs.len() >= 5, "{logs:?}");
    let rounds = 6;
    let sliced: BTreeMap<PathBuf, Vec<String>> = logs
        .iter()
        .map(|rel| {
            let text = std::fs::read_to_string(scenario.join(rel)).unwrap();
            (rel.clone(), slices(&text, rounds))
        })
        .collect();

    let mut watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let mut found: Vec<Finding> = Vec::new();
    // The configuration alone says the race is likely: handed out at once.
    poll_until_quiet(&mut watcher, &mut found);
    assert_eq!(
        ids(&found),
        vec!["evacuation-race-risk:ctl01/etc/kolla/masakari-engine/masakari.conf"]
    );
    let mut engine_written = String::new();
    let mut race_seen_after: Option<String> = None;
    for round in 0..rounds {
        for (rel, parts) in &sliced {
            append(&live.join(rel), &parts[round]);
            if rel.ends_with("masakari-engine.log") {
                engine_written.push_str(&parts[round]);
            }
        }
        let before = found.len();
        poll_until_quiet(&mut watcher, &mut found);
        if found[before..]
            .iter()
            .any(|f| f.detector == "evacuate-400-race")
        {
            race_seen_after = Some(engine_written.clone());
        }
        if round == 1 {
            // logrotate by rename: the engine's log moves away, a new one takes its name.
            std::fs::rename(live.join(ENGINE), live.join(format!("{ENGINE}.1"))).unwrap();
        }
        if round == 2 {
            // copytruncate: the access log is copied and cut to nothing.
            std::fs::copy(live.join(ACCESS), live.join(format!("{ACCESS}.1"))).unwrap();
            std::fs::write(live.join(ACCESS), "").unwrap();
        }
    }
    for _ in 0..5 {
        poll_until_quiet(&mut watcher, &mut found);
    }

    let batch = analyze_inputs(&[scenario], &RunOptions::default()).unwrap();
    assert_eq!(
        ids(&found),
        ids(&batch.findings),
        "exactly the batch findings"
    );
    let unique: BTreeSet<String> = found.iter().map(|f| f.id.to_string()).collect();
    assert_eq!(
        unique.len(),
        found.len(),
        "each finding once: {:?}",
        ids(&found)
    );
    assert!(
        ids(&found).contains(&"evacuate-400-race:3330353d-4f69-4f1d-b1f9-3977329fb2cd".to_string())
    );

    // Not before the recovery's run had ended.
    let written = race_seen_after.expect("the race was found");
    assert!(
        written.contains("Notification 3330353d-4f69-4f1d-b1f9-3977329fb2cd exits with status"),
        "the finding came before its recovery ended"
    );
    let race = found
        .iter()
        .find(|f| f.detector == "evacuate-400-race")
        .unwrap();
    assert_eq!(race.failed_host.as_deref(), Some("cmp02"));
    assert!(
        race.evidence.iter().any(
            |e| e.path == ENGINE && e.text.contains("Compute service of cmp02 is still in use")
        ),
        "{:#?}",
        race.evidence
    );
    // Evidence cites lines as the files were written.
    let rotated = std::fs::read_to_string(live.join(format!("{ENGINE}.1"))).unwrap();
    let current = std::fs::read_to_string(live.join(ENGINE)).unwrap();
    for e in race.evidence.iter().filter(|e| e.path == ENGINE) {
        let in_rotated = rotated.lines().nth(e.line - 1) == Some(e.text.lines().next().unwrap());
        let in_current = current.lines().nth(e.line - 1) == Some(e.text.lines().next().unwrap());
        assert!(
            in_rotated || in_current,
            "line {} is not {:?}",
            e.line,
            e.text
        );
    }
    let stats = watcher.stats();
    assert_eq!(stats.findings, found.len() as u64);
    assert!(stats.records > 200, "{stats:?}");
}

/// One failed host recovery in Masakari's exact lines (oslo.log defaults, Zed+).
pub(crate) fn failed_recovery(n: usize, minute: usize) -> String {
    let notification = format!("c5e0e0c8-1c1d-4d71-9a0e-{n:012x}");
    let instance = format!("7d1e5f0a-0000-4000-8000-{n:012x}");
    let request = format!("req-11111111-2222-3333-4444-{n:012x}");
    let t = |s: usize| {
        format!(
            "2026-11-30 {:02}:{:02}:{:02}.845",
            9 + minute / 60,
            minute % 60,
            s
        )
    };
    let mut text = String::new();
    text += &format!(
        "{} 7502 INFO masakari.engine.manager [None {request} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {notification} of type: COMPUTE_HOST\n",
        t(1)
    );
    text += &format!(
        "{} 7502 INFO masakari.compute.nova [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Disable nova-compute on compute-{n}\n",
        t(2)
    );
    text += &format!(
        "{} 7502 WARNING masakari.engine.drivers.taskflow.host_failure [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Failed to evacuate instance {instance}: masakari.exception.InstanceEvacuateFailed: Failed to evacuate instance {instance}\n",
        t(3)
    );
    text += &format!(
        "{} 7502 ERROR masakari.engine.manager [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Failed to process notification '{notification}'. Reason: Failed to evacuate instances '{instance}' from host 'compute-{n}': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{instance}' from host 'compute-{n}'\n",
        t(4)
    );
    text += &format!(
        "{} 7502 INFO masakari.engine.manager [{request} req-2062e5d9-57af-4eb6-83f3-{n:012x} nova - - - - -] Notification {notification} exits with status: error.\n",
        t(5)
    );
    text += &format!(
        "{} 7502 ERROR masakari.engine.manager [None req-a49b59c8-ae66-4306-938a-{n:012x} - - - - - -] Periodic task 'process_unfinished_notifications': Notification {notification} exits with status: failed.\n",
        t(30)
    );
    text
}

#[test]
fn many_recoveries_give_one_finding_each_and_the_window_stays_small() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("ctl1");
    std::fs::create_dir_all(live.join("etc")).unwrap();
    std::fs::write(live.join("etc/hostname"), "ctl1\n").unwrap();
    let engine = live.join("var/log/masakari/masakari-engine.log");
    append(&engine, "");
    let options = WatchOptions {
        window: Duration::from_secs(120),
        grace: Duration::from_secs(10),
        ..fast_options()
    };
    let mut watcher = Watcher::new(std::slice::from_ref(&live), options).unwrap();
    let recoveries = 60;
    let mut found = Vec::new();
    let mut most_held = 0;
    let mut all = String::new();
    for n in 0..recoveries {
        let text = failed_recovery(n, n);
        all.push_str(&text);
        append(&engine, &text);
        poll_until_quiet(&mut watcher, &mut found);
        most_held = most_held.max(watcher.stats().held_events);
    }
    for _ in 0..3 {
        poll_until_quiet(&mut watcher, &mut found);
    }
    // The same lines in one file, analyzed at once.
    let batch_dir = tempfile::tempdir().unwrap();
    let batch_root = batch_dir.path().join("ctl1");
    std::fs::create_dir_all(batch_root.join("etc")).unwrap();
    std::fs::write(batch_root.join("etc/hostname"), "ctl1\n").unwrap();
    append(
        &batch_root.join("var/log/masakari/masakari-engine.log"),
        &all,
    );
    let batch = analyze_inputs(&[batch_root], &RunOptions::default()).unwrap();
    assert_eq!(
        batch.findings.len(),
        recoveries,
        "{:?}",
        ids(&batch.findings)
    );
    assert_eq!(ids(&found), ids(&batch.findings));
    // A recovery is six events; an ended one is dropped within its grace, and the
    // recoveries are a minute apart: a few recoveries' worth at most.
    assert!(most_held <= 6 * 4, "held {most_held} events");
    assert!(watcher.stats().held_events <= 6 * 4);
}

/// Masakari's lines for a notification it ignores (the host's status is `UNKNOWN`).
fn ignored_notification(k: usize) -> String {
    let notification = format!("{:08x}-4a8d-4d3e-b7c5-1f0a9e2d8b46", 0x1000_0000 + k);
    let ctx = format!(
        "[None req-{:08x}-3b9d-4e2a-a7f5-0d6c2b8e9f13 b4e7c1a9d2f8460c8e3a5b7d9f1c2e06 2e9f4c1a7b3d45e8a6c0f2d4b8e1a937 - - default default]",
        0x2000_0000 + k
    );
    let t = format!("2026-11-30 10:{:02}:{:02}", k / 60 % 60, k % 60);
    format!(
        "{t}.452 33 INFO masakari.engine.manager {ctx} Processing notification {notification} of type: COMPUTE_HOST\n\
         {t}.480 33 WARNING masakari.engine.manager {ctx} Notification '{notification}' ignored as host_status is 'UNKNOWN'\n\
         {t}.484 33 INFO masakari.engine.manager {ctx} Notification {notification} exits with status: ignored.\n"
    )
}

/// Repeated findings of one cause go out merged, and the merged finding still names a
/// notification (the first it covers), so that a follower can look it up.
#[test]
fn a_merged_finding_of_ignored_notifications_names_the_first_notification() {
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("ctl1");
    std::fs::create_dir_all(live.join("etc")).unwrap();
    std::fs::write(live.join("etc/hostname"), "ctl1\n").unwrap();
    let engine = live.join("var/log/masakari/masakari-engine.log");
    append(&engine, "");
    let mut watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let all: String = (0..40).map(ignored_notification).collect();
    append(&engine, &all);
    let mut found = Vec::new();
    for _ in 0..3 {
        poll_until_quiet(&mut watcher, &mut found);
    }
    let merged: Vec<&Finding> = found
        .iter()
        .filter(|f| f.id.contains(":repeated:"))
        .collect();
    assert_eq!(merged.len(), 1, "{:?}", ids(&found));
    assert!(merged[0].title.contains("40 times"), "{}", merged[0].title);
    assert_eq!(
        merged[0].notification_id.as_deref(),
        Some("10000000-4a8d-4d3e-b7c5-1f0a9e2d8b46")
    );
}

/// A sosreport whose syslog tells Pacemaker's fencing of compute-1 two minutes before
/// Masakari's first evacuate call; its `pcs stonith history show` is empty (the cluster
/// restarted since, and the history lives in the fencers' memory).
const FENCED_SYSLOG: &str = "scenarios/2024-sosreport-fenced-before-evacuation-syslog";
const SOS_ROOT: &str = "sosreport-ctl-1-2024-05-21-hk3vqa";

/// The findings of watching the scenario's logs written after the watcher started, the
/// system log among them or not, and those of a batch analysis of the same folder.
fn watch_fencing(with_syslog: bool) -> (Vec<Finding>, Vec<Finding>) {
    let scenario = samples().join(FENCED_SYSLOG);
    let dir = tempfile::tempdir().unwrap();
    let live = dir.path().join("live");
    let mut logs = Vec::new();
    copy_small_files(&scenario, Path::new(""), &live, &mut logs);
    let history = live
        .join(SOS_ROOT)
        .join("sos_commands/pacemaker/pcs_stonith_history_show");
    append(&history, "");
    logs.retain(|rel| with_syslog || !rel.ends_with("var/log/syslog"));
    logs.sort();
    let mut watcher = Watcher::new(std::slice::from_ref(&live), fast_options()).unwrap();
    let mut found = Vec::new();
    poll_until_quiet(&mut watcher, &mut found);
    for rel in &logs {
        append(
            &live.join(rel),
            &std::fs::read_to_string(scenario.join(rel)).unwrap(),
        );
    }
    for _ in 0..3 {
        poll_until_quiet(&mut watcher, &mut found);
    }
    let batch = analyze_inputs(&[live], &RunOptions::default()).unwrap();
    (found, batch.findings)
}

/// The watcher reads Pacemaker's fencing results in the system log as `analyze` does: a
/// host the log shows fenced before the first evacuation gives no evacuated-unfenced
/// warning; without the log (only the empty history) the warning appears.
#[test]
fn the_watched_system_log_tells_the_fencing_before_the_evacuation() {
    let unfenced = |findings: &[Finding]| {
        findings
            .iter()
            .filter(|f| f.detector == "evacuated-unfenced")
            .map(|f| f.failed_host.clone())
            .collect::<Vec<_>>()
    };
    let (watched, batch) = watch_fencing(true);
    assert_eq!(
        unfenced(&watched),
        Vec::<Option<String>>::new(),
        "{:?}",
        ids(&watched)
    );
    assert_eq!(ids(&watched), ids(&batch));

    let (watched, batch) = watch_fencing(false);
    assert_eq!(
        unfenced(&watched),
        [Some("compute-1".to_string())],
        "{:?}",
        ids(&watched)
    );
    assert_eq!(ids(&watched), ids(&batch));
    let warning = watched
        .iter()
        .find(|f| f.detector == "evacuated-unfenced")
        .unwrap();
    assert!(
        warning
            .evidence
            .iter()
            .any(|e| e.text.contains("Call evacuate command for instance")),
        "{:#?}",
        warning.evidence
    );
}
