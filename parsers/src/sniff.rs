//! Telling a config file from a log file by its name and first lines.

/// What a file holds, as far as the parsers are concerned.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum FileKind {
    /// Log lines of any format the line parser knows.
    Log,
    /// An oslo.config INI file (nova.conf, masakari.conf, ...).
    Ini,
}

/// Decides whether `text` (named `file_name`) is an INI file or a log.
///
/// A `.conf`/`.ini`/`.cfg` name whose first meaningful line is a `[section]` or a
/// `key = value` is INI; so is any text whose first meaningful line is a `[section]`
/// header that is not the start of a uWSGI line.
///
/// ```
/// use evacdoc_parsers::sniff::{sniff, FileKind};
/// assert_eq!(sniff("masakari.conf", "# comment\n[DEFAULT]\nwait_period_after_service_update = 60\n"), FileKind::Ini);
/// assert_eq!(sniff("nova-api.log", "2020-12-08 19:51:12.309 235 INFO a.b [-] x\n"), FileKind::Log);
/// ```
pub fn sniff(file_name: &str, text: &str) -> FileKind {
    let name = file_name.rsplit(['/', '\\']).next().unwrap_or(file_name);
    let config_name = [".conf", ".ini", ".cfg"]
        .iter()
        .any(|ext| name.ends_with(ext));
    let first = text
        .lines()
        .take(200)
        .map(str::trim_end)
        .find(|l| !(l.is_empty() || l.starts_with('#') || l.starts_with(';')));
    let Some(first) = first else {
        return if config_name {
            FileKind::Ini
        } else {
            FileKind::Log
        };
    };
    let is_section = first.starts_with('[')
        && first.ends_with(']')
        && !first.starts_with("[pid: ")
        && !first.starts_with("[pod/")
        && !first.contains("] ");
    let is_assignment = first.split_once(['=', ':']).is_some_and(|(key, _)| {
        let key = key.trim();
        !key.is_empty() && !key.contains(' ')
    });
    if is_section || (config_name && is_assignment) {
        FileKind::Ini
    } else {
        FileKind::Log
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sniffs_configs_and_logs() {
        assert_eq!(
            sniff("etc/nova/nova.conf", "[DEFAULT]\ndebug = False\n"),
            FileKind::Ini
        );
        assert_eq!(
            sniff("x/nova-compute.conf", "debug = False\n"),
            FileKind::Ini
        );
        assert_eq!(
            sniff("weird", "\n\n[keystone_authtoken]\nauth_url = x\n"),
            FileKind::Ini
        );
        assert_eq!(
            sniff(
                "nova-api-uwsgi.log",
                "[pid: 25|app: 0|req: 1/7] 10.0.0.5 () {56 vars in 1063 bytes} [Thu Aug  1 12:00:00 2025] GET / => generated 0 bytes in 1 msecs (HTTP/1.1 200) 7 headers in 283 bytes (1 switches on core 0)\n"
            ),
            FileKind::Log
        );
        assert_eq!(
            sniff(
                "access.log",
                "127.0.0.1 - - [27/Dec/2024:00:00:11 +0000] \"GET / HTTP/1.1\" 200 1 \"-\" \"x\"\n"
            ),
            FileKind::Log
        );
        // Container logs, whatever their payload.
        assert_eq!(
            sniff(
                "var/log/pods/openstack_masakari-engine-0_0c1d2e3f/masakari-engine/0.log",
                "2026-11-30T09:34:22.845912345Z stdout F [DEFAULT]\n"
            ),
            FileKind::Log
        );
        assert_eq!(
            sniff(
                "a1b2-json.log",
                "{\"log\":\"[DEFAULT]\\n\",\"stream\":\"stdout\",\"time\":\"2026-11-30T09:34:22Z\"}\n"
            ),
            FileKind::Log
        );
        // `kubectl logs --prefix`, the container's first line empty.
        assert_eq!(
            sniff(
                "nova-api.log",
                "[pod/nova-0/nova-api]\n[pod/nova-0/nova-api] x\n"
            ),
            FileKind::Log
        );
        assert_eq!(sniff("empty.conf", ""), FileKind::Ini);
        assert_eq!(sniff("empty.log", ""), FileKind::Log);
    }
}
