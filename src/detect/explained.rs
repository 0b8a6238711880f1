//! Which recoveries the failure-class findings explain, so that `recovery-failed` does not
//! report them a second time as generic.
//!
//! A finding explains the notification it names (a pair of flows for one host: both
//! notifications its id names). A finding of Nova's side of an
//! evacuation (a Cinder 500, a rebuild RPC mismatch, a source restart) names no
//! notification: it explains the recoveries that evacuated the instances it names.

use std::collections::HashSet;

use crate::detect::context::{FAILURE_CLASSES, Ownership};
use crate::detect::finding::Finding;
use crate::model::Uuid;

/// The notifications the failure-class findings among `findings` explain.
pub fn explained_notifications(owners: &Ownership, findings: &[Finding]) -> HashSet<String> {
    let mut out = HashSet::new();
    for f in findings
        .iter()
        .filter(|f| FAILURE_CLASSES.contains(&f.detector))
    {
        if let Some(n) = &f.notification_id {
            out.insert(n.clone());
            // Two flows of one host (`duplicate-host-flows:<first>:<second>`): the run
            // that started first failed of the same collision.
            if f.detector == "duplicate-host-flows" {
                out.extend(
                    f.id.split(':')
                        .skip(1)
                        .filter(|p| Uuid::parse(p).is_some())
                        .map(str::to_string),
                );
            }
            continue;
        }
        let handlers = f
            .instance_uuids
            .iter()
            .filter_map(|i| Uuid::parse(i))
            .flat_map(|i| owners.handlers_of(&i).iter());
        out.extend(handlers.map(|n| n.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::analysis_of;
    use crate::detect::{DetectOptions, run_all};

    const N: &str = "6c1e8a3f-5b2d-4f7e-9a0c-3d8b1e6f4a27";
    const I: &str = "2f7c9a1e-4b6d-4e83-9a5c-7d1f3b8e6a04";

    /// A Masakari recovery of compute-1 whose evacuation of `I` failed (Zed+ engine lines).
    fn engine_log() -> String {
        let ctx = "[None req-9a4e2c7b-1d3f-4b8a-a6e0-5c2d7f9b3e18 0f1e2d3c4b5a69788796a5b4c3d2e1f0 a1b2c3d4e5f60718293a4b5c6d7e8f90 - - default default]";
        [
            format!("2023-10-03 09:08:30.100 41 INFO masakari.engine.manager {ctx} Processing notification {N} of type: COMPUTE_HOST"),
            format!("2023-10-03 09:08:30.300 41 INFO masakari.compute.nova {ctx} Disable nova-compute on compute-1"),
            format!("2023-10-03 09:11:30.900 41 INFO masakari.compute.nova {ctx} Call evacuate command for instance {I} on host None"),
            format!("2023-10-03 09:14:31.000 41 ERROR masakari.engine.manager {ctx} Failed to process notification '{N}'. Reason: Failed to evacuate instances '{I}' from host 'compute-1': masakari.exception.HostRecoveryFailureException: Failed to evacuate instances '{I}' from host 'compute-1'"),
            format!("2023-10-03 09:14:31.100 41 INFO masakari.engine.manager {ctx} Notification {N} exits with status: error."),
        ]
        .join("\n")
            + "\n"
    }

    /// The destination's nova-compute: Cinder answers 500 to the attachment update of `I`.
    fn compute_log() -> String {
        let ctx = "[None req-6d4b2f0e-8c6a-4e24-b2f0-c8a6e4d2b0f8 7e6d5c4b3a2f41e0d9c8b7a6f5e4d3c2 1a2b3c4d5e6f47a8b9c0d1e2f3a4b5c6 - - default default]";
        [
            format!("2023-10-03 09:11:31.188 3120 INFO nova.compute.manager {ctx} [instance: {I}] Evacuating instance"),
            format!("2023-10-03 09:12:32.322 3120 ERROR nova.volume.cinder {ctx} Update attachment failed for attachment 4b1d8f2e-6a3c-4e9b-8d7f-0c2a5e9b1f36. Error: Unable to update the attachment. (HTTP 500) (Request-ID: req-c3e5a7c9-2d4f-4a68-ac2e-4a6c8e0a2c46) Code: 500"),
            format!("2023-10-03 09:12:32.390 3120 ERROR nova.compute.manager {ctx} [instance: {I}] Setting instance vm_state to ERROR: cinderclient.exceptions.ClientException: Unable to update the attachment. (HTTP 500) (Request-ID: req-c3e5a7c9-2d4f-4a68-ac2e-4a6c8e0a2c46)"),
        ]
        .join("\n")
            + "\n"
    }

    fn detectors(files: &[(&str, &str)]) -> Vec<&'static str> {
        let analysis = analysis_of(files);
        run_all(&analysis, &DetectOptions::default())
            .iter()
            .map(|f| f.detector)
            .collect()
    }

    #[test]
    fn a_recovery_a_cinder_500_explains_is_not_also_a_generic_failure() {
        let engine = engine_log();
        let compute = compute_log();
        let engine_only = [("ctl-1/var/log/masakari/masakari-engine.log", &*engine)];
        assert_eq!(detectors(&engine_only), ["recovery-failed"]);
        let both = [
            engine_only[0],
            ("compute-2/var/log/nova/nova-compute.log", &*compute),
        ];
        assert_eq!(detectors(&both), ["cinder-attachment-500"]);
    }
}
