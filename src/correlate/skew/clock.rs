//! Clock evidence.
