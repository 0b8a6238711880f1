//! A repaired host's nova-compute starting again: as Nova's `_destroy_evacuated_instances`
//! does at start-up, the evacuations from the host still `accepted`, `pre-migrating` or
//! `done` become `completed` (only then does Nova let the host be forced up).

use super::state::Cloud;

impl Cloud {
    /// Completes the evacuations from every host whose nova-compute has started again.
    pub(super) fn restart_returned_hosts(&mut self, now: f64) {
        let back: Vec<(String, f64)> = self
            .services
            .iter()
            .filter(|s| s.binary == "nova-compute" && s.returns_at <= now)
            .map(|s| (s.host.clone(), s.returns_at))
            .collect();
        for (host, at) in back {
            for migration in &mut self.migrations {
                let open =
                    ["accepted", "pre-migrating", "done"].contains(&migration.status.as_str());
                if migration.source == host && open && migration.created_s < at {
                    migration.status = "completed".into();
                    migration.updated_s = at;
                }
            }
        }
    }
}
