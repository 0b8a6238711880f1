//! The simulated cloud's state and behaviour, independent of HTTP.

mod evacuate;
pub mod model;
pub mod refusal;
mod restart;
pub mod state;
#[cfg(test)]
mod tests;
mod ticker;
