//! Finding captures in a text: command lines, tables, JSON and YAML documents, `-f value`
//! lines; and turning each into a [`Capture`].

use memchr::memmem;
use serde_json::Value;

use super::Capture;
use super::command::{Command, Kind, command_line};
use super::fields::{Obj, text};
use super::migration::Migration;
use super::notification::{Notification, NotificationRow};
use super::server::Server;
use super::server_event::ServerEvent;
use super::table::{Shape, is_border, is_row, parse_table};
use super::vmove::Vmove;
use super::volume::{Volume, VolumeAttachment};

/// Strings at least one of which every capture contains: text with none of them is
/// skipped without looking at its lines.
const SIGNATURES: &[&[u8]] = &[
    b"+-",
    b"| ",
    b"openstack ",
    b"notification_uuid",
    b"Request ID",
    b"request_id",
    b"OS-EXT-",
    b"multiattach",
    b"server_id",
    b"instance_uuid",
    b"Volume ID",
    b"Source Compute",
    b"source_compute",
];

/// Keys that make a YAML block worth parsing when no command line announced it.
const YAML_KEYS: &[&str] = &[
    "notification_uuid:",
    "OS-EXT-",
    "Request ID:",
    "request_id:",
    "server_id:",
    "instance_uuid:",
    "multiattach:",
    "Volume ID:",
    "source_host:",
    "Source Compute:",
    "source_compute:",
];

/// Envelopes of raw API responses, unwrapped before reading.
const ENVELOPES: &[&str] = &[
    "notification",
    "notifications",
    "vmove",
    "vmoves",
    "server",
    "instanceActions",
    "volume",
    "attachments",
    "migrations",
];

/// The first capture in `text`, or `None` when it holds none.
///
/// ```
/// use evacdoc_parsers::capture::{parse_capture, Capture};
/// let text = "$ openstack volume show 35ab2ef8-5508-4401-bff4-06c2f119c225 | grep multiattach\n\
///             | multiattach | False |\n";
/// let Some(Capture::Volume(v)) = parse_capture(text) else { panic!() };
/// assert_eq!(v.id, "35ab2ef8-5508-4401-bff4-06c2f119c225");
/// assert_eq!(v.multiattach, Some(false));
/// assert!(parse_capture("2020-12-08 19:51:12.309 235 INFO nova.api [-] hello\n").is_none());
/// ```
pub fn parse_capture(text: &str) -> Option<Capture> {
    parse_captures(text).into_iter().next()
}

/// Every capture in `text`, in order. Each may be preceded by its command line
/// (`$ openstack …`, `# openstack …`, `user@host:~$ openstack …`), which then decides
/// the command and format; without one, the columns decide. Output of other commands
/// (and ordinary log or config text) is skipped.
///
/// ```
/// use evacdoc_parsers::capture::{parse_captures, Capture};
/// let text = "\
/// $ openstack notification vmove list 9ace2da7-97d1-48cb-a96a-08ad4624481b -f json
/// [{\"uuid\": \"6f1c0a2e-9a3b-4c5d-8e7f-0a1b2c3d4e5f\",
///   \"server_id\": \"56ce6206-3659-495e-a6ea-f4d3d578cc96\", \"server_name\": \"vm1\",
///   \"source_host\": \"node02ob100.maas\", \"dest_host\": null, \"start_time\": null,
///   \"end_time\": null, \"type\": \"evacuation\", \"status\": \"pending\"}]
/// $ openstack server event list 56ce6206-3659-495e-a6ea-f4d3d578cc96
/// +------------------------------------------+--------------------------------------+--------+----------------------------+
/// | Request ID                               | Server ID                            | Action | Start Time                 |
/// +------------------------------------------+--------------------------------------+--------+----------------------------+
/// | req-de081ecf-4201-4542-b092-e21b2f5ce942 | 56ce6206-3659-495e-a6ea-f4d3d578cc96 | lock   | 2020-12-08T19:51:11.000000 |
/// +------------------------------------------+--------------------------------------+--------+----------------------------+
/// ";
/// let captures = parse_captures(text);
/// assert_eq!(captures.len(), 2);
/// let Capture::VmoveList { notification_id, moves } = &captures[0] else { panic!() };
/// assert_eq!(notification_id.as_deref(), Some("9ace2da7-97d1-48cb-a96a-08ad4624481b"));
/// assert_eq!(moves[0].status.as_deref(), Some("pending"));
/// assert_eq!(moves[0].start_time, None);
/// let Capture::ServerEvents { events, .. } = &captures[1] else { panic!() };
/// assert_eq!(events[0].action, "lock");
/// ```
pub fn parse_captures(text: &str) -> Vec<Capture> {
    let bytes = text.as_bytes();
    let mut out = if SIGNATURES.iter().any(|s| memmem::find(bytes, s).is_some()) {
        Scanner::new(text).run()
    } else {
        Vec::new()
    };
    // Captures of the cluster around OpenStack carry none of its signatures.
    let fencing = super::fencing::parse_fence_history(text);
    if !fencing.is_empty() {
        out.push(Capture::FenceHistory {
            complete: super::fencing::is_complete_history(text),
            actions: fencing,
        });
    }
    let queues = super::rabbit_queues::parse_queues(text);
    if !queues.is_empty() {
        out.push(Capture::RabbitQueues(queues));
    }
    out
}

/// One document of a capture, before its command is known.
enum Raw {
    Object(Obj),
    List(Vec<Obj>),
}

struct Scanner<'a> {
    text: &'a str,
    /// Each line (without its end) and its byte offset.
    lines: Vec<(usize, &'a str)>,
    out: Vec<Capture>,
}

impl<'a> Scanner<'a> {
    fn new(text: &'a str) -> Scanner<'a> {
        let mut lines = Vec::new();
        let mut off = 0;
        for raw in text.split_inclusive('\n') {
            let line = raw.strip_suffix('\n').unwrap_or(raw);
            let line = line.strip_suffix('\r').unwrap_or(line);
            lines.push((off, line));
            off += raw.len();
        }
        Scanner {
            text,
            lines,
            out: Vec::new(),
        }
    }

    fn line(&self, i: usize) -> &'a str {
        self.lines.get(i).map_or("", |l| l.1)
    }

    fn run(mut self) -> Vec<Capture> {
        let mut pending: Option<Command> = None;
        let mut i = 0;
        while i < self.lines.len() {
            let line = self.line(i);
            let t = line.trim();
            if t.is_empty() {
                i += 1;
                continue;
            }
            if let Some(cmd) = command_line(line) {
                pending = Some(cmd);
                i += 1;
                continue;
            }
            let cmd = pending.take();
            let format = cmd.as_ref().and_then(|c| c.format.as_deref());
            if is_border(t) || is_row(t) {
                i = self.table(i, cmd.as_ref());
            } else if let Some(next) = self.json(i, cmd.as_ref()) {
                i = next;
            } else if format == Some("value") {
                i = self.value_lines(i, cmd.as_ref());
            } else if cmd.is_some() || yaml_start(t) {
                i = self.yaml(i, cmd.as_ref());
            } else {
                i += 1;
            }
        }
        self.out
    }

    fn push(&mut self, raw: Raw, cmd: Option<&Command>) {
        if let Some(capture) = build(raw, cmd) {
            self.out.push(capture);
        }
    }

    /// A table from line `i`: rows and borders, ending after its third border.
    fn table(&mut self, i: usize, cmd: Option<&Command>) -> usize {
        let mut j = i;
        let mut borders = 0;
        while j < self.lines.len() {
            let t = self.line(j).trim();
            if is_border(t) {
                borders += 1;
                j += 1;
                if borders == 3 {
                    break;
                }
            } else if is_row(t) {
                j += 1;
            } else {
                break;
            }
        }
        let table = parse_table(self.lines.get(i..j).unwrap_or(&[]).iter().map(|l| l.1));
        let columns = cmd.map(Command::columns).filter(|c| !c.is_empty());
        let raw = match table.shape(columns.as_deref()) {
            Some(Shape::Fields(obj)) => Some(Raw::Object(obj)),
            Some(Shape::Rows(rows)) => Some(Raw::List(rows)),
            None => None,
        };
        if let Some(raw) = raw {
            self.push(raw, cmd);
        }
        j.max(i + 1)
    }

    /// A JSON document starting on line `i`; the next line to read, or `None` when
    /// there is none.
    fn json(&mut self, i: usize, cmd: Option<&Command>) -> Option<usize> {
        let (off, line) = *self.lines.get(i)?;
        let t = line.trim_start();
        if !(t.starts_with('{') || t.starts_with('[')) {
            return None;
        }
        let rest = self.text.get(off..)?;
        let mut stream = serde_json::Deserializer::from_str(rest).into_iter::<Value>();
        let value = match stream.next() {
            Some(Ok(v)) => v,
            _ => return None,
        };
        let end = off + stream.byte_offset();
        self.push_value(value, cmd);
        // The line the document ends on is done with, whatever follows it there.
        let next = self
            .lines
            .iter()
            .position(|(o, l)| o + l.len() >= end)
            .map_or(self.lines.len(), |p| p + 1);
        Some(next.max(i + 1))
    }

    /// Records a JSON or YAML document: an object, or a list of objects.
    fn push_value(&mut self, value: Value, cmd: Option<&Command>) {
        match value {
            Value::Object(o) => self.push(Raw::Object(o), cmd),
            Value::Array(items) => {
                let objs = items
                    .into_iter()
                    .filter_map(|v| match v {
                        Value::Object(o) => Some(o),
                        _ => None,
                    })
                    .collect();
                self.push(Raw::List(objs), cmd);
            }
            _ => {}
        }
    }

    /// The lines of a block from `i`: non-blank, up to a command line or a table.
    fn block_end(&self, i: usize, same: impl Fn(&str) -> bool) -> usize {
        let mut j = i;
        while j < self.lines.len() {
            let line = self.line(j);
            let t = line.trim();
            if t.is_empty()
                || is_border(t)
                || (j > i && (command_line(line).is_some() || !same(line)))
            {
                break;
            }
            j += 1;
        }
        j.max(i + 1)
    }

    /// A YAML document from line `i` (`-f yaml`).
    fn yaml(&mut self, i: usize, cmd: Option<&Command>) -> usize {
        let first = self.line(i);
        let indent = first.len() - first.trim_start().len();
        let prefix = first.get(..indent).unwrap_or("");
        let j = self.block_end(i, |l| {
            l.starts_with(prefix)
                && l.get(indent..).is_some_and(|r| {
                    r.starts_with(' ') || r.starts_with("- ") || r == "-" || yaml_key(r).is_some()
                })
        });
        let block: Vec<&str> = (i..j)
            .map(|k| self.line(k).get(indent..).unwrap_or(""))
            .collect();
        let doc = block.join("\n");
        if cmd.is_none() && !YAML_KEYS.iter().any(|k| doc.contains(k)) {
            return j;
        }
        if let Ok(value) = serde_yaml_ng::from_str::<Value>(&doc) {
            self.push_value(value, cmd);
        }
        j
    }

    /// `-f value` lines from `i`: one row per line (lists), one field per line (show).
    fn value_lines(&mut self, i: usize, cmd: Option<&Command>) -> usize {
        let j = self.block_end(i, |_| true);
        let Some(cmd) = cmd else { return j };
        let columns = cmd.columns();
        let lines: Vec<&str> = (i..j).map(|k| self.line(k).trim()).collect();
        if cmd.kind.is_list() {
            let rows = lines
                .iter()
                .map(|l| {
                    columns
                        .iter()
                        .cloned()
                        .zip(
                            split_value_line(l, columns.len())
                                .into_iter()
                                .map(Value::String),
                        )
                        .collect::<Obj>()
                })
                .collect();
            self.push(Raw::List(rows), Some(cmd));
        } else if !cmd.columns.is_empty() {
            let obj = cmd
                .columns
                .iter()
                .cloned()
                .zip(lines.iter().map(|l| Value::String(l.to_string())))
                .collect();
            self.push(Raw::Object(obj), Some(cmd));
        }
        j
    }
}

/// Splits a `-f value` line into `n` fields at whitespace, the last taking the rest.
fn split_value_line(line: &str, n: usize) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = line.trim();
    while out.len() + 1 < n {
        match rest.split_once(char::is_whitespace) {
            Some((a, b)) => {
                out.push(a.to_string());
                rest = b.trim_start();
            }
            None => break,
        }
    }
    if !rest.is_empty() {
        out.push(rest.to_string());
    }
    out
}

/// The key of a `key: value` / `key:` YAML line.
fn yaml_key(line: &str) -> Option<&str> {
    let first = line.chars().next()?;
    if first.is_whitespace() || matches!(first, '#' | '|' | '+' | '{' | '[' | '-' | '"' | '\'') {
        return None;
    }
    // Keys may hold colons (`OS-EXT-STS:vm_state`): the key ends at `": "` or a final `:`.
    let key = match line.split_once(": ") {
        Some((key, _)) => key,
        None => line.trim_end().strip_suffix(':')?,
    };
    let ok = !key.is_empty() && key.len() <= 64 && !key.contains("  ");
    ok.then_some(key)
}

/// True for the first line of a YAML document cliff prints: `key: …` or `- key: …`.
fn yaml_start(t: &str) -> bool {
    yaml_key(t.strip_prefix("- ").unwrap_or(t)).is_some()
}

/// Unwraps `{"vmoves": [...]}`-style API envelopes.
fn unwrap_envelope(raw: Raw) -> Raw {
    match raw {
        Raw::Object(obj) if obj.len() == 1 => {
            let Some((key, value)) = obj.iter().next() else {
                return Raw::Object(obj);
            };
            if !ENVELOPES.contains(&key.as_str()) {
                return Raw::Object(obj);
            }
            match value {
                Value::Object(inner) => Raw::Object(inner.clone()),
                Value::Array(items) => Raw::List(
                    items
                        .iter()
                        .filter_map(|v| v.as_object().cloned())
                        .collect(),
                ),
                _ => Raw::Object(obj),
            }
        }
        other => other,
    }
}

/// The command a document's fields or columns belong to.
fn classify(raw: &Raw) -> Option<Kind> {
    match raw {
        Raw::Object(o) => {
            if Vmove::looks_like(o) {
                Some(Kind::VmoveShow)
            } else if o.contains_key("notification_uuid") {
                Some(Kind::NotificationShow)
            } else if Server::looks_like(o) {
                Some(Kind::ServerShow)
            } else if Volume::looks_like(o) {
                Some(Kind::VolumeShow)
            } else {
                None
            }
        }
        Raw::List(rows) => {
            let o = rows.first()?;
            // Before vmoves: a migration record has a `Dest Host` too.
            if Migration::looks_like(o) {
                Some(Kind::MigrationList)
            } else if Vmove::looks_like(o) {
                Some(Kind::VmoveList)
            } else if o.contains_key("notification_uuid") {
                Some(Kind::NotificationList)
            } else if ServerEvent::looks_like(o) {
                Some(Kind::ServerEventList)
            } else if VolumeAttachment::looks_like(o) {
                Some(Kind::VolumeAttachmentList)
            } else {
                None
            }
        }
    }
}

/// Reads one document as the capture of `cmd` (or of the command its keys suggest).
fn build(raw: Raw, cmd: Option<&Command>) -> Option<Capture> {
    let raw = unwrap_envelope(raw);
    let kind = match cmd {
        Some(c) if c.kind == Kind::Other => return None,
        Some(c) => c.kind,
        None => classify(&raw)?,
    };
    let arg = cmd.and_then(|c| c.args.first()).map(String::as_str);
    match (kind, raw) {
        (Kind::NotificationShow, Raw::Object(o)) => {
            Notification::from_obj(&o, arg).map(Capture::Notification)
        }
        (Kind::NotificationList, Raw::List(rows)) => Some(Capture::NotificationList(
            rows.iter().filter_map(NotificationRow::from_obj).collect(),
        )),
        (Kind::VmoveList | Kind::VmoveShow, raw) => {
            let rows = match raw {
                Raw::List(rows) => rows,
                Raw::Object(o) => vec![o],
            };
            let notification_id = arg
                .map(str::to_string)
                .or_else(|| rows.iter().find_map(|o| text(o, &["notification_uuid"])));
            Some(Capture::VmoveList {
                notification_id,
                moves: rows.iter().filter_map(Vmove::from_obj).collect(),
            })
        }
        (Kind::ServerShow, Raw::Object(o)) => Server::from_obj(&o, arg).map(Capture::Server),
        (Kind::ServerEventList, Raw::List(rows)) => {
            let events: Vec<ServerEvent> = rows.iter().filter_map(ServerEvent::from_obj).collect();
            let server_id = arg.map(str::to_string).or_else(|| {
                let first = events.first()?.server_id.clone()?;
                events
                    .iter()
                    .all(|e| e.server_id.as_deref() == Some(first.as_str()))
                    .then_some(first)
            });
            Some(Capture::ServerEvents { server_id, events })
        }
        (Kind::VolumeShow, Raw::Object(o)) => Volume::from_obj(&o, arg).map(Capture::Volume),
        (Kind::VolumeAttachmentList, Raw::List(rows)) => Some(Capture::VolumeAttachments(
            rows.iter().map(VolumeAttachment::from_obj).collect(),
        )),
        (Kind::MigrationList, Raw::List(rows)) => Some(Capture::Migrations(
            rows.iter().filter_map(Migration::from_obj).collect(),
        )),
        _ => None,
    }
}

#[cfg(test)]
mod tests;
