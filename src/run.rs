//! Running an analysis: the inputs are read once by [`crate::ingest`], pushed into sinks,
//! and assembled by [`crate::correlate`].

mod pipeline;

pub use pipeline::{AnalyzeError, Options, analyze};
