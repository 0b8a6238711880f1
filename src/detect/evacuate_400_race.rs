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
use crate::detect::evidence::{self, duration, of_config, of_events};
use crate::detect::finding::{Action, ConfigChange, Finding, Highlight, Remediation, Severity};
use crate::detect::{DetectContext, Detector};
use crate::model::{EventId, Uuid};

/// The detector.
#[derive(Debug)]
pub struct Evacuate400Race;

/// Nova's words when the source compute service is still up.
const RACE_TEXTS: [&str; 2] = ["still in use", "expected to be down, but it was up"];
/// Nova's words for the other reasons evacuate answers 400.
const OTHER_400_TEXTS: [&str; 5] = [
    "The target host can't be the same one",
    "have accelerators",
    "port-resource-request",
    "vTPM",
    "Invalid input for field",
];

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

/// The Nova request id Masakari quotes in an error (`(Request-ID: req-…)`).
fn quoted_request_id(text: &str) -> Option<Uuid> {
    let (_, rest) = text.split_once("Request-ID: ")?;
    Uuid::parse_request_id(rest.get(..40)?)
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
        ctx.host_failures()
            .filter_map(|r| self.finding(ctx, r))
            .collect()
    }
}

impl Evacuate400Race {
    fn finding(&self, ctx: &DetectContext<'_>, recovery: &Recovery) -> Option<Finding> {
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
        let charm = if analysis.layout == crate::ingest::layout::Layout::JujuCrashdump {
            " (charm option `evacuation-delay`)"
        } else {
            ""
        };
        let mut explanation = format!(
            "Masakari disabled nova-compute on {host}, slept {} s (`wait_period_after_service_update`{charm}) \
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
        explanation.push_str(&if recovered {
            format!(
                "A later attempt evacuated the instance(s) and the notification ended `{status}`."
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
            id: format!("{}:{}", self.id(), recovery.notification),
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

    #[test]
    fn a_400_for_another_reason_is_not_the_race() {
        assert!(run(&bundle("The target host can't be the same one.")).is_empty());
    }
}
