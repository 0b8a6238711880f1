//! `key = value`, `key: value`, `"key": "value"` and `--key value` (configs, JSON and
//! Python reprs, flags): the value of a key that names a user, project, domain, host or
//! secret.

use super::Identifier;
use crate::redact::map::Kind;

/// What the value of a key is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    Secret,
    Host,
    Named(Kind),
    /// `name`: a user's, project's or domain's by the object it is in, else a name.
    Name,
}

/// The class of a key (`password`, `--os-username`, `OS-EXT-SRV-ATTR:host`,
/// `keystone_authtoken.project_name`), if it holds an identifier.
pub(super) fn class_of(key: &str) -> Option<Class> {
    let last = key.rsplit(['.', ':']).next().unwrap_or(key);
    let lower = last
        .trim_start_matches('-')
        .to_ascii_lowercase()
        .replace(['-', ' '], "_");
    let lower = lower.strip_prefix("os_").unwrap_or(&lower);
    // Keys that name a secret's properties, not the secret.
    let about = [
        "_at", "_id", "_type", "_method", "_methods", "_file", "_path", "_dir",
    ]
    .iter()
    .any(|s| lower.ends_with(s))
        || lower.starts_with("ssl_")
        || [
            "key_manager",
            "sort_key",
            "primary_key",
            "foreign_key",
            "routing_key",
            "partition_key",
        ]
        .contains(&lower);
    let secret = crate::redact::secrets::names_a_secret(lower) || lower.ends_with("pass");
    if secret {
        return (!about).then_some(Class::Secret);
    }
    Some(match lower {
        "user" | "username" | "user_name" | "login" | "admin_user" => Class::Named(Kind::User),
        "project" | "project_name" | "tenant" | "tenant_name" | "admin_tenant_name" => {
            Class::Named(Kind::Project)
        }
        "domain_name"
        | "user_domain_name"
        | "project_domain_name"
        | "display_name"
        | "instance_name" => Class::Named(Kind::Name),
        "host"
        | "hostname"
        | "host_name"
        | "nodename"
        | "hypervisor_hostname"
        | "my_hostname"
        | "server_name" => Class::Host,
        "name" => Class::Name,
        _ => return None,
    })
}

impl Identifier {
    /// Every `key = value`, `key: value`, `"key": "value"`, `--key value` of a line.
    pub(super) fn pairs(&mut self, line: &str, hits: &[(usize, usize, usize)]) {
        let b = line.as_bytes();
        let mut done = 0;
        for &(m_start, m_end, _) in hits {
            if m_start < done {
                continue;
            }
            let mut start = m_start;
            while start > 0 && is_key_byte(b[start - 1]) {
                start -= 1;
            }
            let mut end = m_end;
            while end < b.len() && is_key_byte(b[end]) {
                end += 1;
            }
            done = end;
            if start == end || !is_key_byte(b[start]) {
                continue;
            }
            let key = &line[start..end];
            let flag = key.starts_with("--");
            // The separator: blanks, quotes, backslashes, at most one `=`, `:` or `|`.
            let mut at = end;
            let mut assigned = false;
            let mut quote = None;
            while at < b.len() {
                match b[at] {
                    b' ' | b'\t' | b'\\' => {}
                    b'"' | b'\'' => quote = Some(b[at]),
                    b'=' | b':' | b'|' if !assigned => assigned = true,
                    _ => break,
                }
                at += 1;
            }
            if !(assigned || flag && at > end) || at >= b.len() {
                continue;
            }
            let class = class_of(key);
            let value_end = match quote {
                Some(q) => line[at..]
                    .find(|c: char| c as u32 == u32::from(q) || c == '\\')
                    .map_or(b.len(), |i| at + i),
                None => line[at..]
                    .find(|c: char| {
                        c.is_whitespace()
                            || matches!(
                                c,
                                ',' | ';' | '}' | ']' | ')' | '|' | '&' | '"' | '\'' | '\\'
                            )
                    })
                    .map_or(b.len(), |i| at + i),
            };
            let value = &line[at..value_end];
            done = done.max(value_end);
            if b[at] == b'{' {
                // An object: a `name` inside it is its user's, project's, domain's.
                self.parent = match class {
                    Some(Class::Named(kind)) => Some(kind),
                    _ => match key.to_ascii_lowercase().as_str() {
                        "user" => Some(Kind::User),
                        "project" | "tenant" => Some(Kind::Project),
                        _ => Some(Kind::Name),
                    },
                };
                continue;
            }
            if let Some(class) = class {
                self.value(class, value);
                if class == Class::Secret && quote.is_none() && line[value_end..].trim().is_empty()
                {
                    self.secret_open = true;
                }
            }
            self.base64_value(value);
        }
    }
}

pub(super) fn is_key_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')
}
