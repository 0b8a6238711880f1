//! Integration tests of the `evacdoc` binary: one test binary, one module per area.

/// `evacdoc parse` on committed samples and on bad input.
mod cli_parse;
/// Shared helpers: run the binary, find the samples.
mod util;
