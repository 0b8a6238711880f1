//! One finding per cause: non-critical findings a detector repeats for one cause (a
//! monitor sending thousands of notifications Masakari ignores) become one finding with
//! the count, the hosts, the first and last time and a few example lines, so that the
//! critical findings are not lost among them.
//!
//! The cause is the detector and its title with the failed host taken out: detectors
//! name the cause in their title (`Recovery of <host> ended `ignored`: <reason>`). The
//! three failure classes stay one finding per recovery (a recovered race is a warning,
//! and still its recovery's own finding).

use crate::detect::context::FAILURE_CLASSES;
use crate::detect::evidence::distinct;
use crate::detect::finding::{Evidence, Finding, Severity, Window};

/// Example lines a merged finding keeps (from its first and last occurrences).
const EXAMPLE_LINES: usize = 8;
/// Hosts a merged finding's summary names before "and N more".
const HOSTS_NAMED: usize = 10;
/// Instances a merged finding lists.
const INSTANCES_KEPT: usize = 50;

/// A cause: the detector, the severity and the title without its host.
type Cause = (&'static str, Severity, String);

/// The cause of `finding`: its detector and its title without its host.
fn cause(finding: &Finding) -> Cause {
    let title = match &finding.failed_host {
        Some(host) if !host.is_empty() => finding.title.replace(host.as_str(), "<host>"),
        _ => finding.title.clone(),
    };
    (finding.detector, finding.severity, title)
}

/// `findings` with every group of two or more non-critical findings of one cause merged
/// into one, at the place of the group's first.
pub fn merge_repeated(findings: Vec<Finding>) -> Vec<Finding> {
    let mut groups: Vec<(Cause, Vec<Finding>)> = Vec::new();
    let mut order: Vec<Result<Finding, usize>> = Vec::new();
    for finding in findings {
        // The failure classes are one finding per recovery, whatever their severity.
        if finding.severity == Severity::Critical || FAILURE_CLASSES.contains(&finding.detector) {
            order.push(Ok(finding));
            continue;
        }
        let key = cause(&finding);
        match groups.iter().position(|(k, _)| *k == key) {
            Some(g) => groups[g].1.push(finding),
            None => {
                order.push(Err(groups.len()));
                groups.push((key, vec![finding]));
            }
        }
    }
    let mut groups: Vec<Option<Vec<Finding>>> = groups.into_iter().map(|(_, g)| Some(g)).collect();
    order
        .into_iter()
        .filter_map(|slot| match slot {
            Ok(finding) => Some(finding),
            Err(g) => groups.get_mut(g)?.take().map(merged),
        })
        .collect()
}

/// One finding for a group of one cause (the finding itself when alone).
fn merged(mut group: Vec<Finding>) -> Finding {
    if group.len() < 2 {
        return group.remove(0);
    }
    let count = group.len();
    let hosts: Vec<String> = distinct(group.iter().filter_map(|f| f.failed_host.clone()));
    let notifications = group.iter().filter(|f| f.notification_id.is_some()).count();
    // The first notification the group covers: what a follower of `watch` (or the
    // trigger) looks the finding up by, as with any finding of one notification.
    let first_notification = group.iter().find_map(|f| f.notification_id.clone());
    let start = group
        .iter()
        .filter_map(|f| f.window.as_ref().map(|w| w.start.clone()))
        .min();
    let end = group
        .iter()
        .filter_map(|f| f.window.as_ref().map(|w| w.end.clone()))
        .max();
    let mut instances = distinct(group.iter().flat_map(|f| &f.instance_uuids).cloned());
    instances.truncate(INSTANCES_KEPT);
    let request_ids = distinct(
        group
            .iter()
            .flat_map(|f| &f.request_ids)
            .take(EXAMPLE_LINES)
            .cloned(),
    );
    let examples = example_lines(&group);
    let first = group.swap_remove(0);
    let (_, _, generic) = cause(&first);
    let (where_, hosts_text) = host_words(&hosts);
    let span = match (&start, &end) {
        (Some(s), Some(e)) => format!(", first at {s}, last at {e}"),
        _ => String::new(),
    };
    Finding {
        id: format!(
            "{}:repeated:{}",
            first.detector,
            first.id.rsplit(':').next().unwrap_or("")
        )
        .into(),
        detector: first.detector,
        severity: first.severity,
        title: format!("{} ({count} times)", generic.replace("<host>", &where_)),
        summary: format!(
            "{count} findings of one cause ({notifications} notification(s)) on {hosts_text}{span}. \
             The first: {}",
            first.summary
        ),
        failed_host: (hosts.len() == 1).then(|| hosts[0].clone()),
        instance_uuids: instances,
        notification_id: first_notification,
        request_ids,
        window: start.zip(end).map(|(start, end)| Window { start, end }),
        evidence: examples,
        explanation: format!(
            "{} The same cause repeated {count} times; the evidence shows the lines of the \
             first and the last occurrence.",
            first.explanation
        ),
        remediation: first.remediation,
        known_bugs: first.known_bugs,
        highlights: Vec::new(),
    }
}

/// The hosts as a title names them (`cmp02`, `3 hosts`) and as a summary lists them.
fn host_words(hosts: &[String]) -> (String, String) {
    let where_ = match hosts {
        [] => "an unnamed host".to_string(),
        [one] => one.clone(),
        many => format!("{} hosts", many.len()),
    };
    let named: Vec<&str> = hosts.iter().take(HOSTS_NAMED).map(String::as_str).collect();
    let more = hosts.len().saturating_sub(HOSTS_NAMED);
    let hosts_text = match (named.is_empty(), more) {
        (true, _) => "no host named".to_string(),
        (false, 0) => named.join(", "),
        (false, n) => format!("{} and {n} more", named.join(", ")),
    };
    (where_, hosts_text)
}

/// A few lines: the first occurrence's, then the last's.
fn example_lines(group: &[Finding]) -> Vec<Evidence> {
    let half = EXAMPLE_LINES / 2;
    let mut out: Vec<Evidence> = group
        .first()
        .into_iter()
        .flat_map(|f| f.evidence.iter().take(half).cloned())
        .collect();
    if let Some(last) = group.last() {
        for e in last
            .evidence
            .iter()
            .take(EXAMPLE_LINES - out.len().min(half))
        {
            if !out.contains(e) {
                out.push(e.clone());
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::analysis_of;
    use crate::detect::{DetectOptions, Severity, detect};

    /// A generated engine log: `count` notifications of three hosts ignored for their
    /// `host_status 'UNKNOWN'`, and one recovery that failed for another cause.
    fn logs(count: usize) -> (String, String) {
        let (mut log, mut monitor) = (String::new(), String::new());
        for k in 0..count {
            let n = format!("{:08x}-4a8d-4d3e-b7c5-1f0a9e2d8b46", 0x1000_0000 + k);
            let req = format!("req-{:08x}-3b9d-4e2a-a7f5-0d6c2b8e9f13", 0x2000_0000 + k);
            let (m, s) = (k / 60 % 60, k % 60);
            let ctx = format!(
                "[None {req} b4e7c1a9d2f8460c8e3a5b7d9f1c2e06 2e9f4c1a7b3d45e8a6c0f2d4b8e1a937 - - default default]"
            );
            let host = ["cmp02", "cmp05", "cmp07"][k % 3];
            log += &format!(
                "2024-11-19 0{}:{m:02}:{s:02}.452 33 INFO masakari.engine.manager {ctx} Processing notification {n} of type: COMPUTE_HOST\n",
                2 + k / 3600
            );
            monitor += &format!(
                "2024-11-19 0{}:{m:02}:{s:02}.440 18 INFO masakarimonitors.ha.masakari [-] Response: openstack.instance_ha.v1.notification.Notification(type=COMPUTE_HOST, hostname={host}, generated_time=2024-11-19T02:{m:02}:{s:02}.000000, payload={{'event': 'STOPPED', 'cluster_status': 'OFFLINE', 'host_status': 'UNKNOWN'}}, id={k}, notification_uuid={n}, status=new)\n",
                2 + k / 3600
            );
            log += &format!(
                "2024-11-19 0{}:{m:02}:{s:02}.480 33 WARNING masakari.engine.manager {ctx} Notification '{n}' ignored as host_status is 'UNKNOWN'\n",
                2 + k / 3600
            );
            log += &format!(
                "2024-11-19 0{}:{m:02}:{s:02}.484 33 INFO masakari.engine.manager {ctx} Notification {n} exits with status: ignored.\n",
                2 + k / 3600
            );
        }
        let ctx = "[None req-7d1c2b3a-4e5f-4a6b-9c8d-0e1f2a3b4c5d - - - - - -]";
        let n = "7b3e9f1a-2c4d-4e5f-8a6b-9c0d1e2f3a4b";
        log += &format!(
            "2024-11-19 05:00:00.100 33 INFO masakari.engine.manager {ctx} Processing notification {n} of type: COMPUTE_HOST\n"
        );
        log += &format!(
            "2024-11-19 05:00:00.300 33 WARNING masakari.engine.drivers.taskflow.host_failure {ctx} Timeout for instance 'ea113f7d-32f7-422f-a8a7-c979958d7f19' evacuation.\n"
        );
        log += &format!(
            "2024-11-19 05:00:01.000 33 INFO masakari.engine.manager {ctx} Notification {n} exits with status: error.\n"
        );
        (log, monitor)
    }

    fn warning(detector: &'static str, host: &str, n: u32) -> crate::detect::Finding {
        crate::detect::Finding {
            id: format!("{detector}:{n}").into(),
            detector,
            severity: Severity::Warning,
            title: format!("Evacuation from {host} raced Nova's failure detection: HTTP 400"),
            summary: String::new(),
            failed_host: Some(host.into()),
            instance_uuids: Vec::new(),
            notification_id: Some(n.to_string()),
            request_ids: Vec::new(),
            window: None,
            evidence: Vec::new(),
            explanation: String::new(),
            remediation: Default::default(),
            known_bugs: Vec::new(),
            highlights: Vec::new(),
        }
    }

    /// A failure class is one finding per recovery, even recovered (a warning); another
    /// detector's warnings of one cause merge.
    #[test]
    fn failure_classes_stay_per_recovery() {
        let races = vec![
            warning("evacuate-400-race", "cmp02", 1),
            warning("evacuate-400-race", "cmp03", 2),
        ];
        assert_eq!(super::merge_repeated(races).len(), 2);
        let others = vec![
            warning("recovery-failed", "cmp02", 1),
            warning("recovery-failed", "cmp03", 2),
        ];
        let merged = super::merge_repeated(others);
        assert_eq!(merged.len(), 1);
        // The merged finding is found by the first notification it covers.
        assert_eq!(merged[0].notification_id.as_deref(), Some("1"));
        assert!(
            merged[0].title.contains("2 hosts") && merged[0].title.contains("2 times"),
            "{}",
            merged[0].title
        );
    }

    #[test]
    fn thousands_of_ignored_notifications_are_one_finding_and_the_critical_one_stays() {
        let count = 1200;
        let (engine, monitor) = logs(count);
        let analysis = analysis_of(&[
            ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
            (
                "cmp01/var/log/kolla/masakari/masakari-hostmonitor.log",
                &monitor,
            ),
        ]);
        let findings = detect(&analysis, &DetectOptions::default());
        let ignored: Vec<_> = findings
            .iter()
            .filter(|f| f.title.contains("ignored"))
            .collect();
        assert_eq!(
            ignored.len(),
            1,
            "{:#?}",
            findings.iter().map(|f| &f.title).collect::<Vec<_>>()
        );
        let f = ignored[0];
        assert_eq!(f.severity, Severity::Warning);
        assert!(f.title.contains(&format!("{count} times")), "{}", f.title);
        // The first ignored notification: the one its first example lines are of.
        assert_eq!(
            f.notification_id.as_deref(),
            Some("10000000-4a8d-4d3e-b7c5-1f0a9e2d8b46")
        );
        assert!(f.title.contains("3 hosts"), "{}", f.title);
        for host in ["cmp02", "cmp05", "cmp07"] {
            assert!(f.summary.contains(host), "{}", f.summary);
        }
        let window = f.window.as_ref().unwrap();
        assert!(
            window.start.starts_with("2024-11-19T02:00:00"),
            "{window:?}"
        );
        assert!(window.end.starts_with("2024-11-19T02:19:59"), "{window:?}");
        assert!(!f.evidence.is_empty() && f.evidence.len() <= super::EXAMPLE_LINES);
        let critical: Vec<_> = findings
            .iter()
            .filter(|f| f.severity == Severity::Critical)
            .collect();
        assert_eq!(critical.len(), 1, "{critical:#?}");
        assert!(
            critical[0].title.contains("wait_period_after_evacuation"),
            "{}",
            critical[0].title
        );
    }
}
