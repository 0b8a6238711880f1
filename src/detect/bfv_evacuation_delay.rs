//! `bfv-evacuation-delay`: a boot-from-volume instance's evacuation started, but Nova
//! rebuilt it many minutes later, while the other instances of the recovery moved fast.
//!
//! A boot-from-volume instance keeps its disk in Cinder. With a volume type that is not
//! multiattach, the destination can attach the volume only once its attachment to the
//! dead host is gone, and a powered-off host cannot detach it. Nova's rebuild waits (or
//! fails and is retried) until the source comes back or someone clears the attachment.
//! Masakari reports the evacuation started, and may even report the recovery finished,
//! long before the instance runs again (Launchpad bug 2158101, previous description).
//!
//! Inputs: Masakari engine log (the evacuate call) or `notification show` progress
//! details (`Evacuation of instance started`); Nova compute or conductor lines for the
//! instance (`disk on volume, evacuating using existing volume`); optional Cinder logs
//! (attachment errors) and `volume show` / `server event list` captures.
//!
//! Logic: per instance, the time from the first evacuate call to the rebuild done on the
//! destination (`Instance spawned successfully`, else the `disk on ...` line that starts
//! it). Over the threshold (5 minutes by default) for an
//! instance booted from a volume is a finding; a boot-from-volume instance that moved
//! promptly, or an instance restarted in place, is not.

use crate::correlate::recovery::{CallAction, Recovery};
use crate::detect::evidence::{self, duration, of_capture, of_events, service_events_of_instance};
use crate::detect::finding::{Action, Finding, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, Project, Uuid};
use evacdoc_parsers::capture::Capture;

/// The detector.
#[derive(Debug)]
pub struct BfvEvacuationDelay;

/// How long after the evacuation Nova's work on the instance is still looked for.
const SEARCH_NS: i64 = 2 * 60 * 60 * 1_000_000_000;

/// One instance's evacuation: call, rebuild done, whether it boots from a volume.
struct Move {
    instance: Uuid,
    call: EventId,
    start: i64,
    /// The Nova line that shows the rebuild done (spawned, else its disk step), and its
    /// time.
    rebuilt: Option<(EventId, i64)>,
    boot_from_volume: bool,
    volumes: Vec<Uuid>,
}

fn nova_lines(ctx: &DetectContext<'_>, instance: Uuid, from: i64) -> Vec<EventId> {
    service_events_of_instance(ctx.analysis, instance, from, from + SEARCH_NS)
}

fn moves(ctx: &DetectContext<'_>, recovery: &Recovery) -> Vec<Move> {
    let analysis = ctx.analysis;
    let mut out: Vec<Move> = Vec::new();
    for attempt in &recovery.attempts {
        for call in attempt.calls_of(CallAction::Evacuate, None) {
            let (Some(instance), Some(event)) =
                (call.instance, analysis.events.get(call.event as usize))
            else {
                continue;
            };
            if out.iter().any(|m| m.instance == instance) {
                continue;
            }
            let lines = nova_lines(ctx, instance, event.time);
            // Nova logs `disk on ...` as the rebuild starts and `spawned successfully`
            // when the instance runs again: the later is when the move was done.
            let first_with = |needles: &[&str]| {
                lines.iter().copied().find(|&i| {
                    analysis
                        .events
                        .get(i as usize)
                        .is_some_and(|e| needles.iter().any(|n| e.message().contains(n)))
                })
            };
            let done = first_with(&["spawned successfully"]).or_else(|| {
                first_with(&[
                    "disk on volume",
                    "disk on shared storage",
                    "disk not on shared storage",
                ])
            });
            let on_volume = lines.iter().any(|&i| {
                analysis
                    .events
                    .get(i as usize)
                    .is_some_and(|e| e.message().contains("disk on volume"))
            });
            let mut volumes: Vec<Uuid> = Vec::new();
            for &i in analysis.index.instance.get(&instance).into_iter().flatten() {
                if let Some(e) = analysis.events.get(i as usize) {
                    for v in &e.volumes {
                        if !volumes.contains(v) {
                            volumes.push(*v);
                        }
                    }
                }
            }
            let mut captured_bfv = false;
            for capture in &analysis.captures {
                match &capture.capture {
                    Capture::Server(s) if Uuid::parse(&s.id) == Some(instance) => {
                        captured_bfv |= s.boot_from_volume == Some(true);
                        volumes.extend(s.volumes_attached.iter().filter_map(|v| Uuid::parse(v)));
                    }
                    Capture::Volume(v)
                        if v.attachments.iter().any(|a| {
                            a.server_id.as_deref().and_then(Uuid::parse) == Some(instance)
                        }) =>
                    {
                        if let Some(id) = Uuid::parse(&v.id) {
                            volumes.push(id);
                        }
                        captured_bfv |= v.bootable == Some(true);
                    }
                    _ => {}
                }
            }
            volumes.sort_unstable();
            volumes.dedup();
            out.push(Move {
                instance,
                call: call.event,
                start: event.time,
                rebuilt: done.and_then(|i| analysis.events.get(i as usize).map(|e| (i, e.time))),
                boot_from_volume: on_volume || captured_bfv,
                volumes,
            });
        }
    }
    out
}

impl Detector for BfvEvacuationDelay {
    fn id(&self) -> &'static str {
        "bfv-evacuation-delay"
    }

    fn doc(&self) -> &'static str {
        "A boot-from-volume instance's evacuation started but Nova only rebuilt it much later \
         (its volume still attached to the dead host, multiattach off), while other instances \
         moved quickly."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        ctx.host_failures()
            .filter_map(|r| self.finding(ctx, r))
            .collect()
    }
}

impl BfvEvacuationDelay {
    fn finding(&self, ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<Finding> {
        let analysis = ctx.analysis;
        let threshold = ctx.options.bfv_delay_secs * 1_000_000_000;
        let moves = moves(ctx, recovery);
        let slow: Vec<&Move> = moves
            .iter()
            .filter(|m| m.boot_from_volume)
            .filter(|m| m.rebuilt.is_some_and(|(_, t)| t - m.start > threshold))
            .collect();
        if slow.is_empty() {
            return None;
        }
        let host = recovery
            .failed_host
            .clone()
            .unwrap_or_else(|| "the failed host".into());
        let fast: Vec<i64> = moves
            .iter()
            .filter(|m| !slow.iter().any(|s| s.instance == m.instance))
            .filter_map(|m| m.rebuilt.map(|(_, t)| t - m.start))
            .collect();
        let mut ids: Vec<EventId> = Vec::new();
        let mut evidence = Vec::new();
        let mut actions = Vec::new();
        let mut delays = Vec::new();
        for m in &slow {
            ids.push(m.call);
            let (rebuilt_id, rebuilt_time) = m.rebuilt.unwrap_or((m.call, m.start));
            delays.push(format!(
                "{} {}",
                m.instance,
                duration(rebuilt_time - m.start)
            ));
            for call in recovery.attempts.iter().flat_map(|a| a.calls.iter()) {
                if call.instance == Some(m.instance) && call.action == CallAction::Evacuate {
                    ids.push(call.event);
                    ids.extend(&call.requests);
                }
            }
            ids.extend(
                // Nova's lines up to the rebuild, without Masakari's status polling.
                nova_lines(ctx, m.instance, m.start)
                    .into_iter()
                    .filter(|&i| {
                        i <= rebuilt_id
                            && analysis
                                .events
                                .get(i as usize)
                                .is_some_and(|e| e.http().is_none_or(|h| h.method != "GET"))
                    }),
            );
            // Cinder's side: lines about its volumes during the wait.
            for v in &m.volumes {
                for &i in analysis.index.volume.get(v).into_iter().flatten() {
                    if let Some(e) = analysis.events.get(i as usize)
                        && e.time >= m.start
                        && e.time <= rebuilt_time
                        && evidence::project(analysis, e) == Project::Cinder
                    {
                        ids.push(i);
                    }
                }
            }
            for capture in &analysis.captures {
                let file = &capture.file;
                match &capture.capture {
                    Capture::Volume(v) if m.volumes.iter().any(|id| id.to_string() == v.id) => {
                        evidence.extend(of_capture(analysis, file, &v.id));
                        let stale = v.attachments.iter().find(|a| {
                            a.host_name.as_deref().is_some_and(|h| {
                                crate::correlate::ids::short_host(h)
                                    == crate::correlate::ids::short_host(&host)
                            })
                        });
                        if v.multiattach != Some(true) {
                            actions.push(Action::ForceDetachVolume {
                                volume: v.id.clone(),
                                attachment: stale.and_then(|a| a.attachment_id.clone()),
                                host: host.clone(),
                            });
                        }
                    }
                    Capture::ServerEvents {
                        server_id: Some(s), ..
                    } if *s == m.instance.to_string() => {
                        evidence.extend(of_capture(analysis, file, s));
                    }
                    Capture::Notification(n)
                        if n.notification_uuid == recovery.notification.to_string() =>
                    {
                        evidence.extend(of_capture(analysis, file, &m.instance.to_string()));
                    }
                    _ => {}
                }
            }
            if !actions
                .iter()
                .any(|a| matches!(a, Action::ForceDetachVolume { .. }))
            {
                for v in &m.volumes {
                    actions.push(Action::ForceDetachVolume {
                        volume: v.to_string(),
                        attachment: None,
                        host: host.clone(),
                    });
                }
            }
        }
        let mut all = of_events(analysis, ids.iter().copied());
        all.extend(evidence);
        let end = recovery
            .attempts
            .last()
            .and_then(|a| a.end)
            .and_then(|e| analysis.events.get(e as usize));
        let reported_early = end.is_some_and(|e| {
            slow.iter()
                .any(|m| m.rebuilt.is_some_and(|(_, t)| t > e.time))
        });
        let others = if fast.is_empty() {
            String::new()
        } else {
            format!(
                " The {} other instance(s) of this recovery were rebuilt within {}.",
                fast.len(),
                duration(*fast.iter().max().unwrap_or(&0))
            )
        };
        let list = slow
            .iter()
            .map(|m| m.instance.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        Some(Finding {
            id: format!("{}:{}", self.id(), recovery.notification),
            detector: self.id(),
            severity: if reported_early {
                Severity::Critical
            } else {
                Severity::Warning
            },
            title: format!(
                "Boot-from-volume evacuation from {host} delayed: {}",
                delays.join(", ")
            ),
            summary: format!(
                "Masakari started evacuating boot-from-volume instance(s) {list}, but Nova rebuilt them only \
                 after {}.{others}",
                delays.join(", ")
            ),
            failed_host: recovery.failed_host.clone(),
            instance_uuids: slow.iter().map(|m| m.instance.to_string()).collect(),
            notification_id: Some(recovery.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window: evidence::window(analysis, &ids),
            evidence: all,
            explanation: format!(
                "The instance(s) {list} boot from Cinder volumes. Nova accepted the evacuation, but the \
                 rebuild on the destination was done (`disk on volume, evacuating using existing volume`, \
                 then spawned) only after {}. A volume that is not multiattach can attach to the destination only \
                 once its attachment to {host} is gone, and a powered-off host cannot detach it: the rebuild \
                 waits for the source to come back or for someone to clear the attachment.{others}{}",
                delays.join(", "),
                if reported_early {
                    " Masakari reported the recovery finished before these instances were running again."
                } else {
                    ""
                }
            ),
            remediation: Remediation {
                summary: format!(
                    "Clear the dead host's volume attachments as soon as {host} is fenced (the executor can \
                     force-detach them), or use a multiattach volume type for HA instances so the \
                     destination can attach before the source lets go."
                ),
                config_changes: Vec::new(),
                actions,
            },
            known_bugs: Vec::new(),
        })
    }
}

#[cfg(test)]
mod tests {
    use crate::detect::context::testing::{engine, findings, start};

    const N: &str = "e0b2c6a9-4d17-4f3e-8b5a-1c9d7e2f6a38";
    const G: &str = "3c6da5d7-4da4-41a6-b8a1-7a97656412a9";
    const BFV: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
    const EPH: &str = "89606586-ae8d-49a4-aa24-fdaec2e518bb";
    const NOVA: &str = "masakari.compute.nova";

    fn bundle(bfv_disk_at: &str, bfv_disk: &str) -> Vec<(&'static str, String)> {
        let mut log = start(N, G, "sunbeam-3", 180);
        for (t, i) in [("10:05:48.100", BFV), ("10:05:48.200", EPH)] {
            log += &engine(
                t,
                G,
                "INFO",
                NOVA,
                &format!("Call evacuate command for instance {i} on host None"),
            );
        }
        log += &engine(
            "10:06:30.000",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: finished."),
        );
        let compute = format!(
            "2024-05-21 10:06:01.000 77 INFO nova.compute.manager [req-{G} req-0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {EPH}] disk on shared storage, evacuating using existing disk\n\
             2024-05-21 {bfv_disk_at} 77 INFO nova.compute.manager [req-{G} req-1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {BFV}] {bfv_disk}\n"
        );
        vec![
            ("ctl/var/log/masakari/masakari-engine.log", log),
            ("cmp1/var/log/nova/nova-compute.log", compute),
        ]
    }

    fn run(files: &[(&'static str, String)]) -> Vec<crate::detect::Finding> {
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
        findings("bfv-evacuation-delay", &borrowed)
    }

    #[test]
    fn a_volume_backed_rebuild_thirteen_minutes_late() {
        let found = run(&bundle(
            "10:19:20.000",
            "disk on volume, evacuating using existing volume",
        ));
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [BFV]);
        assert!(found[0].title.contains("13 min 31 s"), "{}", found[0].title);
        // Masakari said finished at 10:06:30, long before the rebuild.
        assert_eq!(found[0].severity, crate::detect::Severity::Critical);
    }

    #[test]
    fn prompt_or_ephemeral_moves_are_not_this() {
        assert!(
            run(&bundle(
                "10:06:20.000",
                "disk on volume, evacuating using existing volume"
            ))
            .is_empty()
        );
        assert!(
            run(&bundle(
                "10:19:20.000",
                "disk on shared storage, evacuating using existing disk"
            ))
            .is_empty()
        );
    }
}
