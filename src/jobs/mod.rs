//! The service's analysis jobs: uploads queued in the store, a bounded number analysed at
//! once on blocking threads, progress written back while they run, results stored, the
//! search index built in the same reading pass; and the finished analyses kept loaded for
//! timelines and pages.

mod cache;
mod progress;
pub mod remote;
mod run_one;
mod runner;
mod sweep;

pub use cache::{AnalysisCache, LoadError, Loaded};
pub use run_one::{JobError, input_dir, run_analysis};
pub use runner::{JobConfig, JobCounters, JobRunner};
pub use sweep::sweep_after_crash;
