//! The finding told from a [`Delay`]: each gap measured, where the time went (before
//! Nova's API, or in Nova waiting for the volume), and what clears it.

use super::gaps::{Gap, Source};
use super::measure::{Delay, Slow};
use crate::correlate::Analysis;
use crate::detect::DetectContext;
use crate::detect::evidence::{self, duration, of_events};
use crate::detect::finding::{Action, Finding, Highlight, Remediation, Severity};

/// The finding for `delay`.
pub(super) fn finding(id: &'static str, ctx: &DetectContext<'_>, delay: &Delay<'_>) -> Finding {
    let analysis = ctx.analysis;
    let recovery = delay.recovery;
    let host = host_name(delay);
    let slow = &delay.slow;
    let delays: Vec<String> = slow.iter().map(delay_words).collect();
    let highlights: Vec<Highlight> = slow
        .iter()
        .flat_map(|s| gap_highlights(analysis, s, slow.len() > 1))
        .collect();
    let mut all = of_events(analysis, delay.ids.iter().copied());
    for e in &delay.captured {
        if !all.contains(e) {
            all.push(e.clone());
        }
    }
    if let (true, Some((_, value))) = (delay.before_nova, delay.threads) {
        all.push(evidence::of_config(analysis, value));
    }
    let list = slow
        .iter()
        .map(|s| s.m.instance.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    Finding {
        id: format!("{id}:{}", recovery.notification).into(),
        detector: id,
        severity: if delay.reported_early {
            Severity::Critical
        } else {
            Severity::Warning
        },
        title: format!(
            "Boot-from-volume evacuation from {host} delayed: {}",
            delays.join("; ")
        ),
        summary: format!(
            "Masakari started evacuating boot-from-volume instance(s) {list}; the evacuation waited: {}.{}",
            delays.join("; "),
            others(delay)
        ),
        failed_host: recovery.failed_host.clone(),
        instance_uuids: slow.iter().map(|s| s.m.instance.to_string()).collect(),
        notification_id: Some(recovery.notification.to_string()),
        request_ids: evidence::request_ids(analysis, &delay.ids),
        window: delay.window.clone(),
        evidence: all,
        explanation: explanation(delay, &list),
        remediation: remediation(delay),
        known_bugs: Vec::new(),
        highlights,
    }
}

fn host_name(delay: &Delay<'_>) -> String {
    delay
        .recovery
        .failed_host
        .clone()
        .unwrap_or_else(|| "the failed host".into())
}

fn gap_words(gap: Gap) -> &'static str {
    match gap {
        Gap::StartToAcceptance => "before Nova accepted it",
        Gap::AcceptanceToRebuild => "from Nova's acceptance to the rebuild",
        Gap::StartToRebuild => "from Masakari's start to the rebuild",
    }
}

/// `<instance> <gap> <words>, …`: how long each slow gap of a move took.
fn delay_words(s: &Slow<'_>) -> String {
    let words: Vec<String> = s
        .gaps
        .iter()
        .map(|(gap, from, to)| format!("{} {}", duration(to.time - from.time), gap_words(*gap)))
        .collect();
    format!("{} {}", s.m.instance, words.join(", "))
}

/// Each slow gap with its ends, as measured.
fn details(slow: &[Slow<'_>]) -> Vec<String> {
    let mut details = Vec::new();
    for s in slow {
        for (gap, from, to) in &s.gaps {
            details.push(format!(
                "{}: {} ({} to {}, {}){}",
                s.m.instance,
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
    }
    details
}

/// How fast the other instances moved, when there were any.
fn others(delay: &Delay<'_>) -> String {
    let fast = &delay.fast;
    if fast.is_empty() {
        String::new()
    } else {
        format!(
            " The {} other instance(s) of this recovery were rebuilt within {}.",
            fast.len(),
            duration(*fast.iter().max().unwrap_or(&0))
        )
    }
}

/// What was measured, and where the time went.
fn explanation(delay: &Delay<'_>, list: &str) -> String {
    let host = host_name(delay);
    let volume_words = format!(
        "A volume that is not multiattach can attach to the destination only once its attachment to \
         {host} is gone, and a powered-off host cannot detach it: the rebuild waits for the source to \
         come back or for someone to clear the attachment."
    );
    let masakari_words = format!(
        "Nova had no evacuation request for the instance until it accepted one: the time was spent \
         before Nova's API (in Masakari's evacuation thread: {}its calls and their retries; or on the way \
         to the API). The lines of that span say why, when they were kept.",
        match delay.threads {
            Some((n, _)) => format!(
                "waiting for one of its {n} thread(s) (`host_failure_recovery_threads`) for {} \
                 instances, ",
                delay.moves.len()
            ),
            None => String::new(),
        }
    );
    format!(
        "The instance(s) {list} boot from Cinder volumes. Measured: {}.{}{}{}{}",
        details(&delay.slow).join("; "),
        if delay.before_nova {
            format!(" {masakari_words}")
        } else {
            String::new()
        },
        if delay.in_nova {
            format!(" {volume_words}")
        } else {
            String::new()
        },
        others(delay),
        if delay.reported_early {
            " Masakari reported the recovery finished before these instances were running again."
        } else {
            ""
        }
    )
}

/// Clear the dead host's attachments (force-detach actions when the time was spent in
/// Nova), and more threads when it was spent before Nova.
fn remediation(delay: &Delay<'_>) -> Remediation {
    let host = host_name(delay);
    let mut actions = Vec::new();
    for s in &delay.slow {
        for &(volume, attachment) in &s.detachable {
            actions.push(Action::ForceDetachVolume {
                volume,
                attachment,
                host: host.clone(),
            });
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
    if !delay.in_nova {
        actions.clear();
    }
    Remediation {
        summary: format!(
            "{}Clear the dead host's volume attachments as soon as {host} is fenced (the executor can \
             force-detach them), or use a multiattach volume type for HA instances so the \
             destination can attach before the source lets go.",
            match delay.threads {
                Some((n, _)) if delay.before_nova => format!(
                    "Raise `host_failure_recovery_threads` (now {n}) so that one slow evacuation does \
                     not hold back the others. "
                ),
                _ => String::new(),
            }
        ),
        config_changes: Vec::new(),
        actions,
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
