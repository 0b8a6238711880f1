//! Reading what users hand over. Only this module opens input files.

mod error;
mod read;

pub use error::IngestError;
pub use read::read_file;
