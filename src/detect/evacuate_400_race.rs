//! `evacuate-400-race`: Masakari asked Nova to evacuate while Nova still saw the failed
//! host's compute service as up, and Nova refused with HTTP 400.
//!
//! Masakari disables the failed host's nova-compute, sleeps
//! `wait_period_after_service_update` seconds (charm option `evacuation-delay`), then
//! calls evacuate. Nova accepts an evacuation only once its servicegroup check says the
//! source service is down: `service_down_time` seconds after the last heartbeat, which
//! the service sends every `report_interval` seconds. Masakari never forces the service
//! down, so when the sleep is shorter than Nova's detection (or the host kept
//! heartbeating for a while after Masakari was told it failed), evacuate returns
//! `400 Compute service of <host> is still in use.`.
//!
//! Inputs: Masakari engine log (required); Nova API access log and/or nova-api log
//! (either shows the 400; old Masakari releases log nothing about it, so the join with
//! Nova's lines is the only way); masakari.conf and nova.conf (optional, for the
//! explanation and the fix).
//!
//! Logic: for each evacuate call of a host-failure recovery, the status Nova answered
//! (joined access or request-log line), Nova's own message for that request (`Compute
//! service of X is still in use.`, `expected to be down, but it was up`), and
//! Masakari's warning with the 400 text. A 400 for another reason (same host,
//! accelerators, ...) is not this finding.

use crate::correlate::recovery::{Call, CallAction, Recovery, RecoveryStatus};
use crate::detect::evacuate_400_chain::{
    ChainedRefusal, OTHER_400_TEXTS, RACE_TEXTS, chained_refusals, quoted_request_id,
};
use crate::detect::evidence::{self, duration, of_config, of_events};
use crate::detect::finding::{Action, ConfigChange, Finding, Highlight, Remediation, Severity};
use crate::detect::{DetectContext, Detector, race_story};
use crate::model::{EventId, Uuid};

/// The detector.
#[derive(Debug)]
pub struct Evacuate400Race;

/// What Nova said about one evacuate call.
struct Refusal {
    call: EventId,
    instance: Option<Uuid>,
    /// Events that show the 400 and its reason.
    evidence: Vec<EventId>,
    /// Nova or Masakari named the race in words (not only a bare 400).
    worded: bool,
}

fn texts_in(ctx: &DetectContext<'_>, ids: &[EventId], needles: &[&str]) -> Vec<EventId> {
    ids.iter()
        .copied()
        .filter(|&i| {
            ctx.analysis.events.get(i as usize).is_some_and(|e| {
                needles
                    .iter()
                    .any(|n| e.text().contains(n) || e.more().any(|l| l.contains(n)))
            })
        })
        .collect()
}

/// Nova's lines of the requests joined to a call (same Nova request id).
fn nova_request_lines(ctx: &DetectContext<'_>, call: &Call) -> Vec<EventId> {
    let index = &ctx.analysis.index;
    let mut out = call.requests.clone();
    for &r in &call.requests {
        let Some(request) = ctx.analysis.events.get(r as usize) else {
            continue;
        };
        if let Some(id) = request.request_id {
            out.extend(index.request.get(&id).into_iter().flatten().copied());
        }
    }
    out.sort_unstable();
    out.dedup();
    out
}

/// Of the attempt's 400 warnings, those after the call (newer releases log the 400 text):
/// not one about another instance, nor one quoting another Nova request than the call's.
fn masakari_warnings(
    ctx: &DetectContext<'_>,
    warnings_400: &[EventId],
    call: &Call,
    nova: &[EventId],
) -> Vec<EventId> {
    let events = &ctx.analysis.events;
    let nova_ids: Vec<Uuid> = nova
        .iter()
        .filter_map(|&i| events.get(i as usize)?.request_id)
        .collect();
    let call_context = events.get(call.event as usize).and_then(|e| e.request_id);
    warnings_400
        .iter()
        .copied()
        .filter(|&i| i > call.event)
        .filter(|&i| {
            events.get(i as usize).is_some_and(|e| {
                let other_instance = call
                    .instance
                    .is_some_and(|c| !e.instances.is_empty() && !e.instances.contains(&c));
                // Logged under the call's own context, the Request-ID it quotes is Nova's
                // answer to this call, whatever a join by time (off under clock skew) says.
                let same_context = call_context.is_some() && e.request_id == call_context;
                let other_request = !same_context
                    && quoted_request_id(&e.message())
                        .is_some_and(|q| !nova_ids.is_empty() && !nova_ids.contains(&q));
                e.message().contains("(HTTP 400)") && !other_instance && !other_request
            })
        })
        .collect()
}

/// Nova's lines of the requests Masakari's warnings quote (`Request-ID: req-…`).
fn quoted_request_lines(ctx: &DetectContext<'_>, warnings: &[EventId]) -> Vec<EventId> {
    let mut out = Vec::new();
    for &w in warnings {
        let quoted = ctx
            .analysis
            .events
            .get(w as usize)
            .and_then(|e| quoted_request_id(&e.message()));
        if let Some(q) = quoted {
            out.extend(ctx.analysis.index.request.get(&q).into_iter().flatten());
        }
    }
    out
}

fn refusal(ctx: &DetectContext<'_>, warnings_400: &[EventId], call: &Call) -> Option<Refusal> {
    let joined = nova_request_lines(ctx, call);
    let warnings = masakari_warnings(ctx, warnings_400, call, &joined);
    // The request Masakari's warning quotes is Nova's answer: its lines replace what a
    // join by time found (another request, when a clock is off).
    let quoted = quoted_request_lines(ctx, &warnings);
    let nova = if quoted.is_empty() {
        joined
    } else {
        // Of the joined lines, those without a request id (Apache's) stay when they
        // agree with the answer (a 400); a line of another request goes.
        let events = &ctx.analysis.events;
        let mut nova: Vec<EventId> = joined
            .into_iter()
            .filter(|&j| {
                events.get(j as usize).is_some_and(|e| {
                    e.request_id.is_none() && e.http().is_some_and(|h| h.status == 400)
                })
            })
            .collect();
        nova.extend(quoted);
        nova
    };
    let quoted_400 = nova.iter().any(|&i| {
        ctx.analysis
            .events
            .get(i as usize)
            .and_then(|e| e.http())
            .is_some_and(|h| h.status == 400)
    });
    let mut evidence = nova;
    evidence.extend(&warnings);
    evidence.sort_unstable();
    evidence.dedup();
    let race_words = texts_in(ctx, &evidence, &RACE_TEXTS);
    let other_words = texts_in(ctx, &evidence, &OTHER_400_TEXTS);
    let status_400 = call.status(ctx.analysis) == Some(400) || quoted_400;
    if !other_words.is_empty() && race_words.is_empty() {
        return None;
    }
    if race_words.is_empty() && !status_400 {
        return None;
    }
    Some(Refusal {
        call: call.event,
        instance: call.instance,
        evidence,
        worded: !race_words.is_empty(),
    })
}

fn config_number(ctx: &DetectContext<'_>, service: &str, option: &str) -> Option<(i64, usize)> {
    let analysis = ctx.analysis;
    let position = analysis
        .config
        .iter()
        .rposition(|c| c.service == service && c.section == "DEFAULT" && c.option == option)?;
    let value = analysis.config[position].value.trim().parse().ok()?;
    Some((value, position))
}

/// The value `wait_period_after_service_update` should have for Nova's settings.
pub(crate) fn recommended_wait(service_down_time: i64, report_interval: i64) -> i64 {
    (service_down_time + 2 * report_interval + 30).max(180)
}

impl Detector for Evacuate400Race {
    fn id(&self) -> &'static str {
        "evacuate-400-race"
    }

    fn doc(&self) -> &'static str {
        "Masakari called evacuate while Nova still saw the failed host's compute service up, \
         and Nova answered HTTP 400 \"Compute service of <host> is still in use\"."
    }

    fn detect(&self, ctx: &DetectContext<'_>) -> Vec<Finding> {
        // The chains make the findings; attribution only says which recovery each
        // belongs to.
        let mut owned: Vec<Vec<(usize, ChainedRefusal)>> = vec![Vec::new(); ctx.recoveries.len()];
        let mut unowned = Vec::new();
        for chain in chained_refusals(ctx.analysis) {
            match chain_owner(ctx, &chain) {
                Some((r, a)) => owned[r].push((a, chain)),
                None => unowned.push(chain),
            }
        }
        let mut out: Vec<Finding> = ctx
            .recoveries
            .iter()
            .zip(owned)
            .filter(|(r, chains)| r.is_host_failure() || !chains.is_empty())
            .filter_map(|(r, chains)| self.finding(ctx, r, chains))
            .collect();
        out.extend(unowned_findings(self.id(), ctx, unowned));
        out
    }
}

/// The attempt whose run spans `time` (started before it, not ended before it).
fn attempt_at(ctx: &DetectContext<'_>, recovery: &Recovery, time: i64) -> Option<usize> {
    let at = |id: Option<EventId>| {
        id.and_then(|i| ctx.analysis.events.get(i as usize))
            .map(|e| e.time)
    };
    recovery.attempts.iter().rposition(|a| {
        let first = at(a.start).or_else(|| at(a.events.first().copied()));
        first.is_some_and(|s| s <= time) && at(a.end).is_none_or(|e| e >= time)
    })
}

/// The recovery and attempt a chained refusal belongs to: the run of the host Nova named
/// as still up, open at that time (Masakari serializes the runs of one host); else the
/// run its call or its warning was attributed to; else the run that handled its instance.
fn chain_owner(ctx: &DetectContext<'_>, chain: &ChainedRefusal) -> Option<(usize, usize)> {
    let time = ctx.analysis.events.get(chain.warning as usize)?.time;
    let recoveries = ctx.recoveries;
    if let Some(host) = &chain.host {
        let by_host = recoveries.iter().enumerate().find_map(|(i, r)| {
            let same = r
                .failed_host
                .as_deref()
                .is_some_and(|h| crate::correlate::ids::short_host(h) == *host);
            same.then(|| attempt_at(ctx, r, time).map(|a| (i, a)))
                .flatten()
        });
        if by_host.is_some() {
            return by_host;
        }
    }
    for (i, r) in recoveries.iter().enumerate() {
        for (a, attempt) in r.attempts.iter().enumerate() {
            let call = chain
                .call
                .is_some_and(|c| attempt.calls.iter().any(|k| k.event == c));
            if call || attempt.events.binary_search(&chain.warning).is_ok() {
                return Some((i, a));
            }
        }
    }
    recoveries
        .iter()
        .enumerate()
        .filter(|(_, r)| r.instances().contains(&chain.instance))
        .find_map(|(i, r)| attempt_at(ctx, r, time).map(|a| (i, a)))
}

/// The refusal a chain proves, as the call-based search reports it.
fn chained_refusal(chain: &ChainedRefusal) -> Refusal {
    let mut evidence = chain.nova_lines.clone();
    evidence.push(chain.warning);
    evidence.sort_unstable();
    evidence.dedup();
    Refusal {
        call: chain.call.unwrap_or(chain.warning),
        instance: Some(chain.instance),
        evidence,
        worded: chain.worded,
    }
}

/// Refusals no recovery of the bundle can hold (the engine's notification lines are
/// missing): one finding per host Nova named, without a notification.
fn unowned_findings(
    id: &'static str,
    ctx: &DetectContext<'_>,
    chains: Vec<ChainedRefusal>,
) -> Vec<Finding> {
    let analysis = ctx.analysis;
    let mut hosts: Vec<Option<String>> = Vec::new();
    for c in &chains {
        if !hosts.contains(&c.host) {
            hosts.push(c.host.clone());
        }
    }
    hosts
        .into_iter()
        .map(|host| {
            let of_host: Vec<&ChainedRefusal> = chains.iter().filter(|c| c.host == host).collect();
            let mut ids: Vec<EventId> = Vec::new();
            let mut instances: Vec<Uuid> = Vec::new();
            for c in &of_host {
                ids.extend(c.call);
                ids.extend(chained_refusal(c).evidence);
                if !instances.contains(&c.instance) {
                    instances.push(c.instance);
                }
            }
            ids.sort_unstable();
            ids.dedup();
            let name = host.clone().unwrap_or_else(|| "the failed host".into());
            let calls: Vec<EventId> = of_host.iter().map(|c| c.call.unwrap_or(c.warning)).collect();
            Finding {
                id: format!("{id}:host:{name}").into(),
                detector: id,
                severity: Severity::Critical,
                title: format!("Evacuation from {name} raced Nova's failure detection: HTTP 400"),
                summary: format!(
                    "{} evacuate call(s) were refused by Nova with HTTP 400 because it still saw                      {name}'s compute service up; the bundle holds no notification line for them.",
                    of_host.len()
                ),
                failed_host: host.clone(),
                instance_uuids: instances.iter().map(Uuid::to_string).collect(),
                notification_id: None,
                request_ids: evidence::request_ids(analysis, &calls),
                window: evidence::window(analysis, &ids),
                evidence: of_events(analysis, ids.iter().copied()),
                explanation: format!(
                    "Masakari's error quotes the request id of Nova's answer, and Nova's lines of                      that request show `POST /servers/<instance>/action` refused with 400: Nova                      still counted {name}'s compute service as up. Masakari never forces the                      service down, so it evacuated before Nova's `service_down_time` had passed."
                ),
                remediation: Remediation::advice("Make Masakari wait longer than Nova's down detection                               (wait_period_after_service_update), or fence failed hosts and force                               their compute service down before evacuating."),
                known_bugs: Vec::new(),
                highlights: Vec::new(),
            }
        })
        .collect()
}

impl Evacuate400Race {
    fn finding(
        &self,
        ctx: &DetectContext<'_>,
        recovery: &Recovery,
        chains: Vec<(usize, ChainedRefusal)>,
    ) -> Option<Finding> {
        let analysis = ctx.analysis;
        let mut refusals = Vec::new();
        for attempt in &recovery.attempts {
            // The attempt's 400 warnings, found once: an attempt of a hundred instances
            // has thousands of lines and a hundred calls.
            let warnings_400: Vec<EventId> = attempt
                .events
                .iter()
                .copied()
                .filter(|&i| {
                    analysis
                        .events
                        .get(i as usize)
                        .is_some_and(|e| e.message().contains("(HTTP 400)"))
                })
                .collect();
            for call in attempt.calls_of(CallAction::Evacuate, None) {
                if let Some(r) = refusal(ctx, &warnings_400, call) {
                    refusals.push((attempt, r));
                }
            }
        }
        // What the chains prove and the calls did not find.
        for (a, chain) in &chains {
            let known = refusals
                .iter()
                .any(|(_, r)| Some(r.call) == chain.call || r.evidence.contains(&chain.warning));
            if let (false, Some(attempt)) = (known, recovery.attempts.get(*a)) {
                refusals.push((attempt, chained_refusal(chain)));
            }
        }
        refusals.sort_by_key(|(_, r)| r.call);
        let (first_attempt, first) = refusals.first()?;
        let host = recovery
            .failed_host
            .clone()
            .unwrap_or_else(|| "the failed host".into());
        let final_status = recovery.final_status();
        let status = final_status.map_or("unknown", RecoveryStatus::as_str);

        // Instances whose evacuation never succeeded later.
        let mut instances: Vec<Uuid> = Vec::new();
        let mut left_behind: Vec<Uuid> = Vec::new();
        for (_, r) in &refusals {
            let Some(i) = r.instance else { continue };
            if !instances.contains(&i) {
                instances.push(i);
            }
            let later_success = recovery.attempts.iter().any(|a| {
                a.calls_of(CallAction::Evacuate, Some(i))
                    .any(|c| c.event > r.call && matches!(c.status(analysis), Some(200..=299)))
            });
            if !later_success && !left_behind.contains(&i) {
                left_behind.push(i);
            }
        }
        let recovered = final_status == Some(RecoveryStatus::Finished) && left_behind.is_empty();

        let mut ids: Vec<EventId> = Vec::new();
        for call in first_attempt
            .calls
            .iter()
            .filter(|c| c.action == CallAction::DisableService)
        {
            ids.push(call.event);
            ids.extend(&call.requests);
        }
        if let Some((sleep, _)) = first_attempt.sleep {
            ids.push(sleep);
        }
        for (attempt, r) in &refusals {
            ids.push(r.call);
            ids.extend(&r.evidence);
            if let Some(end) = attempt.end {
                ids.push(end);
            }
        }
        if let Some(end) = recovery.attempts.last().and_then(|a| a.end) {
            ids.push(end);
        }
        // Why the disable call took so long, when it did: Nova's lines of that request.
        let block = race_story::disable_block(ctx, first_attempt, recovery.failed_host.as_deref());
        ids.extend(block.iter().flat_map(|b| b.cause_lines.iter().copied()));
        let mut evidence = of_events(analysis, ids.iter().copied());

        // The settings behind the race.
        let wait = config_number(ctx, "masakari", "wait_period_after_service_update");
        let slept = first_attempt.sleep.map(|(_, s)| s as i64);
        let wait_value = wait.map(|(v, _)| v).or(slept).unwrap_or(180);
        let sdt = config_number(ctx, "nova", "service_down_time");
        let ri = config_number(ctx, "nova", "report_interval");
        let (sdt_value, ri_value) = (sdt.map_or(60, |(v, _)| v), ri.map_or(10, |(v, _)| v));
        for (_, position) in [wait, sdt, ri].into_iter().flatten() {
            if let Some(value) = analysis.config.get(position) {
                evidence.push(of_config(analysis, value));
            }
        }
        let recommended = recommended_wait(sdt_value, ri_value);

        let call_event = analysis.events.get(first.call as usize)?;
        let disable_time = first_attempt
            .calls
            .iter()
            .find(|c| c.action == CallAction::DisableService)
            .and_then(|c| analysis.events.get(c.event as usize))
            .map(|e| e.time);
        let gap = disable_time
            .map(|t| format!(", {} after disabling it", duration(call_event.time - t)))
            .unwrap_or_default();
        let wording = if first.worded {
            format!("Nova answered HTTP 400 \"Compute service of {host} is still in use.\"")
        } else {
            "Nova answered HTTP 400 (its log gives no reason here, and no other 400 reason applies)"
                .to_string()
        };
        let charm = if analysis.layout == crate::model::inventory::Layout::JujuCrashdump {
            " (charm option `evacuation-delay`)"
        } else {
            ""
        };
        let blocked = block
            .as_ref()
            .map(|b| race_story::disable_sentence(ctx, b))
            .unwrap_or_default();
        let mut explanation = format!(
            "{blocked}Masakari disabled nova-compute on {host}, slept {} s (`wait_period_after_service_update`{charm}) \
             and called evacuate{gap}. Nova accepts an evacuation only once it sees the source \
             compute service down, `service_down_time` ({sdt_value} s) after its last heartbeat, \
             which is sent every `report_interval` ({ri_value} s); Masakari never forces the \
             service down. {wording}: Nova still counted the host as up. ",
            slept.unwrap_or(wait_value)
        );
        if wait_value < sdt_value + ri_value {
            explanation.push_str(&format!(
                "With a {wait_value} s wait against {sdt_value} s + {ri_value} s of detection, \
                 this race is expected on every host failure. "
            ));
        } else {
            explanation.push_str(
                "The wait covers Nova's detection time, so the host went on heartbeating after \
                 Masakari was told it failed (a hung rather than dead host): fence it, or force its \
                 service down, before evacuating. ",
            );
        }
        // Each retry and how it went, then the final status.
        let first_index = recovery
            .attempts
            .iter()
            .position(|a| std::ptr::eq(a, *first_attempt))
            .unwrap_or(0);
        let refused_in = |i: usize| {
            refusals
                .iter()
                .filter(|(a, _)| std::ptr::eq(*a, &recovery.attempts[i]))
                .count()
        };
        explanation.push_str(&race_story::retries_sentence(
            ctx,
            recovery,
            first_index,
            refused_in,
        ));
        explanation.push_str(&if recovered {
            format!(
                "A later attempt evacuated the instance(s) and the notification ended `{status}`."
            )
        } else if left_behind.is_empty() {
            // Masakari keeps the refused first attempt's moves as failed: the notification
            // can fail although a retry's evacuations were all accepted.
            format!(
                "A later attempt's evacuate calls for the refused instance(s) were accepted, yet \
                 the notification ended `{status}`: its status does not say where the instances \
                 are; check them before evacuating again."
            )
        } else if left_behind.len() < instances.len() {
            format!(
                "The notification ended `{status}`; {} of the {} refused instance(s) were not \
                 evacuated by a later attempt.",
                left_behind.len(),
                instances.len()
            )
        } else {
            format!("The notification ended `{status}`; the instance(s) were not evacuated.")
        });

        let file = wait
            .and_then(|(_, p)| analysis.config.get(p))
            .map(|c| c.file.clone())
            .or_else(|| {
                analysis
                    .config
                    .iter()
                    .find(|c| c.service == "masakari")
                    .map(|c| c.file.clone())
            })
            .unwrap_or_else(|| "masakari.conf".into());
        let config_changes = if wait_value < recommended {
            vec![ConfigChange {
                file,
                section: "DEFAULT".into(),
                option: "wait_period_after_service_update".into(),
                current: Some(wait_value.to_string()),
                recommended: recommended.to_string(),
                note: format!(
                    "must exceed Nova's service_down_time ({sdt_value}) plus report_interval \
                     ({ri_value}) with a margin{charm}"
                ),
            }]
        } else {
            Vec::new()
        };
        let mut actions: Vec<Action> = left_behind
            .iter()
            .map(|i| Action::Evacuate {
                instance: *i,
                from_host: host.clone(),
            })
            .collect();
        if !left_behind.is_empty() {
            actions.push(Action::ForceDownService { host: host.clone() });
        }
        let all_ids: Vec<EventId> = refusals.iter().map(|(_, r)| r.call).collect();
        let highlights = highlights(ctx, recovery, &refusals);
        Some(Finding {
            id: format!("{}:{}", self.id(), recovery.notification).into(),
            detector: self.id(),
            severity: if recovered {
                Severity::Warning
            } else {
                Severity::Critical
            },
            title: format!("Evacuation from {host} raced Nova's failure detection: HTTP 400"),
            summary: format!(
                "{} evacuate call(s) for notification {} were refused by Nova with HTTP 400 because \
                 it still saw {host}'s compute service up; the notification ended `{status}`.",
                refusals.len(),
                recovery.notification
            ),
            failed_host: recovery.failed_host.clone(),
            instance_uuids: instances.iter().map(Uuid::to_string).collect(),
            notification_id: Some(recovery.notification.to_string()),
            request_ids: evidence::request_ids(analysis, &all_ids),
            window: evidence::window(analysis, &ids),
            evidence,
            explanation,
            remediation: Remediation {
                summary: format!(
                    "Make Masakari wait longer than Nova's down detection (wait_period_after_service_update \
                     >= {recommended}), or fence failed hosts and force their compute service down so \
                     Nova accepts the evacuation at once.{}",
                    if left_behind.is_empty() {
                        String::new()
                    } else {
                        format!(
                            " Evacuate the {} instance(s) still on {host}.",
                            left_behind.len()
                        )
                    }
                ),
                config_changes,
                actions,
            },
            known_bugs: Vec::new(),
            highlights,
        })
    }
}

/// The picture's highlights: the refused calls, the sleep before the first, the wait
/// until each retry, and the later calls that went through.
fn highlights(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    refusals: &[(&crate::correlate::recovery::Attempt, Refusal)],
) -> Vec<Highlight> {
    let analysis = ctx.analysis;
    let line = |id: EventId, label: String| {
        evidence::of_event(analysis, id).map(|e| Highlight::Line {
            path: e.path,
            line: e.line,
            label,
        })
    };
    let time = |id: Option<EventId>| Some(analysis.events.get(id? as usize)?.time);
    let mut out = Vec::new();
    if let Some((first_attempt, _)) = refusals.first()
        && let Some((sleep, secs)) = first_attempt.sleep
        && let Some(from) = time(Some(sleep))
    {
        out.push(Highlight::Span {
            from,
            to: from + secs as i64 * 1_000_000_000,
            label: format!("{secs} s sleep"),
        });
    }
    for (_, r) in refusals {
        out.extend(line(r.call, "evacuate → 400".into()));
    }
    for pair in recovery.attempts.windows(2) {
        let refused = refusals.iter().any(|(a, _)| std::ptr::eq(*a, &pair[0]));
        if let (true, Some(from), Some(to)) = (refused, time(pair[0].end), time(pair[1].start)) {
            out.push(Highlight::Span {
                from,
                to,
                label: format!("retried after {}", duration(to - from)),
            });
        }
    }
    for attempt in &recovery.attempts {
        for call in attempt.calls_of(CallAction::Evacuate, None) {
            let later = refusals
                .iter()
                .any(|(_, r)| r.instance == call.instance && call.event > r.call);
            if let (true, Some(status @ 200..=299)) = (later, call.status(analysis)) {
                out.extend(line(call.event, format!("evacuate → {status}")));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommended_wait_covers_detection_with_a_margin() {
        assert_eq!(recommended_wait(60, 10), 180);
        assert_eq!(recommended_wait(180, 30), 270);
    }
}

#[cfg(test)]
mod race_tests {
    use crate::detect::context::testing::{engine, findings, start};

    const N: &str = "3330353d-4f69-4f1d-b1f9-3977329fb2cd";
    const G: &str = "5d0e8a61-2c4b-4f7d-9e3a-1b6c8d0f2e4a";
    const I: &str = "ea113f7d-32f7-422f-a8a7-c979958d7f19";
    const NOVA: &str = "masakari.compute.nova";

    fn bundle(nova_says: &str) -> Vec<(&'static str, String)> {
        let mut log = start(N, G, "cmp02", 30);
        log += &engine(
            "10:03:17.500",
            G,
            "INFO",
            NOVA,
            &format!("Call evacuate command for instance {I} on host None"),
        );
        log += &engine(
            "10:03:18.900",
            G,
            "INFO",
            "masakari.engine.manager",
            &format!("Notification {N} exits with status: error."),
        );
        let access = format!(
            "10.0.0.5 - - [21/May/2024:10:03:17 +0000] \"POST /v2.1/servers/{I}/action HTTP/1.1\" 400 540 \"-\" \"python-novaclient\"\n"
        );
        let api = format!(
            "2024-05-21 10:03:17.830 23 INFO nova.api.openstack.wsgi [req-{G} req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] HTTP exception thrown: {nova_says}\n\
             2024-05-21 10:03:17.840 23 INFO nova.api.openstack.requestlog [req-{G} req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default] 10.0.0.5 \"POST /v2.1/servers/{I}/action\" status: 400 len: 96 microversion: 2.53 time: 0.31\n"
        );
        vec![
            ("ctl01/var/log/masakari/masakari-engine.log", log),
            (
                "ctl01/var/log/apache2/nova-api-os-compute_access.log",
                access,
            ),
            ("ctl01/var/log/nova/nova-api-wsgi.log", api),
        ]
    }

    fn run(files: &[(&'static str, String)]) -> Vec<crate::detect::Finding> {
        let borrowed: Vec<(&str, &str)> = files.iter().map(|(p, c)| (*p, c.as_str())).collect();
        findings("evacuate-400-race", &borrowed)
    }

    #[test]
    fn a_400_still_in_use_after_a_short_sleep_is_the_race() {
        let found = run(&bundle("Compute service of cmp02 is still in use."));
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(f.severity, crate::detect::Severity::Critical);
        assert_eq!(f.instance_uuids, [I]);
        assert!(
            f.evidence
                .iter()
                .any(|e| e.text.contains("Sleeping 30 sec"))
        );
        assert!(f.evidence.iter().any(|e| e.text.contains("\" 400 540")));
        assert!(f.explanation.contains("slept 30 s"));
        assert_eq!(f.remediation.config_changes[0].recommended, "180");
        assert!(
            f.remediation
                .actions
                .iter()
                .any(|a| matches!(a, crate::detect::finding::Action::Evacuate { .. }))
        );
    }

    /// Pre-Zed lines: Masakari's warning quotes the Request-ID of Nova's 400, logged by a
    /// nova-api whose clock is 95 s ahead, while another client's 202 for the same server
    /// lands right after the call: the quoted request, not the join by time, answers it.
    #[test]
    fn the_quoted_request_id_answers_the_call_whatever_the_clocks() {
        const OLD_N: &str = "9ace2da7-97d1-48cb-a96a-08ad4624481b";
        const OLD_I: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";
        let ctx = "[req-5c2e8f14-7b3a-4d90-a6e1-0f9d8c7b2a35 masakari - - - -]";
        let nova_user = "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - 3d9c6f1a2b5e4c7d8e0f1a2b3c4d5e6f 3d9c6f1a2b5e4c7d8e0f1a2b3c4d5e6f";
        let engine = format!(
            "2020-12-08 19:48:43.781 1181 INFO masakari.engine.manager [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Processing notification {OLD_N} of type: COMPUTE_HOST\n\
             2020-12-08 19:48:43.947 1181 INFO masakari.compute.nova [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Disable nova-compute on node02.maas\n\
             2020-12-08 19:48:44.040 1181 INFO masakari.engine.drivers.taskflow.host_failure [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Sleeping 30 sec before starting recovery thread until nova recognizes the node down.\n\
             2020-12-08 19:49:14.100 1181 INFO masakari.compute.nova {ctx} Call lock server command for instance {OLD_I}\n\
             2020-12-08 19:49:14.300 1181 INFO masakari.compute.nova {ctx} Call evacuate command for instance {OLD_I} on host None\n\
             2020-12-08 19:49:14.700 1181 WARNING masakari.engine.drivers.taskflow.host_failure {ctx} Invalid input received: Compute service of node02.maas is still in use. (HTTP 400) (Request-ID: req-318cec6c-205b-4136-8bf2-69930e004b70)\n\
             2020-12-08 19:49:15.000 1181 INFO masakari.engine.manager [req-0e4b7c1d-8a2f-4d36-b9e5-3f1a6c7d2e80 - - - - -] Notification {OLD_N} exits with status: error.\n"
        );
        // nova-api on ctl02, 95 s ahead: the lock's 202 and the evacuate's 400.
        let skewed = format!(
            "2020-12-08 19:50:49.200 2280 INFO nova.api.openstack.requestlog [req-2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e {nova_user}] 10.0.0.5 \"POST /v2.1/servers/{OLD_I}/action\" status: 202 len: 0 microversion: 2.1 time: 0.12\n\
             2020-12-08 19:50:49.650 2280 INFO nova.api.openstack.wsgi [req-318cec6c-205b-4136-8bf2-69930e004b70 {nova_user}] HTTP exception thrown: Compute service of node02.maas is still in use.\n\
             2020-12-08 19:50:49.660 2280 INFO nova.api.openstack.requestlog [req-318cec6c-205b-4136-8bf2-69930e004b70 {nova_user}] 10.0.0.5 \"POST /v2.1/servers/{OLD_I}/action\" status: 400 len: 96 microversion: 2.1 time: 0.05\n"
        );
        // nova-api on ctl03, on time: another client's action on the server.
        let other = format!(
            "2020-12-08 19:49:14.380 3310 INFO nova.api.openstack.requestlog [req-7d1c2b3a-4e5f-4a6b-9c8d-0e1f2a3b4c5d {nova_user}] 10.0.0.9 \"POST /v2.1/servers/{OLD_I}/action\" status: 202 len: 0 microversion: 2.1 time: 0.08\n"
        );
        let found = run(&[
            ("ctl01/var/log/masakari/masakari-engine.log", engine),
            ("ctl02/var/log/nova/nova-api-wsgi.log", skewed),
            ("ctl03/var/log/nova/nova-api-wsgi.log", other),
        ]);
        assert_eq!(found.len(), 1, "{found:#?}");
        let f = &found[0];
        assert_eq!(f.instance_uuids, [OLD_I]);
        assert!(f.evidence.iter().any(|e| e.text.contains("status: 400")));
        assert!(!f.evidence.iter().any(|e| e.text.contains("req-7d1c2b3a")));
    }

    /// The disable call blocked 60 s on an RPC to the dead compute, then Masakari's retry
    /// was refused again and the notification failed: the explanation says all of it.
    #[test]
    fn a_blocked_disable_and_the_retries_are_explained() {
        const G2: &str = "6a5b4c3d-2e1f-4a0b-9c8d-7e6f5a4b3c2d";
        const Q1: &str = "2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e";
        const Q2: &str = "3c8d0e2f-4a5b-4c6d-9e7f-8a9b0c1d2e3f";
        let flow = "masakari.engine.drivers.taskflow.host_failure";
        let manager = "masakari.engine.manager";
        let warning = |q: &str| {
            format!(
                "Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q}): masakari.exception.InvalidInput: Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q})"
            )
        };
        let mut log = String::new();
        for (g, t) in [
            (
                G,
                [
                    "10:02:47.100",
                    "10:02:47.300",
                    "10:03:47.400",
                    "10:04:17.500",
                    "10:04:17.900",
                    "10:04:18.900",
                ],
            ),
            (
                G2,
                [
                    "10:06:20.000",
                    "10:06:20.200",
                    "10:06:20.400",
                    "10:06:50.500",
                    "10:06:50.900",
                    "10:06:51.000",
                ],
            ),
        ] {
            let q = if g == G { Q1 } else { Q2 };
            log += &engine(
                t[0],
                g,
                "INFO",
                manager,
                &format!("Processing notification {N} of type: COMPUTE_HOST"),
            );
            log += &engine(t[1], g, "INFO", NOVA, "Disable nova-compute on cmp02");
            log += &engine(
                t[2],
                g,
                "INFO",
                flow,
                "Sleeping 30 sec before starting recovery thread until nova recognizes the node down.",
            );
            log += &engine(
                t[3],
                g,
                "INFO",
                NOVA,
                &format!("Call evacuate command for instance {I} on host None"),
            );
            log += &engine(t[4], g, "WARNING", flow, &warning(q));
            log += &engine(
                t[5],
                g,
                "INFO",
                manager,
                &format!("Notification {N} exits with status: error."),
            );
        }
        log += &engine(
            "10:06:51.100",
            G2,
            "ERROR",
            manager,
            &format!(
                "Periodic task 'process_unfinished_notifications': Notification {N} exits with status: failed."
            ),
        );
        let user =
            "8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - - default default";
        let nova = |time: &str, g: &str, l: &str, level: &str, logger: &str, m: &str| {
            format!("2024-05-21 {time} 23 {level} {logger} [req-{g} req-{l} {user}] {m}\n")
        };
        let put = "5e6f7a8b-9c0d-4e1f-a2b3-c4d5e6f7a8b9";
        let put2 = "6f7a8b9c-0d1e-4f2a-b3c4-d5e6f7a8b9c0";
        let mut api = nova(
            "10:03:47.300",
            G,
            put,
            "ERROR",
            "nova.api.openstack.compute.services",
            "An error occurred while updating the COMPUTE_STATUS_DISABLED trait on compute node resource providers managed by host cmp02. The trait will be synchronized automatically by the compute service when the update_available_resource periodic task runs.: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID 5e1c9a0f3b7d4e28a6c2f9b0d1e3a475",
        );
        api += &nova(
            "10:03:47.350",
            G,
            put,
            "INFO",
            "nova.api.openstack.requestlog",
            "10.0.0.5 \"PUT /v2.1/os-services/dd34bbd8-701b-4030-a272-a0984b33f86c\" status: 200 len: 391 microversion: 2.53 time: 60.040000",
        );
        api += &nova(
            "10:06:20.190",
            G2,
            put2,
            "INFO",
            "nova.api.openstack.requestlog",
            "10.0.0.5 \"PUT /v2.1/os-services/dd34bbd8-701b-4030-a272-a0984b33f86c\" status: 200 len: 391 microversion: 2.53 time: 0.070000",
        );
        for (t, g, q) in [("10:04:17.850", G, Q1), ("10:06:50.850", G2, Q2)] {
            api += &nova(
                t,
                g,
                q,
                "INFO",
                "nova.api.openstack.wsgi",
                "HTTP exception thrown: Compute service of cmp02 is still in use.",
            );
            api += &nova(
                t,
                g,
                q,
                "INFO",
                "nova.api.openstack.requestlog",
                &format!(
                    "10.0.0.5 \"POST /v2.1/servers/{I}/action\" status: 400 len: 96 microversion: 2.53 time: 0.31"
                ),
            );
        }
        let found = run(&[
            ("ctl01/var/log/masakari/masakari-engine.log", log),
            ("ctl01/var/log/nova/nova-api-wsgi.log", api),
        ]);
        assert_eq!(found.len(), 1, "{found:#?}");
        let text = &found[0].explanation;
        for words in [
            "blocked 60 s",
            "COMPUTE_STATUS_DISABLED",
            "MessagingTimeout",
            "retry 1",
            "refused with 400 again",
            "ended `failed`",
        ] {
            assert!(text.contains(words), "{words}: {text}");
        }
        assert!(
            found[0]
                .evidence
                .iter()
                .any(|e| e.text.contains("COMPUTE_STATUS_DISABLED trait"))
        );
    }

    /// Pre-Zed: no global id ties Nova's trait error to the run, and the minute-long PUT
    /// is not joined to its call: the error naming the failed host while the call waited
    /// still says why it blocked.
    #[test]
    fn a_blocked_disable_is_explained_before_zed() {
        let ctx = |r: &str| format!("[req-{r} nova - - - -]");
        let nova_ctx = |r: &str| {
            format!(
                "[req-{r} 8e1f5d3c2b7a49e6a0c4d9f2b1e7a6c3 4b9d2e7f1c6a4835b0e3f7a2d9c1e5b8 - default default]"
            )
        };
        let at = |t: &str, c: &str, level: &str, logger: &str, m: &str| {
            format!("2022-06-14 {t} 27 {level} {logger} {c} {m}\n")
        };
        let flow = "masakari.engine.drivers.taskflow.host_failure";
        let q = "2b7c9d1e-3f4a-4b5c-8d6e-7f8a9b0c1d2e";
        let engine = [
            at("08:42:10.498", "[req-f6e0022f-137f-4f07-aecd-7d67ef8f3cf9 bf3686bb416757925c9f0959ca6d5555 46b51d97572c202cfc183d3027888f4b - default default]", "INFO", "masakari.engine.manager", &format!("Processing notification {N} of type: COMPUTE_HOST")),
            at("08:42:10.708", &ctx("e2470ddb-0148-48a8-b046-b433bacdbb0b"), "INFO", NOVA, "Disable nova-compute on cmp02"),
            at("08:43:10.958", &ctx("e2470ddb-0148-48a8-b046-b433bacdbb0b"), "INFO", flow, "Sleeping 10 sec before starting recovery thread until nova recognizes the node down."),
            at("08:43:21.344", &ctx("605a521d-6b51-44da-835c-d6e99aea0b63"), "INFO", NOVA, &format!("Call evacuate command for instance {I} on host None")),
            at("08:43:21.764", &ctx("28825d14-81a7-43b4-ba3a-16b082b0a451"), "WARNING", flow, &format!("Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q}): masakari.exception.InvalidInput: Invalid input received: Compute service of cmp02 is still in use. (HTTP 400) (Request-ID: req-{q})")),
            at("08:43:22.820", &ctx("fc71d7b6-265b-4e44-9682-88b9094ed4f8"), "INFO", "masakari.engine.manager", &format!("Notification {N} exits with status: error.")),
        ]
        .concat();
        let api = [
            at("08:43:10.801", &nova_ctx("3d76c0ab-9f45-4361-90b0-1ade49d1f7fb"), "ERROR", "nova.api.openstack.compute.services", "An error occurred while updating the COMPUTE_STATUS_DISABLED trait on compute node resource providers managed by host cmp02. The trait will be synchronized automatically by the compute service when the update_available_resource periodic task runs.: oslo_messaging.exceptions.MessagingTimeout: Timed out waiting for a reply to message ID 5e1c9a0f3b7d4e28a6c2f9b0d1e3a475"),
            at("08:43:21.724", &nova_ctx(q), "INFO", "nova.api.openstack.wsgi", "HTTP exception thrown: Compute service of cmp02 is still in use."),
            at("08:43:21.724", &nova_ctx(q), "INFO", "nova.api.openstack.requestlog", &format!("10.30.0.11 \"POST /v2.1/servers/{I}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000")),
        ]
        .concat();
        let found = run(&[
            ("ctl01/var/log/kolla/masakari/masakari-engine.log", engine),
            ("ctl01/var/log/kolla/nova/nova-api.log", api),
        ]);
        assert_eq!(found.len(), 1, "{found:#?}");
        let text = &found[0].explanation;
        for words in [
            "blocked 60 s",
            "COMPUTE_STATUS_DISABLED",
            "MessagingTimeout",
        ] {
            assert!(text.contains(words), "{words}: {text}");
        }
    }

    #[test]
    fn a_400_for_another_reason_is_not_the_race() {
        assert!(run(&bundle("The target host can't be the same one.")).is_empty());
    }
}

/// Two hosts' recoveries interleave in one pre-Zed engine, and every Nova call makes a
/// new context: the call, Masakari's warning and the notification carry different ids.
#[cfg(test)]
mod chain_tests {
    use crate::detect::context::testing::findings;

    const N1: &str = "6916637e-b48a-42c6-b1ca-c1e4ee82d1e8";
    const N2: &str = "cc60c118-a972-4441-9f9f-51b3e595444e";
    const I1: &str = "6307306f-f3eb-4496-a751-db87e94fb0d6";
    const I2: &str = "98ed2355-3d59-49e5-9558-b2b276a8e8c6";

    fn masakari(time: &str, req: &str, level: &str, logger: &str, message: &str) -> String {
        format!("2022-06-14 {time} 27 {level} {logger} [req-{req} nova - - - -] {message}\n")
    }

    fn nova(time: &str, req: &str, logger: &str, message: &str) -> String {
        format!(
            "2022-06-14 {time} 25 INFO {logger} [req-{req} 08a0419364fb7ad609c321afda575cd1 feb5d25ac552ffcca04733134c03b994 - default default] {message}\n"
        )
    }

    /// The engine's lines of one host's run: disable, sleep, list, evacuate, the warning
    /// quoting Nova's request `quoted`, the end.
    fn run(n: &str, host: &str, instance: &str, t: u32, quoted: &str) -> Vec<(String, String)> {
        let at =
            |s: u32, ms: u32| format!("08:{:02}:{:02}.{ms:03}", 42 + (t + s) / 60, (t + s) % 60);
        let nova_logger = "masakari.compute.nova";
        let flow = "masakari.engine.drivers.taskflow.host_failure";
        vec![
            (
                at(0, 498),
                format!(
                    "2022-06-14 {} 27 INFO masakari.engine.manager [req-f6e0022f-137f-4f07-aecd-7d67ef8f3cf9 bf3686bb416757925c9f0959ca6d5555 46b51d97572c202cfc183d3027888f4b - default default] Processing notification {n} of type: COMPUTE_HOST\n",
                    at(0, 498)
                ),
            ),
            (
                at(0, 708),
                masakari(
                    &at(0, 708),
                    &format!("e2470ddb-0148-48a8-b046-b433bacdb{t:03}"),
                    "INFO",
                    nova_logger,
                    &format!("Disable nova-compute on {host}"),
                ),
            ),
            (
                at(0, 958),
                masakari(
                    &at(0, 958),
                    &format!("e2470ddb-0148-48a8-b046-b433bacdb{t:03}"),
                    "INFO",
                    flow,
                    "Sleeping 60 sec before starting recovery thread until nova recognizes the node down.",
                ),
            ),
            (
                at(61, 4),
                masakari(
                    &at(61, 4),
                    &format!("297cd4ef-dbd4-4047-a503-169d3bf0a{t:03}"),
                    "INFO",
                    nova_logger,
                    &format!("Fetch Server list on {host}"),
                ),
            ),
            (
                at(62, 344),
                masakari(
                    &at(62, 344),
                    &format!("605a521d-6b51-44da-835c-d6e99aea0{t:03}"),
                    "INFO",
                    nova_logger,
                    &format!("Call evacuate command for instance {instance} on host None"),
                ),
            ),
            (
                at(62, 764),
                masakari(
                    &at(62, 764),
                    &format!("28825d14-81a7-43b4-ba3a-16b082b0a{t:03}"),
                    "WARNING",
                    flow,
                    &format!(
                        "Invalid input received: Compute service of {host} is still in use. (HTTP 400) (Request-ID: req-{quoted}): masakari.exception.InvalidInput: Invalid input received: Compute service of {host} is still in use. (HTTP 400) (Request-ID: req-{quoted})"
                    ),
                ),
            ),
            (
                at(63, 820),
                masakari(
                    &at(63, 820),
                    &format!("fc71d7b6-265b-4e44-9682-88b9094ed{t:03}"),
                    "INFO",
                    "masakari.engine.manager",
                    &format!("Notification {n} exits with status: error."),
                ),
            ),
        ]
    }

    #[test]
    fn interleaved_runs_each_get_the_refusals_their_chains_prove() {
        let q1 = "6246a5f0-b0e6-4ecf-b80c-3fe380f00470";
        let q2 = "fa5af25c-2813-4cfc-ab3f-33948529a3d7";
        let mut lines = run(N1, "cmp02", I1, 10, q1);
        lines.extend(run(N2, "cmp03", I2, 30, q2));
        lines.sort();
        let engine: String = lines.into_iter().map(|(_, l)| l).collect();
        let mut api = String::new();
        for (time, q, host, i) in [
            ("08:43:12.724", q1, "cmp02", I1),
            ("08:43:32.724", q2, "cmp03", I2),
        ] {
            api += &nova(
                time,
                q,
                "nova.api.openstack.wsgi",
                &format!("HTTP exception thrown: Compute service of {host} is still in use."),
            );
            api += &nova(
                time,
                q,
                "nova.api.openstack.requestlog",
                &format!(
                    "10.30.0.11 \"POST /v2.1/servers/{i}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000"
                ),
            );
        }
        let found = findings(
            "evacuate-400-race",
            &[
                ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
                ("ctl01/var/log/kolla/nova/nova-api.log", &api),
            ],
        );
        assert_eq!(found.len(), 2, "{found:#?}");
        for (n, i, host) in [(N1, I1, "cmp02"), (N2, I2, "cmp03")] {
            let f = found
                .iter()
                .find(|f| f.notification_id.as_deref() == Some(n))
                .unwrap_or_else(|| panic!("no finding for {n}: {found:#?}"));
            assert_eq!(f.instance_uuids, [i]);
            assert_eq!(f.failed_host.as_deref(), Some(host));
            assert!(
                f.evidence
                    .iter()
                    .any(|e| e.text.contains("status: 400") && e.text.contains(i))
            );
        }
    }

    /// Without the engine's notification lines, the chain alone still makes the finding.
    #[test]
    fn a_chain_without_its_recovery_is_still_a_finding() {
        let q = "6246a5f0-b0e6-4ecf-b80c-3fe380f00470";
        let engine: String = run(N1, "cmp02", I1, 10, q)
            .into_iter()
            .filter(|(_, l)| l.contains("WARNING"))
            .map(|(_, l)| l)
            .collect();
        let api = nova(
            "08:43:12.724",
            q,
            "nova.api.openstack.requestlog",
            &format!(
                "10.30.0.11 \"POST /v2.1/servers/{I1}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000"
            ),
        );
        let found = findings(
            "evacuate-400-race",
            &[
                ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
                ("ctl01/var/log/kolla/nova/nova-api.log", &api),
            ],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].instance_uuids, [I1]);
        assert_eq!(found[0].failed_host.as_deref(), Some("cmp02"));
    }
}

/// A bare 400 quoted by Masakari is the race only when it answers an evacuate call.
#[cfg(test)]
mod bare_400_tests {
    use crate::detect::context::testing::findings;

    #[test]
    fn a_bare_400_to_another_action_is_not_the_race() {
        let i = "6307306f-f3eb-4496-a751-db87e94fb0d6";
        let q = "6246a5f0-b0e6-4ecf-b80c-3fe380f00470";
        let engine = format!(
            "2022-06-14 08:43:12.344 27 INFO masakari.compute.nova [req-605a521d-6b51-44da-835c-d6e99aea0b63 nova - - - -] Call reset state command on instance {i} to status: error.\n\
             2022-06-14 08:43:12.764 27 WARNING masakari.engine.drivers.taskflow.host_failure [req-28825d14-81a7-43b4-ba3a-16b082b0a451 nova - - - -] Invalid input received: Bad request (HTTP 400) (Request-ID: req-{q}): masakari.exception.InvalidInput: Invalid input received: Bad request (HTTP 400) (Request-ID: req-{q})\n"
        );
        let api = format!(
            "2022-06-14 08:43:12.724 25 INFO nova.api.openstack.requestlog [req-{q} 08a0419364fb7ad609c321afda575cd1 feb5d25ac552ffcca04733134c03b994 - default default] 10.30.0.11 \"POST /v2.1/servers/{i}/action\" status: 400 len: 85 microversion: 2.53 time: 0.360000\n"
        );
        let found = findings(
            "evacuate-400-race",
            &[
                ("ctl01/var/log/kolla/masakari/masakari-engine.log", &engine),
                ("ctl01/var/log/kolla/nova/nova-api.log", &api),
            ],
        );
        assert!(found.is_empty(), "{found:#?}");
        // The same 400 answering an evacuate call is the race, bare as it is.
        let evacuate = engine.replace(
            &format!("Call reset state command on instance {i} to status: error."),
            &format!("Call evacuate command for instance {i} on host None"),
        );
        let found = findings(
            "evacuate-400-race",
            &[
                (
                    "ctl01/var/log/kolla/masakari/masakari-engine.log",
                    &evacuate,
                ),
                ("ctl01/var/log/kolla/nova/nova-api.log", &api),
            ],
        );
        assert_eq!(found.len(), 1, "{found:#?}");
    }
}
