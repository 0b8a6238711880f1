//! Saved output of `openstack` CLI commands, as support engineers keep it next to the
//! logs: `notification show|list`, `notification vmove list|show`, `server show`,
//! `server event list [--long]`, `volume show` and `volume attachment list`, in the
//! default table format (cliff/prettytable borders, `--fit-width` wrapped cells, `grep`ped
//! rows without borders), `-f json`, `-f yaml` and, for lists, `-f value`; and the
//! cluster around it: Pacemaker's fencing history, RabbitMQ's queues.
//!
//! Captures are recognised by their content, never by the file name. A file may hold
//! several, each optionally preceded by its command line (`$ openstack server show …`);
//! the command line, when there, decides the command and supplies the id an output
//! may lack (`openstack volume show <id> | grep multiattach`). Tables and documents of
//! any other command are ignored. Values `None`, `null`, `""` and `-` are absent.
//!
//! Captures are small, so the records own their data. Nothing here panics.

mod command;
mod fencing;
mod fields;
mod migration;
mod notification;
pub mod pylit;
mod rabbit_queues;
mod scan;
mod server;
mod server_event;
mod table;
#[cfg(test)]
mod testutil;
mod vmove;
mod volume;

pub use fencing::{
    FenceAction, FenceLogResult, FenceState, fence_log_line, fence_log_result, is_complete_history,
    parse_fence_history,
};
pub use migration::Migration;
pub use notification::{Notification, NotificationRow, ProgressDetail, WorkflowTask};
pub use rabbit_queues::{QueueRow, parse_queues};
pub use scan::{parse_capture, parse_captures};
pub use server::Server;
pub use server_event::ServerEvent;
pub use vmove::Vmove;
pub use volume::{Volume, VolumeAttachment};

/// One recognised CLI capture.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(tag = "kind", content = "data", rename_all = "snake_case")]
pub enum Capture {
    /// `openstack notification show <id>`.
    Notification(Notification),
    /// `openstack notification list`.
    NotificationList(Vec<NotificationRow>),
    /// `openstack notification vmove list <id>`, or `vmove show <id> <vmove>` (one move).
    VmoveList {
        /// The notification, from the command line (or the API's `notification_uuid`).
        notification_id: Option<String>,
        /// The VM moves, in the order printed.
        moves: Vec<Vmove>,
    },
    /// `openstack server show <id>`.
    Server(Server),
    /// `openstack server event list [--long] <id>` (or Nova's `instanceActions`).
    ServerEvents {
        /// The server, from the command line or, failing that, the events when they agree.
        server_id: Option<String>,
        /// The events (instance actions), in the order printed (newest first).
        events: Vec<ServerEvent>,
    },
    /// `openstack volume show <id>`.
    Volume(Volume),
    /// `openstack volume attachment list`.
    VolumeAttachments(Vec<VolumeAttachment>),
    /// `openstack server migration list` (or `nova migration-list`, `os-migrations`).
    Migrations(Vec<Migration>),
    /// Pacemaker's fencing history (`pcs stonith history show`, `stonith_admin --history`,
    /// crm_mon's `Fencing History`).
    FenceHistory {
        /// Whether it lists every action, the successful ones included (not crm_mon's
        /// default `Failed Fencing Actions` / `Pending Fencing Actions` sections).
        complete: bool,
        /// The actions, in the order printed.
        actions: Vec<FenceAction>,
    },
    /// RabbitMQ's queues (`rabbitmqctl list_queues`, the queues of `rabbitmqctl report`).
    RabbitQueues(Vec<QueueRow>),
    /// The fencing results Pacemaker's daemons logged in one log (`pacemaker.log`, the
    /// system log): [`fence_log_line`]'s lines with their time put in UTC by whoever knew
    /// the year and the host's zone. Not a whole history: the log may not cover the time.
    FenceLog {
        /// The results, in file order.
        actions: Vec<FenceAction>,
    },
}

/// The steps below [`parse_captures`], for the fuzz targets in `parsers/fuzz`: not API.
#[doc(hidden)]
pub mod fuzzing {
    /// `line` read as an `openstack` command line, in its `Debug` form.
    pub fn command_line(line: &str) -> Option<String> {
        super::command::command_line(line).map(|c| format!("{c:?}"))
    }

    /// The lines of `text` read as one table, then shaped with `columns` (the `Debug`
    /// forms of both).
    pub fn table(text: &str, columns: Option<&[String]>) -> (String, String) {
        let table = super::table::parse_table(text.lines());
        let read = format!("{table:?}");
        (read, format!("{:?}", table.shape(columns)))
    }

    /// A `--fit-width` cell's lines joined back.
    pub fn unwrap_lines(text: &str) -> String {
        super::fields::unwrap_lines(text)
    }
}
