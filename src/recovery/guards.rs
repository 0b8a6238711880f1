//! The guards of Red Hat's InstanceHA, read from Nova's own service list: no evacuation
//! when more than a set share of the computes is down (a failure that wide is the
//! control plane, the network or the power, not hosts, and the computes left would be
//! overloaded), nor when no nova-scheduler is up (an evacuation without a target host
//! needs it).

use serde::Serialize;

use super::cloud::NovaService;

/// What the guards saw in `GET /os-services`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Fleet {
    /// `nova-compute` services listed.
    pub computes: usize,
    /// Hosts whose compute is down or forced down, the failed host always among them.
    pub down: Vec<String>,
    /// `nova-scheduler` services listed, and those up.
    pub schedulers: usize,
    pub schedulers_up: usize,
}

/// Why the guards refuse a recovery.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum GuardError {
    #[error(
        "refused: {down} of {total} nova-compute services are down or forced down, more \
         than the {max_percent} % allowed (--max-down-percent): a failure that wide is \
         more likely the control plane, the network or the power than failed hosts, and \
         the computes left could not take the instances; find out why first, nothing was \
         changed"
    )]
    TooManyComputesDown {
        down: usize,
        total: usize,
        max_percent: u8,
    },
    #[error(
        "refused: no nova-scheduler service is up ({listed} listed): an evacuation without \
         a target host needs the scheduler, and would fail every instance; start \
         nova-scheduler first, nothing was changed"
    )]
    NoSchedulerUp { listed: usize },
}

impl Fleet {
    /// The fleet of `services`, with `host` (the failed one) counted down even while
    /// Nova still sees it up.
    pub fn of(services: &[NovaService], host: &str) -> Fleet {
        let computes: Vec<&NovaService> = services
            .iter()
            .filter(|s| s.binary == "nova-compute")
            .collect();
        let mut down: Vec<String> = computes
            .iter()
            .filter(|s| !s.service.up || s.service.forced_down || s.service.host == host)
            .map(|s| s.service.host.clone())
            .collect();
        down.sort();
        down.dedup();
        let schedulers: Vec<&NovaService> = services
            .iter()
            .filter(|s| s.binary == "nova-scheduler")
            .collect();
        Fleet {
            computes: computes.len(),
            down,
            schedulers: schedulers.len(),
            schedulers_up: schedulers.iter().filter(|s| s.service.up).count(),
        }
    }

    /// Refuses when no scheduler is up, or more than `max_percent` % of the computes
    /// are down (InstanceHA's `THRESHOLD`: more than, so 1 of 2 passes at 50).
    pub fn check(&self, max_percent: u8) -> Result<(), GuardError> {
        if self.schedulers_up == 0 {
            return Err(GuardError::NoSchedulerUp {
                listed: self.schedulers,
            });
        }
        let (down, total) = (self.down.len(), self.computes.max(self.down.len()));
        if down * 100 > usize::from(max_percent) * total {
            return Err(GuardError::TooManyComputesDown {
                down,
                total,
                max_percent,
            });
        }
        Ok(())
    }

    /// For the plan: what was counted.
    pub fn summary(&self, max_percent: u8) -> String {
        format!(
            "{} of {} nova-compute services down (at most {max_percent} % allowed), {} of {} \
             nova-scheduler up",
            self.down.len(),
            self.computes,
            self.schedulers_up,
            self.schedulers
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recovery::test_cloud::other;

    fn computes(up: &[bool]) -> Vec<NovaService> {
        let mut all = vec![other("nova-scheduler", "controller-0", true)];
        all.extend(
            up.iter()
                .enumerate()
                .map(|(n, up)| other("nova-compute", &format!("compute-{}", n + 1), *up)),
        );
        all
    }

    #[test]
    fn half_the_computes_down_passes_more_than_half_is_refused() {
        // compute-1 is the failed host: counted down though Nova still sees it up.
        let two = Fleet::of(&computes(&[true, true]), "compute-1");
        assert_eq!(two.down, ["compute-1"]);
        assert_eq!(two.check(50), Ok(()));
        let three = Fleet::of(&computes(&[false, false, true]), "compute-1");
        assert_eq!(
            three.check(50),
            Err(GuardError::TooManyComputesDown {
                down: 2,
                total: 3,
                max_percent: 50
            })
        );
        assert_eq!(three.check(70), Ok(()));
        assert!(three.check(0).is_err(), "0 %: never evacuate");
        assert_eq!(
            Fleet::of(&computes(&[false, false, false]), "compute-1").check(100),
            Ok(())
        );
    }

    #[test]
    fn a_forced_down_compute_counts_down_and_other_binaries_do_not_count() {
        let mut services = computes(&[false, true, true, true]);
        services[2].service.forced_down = true;
        services.push(other("nova-conductor", "controller-0", false));
        let fleet = Fleet::of(&services, "compute-1");
        assert_eq!(fleet.computes, 4);
        assert_eq!(fleet.down, ["compute-1", "compute-2"]);
        assert_eq!(fleet.check(50), Ok(()));
        assert_eq!(
            fleet.summary(50),
            "2 of 4 nova-compute services down (at most 50 % allowed), 1 of 1 nova-scheduler up"
        );
    }

    #[test]
    fn no_scheduler_up_or_none_listed_is_refused() {
        let mut services = computes(&[false, true, true]);
        services[0].service.up = false;
        assert_eq!(
            Fleet::of(&services, "compute-1").check(50),
            Err(GuardError::NoSchedulerUp { listed: 1 })
        );
        services.remove(0);
        let error = Fleet::of(&services, "compute-1").check(50).unwrap_err();
        assert_eq!(error, GuardError::NoSchedulerUp { listed: 0 });
        assert!(error.to_string().contains("start nova-scheduler first"));
    }
}
