//! `evacdoc sim`: a small stateful OpenStack (Keystone, Nova and Cinder subsets) on one
//! loopback port, with scripted faults and the logs a real one writes, for the recovery
//! executor's tests and for demos. `samples/sim/README.md` describes scenario files.

pub mod api;
pub mod clock;
pub mod cloud;
pub mod clouds_yaml;
pub mod error;
pub mod faults;
pub mod logs;
pub mod masakari;
pub mod microversion;
pub mod scenario;
pub mod server;

pub use error::{ScenarioError, SimError};
pub use scenario::Scenario;
pub use server::{RunningSim, start};
