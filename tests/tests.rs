//! Integration tests of the `evacdoc` binary: one test binary, one module per area.

// A panic in a test is a failed test, not a crash on input.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

/// `evacdoc parse` on committed samples and on bad input.
mod cli_parse;
/// Shared helpers: run the binary, find the samples.
mod util;
