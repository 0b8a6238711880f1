//! Pure, I/O-free parsers for the logs and configs of an OpenStack instance-HA
//! deployment: oslo.log lines and multi-line records (Masakari, Nova, Cinder, ...),
//! Apache access lines (Ubuntu `combined`, Kolla, `common`), Nova API request lines,
//! uWSGI request lines, Sunbeam pebble-wrapped lines, syslog and journal prefixes,
//! Kubernetes CRI and Docker `json-file` container logs, `kubectl logs --prefix
//! --timestamps` output (prefixes peeled as layers, in any order: [`layers`]), and
//! oslo.config INI files.
//!
//! Every record borrows from the input; nothing here reads files or allocates per line
//! on the common path. No entry point panics, whatever the input: a line that fits no
//! format comes back as unparsed with a [`Reason`].
//!
//! ```
//! use evacdoc_parsers::{Records, Format};
//! let log = "2020-12-08 19:51:15.122 235 WARNING masakari.engine.drivers.taskflow.driver \
//! [req-7bb8e483-e54e-457f-a110-1f9a95a1b4c8 masakari - - - -] Task 'EvacuateInstancesTask' \
//! (8a1b2c3d-0000-4000-8000-00000000000a) transitioned into state 'FAILURE' from state 'RUNNING'
//! 1 predecessors (most recent first):
//!   Atom 'PrepareHAEnabledInstancesTask' {}
//! 2020-12-08 19:51:15.122 235 ERROR masakari.engine.drivers.taskflow.driver Traceback (most recent call last):
//! 2020-12-08 19:51:15.122 235 ERROR masakari.engine.drivers.taskflow.driver masakari.exception.HostRecoveryFailureException: Failed
//! ";
//! let records: Vec<_> = Records::new(log).collect();
//! assert_eq!(records.len(), 1);
//! assert_eq!(records[0].format(), Format::Oslo);
//! assert_eq!(records[0].continuation.len(), 2);
//! assert_eq!(records[0].traceback.len(), 2);
//! assert_eq!(records[0].error_summary().unwrap().class,
//!            "masakari.exception.HostRecoveryFailureException");
//! ```

pub mod access;
mod assembler;
pub mod capture;
pub mod clock;
pub mod context;
pub mod cri;
pub mod docker;
pub mod error;
pub mod ini;
pub mod kubectl;
pub mod layers;
pub mod line;
pub mod nova_request;
pub mod oslo;
pub mod packages;
pub mod pebble;
pub mod records;
pub mod sniff;
pub mod syslog;
pub mod text;
pub mod time;
pub mod utf8;
pub mod uwsgi;

pub use error::{ParseError, Reason};
pub use line::{Content, Format, Line, Wrapper, parse_line, parse_line_written};
pub use records::{Assembler, Record, RecordSpan, Records, Skim};
pub use time::{DateTime, Timestamp};
