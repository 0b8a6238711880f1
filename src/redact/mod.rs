//! Consistent pseudonymisation of a bundle: every file, line, config value and path,
//! with one map per case (`sos clean` keeps one the same way).
//!
//! Three kinds of value: secrets are replaced outright ([`secrets`](crate::redact::secrets)); values of a known
//! shape get pseudonyms that keep their shape and relationships ([`tokens`](crate::redact::tokens): IPv4 with
//! its network, IPv6, MAC, e-mail, Keystone ids, context user and project names); host
//! names and domains are looked for from what the bundle says about its hosts
//! ([`names`](crate::redact::names), seeded by [`seed`](crate::redact::seed)). Instance, notification, volume and request UUIDs
//! stay: a reader needs them to follow the failure.

pub(crate) mod fasthash;
pub mod identify;
pub mod line;
pub mod map;
pub mod names;
pub mod options;
pub mod public;
#[cfg(test)]
mod sample_texts;
pub mod secrets;
pub mod seed;
pub(crate) mod small_files;
pub mod templates;
pub mod tokens;
pub mod view;
pub mod vocab;

pub use map::{Kind, PseudonymMap};
pub use view::ViewRedactor;
