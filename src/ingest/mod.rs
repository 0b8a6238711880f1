//! Reading what users hand over: folders, files and archives, deployment layouts, host
//! identity, file roles, time zones. Only this module opens input files.

pub mod archive;
pub mod chunks;
pub mod decompress;
pub mod discover;
mod error;
pub mod follow;
pub mod host_names;
mod input_name;
pub mod layout;
pub mod limits;
pub mod live;
mod named;
pub mod place;
mod read;
pub mod read_log;
pub mod role;
pub mod sink;
pub mod small_files;
mod sos_name;
pub(crate) mod split_sources;
pub mod timezone;

pub use error::IngestError;
pub use input_name::input_name;
pub use limits::{IngestLimits, LimitKind, LimitUnit};
pub use named::Named;
pub use read::read_file;
