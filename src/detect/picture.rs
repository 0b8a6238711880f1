//! The picture of a finding: the timeline of its instances (or its notification, or
//! its evidence alone), with what the finding is about marked: the spans its detector
//! measured, the lines it names, and failing calls among its evidence.

use crate::model::EventsById;
use std::collections::{BTreeMap, BTreeSet};

use crate::correlate::Analysis;
use crate::correlate::timeline::{Mark, MarkAt, Subject, SvgOptions, fold, render_svg, select};
use crate::detect::finding::{Evidence, Finding, Highlight};
use crate::model::{EventId, Uuid};

/// The SVG picture of `finding` over `analysis` (the analysis it was found in).
///
/// The lines are those of the finding's instances' timelines, or of its notification's
/// when it names no instance, and its evidence lines in any case. Its detector's
/// highlights are marked; a finding without marked lines of its own gets its failing
/// calls marked, found in its evidence (an HTTP answer of 400 or more, a Masakari call
/// Nova answered so).
pub fn finding_picture(analysis: &Analysis, finding: &Finding, options: &SvgOptions) -> String {
    let evidence = evidence_events(analysis, &finding.evidence);
    let ordered = events_of(analysis, finding, &evidence);
    let rows = fold(analysis, &ordered);
    let marks = marks(analysis, finding, &evidence);
    let options = SvgOptions {
        title: options
            .title
            .clone()
            .or_else(|| Some(finding.title.clone())),
        ..options.clone()
    };
    render_svg(analysis, &rows, &marks, &options)
}

/// The events the picture of `finding` shows, in time order (a share's report counts
/// its lines).
pub fn finding_picture_events(analysis: &Analysis, finding: &Finding) -> Vec<EventId> {
    let evidence = evidence_events(analysis, &finding.evidence);
    events_of(analysis, finding, &evidence)
}

fn events_of(
    analysis: &Analysis,
    finding: &Finding,
    evidence: &BTreeMap<(String, usize), EventId>,
) -> Vec<EventId> {
    let mut ids: BTreeSet<EventId> = evidence.values().copied().collect();
    let instances: Vec<Uuid> = finding
        .instance_uuids
        .iter()
        .filter_map(|i| Uuid::parse(i))
        .collect();
    for &i in &instances {
        ids.extend(select(analysis, &Subject::Instance(i)));
    }
    if instances.is_empty()
        && let Some(n) = finding.notification_id.as_deref().and_then(Uuid::parse)
    {
        ids.extend(select(analysis, &Subject::Notification(n)));
    }
    let mut ordered: Vec<EventId> = ids.into_iter().collect();
    ordered.sort_by_key(|&id| {
        analysis
            .events
            .by_id(id)
            .map(|e| (e.sort_key(), e.file, e.line))
    });
    ordered
}

/// The marks of a finding: its detector's highlights, or failing calls of its evidence.
fn marks(
    analysis: &Analysis,
    finding: &Finding,
    evidence: &BTreeMap<(String, usize), EventId>,
) -> Vec<Mark> {
    let mut out = Vec::new();
    for h in &finding.highlights {
        match h {
            Highlight::Span { from, to, label } => out.push(Mark {
                label: label.clone(),
                at: MarkAt::Span {
                    from: *from,
                    to: *to,
                },
            }),
            Highlight::Line { path, line, label } => {
                let id = evidence
                    .get(&(path.clone(), *line))
                    .copied()
                    .or_else(|| event_at(analysis, path, *line));
                if let Some(id) = id {
                    out.push(Mark {
                        label: label.clone(),
                        at: MarkAt::Event(id),
                    });
                }
            }
        }
    }
    let named_lines = finding
        .highlights
        .iter()
        .any(|h| matches!(h, Highlight::Line { .. }));
    if !named_lines {
        out.extend(failing_calls(analysis, evidence.values().copied()));
    }
    out
}

/// Failing calls among `ids`: a Masakari call joined to a Nova answer of 400 or more
/// (`evacuate → 400`), and an answer of 400 or more not joined to one of those calls.
fn failing_calls(analysis: &Analysis, ids: impl IntoIterator<Item = EventId>) -> Vec<Mark> {
    let ids: BTreeSet<EventId> = ids.into_iter().collect();
    let status = |id: EventId| {
        analysis
            .events
            .by_id(id)
            .and_then(|e| e.http())
            .map(|h| (h.method.clone(), h.status))
    };
    let mut out = Vec::new();
    let mut answered: BTreeSet<EventId> = BTreeSet::new();
    for join in &analysis.joins {
        let Some((_, code @ 400..)) = status(join.request) else {
            continue;
        };
        if !ids.contains(&join.call) && !ids.contains(&join.request) {
            continue;
        }
        let action = analysis
            .events
            .by_id(join.call)
            .and_then(|e| crate::correlate::calls::CallKind::of(&e.message()))
            .map_or("call", |k| call_word(k.prefix));
        if answered.insert(join.call) {
            out.push(Mark {
                label: format!("{action} → {code}"),
                at: MarkAt::Event(join.call),
            });
        }
        answered.insert(join.request);
    }
    for &id in &ids {
        if let (false, Some((method, code @ 400..))) = (answered.contains(&id), status(id)) {
            out.push(Mark {
                label: format!("{method} → {code}"),
                at: MarkAt::Event(id),
            });
        }
    }
    out
}

/// The verb of a call's log prefix: `Call evacuate command` → `evacuate`,
/// `Disable nova-compute` → `disable nova-compute`.
fn call_word(prefix: &str) -> &str {
    let p = prefix.trim();
    p.strip_prefix("Call ")
        .and_then(|r| r.strip_suffix(" command").or(Some(r)))
        .unwrap_or(p)
}

/// The events of evidence lines, by `(path, line)`, in one pass over the events.
fn evidence_events(
    analysis: &Analysis,
    evidence: &[Evidence],
) -> BTreeMap<(String, usize), EventId> {
    let wanted: BTreeSet<(&str, usize)> = evidence
        .iter()
        .filter(|e| e.timestamp.is_some())
        .map(|e| (e.path.as_str(), e.line))
        .collect();
    let mut out = BTreeMap::new();
    if wanted.is_empty() {
        return out;
    }
    for (id, event) in analysis.events.iter().enumerate() {
        let Some(file) = analysis.file(event.file) else {
            continue;
        };
        let key = (file.path.as_str(), event.line as usize);
        if wanted.contains(&key) {
            out.insert((key.0.to_string(), key.1), EventId::at(id));
        }
    }
    out
}

/// The event at `path:line`, if one was kept.
fn event_at(analysis: &Analysis, path: &str, line: usize) -> Option<EventId> {
    let files: BTreeSet<u32> = analysis
        .files
        .iter()
        .enumerate()
        .filter(|(_, f)| f.path == path)
        .map(|(i, _)| i as u32)
        .collect();
    analysis
        .events
        .iter()
        .position(|e| files.contains(&e.file) && e.line as usize == line)
        .map(EventId::at)
}
