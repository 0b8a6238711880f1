//! The facts of a recovery's slow boot-from-volume moves: which gaps were too long, the
//! volumes and the attachments that held them, and the lines and captures that show it.

use super::gaps::{Gap, Mark, Move, Source};
use crate::correlate::recovery::Recovery;
use crate::correlate::timeline::utc;
use crate::detect::DetectContext;
use crate::detect::evidence::{self, of_capture};
use crate::detect::finding::{Evidence, Window};
use crate::model::EventsById;
use crate::model::inventory::ConfigValue;
use crate::model::{EventId, Project, Uuid};
use evacdoc_parsers::capture::Capture;

/// The slow boot-from-volume moves of a recovery.
pub(super) struct Delay<'a> {
    pub recovery: &'a Recovery,
    /// Every move of the recovery.
    pub moves: &'a [Move],
    /// The boot-from-volume ones with a gap over the threshold.
    pub slow: Vec<Slow<'a>>,
    /// How long each other move took to its rebuild, in nanoseconds.
    pub fast: Vec<i64>,
    /// The lines: both ends of every gap, the calls, Nova's and Cinder's lines.
    pub ids: Vec<EventId>,
    /// The capture lines: the gaps' ends read there, the volumes, the server events.
    pub captured: Vec<Evidence>,
    /// Masakari reported the recovery over before a slow instance was running again.
    pub reported_early: bool,
    /// A gap was spent before Nova accepted the evacuation.
    pub before_nova: bool,
    /// A gap was spent in Nova, after it accepted the evacuation or up to the rebuild.
    pub in_nova: bool,
    /// `host_failure_recovery_threads`, when fewer than the moves.
    pub threads: Option<(usize, &'a ConfigValue)>,
    /// From Masakari's start (a capture's time, maybe) to the last line.
    pub window: Option<Window>,
}

/// A slow boot-from-volume move and what is known of its disk.
pub(super) struct Slow<'m> {
    pub m: &'m Move,
    pub gaps: Vec<(Gap, &'m Mark, &'m Mark)>,
    pub volumes: Vec<Uuid>,
    /// The volumes a capture shows not multiattach, each with its attachment to the
    /// failed host when the capture lists one.
    pub detachable: Vec<(Uuid, Option<Uuid>)>,
}

/// What the captures say of an instance's disk: booted from a volume, and its volumes.
fn captured_volumes(ctx: &DetectContext<'_>, instance: Uuid) -> (bool, Vec<Uuid>) {
    let analysis = ctx.analysis;
    let mut volumes: Vec<Uuid> = Vec::new();
    for (_, e) in evidence::instance_events(analysis, instance) {
        volumes.extend(&e.volumes);
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

/// The slow boot-from-volume moves among `moves`, if any.
pub(super) fn delay<'a>(
    ctx: &DetectContext<'a>,
    recovery: &'a Recovery,
    moves: &'a [Move],
) -> Option<Delay<'a>> {
    let analysis = ctx.analysis;
    let threshold = ctx.options.bfv_delay_secs * 1_000_000_000;
    let mut slow: Vec<Slow<'_>> = moves
        .iter()
        .filter_map(|m| {
            let (captured_bfv, volumes) = captured_volumes(ctx, m.instance);
            let gaps = m.slow_gaps(threshold);
            ((m.disk_on_volume || captured_bfv) && !gaps.is_empty()).then_some(Slow {
                m,
                gaps,
                volumes,
                detachable: Vec::new(),
            })
        })
        .collect();
    if slow.is_empty() {
        return None;
    }
    let fast: Vec<i64> = moves
        .iter()
        .filter(|m| !slow.iter().any(|s| s.m.instance == m.instance))
        .filter_map(Move::to_rebuild)
        .collect();
    let host = recovery
        .failed_host
        .clone()
        .unwrap_or_else(|| "the failed host".into());
    let mut ids: Vec<EventId> = Vec::new();
    let mut captured = Vec::new();
    for s in &mut slow {
        ids.extend(move_lines(ctx, recovery, s, &mut captured));
        s.detachable = volume_captures(ctx, recovery, s, &host, &mut captured);
    }
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
    let reported_early = reported_early(ctx, recovery, &slow);
    let window = window(ctx, &ids, &slow);
    Some(Delay {
        recovery,
        moves,
        slow,
        fast,
        ids,
        captured,
        reported_early,
        before_nova,
        in_nova,
        threads,
        window,
    })
}

/// The evidence of a moment.
fn mark_evidence(ctx: &DetectContext<'_>, instance: Uuid, mark: &Mark) -> Vec<Evidence> {
    match &mark.source {
        Source::Event(id) => evidence::of_event(ctx.analysis, *id).into_iter().collect(),
        Source::Capture(file) => of_capture(ctx.analysis, file, &instance.to_string()),
    }
}

/// Both ends of every gap, the calls, Nova's lines up to the rebuild without Masakari's
/// status polling, and Cinder's lines about the volumes during the wait; the ends read
/// in captures go to `captured`.
fn move_lines(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    s: &Slow<'_>,
    captured: &mut Vec<Evidence>,
) -> Vec<EventId> {
    let analysis = ctx.analysis;
    let m = s.m;
    let mut ids = Vec::new();
    for mark in [&m.started, &m.accepted, &m.rebuilt].into_iter().flatten() {
        match &mark.source {
            Source::Event(id) => ids.push(*id),
            Source::Capture(_) => captured.extend(mark_evidence(ctx, m.instance, mark)),
        }
    }
    ids.extend(&m.calls);
    ids.extend(m.nova_lines.iter().copied().filter(|&i| {
        analysis
            .events
            .by_id(i)
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
            if let Some(e) = analysis.events.by_id(i)
                && e.time >= from
                && e.time <= to
                && evidence::project(analysis, e) == Project::Cinder
                && !ctx.foreign(recovery, e)
            {
                ids.push(i);
            }
        }
    }
    ids
}

/// The capture lines about the move's volumes, server events and notification (into
/// `captured`); and the volumes not multiattach with their attachment to `host`.
fn volume_captures(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    s: &Slow<'_>,
    host: &str,
    captured: &mut Vec<Evidence>,
) -> Vec<(Uuid, Option<Uuid>)> {
    let analysis = ctx.analysis;
    let mut detachable = Vec::new();
    for capture in &analysis.captures {
        let file = &capture.file;
        match &capture.capture {
            Capture::Volume(v) if Uuid::parse(&v.id).is_some_and(|id| s.volumes.contains(&id)) => {
                captured.extend(of_capture(analysis, file, &v.id));
                let stale = v.attachments.iter().find(|a| {
                    a.host_name.as_deref().is_some_and(|h| {
                        crate::correlate::ids::short_host(h)
                            == crate::correlate::ids::short_host(host)
                    })
                });
                if let (Some(volume), false) = (Uuid::parse(&v.id), v.multiattach == Some(true)) {
                    let attachment = stale
                        .and_then(|a| a.attachment_id.as_deref())
                        .and_then(Uuid::parse);
                    detachable.push((volume, attachment));
                }
            }
            Capture::ServerEvents {
                server_id: Some(sid),
                ..
            } if *sid == s.m.instance.to_string() => {
                captured.extend(of_capture(analysis, file, sid));
            }
            Capture::Notification(n)
                if n.notification_uuid == recovery.notification.to_string() =>
            {
                captured.extend(of_capture(analysis, file, &s.m.instance.to_string()));
            }
            _ => {}
        }
    }
    detachable
}

/// Masakari's last attempt ended before a slow instance was accepted or rebuilt.
fn reported_early(ctx: &DetectContext<'_>, recovery: &Recovery, slow: &[Slow<'_>]) -> bool {
    let end = recovery
        .attempts
        .last()
        .and_then(|a| a.end)
        .and_then(|e| ctx.analysis.events.by_id(e));
    end.is_some_and(|e| {
        slow.iter().any(|s| {
            s.m.rebuilt
                .as_ref()
                .or(s.m.accepted.as_ref())
                .is_some_and(|k| k.time > e.time)
        })
    })
}

/// From Masakari's start (a capture's time, maybe) to the last line.
fn window(ctx: &DetectContext<'_>, ids: &[EventId], slow: &[Slow<'_>]) -> Option<Window> {
    let times: Vec<i64> = ids
        .iter()
        .filter_map(|&i| ctx.analysis.events.by_id(i).map(|e| e.time))
        .chain(
            slow.iter()
                .flat_map(|s| [&s.m.started, &s.m.accepted, &s.m.rebuilt])
                .flatten()
                .map(|m| m.time),
        )
        .collect();
    times
        .iter()
        .min()
        .zip(times.iter().max())
        .map(|(lo, hi)| Window {
            start: utc(*lo),
            end: utc(*hi),
        })
}
