//! The `openstack …` command line a capture is often saved with
//! (`$ openstack notification show 9ace2da7-…`, `root@host:~# openstack …`).

/// The commands this module reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    NotificationShow,
    NotificationList,
    VmoveList,
    VmoveShow,
    ServerShow,
    ServerEventList,
    VolumeShow,
    VolumeAttachmentList,
    MigrationList,
    /// An `openstack` command this module does not read: its output is skipped.
    Other,
}

/// The words after `openstack` that name each command (longest first where they share
/// a prefix).
const COMMANDS: &[(&[&str], Kind)] = &[
    (&["notification", "vmove", "list"], Kind::VmoveList),
    (&["notification", "vmove", "show"], Kind::VmoveShow),
    (&["notification", "show"], Kind::NotificationShow),
    (&["notification", "list"], Kind::NotificationList),
    (&["server", "event", "list"], Kind::ServerEventList),
    (&["server", "migration", "list"], Kind::MigrationList),
    (&["server", "show"], Kind::ServerShow),
    (
        &["volume", "attachment", "list"],
        Kind::VolumeAttachmentList,
    ),
    (&["volume", "show"], Kind::VolumeShow),
];

/// Options that take a value (as the next word when not written `--opt=value`).
const VALUED: &[&str] = &[
    "-f",
    "--format",
    "-c",
    "--column",
    "--max-width",
    "--sort-column",
    "--sort-ascending",
    "--sort-key",
    "--sort-dir",
    "--limit",
    "--marker",
    "--status",
    "--type",
    "--changes-since",
    "--changes-before",
    "--prefix",
    "--generated-since",
    "--source-host-uuid",
    "--project",
    "--project-domain",
    "--volume-id",
    "--template",
];

/// A parsed command line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Command {
    pub kind: Kind,
    /// Positional arguments after the command words (ids or names).
    pub args: Vec<String>,
    /// `-f`/`--format`, when given.
    pub format: Option<String>,
    /// `-c`/`--column`, in order.
    pub columns: Vec<String>,
    /// `--long`.
    pub long: bool,
}

/// Splits a shell line into words (quotes removed), stopping at a pipe, `;`, `&&` or a
/// redirection.
fn words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => cur.push(c),
            None => match c {
                '\'' | '"' => {
                    quote = Some(c);
                    in_word = true;
                }
                '|' | ';' | '&' | '>' | '<' => break,
                c if c.is_whitespace() => {
                    if in_word {
                        out.push(std::mem::take(&mut cur));
                        in_word = false;
                    }
                }
                c => {
                    cur.push(c);
                    in_word = true;
                }
            },
        }
    }
    if in_word {
        out.push(cur);
    }
    out
}

/// Reads `line` as an `openstack` command line: `openstack …` at the start, or after a
/// shell prompt ending in `$`, `#`, `>` or `%`.
pub(crate) fn command_line(line: &str) -> Option<Command> {
    let t = line.trim();
    let at = t.find("openstack ")?;
    let prompt = t.get(..at)?.trim_end();
    let prompt_ok = prompt.is_empty()
        || (prompt.ends_with(['$', '#', '>', '%', '+']) && !prompt.contains("  "));
    if !prompt_ok {
        return None;
    }
    let rest = t.get(at + "openstack ".len()..)?;
    let w = words(rest);
    let mut i = 0;
    // Global options before the command: `--os-cloud x`, `--os-compute-api-version 2.53`.
    while let Some(word) = w.get(i) {
        if !word.starts_with('-') {
            break;
        }
        i += if word.starts_with("--os-") && !word.contains('=') {
            2
        } else {
            1
        };
    }
    let tail = w.get(i..).unwrap_or(&[]);
    let (kind, used) = COMMANDS
        .iter()
        .find(|(names, _)| names.len() <= tail.len() && names.iter().zip(tail).all(|(n, t)| n == t))
        .map_or((Kind::Other, tail.len()), |(names, kind)| {
            (*kind, names.len())
        });
    let mut cmd = Command {
        kind,
        args: Vec::new(),
        format: None,
        columns: Vec::new(),
        long: false,
    };
    if kind == Kind::Other {
        return Some(cmd);
    }
    let mut it = tail.get(used..).unwrap_or(&[]).iter();
    while let Some(word) = it.next() {
        if !word.starts_with('-') || word == "-" {
            cmd.args.push(word.clone());
            continue;
        }
        let (name, inline) = match word.split_once('=') {
            Some((n, v)) if n.starts_with("--") => (n.to_string(), Some(v.to_string())),
            _ => match word.strip_prefix("-f").or_else(|| word.strip_prefix("-c")) {
                Some(v) if !v.is_empty() && !word.starts_with("--") => {
                    (word.get(..2).unwrap_or("").to_string(), Some(v.to_string()))
                }
                _ => (word.clone(), None),
            },
        };
        if name == "--long" {
            cmd.long = true;
            continue;
        }
        if !(VALUED.contains(&name.as_str()) || name.starts_with("--os-")) {
            continue;
        }
        let value = inline.or_else(|| it.next().cloned());
        match (name.as_str(), value) {
            ("-f" | "--format", Some(v)) => cmd.format = Some(v),
            ("-c" | "--column", Some(v)) => cmd.columns.push(v),
            _ => {}
        }
    }
    Some(cmd)
}

impl Kind {
    /// The columns a list command prints by default, as its table headers name them.
    pub(crate) fn default_columns(self, long: bool) -> &'static [&'static str] {
        match self {
            Kind::NotificationList => &[
                "notification_uuid",
                "generated_time",
                "status",
                "type",
                "source_host_uuid",
                "payload",
            ],
            Kind::VmoveList => &[
                "uuid",
                "server_id",
                "server_name",
                "source_host",
                "dest_host",
                "start_time",
                "end_time",
                "type",
                "status",
            ],
            Kind::ServerEventList if long => &[
                "Request ID",
                "Server ID",
                "Action",
                "Start Time",
                "Message",
                "Project ID",
                "User ID",
            ],
            Kind::ServerEventList => &["Request ID", "Server ID", "Action", "Start Time"],
            Kind::VolumeAttachmentList => &["ID", "Volume ID", "Server ID", "Status"],
            Kind::MigrationList => &[
                "Id",
                "UUID",
                "Source Node",
                "Dest Node",
                "Source Compute",
                "Dest Compute",
                "Dest Host",
                "Status",
                "Server UUID",
                "Old Flavor",
                "New Flavor",
                "Type",
                "Created At",
                "Updated At",
            ],
            _ => &[],
        }
    }

    /// True for the commands that print a list.
    pub(crate) fn is_list(self) -> bool {
        matches!(
            self,
            Kind::NotificationList
                | Kind::VmoveList
                | Kind::ServerEventList
                | Kind::VolumeAttachmentList
                | Kind::MigrationList
        )
    }
}

impl Command {
    /// The columns of this command's output without a header: the `-c` ones (in the
    /// default order when they are defaults), else the defaults.
    pub(crate) fn columns(&self) -> Vec<String> {
        let defaults = self.kind.default_columns(self.long);
        if self.columns.is_empty() {
            return defaults.iter().map(|c| c.to_string()).collect();
        }
        let mut out: Vec<String> = defaults
            .iter()
            .filter(|d| self.columns.iter().any(|c| c == *d))
            .map(|c| c.to_string())
            .collect();
        for c in &self.columns {
            if !out.contains(c) {
                out.push(c.clone());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prompts_and_options() {
        let c = command_line(
            "$ openstack volume show 35ab2ef8-5508-4401-bff4-06c2f119c225 | grep multiattach",
        )
        .unwrap();
        assert_eq!(c.kind, Kind::VolumeShow);
        assert_eq!(c.args, ["35ab2ef8-5508-4401-bff4-06c2f119c225"]);
        let c = command_line(
            "root@juju-1:~# openstack --os-compute-api-version 2.53 server event list --long -f json abc",
        )
        .unwrap();
        assert_eq!(c.kind, Kind::ServerEventList);
        assert!(c.long);
        assert_eq!(c.format.as_deref(), Some("json"));
        assert_eq!(c.args, ["abc"]);
        let c =
            command_line("openstack notification vmove show N V -fyaml -c status --max-width 80")
                .unwrap();
        assert_eq!(c.kind, Kind::VmoveShow);
        assert_eq!(c.args, ["N", "V"]);
        assert_eq!(c.format.as_deref(), Some("yaml"));
        assert_eq!(c.columns, ["status"]);
        assert_eq!(
            command_line("# openstack segment list").unwrap().kind,
            Kind::Other
        );
    }

    #[test]
    fn not_command_lines() {
        assert!(
            command_line("2020-12-08 19:51:12.309 235 INFO x [-] ran openstack server show")
                .is_none()
        );
        assert!(command_line("Running: openstack server show x").is_none());
        assert!(command_line("openstackx server show").is_none());
    }
}
