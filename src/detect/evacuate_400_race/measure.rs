//! The facts of one recovery's race: the refused calls, the instances no retry moved,
//! the settings that made the wait too short, and the lines that show it.

use super::refusal::{Refusal, attempt_refusals, chained_refusal};
use crate::correlate::recovery::{Attempt, CallAction, Recovery, RecoveryStatus};
use crate::detect::DetectContext;
use crate::detect::evacuate_400_chain::ChainedRefusal;
use crate::detect::race_story::{self, DisableBlock};
use crate::model::EventsById;
use crate::model::{EventId, Uuid};

/// What one recovery's refused evacuations show.
pub(super) struct Race<'r> {
    pub recovery: &'r Recovery,
    /// The refused calls in call order, each with the attempt that made it.
    pub refusals: Vec<(&'r Attempt, Refusal)>,
    /// The attempt of the first refusal.
    pub first_attempt: &'r Attempt,
    /// Nova or Masakari named the race in words for the first refusal.
    pub worded: bool,
    /// The refused instances, in order of their first refusal.
    pub instances: Vec<Uuid>,
    /// Of those, the ones no later evacuate call moved.
    pub left_behind: Vec<Uuid>,
    pub final_status: Option<RecoveryStatus>,
    /// The notification ended `finished` and no instance was left behind.
    pub recovered: bool,
    /// The lines that show it: the first attempt's disable calls and sleep, each
    /// refusal and its attempt's end, the last attempt's end, why the disable blocked.
    pub ids: Vec<EventId>,
    /// How long the first attempt's disable call blocked, and why.
    pub block: Option<DisableBlock>,
    /// From the first attempt's disable call to the first refused call, in nanoseconds.
    pub disable_to_call: Option<i64>,
    pub settings: Settings,
}

/// Masakari's wait and Nova's down detection, each with its position in the config.
pub(super) struct Settings {
    /// `wait_period_after_service_update`.
    pub wait: Option<(i64, usize)>,
    /// What the first attempt slept, in seconds.
    pub slept: Option<i64>,
    pub service_down_time: Option<(i64, usize)>,
    pub report_interval: Option<(i64, usize)>,
}

impl Settings {
    /// The wait: configured, else slept, else Masakari's default.
    pub fn wait_value(&self) -> i64 {
        self.wait.map(|(v, _)| v).or(self.slept).unwrap_or(180)
    }

    /// Nova's `service_down_time`, else its default.
    pub fn service_down_time_value(&self) -> i64 {
        self.service_down_time.map_or(60, |(v, _)| v)
    }

    /// Nova's `report_interval`, else its default.
    pub fn report_interval_value(&self) -> i64 {
        self.report_interval.map_or(10, |(v, _)| v)
    }

    /// The config positions of the values that were read.
    pub fn positions(&self) -> impl Iterator<Item = usize> {
        [self.wait, self.service_down_time, self.report_interval]
            .into_iter()
            .flatten()
            .map(|(_, position)| position)
    }
}

/// The race in `recovery`, when any of its evacuate calls was refused.
pub(super) fn race<'r>(
    ctx: &DetectContext<'_>,
    recovery: &'r Recovery,
    chains: Vec<(usize, ChainedRefusal)>,
) -> Option<Race<'r>> {
    let analysis = ctx.analysis;
    let refusals = refusals(ctx, recovery, &chains);
    let (first_attempt, first) = refusals.first()?;
    let first_attempt: &'r Attempt = first_attempt;
    let final_status = recovery.final_status();
    let (instances, left_behind) = fates(ctx, recovery, &refusals);
    let recovered = final_status == Some(RecoveryStatus::Finished) && left_behind.is_empty();
    let block = race_story::disable_block(ctx, first_attempt, recovery.failed_host.as_deref());
    let ids = evidence_ids(recovery, first_attempt, &refusals, block.as_ref());
    let settings = settings(ctx, first_attempt);
    let call_time = analysis.events.by_id(first.call)?.time;
    let disable_to_call = first_attempt
        .calls
        .iter()
        .find(|c| c.action == CallAction::DisableService)
        .and_then(|c| analysis.events.by_id(c.event))
        .map(|e| call_time - e.time);
    let worded = first.worded;
    Some(Race {
        recovery,
        refusals,
        first_attempt,
        worded,
        instances,
        left_behind,
        final_status,
        recovered,
        ids,
        block,
        disable_to_call,
        settings,
    })
}

/// The refused calls of every attempt, and what the chains prove that the calls did
/// not find, in call order.
fn refusals<'r>(
    ctx: &DetectContext<'_>,
    recovery: &'r Recovery,
    chains: &[(usize, ChainedRefusal)],
) -> Vec<(&'r Attempt, Refusal)> {
    let mut refusals = Vec::new();
    for attempt in &recovery.attempts {
        for r in attempt_refusals(ctx, attempt) {
            refusals.push((attempt, r));
        }
    }
    for (a, chain) in chains {
        let known = refusals
            .iter()
            .any(|(_, r)| Some(r.call) == chain.call || r.evidence.contains(&chain.warning));
        if let (false, Some(attempt)) = (known, recovery.attempts.get(*a)) {
            refusals.push((attempt, chained_refusal(chain)));
        }
    }
    refusals.sort_by_key(|(_, r)| r.call);
    refusals
}

/// The refused instances, and those of them whose evacuation never succeeded later.
fn fates(
    ctx: &DetectContext<'_>,
    recovery: &Recovery,
    refusals: &[(&Attempt, Refusal)],
) -> (Vec<Uuid>, Vec<Uuid>) {
    let mut instances: Vec<Uuid> = Vec::new();
    let mut left_behind: Vec<Uuid> = Vec::new();
    for (_, r) in refusals {
        let Some(i) = r.instance else { continue };
        if !instances.contains(&i) {
            instances.push(i);
        }
        let later_success = recovery.attempts.iter().any(|a| {
            a.calls_of(CallAction::Evacuate, Some(i))
                .any(|c| c.event > r.call && matches!(c.status(ctx.analysis), Some(200..=299)))
        });
        if !later_success && !left_behind.contains(&i) {
            left_behind.push(i);
        }
    }
    (instances, left_behind)
}

/// The lines of the race: the first attempt's disable calls and sleep, each refusal and
/// its attempt's end, the last attempt's end, and Nova's lines of why the disable blocked.
fn evidence_ids(
    recovery: &Recovery,
    first_attempt: &Attempt,
    refusals: &[(&Attempt, Refusal)],
    block: Option<&DisableBlock>,
) -> Vec<EventId> {
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
    for (attempt, r) in refusals {
        ids.push(r.call);
        ids.extend(&r.evidence);
        if let Some(end) = attempt.end {
            ids.push(end);
        }
    }
    if let Some(end) = recovery.attempts.last().and_then(|a| a.end) {
        ids.push(end);
    }
    ids.extend(block.iter().flat_map(|b| b.cause_lines.iter().copied()));
    ids
}

/// The settings behind the race.
fn settings(ctx: &DetectContext<'_>, first_attempt: &Attempt) -> Settings {
    Settings {
        wait: config_number(ctx, "masakari", "wait_period_after_service_update"),
        slept: first_attempt.sleep.map(|(_, s)| s as i64),
        service_down_time: config_number(ctx, "nova", "service_down_time"),
        report_interval: config_number(ctx, "nova", "report_interval"),
    }
}

/// The last `[DEFAULT] option` of `service`'s config that is a number, and its position.
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recommended_wait_covers_detection_with_a_margin() {
        assert_eq!(recommended_wait(60, 10), 180);
        assert_eq!(recommended_wait(180, 30), 270);
    }
}
