//! The logs the simulator writes, laid out as one folder per host the way a charmed
//! deployment keeps them, so that `evacdoc analyze <log-dir>` reads them:
//!
//! ```text
//! <log-dir>/<controller>/etc/hostname
//! <log-dir>/<controller>/var/log/apache2/nova-api-os-compute_access.log   Apache combined
//! <log-dir>/<controller>/var/log/apache2/cinder_access.log                Apache combined
//! <log-dir>/<controller>/var/log/apache2/keystone_access.log              Apache combined
//! <log-dir>/<controller>/var/log/nova/nova-api-wsgi.log                   oslo.log (requestlog)
//! <log-dir>/<controller>/var/log/nova/nova-conductor.log                  oslo.log
//! <log-dir>/<compute>/var/log/nova/nova-compute.log                       oslo.log
//! ```

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::cloud::model::RequestIds;
use super::error::SimError;

/// Process ids the lines carry, one per service.
const NOVA_API_PID: u32 = 2231;
const CONDUCTOR_PID: u32 = 1874;
const COMPUTE_PID: u32 = 3310;

/// Where the logs go (nowhere without `--log-dir`).
#[derive(Debug, Default)]
pub struct Logs {
    dir: Option<PathBuf>,
    controller: String,
    open: HashMap<PathBuf, File>,
}

/// Which Apache access log a request goes to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessLog {
    Nova,
    Cinder,
    Keystone,
}

/// One oslo.log level.
#[derive(Clone, Copy, Debug)]
pub enum Level {
    Info,
    Warning,
    Error,
}

impl Level {
    fn as_str(self) -> &'static str {
        match self {
            Level::Info => "INFO",
            Level::Warning => "WARNING",
            Level::Error => "ERROR",
        }
    }
}

/// Everything an Apache `combined` line holds.
#[derive(Clone, Debug)]
pub struct AccessEntry<'a> {
    pub time: jiff::Timestamp,
    pub method: &'a str,
    pub uri: &'a str,
    pub status: u16,
    pub bytes: u64,
    pub user_agent: Option<&'a str>,
}

impl Logs {
    /// Logs under `dir` for a cloud whose API runs on `controller`; the host folders
    /// and their `etc/hostname` are made now.
    pub fn open(dir: &Path, controller: &str, computes: &[String]) -> Result<Logs, SimError> {
        for host in std::iter::once(controller).chain(computes.iter().map(String::as_str)) {
            let etc = dir.join(host).join("etc");
            std::fs::create_dir_all(&etc)
                .and_then(|()| std::fs::write(etc.join("hostname"), format!("{host}\n")))
                .map_err(|source| SimError::Logs {
                    path: etc.display().to_string(),
                    source,
                })?;
        }
        Ok(Logs {
            dir: Some(dir.to_path_buf()),
            controller: controller.to_string(),
            open: HashMap::new(),
        })
    }

    /// An Apache access line (`combined`, as Ubuntu's Apache writes it).
    pub fn access(&mut self, log: AccessLog, entry: &AccessEntry<'_>) {
        let name = match log {
            AccessLog::Nova => "nova-api-os-compute_access.log",
            AccessLog::Cinder => "cinder_access.log",
            AccessLog::Keystone => "keystone_access.log",
        };
        let line = format!(
            "127.0.0.1 - - [{}] \"{} {} HTTP/1.1\" {} {} \"-\" \"{}\"",
            entry.time.strftime("%d/%b/%Y:%H:%M:%S +0000"),
            entry.method,
            apache_escape(entry.uri),
            entry.status,
            entry.bytes,
            apache_escape(entry.user_agent.unwrap_or("-")),
        );
        let controller = self.controller.clone();
        self.write(&controller, &format!("var/log/apache2/{name}"), &line);
    }

    /// nova-api's request-log line (`nova.api.openstack.requestlog`, mod_wsgi).
    pub fn nova_request(
        &mut self,
        ids: &RequestIds,
        entry: &AccessEntry<'_>,
        len: u64,
        microversion: Option<&str>,
        seconds: f64,
    ) {
        let message = format!(
            "127.0.0.1 \"{} {}\" status: {} len: {len} microversion: {} time: {seconds:.6}",
            entry.method,
            entry.uri,
            entry.status,
            microversion.unwrap_or("-")
        );
        self.nova_api(
            entry.time,
            Level::Info,
            "nova.api.openstack.requestlog",
            Some(ids),
            None,
            &message,
        );
    }

    /// Another nova-api line (`HTTP exception thrown: ...`).
    pub fn nova_api(
        &mut self,
        time: jiff::Timestamp,
        level: Level,
        logger: &str,
        ids: Option<&RequestIds>,
        instance: Option<&str>,
        message: &str,
    ) {
        let line = oslo_line(time, NOVA_API_PID, level, logger, ids, instance, message);
        let controller = self.controller.clone();
        self.write(&controller, "var/log/nova/nova-api-wsgi.log", &line);
    }

    /// A nova-conductor line.
    pub fn conductor(
        &mut self,
        time: jiff::Timestamp,
        level: Level,
        ids: &RequestIds,
        instance: &str,
        message: &str,
    ) {
        let line = oslo_line(
            time,
            CONDUCTOR_PID,
            level,
            "nova.conductor.manager",
            Some(ids),
            Some(instance),
            message,
        );
        let controller = self.controller.clone();
        self.write(&controller, "var/log/nova/nova-conductor.log", &line);
    }

    /// A nova-compute line on `host`.
    pub fn compute(
        &mut self,
        host: &str,
        time: jiff::Timestamp,
        ids: &RequestIds,
        instance: &str,
        message: &str,
    ) {
        let line = oslo_line(
            time,
            COMPUTE_PID,
            Level::Info,
            "nova.compute.manager",
            Some(ids),
            Some(instance),
            message,
        );
        self.write(host, "var/log/nova/nova-compute.log", &line);
    }

    /// Appends a line; a log that cannot be written is given up (the simulator goes
    /// on answering, which is what it is for).
    fn write(&mut self, host: &str, rel: &str, line: &str) {
        let Some(dir) = &self.dir else { return };
        let path = dir.join(host).join(rel);
        if !self.open.contains_key(&path) {
            let opened = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| OpenOptions::new().create(true).append(true).open(&path));
            match opened {
                Ok(file) => {
                    self.open.insert(path.clone(), file);
                }
                Err(error) => {
                    tracing::warn!(path = %path.display(), %error, "cannot open a simulator log");
                    return;
                }
            }
        }
        if let Some(file) = self.open.get_mut(&path)
            && let Err(error) = writeln!(file, "{line}")
        {
            tracing::warn!(path = %path.display(), %error, "cannot write a simulator log");
            self.open.remove(&path);
        }
    }
}

/// An oslo.log line with the default (Zed and later) context format.
fn oslo_line(
    time: jiff::Timestamp,
    pid: u32,
    level: Level,
    logger: &str,
    ids: Option<&RequestIds>,
    instance: Option<&str>,
    message: &str,
) -> String {
    let context = match ids {
        Some(ids) => format!(
            "[{} {} {} {} - - default default]",
            ids.global_request_id.as_deref().unwrap_or("None"),
            ids.request_id,
            ids.user_id,
            ids.project_id
        ),
        None => "[-]".to_string(),
    };
    let instance = instance
        .map(|i| format!("[instance: {i}] "))
        .unwrap_or_default();
    format!(
        "{} {pid} {} {logger} {context} {instance}{message}",
        time.strftime("%Y-%m-%d %H:%M:%S.%3f"),
        level.as_str()
    )
}

/// Apache's escaping of `"`, `\` and control bytes in `%r` and headers.
fn apache_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", c as u32 & 0xff)),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use evacdoc_parsers::access::parse_access_line;
    use evacdoc_parsers::nova_request::parse_nova_request;
    use evacdoc_parsers::oslo::parse_oslo_line;

    fn ids() -> RequestIds {
        RequestIds {
            request_id: "req-9d369ea4-1812-4aee-b334-fdb0aa9ddd27".into(),
            global_request_id: None,
            user_id: "7a59ab2d44ff4d5ba9be756d6e1fe199".into(),
            project_id: "902e2a271f844f189dc61719ab44bc22".into(),
        }
    }

    #[test]
    fn lines_read_back_with_the_parsers() {
        let dir = tempfile::tempdir().unwrap();
        let mut logs = Logs::open(dir.path(), "ctl", &["cmp1".to_string()]).unwrap();
        let time = jiff::Timestamp::now();
        let uri = "/compute/v2.1/servers/56ce6206-3659-495e-a6ea-f4d3d578cc96/action";
        let entry = AccessEntry {
            time,
            method: "POST",
            uri,
            status: 400,
            bytes: 312,
            user_agent: Some("python-\"novaclient\""),
        };
        logs.access(AccessLog::Nova, &entry);
        logs.nova_request(&ids(), &entry, 108, Some("2.53"), 0.0123);
        logs.compute(
            "cmp1",
            time,
            &ids(),
            "56ce6206-3659-495e-a6ea-f4d3d578cc96",
            "Evacuating instance",
        );
        let ctl = dir.path().join("ctl/var/log");
        let access =
            std::fs::read_to_string(ctl.join("apache2/nova-api-os-compute_access.log")).unwrap();
        let (_, line) = parse_access_line(access.trim_end()).unwrap();
        assert_eq!(
            (line.method, line.path, line.status),
            (Some("POST"), Some(uri), 400)
        );
        let api = std::fs::read_to_string(ctl.join("nova/nova-api-wsgi.log")).unwrap();
        let (_, oslo) = parse_oslo_line(api.trim_end()).unwrap();
        assert_eq!(
            oslo.request_id(),
            Some("req-9d369ea4-1812-4aee-b334-fdb0aa9ddd27")
        );
        let (_, request) = parse_nova_request(oslo.message).unwrap();
        assert_eq!((request.status, request.microversion), (400, Some("2.53")));
        let compute =
            std::fs::read_to_string(dir.path().join("cmp1/var/log/nova/nova-compute.log")).unwrap();
        let (_, oslo) = parse_oslo_line(compute.trim_end()).unwrap();
        assert_eq!(oslo.instance, Some("56ce6206-3659-495e-a6ea-f4d3d578cc96"));
        assert_eq!(
            std::fs::read_to_string(dir.path().join("cmp1/etc/hostname")).unwrap(),
            "cmp1\n"
        );
    }
}
