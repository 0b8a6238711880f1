//! RabbitMQ's queues as `rabbitmqctl list_queues` prints them (RabbitMQ 3.7 and later, the
//! `Table` formatter: a banner `Listing queues for vhost <v> ...`, a header line of the
//! info items, one tab-separated row a queue), alone (`rabbitmqctl list_queues -p openstack
//! name messages consumers`) or inside `rabbitmqctl report`, which sos's rabbitmq plugin saves
//! as `sos_commands/rabbitmq/rabbitmqctl_report` (every info item of every queue, per vhost;
//! deps/rabbitmq_cli/lib/rabbitmq/cli/ctl/commands/report_command.ex and
//! list_queues_command.ex).

/// One queue.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct QueueRow {
    /// The vhost of the listing, when its banner says.
    pub vhost: Option<String>,
    /// The queue.
    pub name: String,
    /// Messages in it (ready and unacknowledged).
    pub messages: u64,
    /// Its consumers.
    pub consumers: u64,
    /// 1-based line in the capture.
    pub line: usize,
    /// The line as written.
    pub text: String,
}

/// The columns of a header line naming `name`, `messages` and `consumers`.
fn header(line: &str) -> Option<[usize; 3]> {
    let cells: Vec<&str> = line.split('\t').map(str::trim).collect();
    let at = |key: &str| cells.iter().position(|c| *c == key);
    Some([at("name")?, at("messages")?, at("consumers")?])
}

/// Every queue row of `text` with its message and consumer counts.
pub fn parse_queues(text: &str) -> Vec<QueueRow> {
    let mut out = Vec::new();
    let mut vhost: Option<String> = None;
    let mut columns: Option<[usize; 3]> = None;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end_matches('\r');
        if let Some(rest) = line.strip_prefix("Listing queues for vhost ") {
            vhost = Some(rest.trim_end_matches(" ...").to_string());
            columns = None;
            continue;
        }
        if !line.contains('\t') {
            // A table ends at the first line that is not a row (a blank, a banner).
            columns = None;
            continue;
        }
        if let Some(h) = header(line) {
            columns = Some(h);
            continue;
        }
        let Some([name, messages, consumers]) = columns else {
            continue;
        };
        let cells: Vec<&str> = line.split('\t').collect();
        let number = |k: usize| cells.get(k).and_then(|c| c.trim().parse::<u64>().ok());
        if let (Some(n), Some(m), Some(c)) = (cells.get(name), number(messages), number(consumers))
        {
            out.push(QueueRow {
                vhost: vhost.clone(),
                name: n.trim().to_string(),
                messages: m,
                consumers: c,
                line: i + 1,
                text: line.to_string(),
            });
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::parse_queues;

    #[test]
    fn a_listing_of_name_messages_consumers_is_read_with_its_vhost() {
        let text = "Timeout: 60.0 seconds ...\nListing queues for vhost openstack ...\nname\tmessages\tconsumers\nha_engine\t3\t0\nconductor\t0\t6\n";
        let q = parse_queues(text);
        assert_eq!(q.len(), 2);
        assert_eq!(q[0].vhost.as_deref(), Some("openstack"));
        assert_eq!(
            (q[0].name.as_str(), q[0].messages, q[0].consumers),
            ("ha_engine", 3, 0)
        );
        assert_eq!(q[0].line, 4);
        assert_eq!(q[1].consumers, 6);
    }

    #[test]
    fn the_reports_wide_table_is_read_by_its_header() {
        let text = "Reporting server status of node rabbit@ctl-1 ...\n\nListing queues for vhost / ...\n\
                    name\tdurable\tauto_delete\targuments\tmessages_ready\tmessages\tconsumers\tstate\n\
                    ha_engine\tfalse\tfalse\t[]\t2\t2\t0\trunning\n\nListing exchanges for vhost / ...\nname\ttype\n\tdirect\n";
        let q = parse_queues(text);
        assert_eq!(q.len(), 1);
        assert_eq!((q[0].messages, q[0].consumers), (2, 0));
    }

    #[test]
    fn rows_without_a_header_are_not_queues() {
        assert!(
            parse_queues("ha_engine\t3\t0\nListing queues for vhost / ...\nha_engine\t3\t0\n")
                .is_empty()
        );
    }
}
