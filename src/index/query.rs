//! The query language: tantivy's (words, "phrases", `field:value`, AND/OR/NOT, `-x`)
//! with the message text as the default field, plus `host:` and `service:`, which the
//! meta file resolves to the files of that host or service (they are properties of a
//! file, not indexed per record).

use crate::index::meta::IndexMeta;
use crate::index::schema::names;

/// The query with each `host:X` and `service:X` replaced by the set of matching files.
pub(crate) fn resolve_file_fields(query: &str, meta: &IndexMeta) -> String {
    let mut out = String::with_capacity(query.len());
    let mut in_quote = false;
    let mut i = 0;
    let bytes = query.as_bytes();
    while i < query.len() {
        let at_word_start =
            i == 0 || matches!(bytes[i - 1], b' ' | b'\t' | b'\n' | b'(' | b'+' | b'-');
        if !in_quote && at_word_start {
            let rest = &query[i..];
            let field = ["host:", "service:"]
                .into_iter()
                .find(|f| rest.starts_with(f));
            if let Some(field) = field {
                let (value, used) = field_value(&rest[field.len()..]);
                let files = if field == "host:" {
                    meta.files_of_hosts(&meta.hosts_named(value))
                } else {
                    meta.files_of_service(value)
                };
                let ids: Vec<String> = files.iter().map(u32::to_string).collect();
                out.push_str(&format!("{}: IN [{}]", names::FILE, ids.join(" ")));
                i += field.len() + used;
                continue;
            }
        }
        let Some(c) = query[i..].chars().next() else {
            break;
        };
        if c == '"' {
            in_quote = !in_quote;
        }
        out.push(c);
        i += c.len_utf8();
    }
    out
}

/// The value after `field:` (quoted or up to a space or closing parenthesis) and how
/// many bytes it took.
fn field_value(rest: &str) -> (&str, usize) {
    if let Some(quoted) = rest.strip_prefix('"') {
        return match quoted.find('"') {
            Some(end) => (&quoted[..end], end + 2),
            None => (quoted, rest.len()),
        };
    }
    let end = rest
        .find(|c: char| c.is_whitespace() || c == ')')
        .unwrap_or(rest.len());
    (&rest[..end], end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::meta::{FileMeta, HostMeta};

    fn meta() -> IndexMeta {
        let host = |name: &str| HostMeta {
            name: name.into(),
            aliases: vec![format!("{name}-alias")],
            zone: "UTC".into(),
            offsets: vec![(i64::MIN, 0)],
            shift_ns: 0,
        };
        let file = |host: u32, service: &str| FileMeta {
            path: format!("{host}/{service}.log"),
            host,
            service: service.into(),
        };
        IndexMeta {
            version: 1,
            hosts: vec![host("cmp1.maas"), host("ctl1")],
            files: vec![
                file(0, "nova-compute"),
                file(1, "nova-api"),
                file(1, "masakari-engine"),
            ],
        }
    }

    #[test]
    fn host_and_service_become_file_sets() {
        let m = meta();
        assert_eq!(
            resolve_file_fields("host:cmp1 level:ERROR", &m),
            "file: IN [0] level:ERROR"
        );
        assert_eq!(
            resolve_file_fields(
                "(host:\"CTL1\" OR service:nova-compute) -service:nova-api",
                &m
            ),
            "(file: IN [1 2] OR file: IN [0]) -file: IN [1]"
        );
        assert_eq!(resolve_file_fields("host:nowhere", &m), "file: IN []");
        // Inside a phrase or inside a word it is text.
        assert_eq!(
            resolve_file_fields("\"on host:cmp1\" vhost:cmp1", &m),
            "\"on host:cmp1\" vhost:cmp1"
        );
    }
}
