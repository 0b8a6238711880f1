//! Masakari's host-failure flow (now `evacdoc::sim::masakari`, which `evacdoc sim
//! --masakari` plays), under the name the tests have used.

pub use evacdoc::sim::masakari::{EngineLog, MasakariTimings, masakari_host_recovery};
