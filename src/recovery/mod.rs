//! The recovery executor: plan a host recovery, apply it against the cloud, journal
//! every step. Only this module (and `sim`) speaks HTTP to OpenStack.

pub mod apply;
// The cloud trait and its OpenStack client live in `crate::openstack` (the Swift blob
// store uses the same client); named here as the executor has always named them.
pub use crate::openstack::cloud;
pub mod down_time;
pub mod guards;
pub mod observed;
pub use crate::openstack;
pub mod options;
pub mod plan;
pub mod reenable;
pub mod remediation;
pub mod remediator;
pub mod report;
pub mod retry;
pub mod run;

#[cfg(test)]
mod test_cloud;

pub use apply::{ApplyError, Observer, Quiet, apply};
pub use cloud::{
    Cloud, CloudError, CloudVersions, ComputeService, Migration, NovaService, Server, Volume,
    VolumeAttachment,
};
pub use guards::{Fleet, GuardError};
pub use options::{RecoveryOptions, Selection};
pub use plan::{HostAction, Plan, PlanError, PlannedMove, Step, plan};
pub use reenable::{ReenableError, Reenabled, reenable};
pub use report::RecoveryReport;
pub use retry::RetryPolicy;
pub use run::{Ran, RunError, Target, run};
