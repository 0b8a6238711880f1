//! `pending-after-finished`: a host-failure notification ended `finished` while an
//! instance's move never happened; the instance was left on the dead host.
//!
//! In `EvacuateInstancesTask` each instance is handled in a green thread that first
//! fetches and locks the server, outside the `try` that marks the VM move failed. When
//! Nova or Keystone fails there (Nova 503, Keystone unreachable or 401), the exception
//! leaves the thread, eventlet prints it to stderr only, the VM move stays `pending`,
//! and the task, counting only `succeeded`/`failed` moves, reports success
//! (Launchpad bug 2158101; upstream fix 4e6dd2e6).
//!
//! Inputs: Masakari engine log, or `notification vmove list` / `notification show`
//! captures (either suffices); Nova and Keystone logs and stderr captures (optional: they
//! show the API failure).
//!
//! Logic: in a recovery that ended `finished`, an instance with `Call get server
//! command` (or lock) but no evacuate call and no warning about it; or a VM move still
//! `pending`/`ongoing` under a `finished` notification. A recovery that failed properly
//! (`error`/`failed`) is not this.

use crate::correlate::recovery::{Attempt, CallAction, Recovery, RecoveryStatus};
use crate::detect::evidence::{self, duration, of_capture, of_events};
use crate::detect::finding::{Action, Finding, Highlight, Remediation, Severity};
use crate::detect::quote::{clipped, once_each};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, EventKind, LogLevel, Project, Uuid};

/// The detector.
#[derive(Debug)]
pub struct PendingAfterFinished;

/// How far around the last call the API failure that interrupted it is looked for.
const FAILURE_WINDOW_NS: i64 = 30 * 1_000_000_000;

/// Instances the attempt fetched or locked and then dropped without a word.
fn dropped_instances(ctx: &DetectContext<'_>, attempt: &Attempt) -> Vec<Uuid> {
    let analysis = ctx.analysis;
    attempt
        .instances()
        .into_iter()
        .filter(|&i| {
            let touched = attempt
                .calls_of(CallAction::GetServer, Some(i))
                .next()
                .is_some()
                || attempt.calls_of(CallAction::Lock, Some(i)).next().is_some();
            let evacuated = attempt
                .calls_of(CallAction::Evacuate, Some(i))
                .next()
                .is_some()
                || attempt.calls_of(CallAction::Stop, Some(i)).next().is_some();
            let spoken_of = attempt.events.iter().any(|&e| {
                analysis.events.get(e as usize).is_some_and(|ev| {
                    ev.instances.contains(&i)
                        && !is_thread_exception(&ev.message())
                        && (ev.level >= Some(LogLevel::Warning)
                            || ev
                                .message()
                                .starts_with("Ignoring recovery of HA_Enabled instance"))
                })
            });
            touched && !evacuated && !spoken_of
        })
        .collect()
}

/// The line a thread-pool engine (Masakari off eventlet) logs when an exception leaves an
/// evacuation worker: `Exception in evacuation thread: <exc>`. It is the escaped failure
/// itself (what eventlet printed to stderr), not Masakari handling the instance.
pub fn is_thread_exception(message: &str) -> bool {
    message.starts_with("Exception in evacuation thread: ")
}

/// API failures around `time`: raw tracebacks on the engine host, the engine's
/// `Exception in evacuation thread` records, 5xx answers and errors in Nova and Keystone;
/// none that belongs to another recovery.
fn api_failures(ctx: &DetectContext<'_>, recovery: &Recovery, time: i64) -> Vec<EventId> {
    let analysis = ctx.analysis;
    let engine_host = recovery.engine_host;
    let first = analysis
        .events
        .partition_point(|e| e.time < time - FAILURE_WINDOW_NS);
    analysis.events[first..]
        .iter()
        .enumerate()
        .take_while(|(_, e)| e.time <= time + FAILURE_WINDOW_NS)
        .filter(|(_, e)| {
            let project = evidence::project(analysis, e);
            let traceback = (e.kind == EventKind::Traceback
                || (project == Project::Masakari && is_thread_exception(&e.message())))
                && Some(e.host) == engine_host;
            let server_error = e.http().is_some_and(|h| h.status >= 500)
                && matches!(project, Project::Nova | Project::Keystone);
            let service_error = e.level >= Some(LogLevel::Error)
                && matches!(project, Project::Nova | Project::Keystone)
                && e.kind == EventKind::Log;
            (traceback || server_error || service_error) && !ctx.foreign(recovery, e)
        })
        .map(|(offset, _)| (first + offset) as EventId)
        .collect()
}

impl Detector for PendingAfterFinished {
    fn id(&self) -> &'static str {
        "pending-after-finished"
    }

    fn doc(&self) -> &'static str {
        "A host-failure notification ended `finished` while an instance's move never completed \
         (its VM move stayed `pending`): the instance was left on the dead host."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.host_failures()
            .filter(|r| r.final_status() == Some(RecoveryStatus::Finished))
            .filter_map(|r| self.finding(ctx, r))
            .collect()
    }
}

impl PendingAfterFinished {
    fn finding(&self, ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<Finding> {
        let analysis = ctx.analysis;
        let finished = recovery
            .attempts
            .iter()
            .rev()
            .find(|a| a.status == Some(RecoveryStatus::Finished));
        let mut instances: Vec<Uuid> = finished
            .map(|a| dropped_instances(ctx, a))
            .unwrap_or_default();
        let mut evidence = Vec::new();
        // What the captures say: moves still pending under a finished notification.
        for (file, m) in &recovery.vmoves {
            let pending = matches!(m.status.as_deref(), Some("pending" | "ongoing"));
            if let (true, Some(id)) = (pending, Uuid::parse(&m.server_id)) {
                if !instances.contains(&id) {
                    instances.push(id);
                }
                evidence.extend(of_capture(analysis, file, &m.server_id));
            }
        }
        if instances.is_empty() {
            return None;
        }
        for (file, _) in &recovery.captured {
            evidence.extend(of_capture(
                analysis,
                file,
                &recovery.notification.to_string(),
            ));
        }
        let mut ids: Vec<EventId> = Vec::new();
        let mut failure_ids: Vec<EventId> = Vec::new();
        if let Some(attempt) = finished {
            if let Some(start) = attempt.start {
                ids.push(start);
            }
            for &i in &instances {
                for call in attempt.calls.iter().filter(|c| c.instance == Some(i)) {
                    ids.push(call.event);
                    ids.extend(&call.requests);
                    if let Some(e) = analysis.events.get(call.event as usize) {
                        failure_ids.extend(api_failures(ctx, recovery, e.time));
                    }
                }
            }
            ids.extend(attempt.end);
        }
        failure_ids.sort_unstable();
        failure_ids.dedup();
        ids.extend(&failure_ids);
        let mut all = of_events(analysis, ids.iter().copied());
        all.extend(evidence);
        let host = recovery
            .failed_host
            .clone()
            .unwrap_or_else(|| "the failed host".into());
        let causes: Vec<String> = once_each(
            failure_ids
                .iter()
                .filter_map(|&i| analysis.events.get(i as usize))
                .map(|e| match (e.http(), e.kind) {
                    (Some(h), _) => format!("{} {} answered {}", h.method, h.path, h.status),
                    (None, EventKind::Traceback) => e
                        .more()
                        .rev()
                        .find(|l| !l.trim().is_empty())
                        .unwrap_or_else(|| "a traceback".into()),
                    _ => clipped(&e.message(), 160),
                }),
        )
        .into_iter()
        .take(4)
        .collect();
        let cause = if causes.is_empty() {
            "The API failure itself is not in these logs (eventlet prints it to the engine's \
             stderr only, which a log file does not catch; a thread-pool engine logs it as \
             `Exception in evacuation thread`)."
                .to_string()
        } else {
            format!("Around that moment: {}.", causes.join("; "))
        };
        let list = instances
            .iter()
            .map(Uuid::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        let locked: Vec<Uuid> = finished
            .map(|a| {
                instances
                    .iter()
                    .copied()
                    .filter(|&i| {
                        a.calls_of(CallAction::Lock, Some(i)).next().is_some()
                            && a.calls_of(CallAction::Unlock, Some(i)).next().is_none()
                    })
                    .collect()
            })
            .unwrap_or_default();
        let mut actions: Vec<Action> = instances
            .iter()
            .map(|i| Action::Evacuate {
                instance: *i,
                from_host: host.clone(),
            })
            .collect();
        actions.extend(locked.iter().map(|i| Action::Unlock { instance: *i }));
        let highlights = finished
            .map(|a| highlights(analysis, a, &instances))
            .unwrap_or_default();
        Some(Finding {
            id: format!("{}:{}", self.id(), recovery.notification).into(),
            detector: self.id(),
            severity: Severity::Critical,
            title: format!(
                "Recovery of {host} reported finished, but {} instance(s) never moved",
                instances.len()
            ),
            summary: format!(
                "Notification {} ended `finished`, yet {list} was not evacuated: Masakari fetched it and \
                 made no further call for it, so its VM move stayed pending.",
                recovery.notification
            ),
            failed_host: recovery.failed_host.clone(),
            instance_uuids: instances.iter().map(Uuid::to_string).collect(),
            notification_id: Some(recovery.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence: all,
            explanation: format!(
                "Masakari's evacuation worker fetched (and possibly locked) {list} and then said nothing \
                 more about it: no evacuate call, no warning, no failed VM move, while the notification \
                 ended `finished`. This is the signature of an exception escaping the worker before the \
                 VM move is updated: a Nova or Keystone API failure during the server lookup or lock. The \
                 move stays `pending`, the task counts only succeeded and failed moves, and the recovery \
                 is reported finished with the instance still on {host}. {cause}"
            ),
            remediation: Remediation {
                summary: format!(
                    "Evacuate {list} from {host} now (and unlock it if Masakari locked it). Install a \
                     Masakari release with the fix for bug 2158101, which fails such moves and the \
                     notification instead of reporting success."
                ),
                config_changes: Vec::new(),
                actions,
            },
            known_bugs: Vec::new(),
            highlights,
        })
    }
}

/// The picture's highlights: the `finished` status, each dropped instance's last call,
/// and the span between them in which its move never happened.
fn highlights(
    analysis: &crate::correlate::Analysis,
    attempt: &Attempt,
    instances: &[Uuid],
) -> Vec<Highlight> {
    let mut out = Vec::new();
    let Some(end) = attempt.end.and_then(|e| evidence::of_event(analysis, e)) else {
        return out;
    };
    let end_time = attempt
        .end
        .and_then(|e| analysis.events.get(e as usize))
        .map(|e| e.time);
    for &i in instances {
        let id = i.to_string();
        let short = id.get(..8).unwrap_or(&id);
        let last = attempt
            .calls
            .iter()
            .filter(|c| c.instance == Some(i))
            .max_by_key(|c| c.event);
        let Some((call, from)) = last.and_then(|c| {
            let time = analysis.events.get(c.event as usize)?.time;
            Some((evidence::of_event(analysis, c.event)?, time))
        }) else {
            continue;
        };
        out.push(Highlight::Line {
            path: call.path,
            line: call.line,
            label: format!("last call for {short}"),
        });
        if let Some(to) = end_time.filter(|&t| t >= from) {
            out.push(Highlight::Span {
                from,
                to,
                label: format!("{short}: no move in {}, still pending", duration(to - from)),
            });
        }
    }
    out.push(Highlight::Line {
        path: end.path,
        line: end.line,
        label: "notification finished".into(),
    });
    out
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::{engine, findings, start};

    const N: &str = "46fcd802-f9c7-4094-b452-4517b84b2606";
    const G: &str = "c9966a7e-7166-42c6-9cf6-81e501b54559";
    const A: &str = "8acc20ac-82f7-42de-8532-14468beddf91";
    const B: &str = "f91be2ed-da15-46f3-8bd0-989a0b09659a";
    const NOVA: &str = "masakari.compute.nova";

    fn log(b_evacuated: bool, end: &str) -> String {
        let mut log = start(N, G, "cmp2", 180);
        log += &engine(
            "10:05:48.522",
            G,
            "INFO",
            NOVA,
            &format!("Call get server command for instance {A}"),
        );
        log += &engine(
            "10:05:48.530",
            G,
            "INFO",
            NOVA,
            &format!("Call get server command for instance {B}"),
        );
        log += &engine(
            "10:05:48.900",
            G,
            "INFO",
            NOVA,
            &format!("Call lock server command for instance {B}"),
        );
        if b_evacuated {
            log += &engine(
                "10:05:49.100",
                G,
                "INFO",
                NOVA,
                &format!("Call evacuate command for instance {B} on host None"),
            );
        }
        log += &engine(
            "10:05:53.400",
            G,
            "INFO",
            NOVA,
            &format!("Call unlock server command for instance {B}"),
        );
        log += &engine(
            "10:05:53.866",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: {end}."),
        );
        log
    }

    #[test]
    fn an_instance_fetched_then_dropped_under_a_finished_notification() {
        let log = log(true, "finished");
        let found = findings(
            "pending-after-finished",
            &[("ctl1/var/log/masakari/masakari-engine.log", &log)],
        );
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].instance_uuids, [A]);
        assert_eq!(found[0].failed_host.as_deref(), Some("cmp2"));
        assert!(found[0].evidence.iter().any(|e| {
            e.text
                .contains(&format!("Call get server command for instance {A}"))
        }));
        assert!(
            found[0]
                .evidence
                .iter()
                .any(|e| e.text.contains("exits with status: finished."))
        );
    }

    /// A thread-pool engine (Masakari off eventlet) logs the escaped exception; when its
    /// text names the instance it is still the failure, not Masakari handling the move.
    #[test]
    fn an_exception_in_the_evacuation_thread_is_the_failure_of_the_dropped_instance() {
        let mut log = log(true, "finished");
        let end = log.rfind("2024-05-21 10:05:53.866").unwrap();
        let exc = format!(
            "novaclient.exceptions.NotFound: Instance {A} could not be found. (HTTP 404) (Request-ID: req-5e0c2a8f-3b1d-4c7e-9a6f-2d8b4e0c6a13)"
        );
        let thread = engine(
            "10:05:53.700",
            G,
            "ERROR",
            "masakari.engine.drivers.taskflow.host_failure",
            &format!("Exception in evacuation thread: Instance {A} could not be found. (HTTP 404) (Request-ID: req-5e0c2a8f-3b1d-4c7e-9a6f-2d8b4e0c6a13): {exc}"),
        ) + &[
            "Traceback (most recent call last):",
            "  File \"/usr/lib/python3/dist-packages/masakari/engine/drivers/taskflow/host_failure.py\", line 413, in execute",
            "    future.result()  # This will raise any exceptions",
            &exc,
            "",
        ]
        .iter()
        .map(|l| format!("2024-05-21 10:05:53.700 41 ERROR masakari.engine.drivers.taskflow.host_failure {l}\n"))
        .collect::<String>();
        log.insert_str(end, &thread);
        let found = findings(
            "pending-after-finished",
            &[("ctl1/var/log/masakari/masakari-engine.log", &log)],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [A]);
        assert!(
            found[0]
                .evidence
                .iter()
                .any(|e| e.text.contains("Exception in evacuation thread: Instance"))
        );
        assert!(
            found[0]
                .explanation
                .contains("Exception in evacuation thread")
        );
    }

    #[test]
    fn a_recovery_that_failed_properly_is_not_this() {
        let log = log(true, "error");
        assert!(
            findings(
                "pending-after-finished",
                &[("ctl1/var/log/masakari/masakari-engine.log", &log)]
            )
            .is_empty()
        );
    }

    #[test]
    fn a_pending_vmove_in_a_capture_is_enough() {
        let capture = format!(
            "$ openstack notification vmove list {N}\n\
             +--------------------------------------+--------------------------------------+-------------+-------------+-----------+------------+----------+------------+---------+\n\
             | uuid                                 | server_id                            | server_name | source_host | dest_host | start_time | end_time | type       | status  |\n\
             +--------------------------------------+--------------------------------------+-------------+-------------+-----------+------------+----------+------------+---------+\n\
             | 0d9b6c3a-2f41-4e8b-9a7c-5e6f7a8b9c0d | {A} | db-01       | cmp2        | None      | None       | None     | evacuation | pending |\n\
             +--------------------------------------+--------------------------------------+-------------+-------------+-----------+------------+----------+------------+---------+\n"
        );
        let show = format!(
            "$ openstack notification show {N}\n\
             +---------------------------+--------------------------------------+\n\
             | Field                     | Value                                |\n\
             +---------------------------+--------------------------------------+\n\
             | notification_uuid         | {N} |\n\
             | type                      | COMPUTE_HOST                         |\n\
             | status                    | finished                             |\n\
             +---------------------------+--------------------------------------+\n"
        );
        let found = findings(
            "pending-after-finished",
            &[
                ("vmove-list.txt", &capture),
                ("notification-show.txt", &show),
            ],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [A]);
        assert!(
            found[0]
                .evidence
                .iter()
                .any(|e| e.path == "vmove-list.txt" && e.text.contains("pending"))
        );
    }
}
