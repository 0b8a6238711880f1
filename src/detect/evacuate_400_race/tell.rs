//! The finding told from a [`Race`]: why Nova refused, how the retries went, and the
//! wait Masakari needs.

use super::highlights::highlights;
use super::measure::Race;
use crate::correlate::Analysis;
use crate::correlate::recovery::RecoveryStatus;
use crate::detect::evidence::{self, duration, of_config, of_events};
use crate::detect::finding::{Action, ConfigChange, Finding, Remediation, Severity};
use crate::detect::{DetectContext, race_story};
use crate::model::{EventId, Uuid};

/// The finding for `race`.
pub(super) fn finding(id: &'static str, ctx: &DetectContext<'_>, race: Race<'_>) -> Finding {
    let analysis = ctx.analysis;
    let recovery = race.recovery;
    let host = host_name(&race);
    let status = race.final_status.map_or("unknown", RecoveryStatus::as_str);
    let mut evidence = of_events(analysis, race.ids.iter().copied());
    for position in race.settings.positions() {
        if let Some(value) = analysis.config.get(position) {
            evidence.push(of_config(analysis, value));
        }
    }
    let all_ids: Vec<EventId> = race.refusals.iter().map(|(_, r)| r.call).collect();
    Finding {
        id: format!("{id}:{}", recovery.notification).into(),
        detector: id,
        severity: if race.recovered {
            Severity::Warning
        } else {
            Severity::Critical
        },
        title: format!("Evacuation from {host} raced Nova's failure detection: HTTP 400"),
        summary: format!(
            "{} evacuate call(s) for notification {} were refused by Nova with HTTP 400 because \
             it still saw {host}'s compute service up; the notification ended `{status}`.",
            race.refusals.len(),
            recovery.notification
        ),
        failed_host: recovery.failed_host.clone(),
        instance_uuids: race.instances.iter().map(Uuid::to_string).collect(),
        notification_id: Some(recovery.notification.to_string()),
        request_ids: evidence::request_ids(analysis, &all_ids),
        window: evidence::window(analysis, &race.ids),
        evidence,
        explanation: explanation(ctx, &race),
        remediation: remediation(ctx, &race),
        known_bugs: Vec::new(),
        highlights: highlights(ctx, recovery, &race.refusals),
    }
}

fn host_name(race: &Race<'_>) -> String {
    race.recovery
        .failed_host
        .clone()
        .unwrap_or_else(|| "the failed host".into())
}

/// ` (charm option `evacuation-delay`)` in a Juju bundle, where the charm sets the wait.
pub(crate) fn charm_words(analysis: &Analysis) -> &'static str {
    if analysis.layout == crate::model::inventory::Layout::JujuCrashdump {
        " (charm option `evacuation-delay`)"
    } else {
        ""
    }
}

/// What happened, why Nova refused, each retry, and how the notification ended.
fn explanation(ctx: &DetectContext<'_>, race: &Race<'_>) -> String {
    let host = host_name(race);
    let settings = &race.settings;
    let (wait_value, sdt_value, ri_value) = (
        settings.wait_value(),
        settings.service_down_time_value(),
        settings.report_interval_value(),
    );
    let gap = race
        .disable_to_call
        .map(|d| format!(", {} after disabling it", duration(d)))
        .unwrap_or_default();
    let wording = if race.worded {
        format!("Nova answered HTTP 400 \"Compute service of {host} is still in use.\"")
    } else {
        "Nova answered HTTP 400 (its log gives no reason here, and no other 400 reason applies)"
            .to_string()
    };
    let charm = charm_words(ctx.analysis);
    let blocked = race
        .block
        .as_ref()
        .map(|b| race_story::disable_sentence(ctx, b))
        .unwrap_or_default();
    let mut explanation = format!(
        "{blocked}Masakari disabled nova-compute on {host}, slept {} s (`wait_period_after_service_update`{charm}) \
         and called evacuate{gap}. Nova accepts an evacuation only once it sees the source \
         compute service down, `service_down_time` ({sdt_value} s) after its last heartbeat, \
         which is sent every `report_interval` ({ri_value} s); Masakari never forces the \
         service down. {wording}: Nova still counted the host as up. ",
        settings.slept.unwrap_or(wait_value)
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
    explanation.push_str(&retries(ctx, race));
    explanation.push_str(&ending(race));
    explanation
}

/// Each retry and how it went.
fn retries(ctx: &DetectContext<'_>, race: &Race<'_>) -> String {
    let recovery = race.recovery;
    let first_index = recovery
        .attempts
        .iter()
        .position(|a| std::ptr::eq(a, race.first_attempt))
        .unwrap_or(0);
    let refused_in = |i: usize| {
        race.refusals
            .iter()
            .filter(|(a, _)| std::ptr::eq(*a, &recovery.attempts[i]))
            .count()
    };
    race_story::retries_sentence(ctx, recovery, first_index, refused_in)
}

/// How the notification ended, and where that leaves the refused instances.
fn ending(race: &Race<'_>) -> String {
    let status = race.final_status.map_or("unknown", RecoveryStatus::as_str);
    let (left_behind, instances) = (&race.left_behind, &race.instances);
    if race.recovered {
        format!("A later attempt evacuated the instance(s) and the notification ended `{status}`.")
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
    }
}

/// The wait to set, and the instances to evacuate by hand.
fn remediation(ctx: &DetectContext<'_>, race: &Race<'_>) -> Remediation {
    let host = host_name(race);
    let recommended = super::measure::recommended_wait(
        race.settings.service_down_time_value(),
        race.settings.report_interval_value(),
    );
    let left_behind = &race.left_behind;
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
    Remediation {
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
        config_changes: config_changes(ctx, race, recommended),
        actions,
    }
}

/// `wait_period_after_service_update` raised to `recommended`, when it is below.
fn config_changes(ctx: &DetectContext<'_>, race: &Race<'_>, recommended: i64) -> Vec<ConfigChange> {
    let analysis = ctx.analysis;
    let settings = &race.settings;
    let wait_value = settings.wait_value();
    if wait_value >= recommended {
        return Vec::new();
    }
    let file = settings
        .wait
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
    vec![ConfigChange {
        file,
        section: "DEFAULT".into(),
        option: "wait_period_after_service_update".into(),
        current: Some(wait_value.to_string()),
        recommended: recommended.to_string(),
        note: format!(
            "must exceed Nova's service_down_time ({}) plus report_interval \
             ({}) with a margin{}",
            settings.service_down_time_value(),
            settings.report_interval_value(),
            charm_words(ctx.analysis)
        ),
    }]
}
