//! The finding told from what [`measure`](super::measure) found: the instances left on
//! the dead host, the API failure around their last call, and how to move them now.

use super::measure::Dropped;
use crate::correlate::Analysis;
use crate::correlate::recovery::Attempt;
use crate::detect::DetectContext;
use crate::detect::evidence::{self, duration, of_events};
use crate::detect::finding::{Action, Finding, Highlight, Remediation, Severity};
use crate::detect::quote::{clipped, once_each};
use crate::model::EventsById;
use crate::model::{EventId, EventKind, Uuid};

/// The finding for the instances `dropped` names.
pub(super) fn finding(id: &'static str, ctx: &DetectContext<'_>, dropped: Dropped<'_>) -> Finding {
    let analysis = ctx.analysis;
    let recovery = dropped.recovery;
    let instances = &dropped.instances;
    let mut ids = dropped.ids;
    ids.extend(&dropped.failures);
    let mut all = of_events(analysis, ids.iter().copied());
    all.extend(dropped.captured);
    let host = recovery
        .failed_host
        .clone()
        .unwrap_or_else(|| "the failed host".into());
    let cause = cause_sentence(analysis, &dropped.failures);
    let list = instances
        .iter()
        .map(Uuid::to_string)
        .collect::<Vec<_>>()
        .join(", ");
    let mut actions: Vec<Action> = instances
        .iter()
        .map(|i| Action::Evacuate {
            instance: *i,
            from_host: host.clone(),
        })
        .collect();
    actions.extend(
        dropped
            .locked
            .iter()
            .map(|i| Action::Unlock { instance: *i }),
    );
    let highlights = dropped
        .finished
        .map(|a| highlights(analysis, a, instances))
        .unwrap_or_default();
    Finding {
        id: format!("{id}:{}", recovery.notification).into(),
        detector: id,
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
    }
}

/// The API failures in words (up to four, each once), or why none is in the logs.
fn cause_sentence(analysis: &Analysis, failures: &[EventId]) -> String {
    let causes: Vec<String> = once_each(
        failures
            .iter()
            .filter_map(|&i| analysis.events.by_id(i))
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
    if causes.is_empty() {
        "The API failure itself is not in these logs (eventlet prints it to the engine's \
         stderr only, which a log file does not catch; a thread-pool engine logs it as \
         `Exception in evacuation thread`)."
            .to_string()
    } else {
        format!("Around that moment: {}.", causes.join("; "))
    }
}

/// The picture's highlights: the `finished` status, each dropped instance's last call,
/// and the span between them in which its move never happened.
fn highlights(analysis: &Analysis, attempt: &Attempt, instances: &[Uuid]) -> Vec<Highlight> {
    let mut out = Vec::new();
    let Some(end) = attempt.end.and_then(|e| evidence::of_event(analysis, e)) else {
        return out;
    };
    let end_time = attempt
        .end
        .and_then(|e| analysis.events.by_id(e))
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
            let time = analysis.events.by_id(c.event)?.time;
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
