//! What detectors get: the analysis, the recoveries rebuilt from it, and options; and
//! the runner that applies the registry.

use std::collections::HashMap;

use crate::correlate::Analysis;
use crate::correlate::recovery::Recovery;
use crate::detect::explained::explained_notifications;
use crate::detect::{DETECTORS, Finding};
use crate::model::{Event, Uuid};

/// Tunables of the detectors.
#[derive(Clone, Debug)]
pub struct DetectOptions {
    /// A boot-from-volume evacuation slower than this is a finding (seconds).
    pub bfv_delay_secs: i64,
}

impl Default for DetectOptions {
    fn default() -> Self {
        DetectOptions {
            bfv_delay_secs: 300,
        }
    }
}

/// The input of every detector.
#[derive(Debug)]
pub struct DetectContext<'a> {
    /// The analysis.
    pub analysis: &'a Analysis,
    /// Masakari recoveries rebuilt from it (borrowed: a copy cost as much memory as the
    /// recoveries themselves at the peak of a large analysis).
    pub recoveries: &'a [Recovery],
    /// Options.
    pub options: DetectOptions,
    /// Who owns what: request ids and instances → the notifications whose runs logged
    /// under them or handled them.
    pub owners: Ownership,
}

/// Request ids and instances of every recovery, to tell a line of one recovery from a
/// line of another.
#[derive(Debug, Default)]
pub struct Ownership {
    requests: HashMap<Uuid, Vec<Uuid>>,
    instances: HashMap<Uuid, Vec<Uuid>>,
}

impl Ownership {
    /// The ownership of `recoveries`.
    pub fn of(recoveries: &[Recovery]) -> Ownership {
        let mut owners = Ownership::default();
        for r in recoveries {
            let n = r.notification;
            for id in r.attempts.iter().flat_map(|a| &a.request_ids) {
                owners.requests.entry(*id).or_default().push(n);
            }
            for i in r.instances() {
                owners.instances.entry(i).or_default().push(n);
            }
        }
        owners
    }

    /// The notifications whose recoveries handled `instance`.
    pub fn handlers_of(&self, instance: &Uuid) -> &[Uuid] {
        self.instances.get(instance).map_or(&[], Vec::as_slice)
    }
}

impl<'a> DetectContext<'a> {
    /// The context of `analysis`.
    pub fn new(analysis: &'a Analysis, options: DetectOptions) -> DetectContext<'a> {
        // Rebuilt with the analysis (and stored with it): a reloaded document detects
        // on the recoveries it was saved with.
        let recoveries = &analysis.recoveries[..];
        DetectContext {
            analysis,
            owners: Ownership::of(recoveries),
            recoveries,
            options,
        }
    }

    /// The host-failure recoveries: the subject of the three failure classes.
    pub fn host_failures(&self) -> impl Iterator<Item = &Recovery> {
        self.recoveries.iter().filter(|r| r.is_host_failure())
    }

    /// True when `event` belongs to another recovery than `recovery`, however close in
    /// time: it names another notification, it was logged under a request id only
    /// another run logged under, or the instances it names are only others'.
    pub fn foreign(&self, recovery: &Recovery, event: &Event) -> bool {
        let n = recovery.notification;
        if !event.notifications.is_empty() && !event.notifications.contains(&n) {
            return true;
        }
        let others = |owners: Option<&Vec<Uuid>>| owners.is_some_and(|o| !o.contains(&n));
        let ids = [event.global_request_id, event.request_id];
        if ids
            .into_iter()
            .flatten()
            .any(|id| others(self.owners.requests.get(&id)))
        {
            return true;
        }
        !event.instances.is_empty()
            && event
                .instances
                .iter()
                .all(|i| others(self.owners.instances.get(i)))
    }
}

/// Detectors that explain a recovery's failure: when one of them fires for a
/// notification (or for the instances its recovery evacuated), `recovery-failed` says
/// nothing more about it. Not listed: detectors of what comes before a notification
/// (monitors, rejected notifications: no recovery exists) or after a recovery (a compute
/// refusing to start, a refused force-up: the recovery's own end is another matter). A
/// monitor's class that names the notification the engine ignored
/// (`k8s-monitor-no-host-status`) is listed: that ignored recovery is what it explains.
pub const FAILURE_CLASSES: &[&str] = &[
    "evacuate-400-race",
    "pending-after-finished",
    "bfv-evacuation-delay",
    "notification-stuck-running",
    "duplicate-host-flows",
    "source-restart-mid-evacuation",
    "rebuild-rpc-mismatch",
    "cinder-attachment-500",
    "k8s-monitor-no-host-status",
];

/// Runs every registered detector.
pub fn run_all(analysis: &Analysis, options: &DetectOptions) -> Vec<Finding> {
    let ctx = DetectContext::new(analysis, options.clone());
    // Detectors are independent: run side by side, their findings kept in registry order.
    use rayon::prelude::*;
    let per_detector: Vec<Vec<Finding>> = DETECTORS.par_iter().map(|d| d.detect(&ctx)).collect();
    let mut findings: Vec<Finding> = per_detector.into_iter().flatten().collect();
    // A failure one of the failure classes explains is not reported again as generic.
    let explained = explained_notifications(&ctx.owners, &findings);
    findings.retain(|f| {
        f.detector != "recovery-failed"
            || !f
                .notification_id
                .as_ref()
                .is_some_and(|n| explained.contains(n))
    });
    // One finding per cause: repeated warnings of one cause do not bury the critical ones.
    crate::detect::repeated::merge_repeated(findings)
}

/// Building analyses from inline files, for the detectors' unit tests.
#[cfg(test)]
pub(crate) mod testing {
    use crate::correlate::Analysis;
    use crate::detect::{DETECTORS, DetectOptions, Finding};
    use crate::run::{Options, analyze};

    use super::DetectContext;

    /// The analysis of a bundle made of `files` (path, content).
    pub fn analysis_of(files: &[(&str, &str)]) -> Analysis {
        let dir = tempfile::tempdir().unwrap();
        for (path, content) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        analyze(&[dir.path().to_path_buf()], &Options::default()).unwrap()
    }

    /// What the detector `id` finds in `files`.
    pub fn findings(id: &str, files: &[(&str, &str)]) -> Vec<Finding> {
        let analysis = analysis_of(files);
        let ctx = DetectContext::new(&analysis, DetectOptions::default());
        let detector = DETECTORS.iter().find(|d| d.id() == id).unwrap();
        detector.detect(&ctx)
    }

    /// A Zed+ masakari-engine line of notification run `g` (global request id).
    pub fn engine(time: &str, g: &str, level: &str, logger: &str, message: &str) -> String {
        format!(
            "2024-05-21 {time} 41 {level} {logger} [req-{g} req-7a1c0e52-9b3d-4f6e-8a21-0c4d5e6f7a8b nova - - - - -] {message}\n"
        )
    }

    /// The start of a host-failure run of notification `n` on `host`.
    pub fn start(n: &str, g: &str, host: &str, sleep: u32) -> String {
        format!(
            "2024-05-21 10:02:47.100 41 INFO masakari.engine.manager [None req-{g} 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default] Processing notification {n} of type: COMPUTE_HOST\n{}{}",
            engine(
                "10:02:47.300",
                g,
                "INFO",
                "masakari.compute.nova",
                &format!("Disable nova-compute on {host}")
            ),
            engine(
                "10:02:47.400",
                g,
                "INFO",
                "masakari.engine.drivers.taskflow.host_failure",
                &format!(
                    "Sleeping {sleep} sec before starting recovery thread until nova recognizes the node down."
                )
            ),
        )
    }
}
