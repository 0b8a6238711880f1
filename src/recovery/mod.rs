//! The recovery executor: plan a host recovery, apply it against the cloud, journal
//! every step. Only this module (and `sim`) speaks HTTP to OpenStack.

pub mod cloud;
pub mod openstack;

pub use cloud::{
    Cloud, CloudError, CloudVersions, ComputeService, Server, Volume, VolumeAttachment,
};
