//! `bfv-evacuation-delay`: a boot-from-volume instance's evacuation started, but Nova
//! accepted it, or rebuilt it, many minutes later, while the other instances of the
//! recovery moved fast.
//!
//! A boot-from-volume instance keeps its disk in Cinder. With a volume type that is not
//! multiattach, the destination can attach the volume only once its attachment to the
//! dead host is gone, and a powered-off host cannot detach it. Nova's rebuild waits (or
//! fails and is retried) until the source comes back or someone clears the attachment.
//! Masakari reports the evacuation started, and may even report the recovery finished,
//! long before the instance runs again (Launchpad bug 2158101, previous description:
//! there Nova recorded the evacuation 13 minutes after Masakari started it).
//!
//! Inputs: Masakari engine log (the evacuate call) or `notification show` progress
//! details (`Evacuation of instance started`); Nova API access or request log, or
//! `server event list` (Nova's acceptance); Nova compute or conductor lines for the
//! instance (`disk on volume, evacuating using existing volume`, spawned); optional
//! Cinder logs (attachment errors) and `volume show` / `server show` captures.
//!
//! Logic: per instance, two gaps (see `bfv_gaps`): from Masakari's start to Nova's
//! acceptance, and from the acceptance to the rebuild done on the destination (from the
//! start to the rebuild when nothing says when Nova accepted). Either over the
//! threshold (5 minutes by default) for an instance booted from a volume is a finding
//! that names the gap; a boot-from-volume instance that moved promptly, or an instance
//! restarted in place, is not.

use crate::correlate::Analysis;
use crate::correlate::recovery::Recovery;
use crate::correlate::timeline::utc;
use crate::detect::bfv_gaps::{Gap, Mark, Move, Source, moves};
use crate::detect::evidence::{self, duration, of_capture, of_events};
use crate::detect::finding::{Action, Evidence, Finding, Highlight, Remediation, Severity, Window};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, Project, Uuid};
use evacdoc_parsers::capture::Capture;

/// The detector.
#[derive(Debug)]
pub struct BfvEvacuationDelay;

/// What the captures say of an instance's disk: booted from a volume, and its volumes.
fn captured_volumes(ctx: &DetectContext<'_>, instance: Uuid) -> (bool, Vec<Uuid>) {
    let analysis = ctx.analysis;
    let mut volumes: Vec<Uuid> = Vec::new();
    for &i in analysis.index.instance.get(&instance).into_iter().flatten() {
        if let Some(e) = analysis.events.get(i as usize) {
            volumes.extend(&e.volumes);
        }
    }
    let mut bfv = false;
    for capture in &analysis.captures {
        match &capture.capture {
            Capture::Server(s) if Uuid::parse(&s.id) == Some(instance) => {
                bfv |= s.boot_from_volume == Some(true);
                volumes.extend(s.volumes_attached.iter().filter_map(|v| Uuid::parse(v)));
            }
            Capture::Volume(v)
                if v.attachments
                    .iter()
                    .any(|a| a.server_id.as_deref().and_then(Uuid::parse) == Some(instance)) =>
            {
                volumes.extend(Uuid::parse(&v.id));
                bfv |= v.bootable == Some(true);
            }
            _ => {}
        }
    }
    volumes.sort_unstable();
    volumes.dedup();
    (bfv, volumes)
}

/// A slow boot-from-volume move and what is known of its disk.
struct Slow<'m> {
    m: &'m Move,
    gaps: Vec<(Gap, &'m Mark, &'m Mark)>,
    volumes: Vec<Uuid>,
}

fn gap_words(gap: Gap) -> &'static str {
    match gap {
        Gap::StartToAcceptance => "before Nova accepted it",
        Gap::AcceptanceToRebuild => "from Nova's acceptance to the rebuild",
        Gap::StartToRebuild => "from Masakari's start to the rebuild",
    }
}

/// The evidence of a moment.
fn mark_evidence(ctx: &DetectContext<'_>, instance: Uuid, mark: &Mark) -> Vec<Evidence> {
    match &mark.source {
        Source::Event(id) => evidence::of_event(ctx.analysis, *id).into_iter().collect(),
        Source::Capture(file) => of_capture(ctx.analysis, file, &instance.to_string()),
    }
}

impl Detector for BfvEvacuationDelay {
    fn id(&self) -> &'static str {
        "bfv-evacuation-delay"
    }

    fn doc(&self) -> &'static str {
        "A boot-from-volume instance's evacuation started but Nova only accepted or rebuilt it \
         much later (its volume still attached to the dead host, multiattach off), while other \
         instances moved quickly."
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
        let slow: Vec<Slow<'_>> = moves
            .iter()
            .filter_map(|m| {
                let (captured_bfv, volumes) = captured_volumes(ctx, m.instance);
                let gaps = m.slow_gaps(threshold);
                ((m.disk_on_volume || captured_bfv) && !gaps.is_empty()).then_some(Slow {
                    m,
                    gaps,
                    volumes,
                })
            })
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
            .filter(|m| !slow.iter().any(|s| s.m.instance == m.instance))
            .filter_map(Move::to_rebuild)
            .collect();
        let mut ids: Vec<EventId> = Vec::new();
        let mut evidence = Vec::new();
        let mut actions = Vec::new();
        let mut delays = Vec::new();
        let mut details = Vec::new();
        let mut highlights = Vec::new();
        for s in &slow {
            let m = s.m;
            highlights.extend(gap_highlights(analysis, s, slow.len() > 1));
            let words: Vec<String> = s
                .gaps
                .iter()
                .map(|(gap, from, to)| {
                    format!("{} {}", duration(to.time - from.time), gap_words(*gap))
                })
                .collect();
            delays.push(format!("{} {}", m.instance, words.join(", ")));
            for (gap, from, to) in &s.gaps {
                details.push(format!(
                    "{}: {} ({} to {}, {}){}",
                    m.instance,
                    duration(to.time - from.time),
                    from.what,
                    to.what,
                    gap_words(*gap),
                    match gap {
                        Gap::StartToAcceptance => "",
                        Gap::AcceptanceToRebuild => {
                            ": Nova held the evacuation before the destination had the instance running"
                        }
                        Gap::StartToRebuild => "",
                    }
                ));
            }
            // Both ends of every gap, the calls, and Nova's lines up to the rebuild
            // without Masakari's status polling.
            for mark in [&m.started, &m.accepted, &m.rebuilt].into_iter().flatten() {
                match &mark.source {
                    Source::Event(id) => ids.push(*id),
                    Source::Capture(_) => evidence.extend(mark_evidence(ctx, m.instance, mark)),
                }
            }
            ids.extend(&m.calls);
            ids.extend(m.nova_lines.iter().copied().filter(|&i| {
                analysis
                    .events
                    .get(i as usize)
                    .is_some_and(|e| e.http().is_none_or(|h| h.method != "GET"))
            }));
            let from = m
                .started
                .as_ref()
                .or(m.accepted.as_ref())
                .map_or(0, |k| k.time);
            let to = m
                .rebuilt
                .as_ref()
                .or(m.accepted.as_ref())
                .map_or(0, |k| k.time);
            // Cinder's side: lines about its volumes during the wait.
            for v in &s.volumes {
                for &i in analysis.index.volume.get(v).into_iter().flatten() {
                    if let Some(e) = analysis.events.get(i as usize)
                        && e.time >= from
                        && e.time <= to
                        && evidence::project(analysis, e) == Project::Cinder
                        && !ctx.foreign(recovery, e)
                    {
                        ids.push(i);
                    }
                }
            }
            for capture in &analysis.captures {
                let file = &capture.file;
                match &capture.capture {
                    Capture::Volume(v)
                        if Uuid::parse(&v.id).is_some_and(|id| s.volumes.contains(&id)) =>
                    {
                        evidence.extend(of_capture(analysis, file, &v.id));
                        let stale = v.attachments.iter().find(|a| {
                            a.host_name.as_deref().is_some_and(|h| {
                                crate::correlate::ids::short_host(h)
                                    == crate::correlate::ids::short_host(&host)
                            })
                        });
                        if let (Some(volume), false) =
                            (Uuid::parse(&v.id), v.multiattach == Some(true))
                        {
                            actions.push(Action::ForceDetachVolume {
                                volume,
                                attachment: stale
                                    .and_then(|a| a.attachment_id.as_deref())
                                    .and_then(Uuid::parse),
                                host: host.clone(),
                            });
                        }
                    }
                    Capture::ServerEvents {
                        server_id: Some(sid),
                        ..
                    } if *sid == m.instance.to_string() => {
                        evidence.extend(of_capture(analysis, file, sid));
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
                for v in &s.volumes {
                    actions.push(Action::ForceDetachVolume {
                        volume: *v,
                        attachment: None,
                        host: host.clone(),
                    });
                }
            }
        }
        let mut all = of_events(analysis, ids.iter().copied());
        for e in evidence {
            if !all.contains(&e) {
                all.push(e);
            }
        }
        let end = recovery
            .attempts
            .last()
            .and_then(|a| a.end)
            .and_then(|e| analysis.events.get(e as usize));
        let reported_early = end.is_some_and(|e| {
            slow.iter().any(|s| {
                s.m.rebuilt
                    .as_ref()
                    .or(s.m.accepted.as_ref())
                    .is_some_and(|k| k.time > e.time)
            })
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
            .map(|s| s.m.instance.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        let before_nova = slow
            .iter()
            .any(|s| s.gaps.iter().any(|(g, _, _)| *g == Gap::StartToAcceptance));
        let in_nova = slow
            .iter()
            .any(|s| s.gaps.iter().any(|(g, _, _)| *g != Gap::StartToAcceptance));
        // One slow instance holds the others back when Masakari has few threads.
        let threads = analysis
            .config_value("masakari", "DEFAULT", "host_failure_recovery_threads")
            .and_then(|c| c.value.trim().parse::<usize>().ok().map(|n| (n, c)))
            .filter(|(n, _)| *n < moves.len());
        if let (true, Some((_, value))) = (before_nova, threads) {
            all.push(evidence::of_config(analysis, value));
        }
        let volume_words = format!(
            "A volume that is not multiattach can attach to the destination only once its attachment to \
             {host} is gone, and a powered-off host cannot detach it: the rebuild waits for the source to \
             come back or for someone to clear the attachment."
        );
        let masakari_words = format!(
            "Nova had no evacuation request for the instance until it accepted one: the time was spent \
             before Nova's API (in Masakari's evacuation thread: {}its calls and their retries; or on the way \
             to the API). The lines of that span say why, when they were kept.",
            match threads {
                Some((n, _)) => format!(
                    "waiting for one of its {n} thread(s) (`host_failure_recovery_threads`) for {} \
                     instances, ",
                    moves.len()
                ),
                None => String::new(),
            }
        );
        if !in_nova {
            actions.clear();
        }
        // From Masakari's start (a capture's time, maybe) to the last line.
        let times: Vec<i64> = ids
            .iter()
            .filter_map(|&i| analysis.events.get(i as usize).map(|e| e.time))
            .chain(
                slow.iter()
                    .flat_map(|s| [&s.m.started, &s.m.accepted, &s.m.rebuilt])
                    .flatten()
                    .map(|m| m.time),
            )
            .collect();
        let window = times
            .iter()
            .min()
            .zip(times.iter().max())
            .map(|(lo, hi)| Window {
                start: utc(*lo),
                end: utc(*hi),
            });
        Some(Finding {
            id: format!("{}:{}", self.id(), recovery.notification).into(),
            detector: self.id(),
            severity: if reported_early {
                Severity::Critical
            } else {
                Severity::Warning
            },
            title: format!(
                "Boot-from-volume evacuation from {host} delayed: {}",
                delays.join("; ")
            ),
            summary: format!(
                "Masakari started evacuating boot-from-volume instance(s) {list}; the evacuation waited: {}.{others}",
                delays.join("; ")
            ),
            failed_host: recovery.failed_host.clone(),
            instance_uuids: slow.iter().map(|s| s.m.instance.to_string()).collect(),
            notification_id: Some(recovery.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &ids),
            window,
            evidence: all,
            explanation: format!(
                "The instance(s) {list} boot from Cinder volumes. Measured: {}.{}{}{others}{}",
                details.join("; "),
                if before_nova {
                    format!(" {masakari_words}")
                } else {
                    String::new()
                },
                if in_nova {
                    format!(" {volume_words}")
                } else {
                    String::new()
                },
                if reported_early {
                    " Masakari reported the recovery finished before these instances were running again."
                } else {
                    ""
                }
            ),
            remediation: Remediation {
                summary: format!(
                    "{}Clear the dead host's volume attachments as soon as {host} is fenced (the executor can \
                     force-detach them), or use a multiattach volume type for HA instances so the \
                     destination can attach before the source lets go.",
                    match threads {
                        Some((n, _)) if before_nova => format!(
                            "Raise `host_failure_recovery_threads` (now {n}) so that one slow evacuation does \
                             not hold back the others. "
                        ),
                        _ => String::new(),
                    }
                ),
                config_changes: Vec::new(),
                actions,
            },
            known_bugs: Vec::new(),
            highlights,
        })
    }
}

/// The picture's highlights of one slow move: each measured gap, and the lines that
/// begin and end them.
fn gap_highlights(analysis: &Analysis, slow: &Slow<'_>, name_instance: bool) -> Vec<Highlight> {
    let m = slow.m;
    let prefix = if name_instance {
        let id = m.instance.to_string();
        format!("{}: ", id.get(..8).unwrap_or(&id))
    } else {
        String::new()
    };
    let mut out: Vec<Highlight> = slow
        .gaps
        .iter()
        .map(|(gap, from, to)| Highlight::Span {
            from: from.time,
            to: to.time,
            label: format!(
                "{prefix}{} {}",
                duration(to.time - from.time),
                gap_words(*gap)
            ),
        })
        .collect();
    let ends = [
        (&m.started, "evacuation started"),
        (&m.accepted, "Nova accepted"),
        (&m.rebuilt, "rebuilt"),
    ];
    for (mark, words) in ends {
        let Some(mark) = mark else { continue };
        let is_end = slow
            .gaps
            .iter()
            .any(|(_, from, to)| std::ptr::eq(*from, mark) || std::ptr::eq(*to, mark));
        if let (true, Source::Event(id)) = (is_end, &mark.source)
            && let Some(e) = evidence::of_event(analysis, *id)
        {
            out.push(Highlight::Line {
                path: e.path,
                line: e.line,
                label: format!("{prefix}{words}"),
            });
        }
    }
    out
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

    /// The compute line that says the disk is on a volume carries no instance tag, only
    /// the evacuation's request context (nova-api's local id of the evacuate POST).
    #[test]
    fn an_untagged_volume_line_under_the_evacuation_request_counts() {
        const L: &str = "req-995253fd-49c7-46e5-b38d-3bb4294c4ea3";
        let ctx = |l: &str| {
            format!(
                "[req-{G} {l} 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - - default default]"
            )
        };
        let mut files = bundle(
            "10:06:02.000",
            "disk on shared storage, evacuating using existing disk",
        );
        // Only the ephemeral instance's lines: replace the BFV line.
        files[1].1 = files[1].1.lines().next().unwrap().to_string() + "\n";
        files[1].1 += &format!(
            "2024-05-21 10:05:49.000 77 INFO nova.compute.manager {} [instance: {BFV}] Evacuating instance\n\
             2024-05-21 10:20:51.000 77 INFO nova.compute.manager {} disk on volume, evacuating using existing volume\n\
             2024-05-21 10:21:20.000 77 INFO nova.compute.manager {} [instance: {BFV}] Instance spawned successfully.\n",
            ctx(L),
            ctx(L),
            ctx(L)
        );
        files.push((
            "ctl/var/log/nova/nova-api-wsgi.log",
            format!(
                "2024-05-21 10:05:48.400 23 INFO nova.api.openstack.requestlog {} 10.0.0.5 \"POST /v2.1/servers/{BFV}/action\" status: 200 len: 0 microversion: 2.53 time: 0.251\n",
                ctx(L)
            ),
        ));
        let found = run(&files);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [BFV]);
        assert!(
            found[0]
                .title
                .contains("15 min 31 s from Nova's acceptance to the rebuild"),
            "{}",
            found[0].title
        );
        assert!(
            found[0].evidence.iter().any(|e| e
                .text
                .ends_with("disk on volume, evacuating using existing volume")),
            "{:#?}",
            found[0].evidence
        );
    }

    /// The destination's clock is 3 s behind and its offset not pinned: it logs `disk on
    /// volume` before Masakari's call. The line carries the accepted evacuate request's
    /// id, which ties it to the move whatever the clocks say.
    #[test]
    fn a_volume_line_before_the_call_on_a_late_clock_counts_by_its_request_id() {
        const L: &str = "req-995253fd-49c7-46e5-b38d-3bb4294c4ea3";
        let ctx = format!(
            "[req-{G} {L} 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - - default default]"
        );
        let mut files = bundle(
            "10:06:02.000",
            "disk on shared storage, evacuating using existing disk",
        );
        files[1].1 = files[1].1.lines().next().unwrap().to_string() + "\n";
        files[1].1 += &format!(
            "2024-05-21 10:05:45.600 77 INFO nova.compute.manager {ctx} [instance: {BFV}] disk on volume, evacuating using existing volume\n\
             2024-05-21 10:19:20.000 77 INFO nova.virt.libvirt.driver [-] [instance: {BFV}] Instance spawned successfully.\n"
        );
        files.push((
            "ctl/var/log/nova/nova-api-wsgi.log",
            format!(
                "2024-05-21 10:05:48.400 23 INFO nova.api.openstack.requestlog {ctx} 10.0.0.5 \"POST /v2.1/servers/{BFV}/action\" status: 200 len: 0 microversion: 2.53 time: 0.251\n"
            ),
        ));
        let found = run(&files);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [BFV]);
        assert!(
            found[0].title.contains("to the rebuild"),
            "{}",
            found[0].title
        );
    }

    /// The race, then the retry: Nova refused the first evacuate (400, the host still
    /// up), the periodic task ran the flow again six minutes later and the volume-backed
    /// instance was rebuilt 20 s after that call. The refused call started nothing: no
    /// slow move (a second generator's tripleo mix found this).
    #[test]
    fn a_refused_call_then_a_prompt_retry_is_not_this() {
        let nova = |t: &str, l: &str, status: u16| {
            format!(
                "2024-05-21 {t} 23 INFO nova.api.openstack.requestlog [req-{G} {l} 4d9c2e7a1b3f48e6a5c0d9e8f7a6b5c4 f1e2d3c4b5a6478980a1b2c3d4e5f607 - default default] 127.0.0.1 \"POST /v2.1/servers/{BFV}/action\" status: {status} len: 0 microversion: 2.53 time: 0.100000\n"
            )
        };
        let mut log = start(N, G, "cmp-7", 10);
        log += &engine(
            "10:05:48.100",
            G,
            "INFO",
            NOVA,
            &format!("Call evacuate command for instance {BFV} on host None"),
        );
        log += &engine(
            "10:05:48.500",
            G,
            "WARNING",
            "masakari.engine.drivers.taskflow.host_failure",
            "Invalid input received: Compute service of cmp-7 is still in use. (HTTP 400) (Request-ID: req-5d0e8a31-7c2b-4f19-9e46-3a8b1c2d4e5f)",
        );
        log += &engine(
            "10:05:48.700",
            G,
            "INFO",
            NOVA,
            &format!("Call unlock server command for instance {BFV}"),
        );
        log += &engine(
            "10:05:49.000",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: error."),
        );
        log += &format!(
            "2024-05-21 10:11:50.000 41 INFO masakari.engine.manager [None req-{G} - - - - - -] Processing notification {N} of type: COMPUTE_HOST\n"
        );
        log += &engine(
            "10:12:00.100",
            G,
            "INFO",
            NOVA,
            &format!("Call evacuate command for instance {BFV} on host None"),
        );
        log += &engine(
            "10:12:30.000",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: finished."),
        );
        let api = nova(
            "10:05:48.300",
            "req-5d0e8a31-7c2b-4f19-9e46-3a8b1c2d4e5f",
            400,
        ) + &nova(
            "10:12:00.300",
            "req-6e1f9b42-8d3c-4a2a-8f57-4b9c2d3e5f60",
            200,
        );
        let compute = format!(
            "2024-05-21 10:12:01.000 77 INFO nova.compute.manager [req-{G} req-6e1f9b42-8d3c-4a2a-8f57-4b9c2d3e5f60 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] [instance: {BFV}] disk on volume, evacuating using existing volume\n\
             2024-05-21 10:12:20.000 77 INFO nova.virt.libvirt.driver [-] [instance: {BFV}] Instance spawned successfully.\n"
        );
        let files = [
            ("ctl/var/log/masakari/masakari-engine.log", log),
            ("ctl/var/log/nova/nova-api-wsgi.log", api),
            ("cmp1/var/log/nova/nova-compute.log", compute),
        ];
        assert_eq!(run(&files), []);
    }

    /// Seed 001: Masakari's progress details say the evacuation started at 19:24:20;
    /// Nova recorded the `evacuate` action only at 19:37:51 and rebuilt within 30 s.
    /// The engine's and Nova API's logs of that span are gone, as in the seed.
    #[test]
    fn nova_accepting_thirteen_minutes_after_masakari_started_fires_on_the_first_gap() {
        const SEED: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
        let ctx = "[None req-2b7d4e61-0c3a-4f5e-8d9b-6a1c2e3f4b5d 3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f a7d812868cb74f1a978035530f55f1d0 - - default default]";
        let compute = format!(
            "2024-05-02 19:37:52.210 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] Evacuating instance\n\
             2024-05-02 19:37:52.640 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] disk on volume, evacuating using existing volume\n\
             2024-05-02 19:38:21.020 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] Instance spawned successfully.\n"
        );
        let found = findings(
            "bfv-evacuation-delay",
            &[
                (
                    "notification-show.txt",
                    include_str!("../../samples/parsers/capture/notification_show_bfv_json.txt"),
                ),
                (
                    "server-event-list.txt",
                    include_str!("../../samples/parsers/capture/server_event_list_long_bfv.txt"),
                ),
                (
                    "volume-show.txt",
                    include_str!("../../samples/parsers/capture/volume_show_bfv.txt"),
                ),
                ("node01/var/log/nova/nova-compute.log", &compute),
            ],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(f.instance_uuids, [SEED]);
        assert!(
            f.title.contains("13 min 30 s before Nova accepted it"),
            "{}",
            f.title
        );
        // The fast second gap is not what is reported.
        assert!(!f.title.contains("to the rebuild"), "{}", f.title);
        assert!(f.explanation.contains("Evacuation of instance started"));
        assert!(f.explanation.contains("`evacuate` server event"));
        // Both ends are in the evidence: the progress detail and the server event.
        assert!(f.evidence.iter().any(|e| e.path == "notification-show.txt"
            && e.text.contains("Evacuation of instance started")));
        assert!(
            f.evidence
                .iter()
                .any(|e| e.path == "server-event-list.txt" && e.text.contains("evacuate"))
        );
    }

    /// The same seed with only Nova's migration records to say when it accepted the
    /// call: the evacuation's record was created at 19:37:51.
    #[test]
    fn a_migration_record_alone_dates_nova_acceptance() {
        const SEED: &str = "caad8b3d-c2c3-43ec-845f-7c5f056ebcd4";
        let ctx = "[None req-2b7d4e61-0c3a-4f5e-8d9b-6a1c2e3f4b5d 3c9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f a7d812868cb74f1a978035530f55f1d0 - - default default]";
        let compute = format!(
            "2024-05-02 19:37:52.640 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] disk on volume, evacuating using existing volume\n\
             2024-05-02 19:38:21.020 3102 INFO nova.compute.manager {ctx} [instance: {SEED}] Instance spawned successfully.\n"
        );
        let migrations = format!(
            "$ openstack server migration list --server {SEED}\n\
             +----+--------------------------------------+-------------+------------+----------------+--------------+-----------+--------+--------------------------------------+------------+------------+------------+----------------------------+----------------------------+\n\
             | Id | UUID                                 | Source Node | Dest Node  | Source Compute | Dest Compute | Dest Host | Status | Server UUID                          | Old Flavor | New Flavor | Type       | Created At                 | Updated At                 |\n\
             +----+--------------------------------------+-------------+------------+----------------+--------------+-----------+--------+--------------------------------------+------------+------------+------------+----------------------------+----------------------------+\n\
             | 12 | 7e6d5c4b-3a29-4180-9f6e-5d4c3b2a1908 | node02      | node01     | node02         | node01       | 10.0.0.11 | done   | {SEED} | 3          | 3          | evacuation | 2024-05-02T19:37:51.000000 | 2024-05-02T19:38:21.000000 |\n\
             +----+--------------------------------------+-------------+------------+----------------+--------------+-----------+--------+--------------------------------------+------------+------------+------------+----------------------------+----------------------------+\n"
        );
        let found = findings(
            "bfv-evacuation-delay",
            &[
                (
                    "notification-show.txt",
                    include_str!("../../samples/parsers/capture/notification_show_bfv_json.txt"),
                ),
                ("migration-list.txt", &migrations),
                (
                    "volume-show.txt",
                    include_str!("../../samples/parsers/capture/volume_show_bfv.txt"),
                ),
                ("node01/var/log/nova/nova-compute.log", &compute),
            ],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert!(
            f.title.contains("13 min 30 s before Nova accepted it"),
            "{}",
            f.title
        );
        assert!(
            f.explanation.contains("migration record"),
            "{}",
            f.explanation
        );
        assert!(
            f.evidence.iter().any(|e| e.path == "migration-list.txt"),
            "{:#?}",
            f.evidence
        );
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
