//! Masakari's host-failure flow, played against the simulator (`evacdoc sim --masakari
//! HOST`) for demos and as the tests' comparison baseline, over the same `Cloud` as the
//! executor: disable the service, sleep `wait_period_after_service_update`, list the
//! host's servers, then per instance (3 at a time) lock, evacuate, poll every
//! `verify_interval` up to `wait_period_after_evacuation`, unlock. It never forces the
//! service down and never touches volume attachments (masakari/engine/drivers/taskflow/
//! host_failure.py, defaults of masakari/conf/engine.py).

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use crate::recovery::{Cloud, CloudError};
use futures_util::stream::{self, StreamExt};

/// The `masakari-engine.log` the flow writes as Masakari (Zed+ context format) would,
/// so that `analyze` can read a run against the simulator (which logs Nova's side).
#[derive(Debug)]
pub struct EngineLog {
    path: PathBuf,
    notification: String,
    global: String,
    text: Mutex<String>,
}

impl EngineLog {
    /// Under `log_dir/<controller>/var/log/masakari/`, for `notification`.
    pub fn new(log_dir: &Path, controller: &str, notification: &str) -> EngineLog {
        EngineLog {
            path: log_dir
                .join(controller)
                .join("var/log/masakari/masakari-engine.log"),
            notification: notification.to_owned(),
            global: uuid::Uuid::new_v4().hyphenated().to_string(),
            text: Mutex::new(String::new()),
        }
    }

    fn line(&self, level: &str, logger: &str, message: &str) {
        let now = jiff::Timestamp::now().strftime("%Y-%m-%d %H:%M:%S%.3f");
        let local = uuid::Uuid::new_v4().hyphenated();
        let mut text = self.text.lock().unwrap_or_else(PoisonError::into_inner);
        let _ = writeln!(
            text,
            "{now} 41 {level} {logger} [req-{} req-{local} nova - - - - -] {message}",
            self.global
        );
    }

    fn nova(&self, message: &str) {
        self.line("INFO", "masakari.compute.nova", message);
    }

    /// The log file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Writes what was logged, all at once (the end of the flow is its last line).
    pub fn save(&self) -> std::io::Result<()> {
        if let Some(parent) = self.path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let text = self.text.lock().unwrap_or_else(PoisonError::into_inner);
        std::fs::write(&self.path, text.as_bytes())
    }
}

/// `str(e)` of Masakari's translated exception (reference §2.5).
fn masakari_text(error: &CloudError) -> String {
    match error {
        CloudError::Status {
            status: 400,
            message,
            ..
        } => format!("Invalid input received: {message} (HTTP 400)"),
        CloudError::Status {
            status, message, ..
        } => format!("{message} (HTTP {status})"),
        _ => "An unknown exception occurred.".to_owned(),
    }
}

/// Masakari's timings, already divided by the simulator's time scale.
#[derive(Debug, Clone, Copy)]
pub struct MasakariTimings {
    /// `wait_period_after_service_update` (180 s).
    pub wait_after_disable: Duration,
    /// `wait_period_after_evacuation` (90 s).
    pub evacuation_timeout: Duration,
    /// `verify_interval` (1 s).
    pub verify_interval: Duration,
    /// `host_failure_recovery_threads` (3).
    pub threads: usize,
}

impl MasakariTimings {
    /// The defaults at a simulator running `scale` times faster than the wall clock.
    pub fn defaults_at(scale: f64) -> Self {
        MasakariTimings {
            wait_after_disable: Duration::from_secs_f64(180.0 / scale),
            evacuation_timeout: Duration::from_secs_f64(90.0 / scale),
            verify_interval: Duration::from_secs_f64(1.0 / scale),
            threads: 3,
        }
    }
}

/// When each instance was seen ACTIVE on another host (real time since the start), or
/// `None` when Masakari gave up on it.
pub async fn masakari_host_recovery<C: Cloud>(
    cloud: &C,
    host: &str,
    timings: MasakariTimings,
    log: Option<&EngineLog>,
) -> Vec<(String, Option<Duration>)> {
    let started = Instant::now();
    let log_line = |level: &str, logger: &str, message: &str| {
        if let Some(log) = log {
            log.line(level, logger, message);
        }
    };
    let nova = |message: &str| log_line("INFO", "masakari.compute.nova", message);
    if let Some(log) = log {
        log.line(
            "INFO",
            "masakari.engine.manager",
            &format!(
                "Processing notification {} of type: COMPUTE_HOST",
                log.notification
            ),
        );
        log.nova(&format!("Disable nova-compute on {host}"));
    }
    let Ok(Some(service)) = cloud.compute_service(host).await else {
        return Vec::new();
    };
    let _ = cloud
        .disable(&service, "Masakari detected host failed.")
        .await;
    log_line(
        "INFO",
        "masakari.engine.drivers.taskflow.host_failure",
        &format!(
            "Sleeping {} sec before starting recovery thread until nova recognizes the node down.",
            timings.wait_after_disable.as_secs()
        ),
    );
    tokio::time::sleep(timings.wait_after_disable).await;
    nova(&format!("Fetch Server list on {host}"));
    let servers = cloud.servers_on_host(host).await.unwrap_or_default();
    let outcome: Vec<(String, Option<Duration>)> = stream::iter(servers)
        .map(|server| async move {
            let id = server.id.clone();
            nova(&format!("Call get server command for instance {id}"));
            nova(&format!("Call lock server command for instance {id}"));
            let _ = cloud.lock(&id, "masakari").await;
            let mut back = None;
            nova(&format!(
                "Call evacuate command for instance {id} on host None"
            ));
            let evacuated = cloud.evacuate(&id).await;
            if let Err(error) = &evacuated {
                log_line(
                    "WARNING",
                    "masakari.engine.drivers.taskflow.host_failure",
                    &masakari_text(error),
                );
            }
            if evacuated.is_ok() {
                let deadline = Instant::now() + timings.evacuation_timeout;
                while Instant::now() < deadline {
                    if let Ok(now) = cloud.server(&id).await
                        && now.status == "ACTIVE"
                        && now.task_state.is_none()
                        && now.host.as_deref() != Some(host)
                    {
                        back = Some(started.elapsed());
                        break;
                    }
                    tokio::time::sleep(timings.verify_interval).await;
                }
            }
            nova(&format!("Call unlock server command for instance {id}"));
            let _ = cloud.unlock(&id).await;
            (id, back)
        })
        .buffer_unordered(timings.threads)
        .collect()
        .await;
    if let Some(log) = log {
        let failed: Vec<&str> = outcome
            .iter()
            .filter(|(_, back)| back.is_none())
            .map(|(id, _)| id.as_str())
            .collect();
        let status = if failed.is_empty() {
            "finished"
        } else {
            let reason = format!(
                "Failed to evacuate instances '{}' from host '{host}'",
                failed.join(",")
            );
            log.line(
                "ERROR",
                "masakari.engine.manager",
                &format!(
                    "Failed to process notification '{}'. Reason: {reason}: \
                     masakari.exception.HostRecoveryFailureException: {reason}",
                    log.notification
                ),
            );
            "error"
        };
        log.line(
            "INFO",
            "masakari.engine.manager",
            &format!(
                "Notification {} exits with status: {status}.",
                log.notification
            ),
        );
        if let Err(error) = log.save() {
            tracing::warn!(path = %log.path.display(), %error, "cannot write the masakari engine log");
        }
    }
    outcome
}
