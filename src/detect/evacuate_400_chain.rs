//! Evacuate refusals found by their explicit chain, whatever the attribution of lines to
//! recoveries says: Masakari's error line quotes Nova's request id (`(HTTP 400)
//! (Request-ID: req-X)`), Nova's lines under `req-X` hold the request
//! (`POST /v2.1/servers/<instance>/action`, status 400) and its reason.
//!
//! Masakari builds a new context for every Nova call, so the call line, the error line
//! and the notification's lines may carry three different request ids (every release
//! before Zed logs no global id): the quoted id is the one link that always holds.

use crate::correlate::Analysis;
use crate::correlate::calls::CallAction;
use crate::correlate::ids::short_host;
use crate::correlate::recovery::is_engine;
use crate::detect::evidence::instance_events;
use crate::model::EventsById;
use crate::model::{EventId, LogLevel, Uuid};

/// One refusal the chain proves.
#[derive(Clone, Debug)]
pub(crate) struct ChainedRefusal {
    /// Masakari's line quoting Nova's request id.
    pub warning: EventId,
    /// Nova's request id it quotes.
    pub nova_request: Uuid,
    /// Nova's lines of that request (request log, its exception and error lines).
    pub nova_lines: Vec<EventId>,
    /// The instance of the request's URL.
    pub instance: Uuid,
    /// The engine's `Call evacuate command` line for that instance just before, if logged.
    pub call: Option<EventId>,
    /// The host Nova names as still up (`Compute service of <host> is still in use.`).
    pub host: Option<String>,
    /// Nova or Masakari named the reason (not only a bare 400).
    pub worded: bool,
}

/// Nova's words when the source compute service is still up.
pub(crate) const RACE_TEXTS: [&str; 2] = ["still in use", "expected to be down, but it was up"];
/// Nova's words for the other reasons evacuate answers 400.
pub(crate) const OTHER_400_TEXTS: [&str; 5] = [
    "The target host can't be the same one",
    "have accelerators",
    "port-resource-request",
    "vTPM",
    "Invalid input for field",
];

/// The Nova request id Masakari quotes in an error (`(Request-ID: req-…)`).
pub(crate) fn quoted_request_id(text: &str) -> Option<Uuid> {
    let (_, rest) = text.split_once("Request-ID: ")?;
    Uuid::parse_request_id(rest.get(..40)?)
}

/// The host in `Compute service of <host> is still in use`.
fn host_still_in_use(text: &str) -> Option<String> {
    let (_, rest) = text.split_once("Compute service of ")?;
    let (host, _) = rest.split_once(" is still in use")?;
    (!host.is_empty() && !host.contains(' ')).then(|| short_host(host))
}

/// The instance of `POST /…/servers/<uuid>/action`.
fn action_instance(method: &str, path: &str) -> Option<Uuid> {
    if method != "POST" {
        return None;
    }
    let path = path.split('?').next()?;
    let rest = path.strip_suffix("/action")?;
    let (_, id) = rest.rsplit_once("/servers/")?;
    Uuid::parse(id)
}

/// Every refusal of an evacuation-like server action that an engine error line proves
/// through the request id it quotes.
pub(crate) fn chained_refusals(analysis: &Analysis) -> Vec<ChainedRefusal> {
    let events = &analysis.events;
    let mut out = Vec::new();
    for (position, event) in events.iter().enumerate() {
        // Masakari logs Nova's error at WARNING (host flow) or ERROR; only its engine's
        // lines are read back, so this pass stays cheap on a large bundle.
        if !matches!(event.level, Some(LogLevel::Warning | LogLevel::Error))
            || !is_engine(analysis, event)
        {
            continue;
        }
        let message = event.message();
        if !message.contains("(HTTP 400)") {
            continue;
        }
        // One refusal per Nova request, however many of Masakari's lines quote it.
        let Some(quoted) = quoted_request_id(&message)
            .filter(|q| !out.iter().any(|c: &ChainedRefusal| c.nova_request == *q))
        else {
            continue;
        };
        let nova_lines: Vec<EventId> = analysis
            .index
            .request
            .get(&quoted)
            .into_iter()
            .flatten()
            .copied()
            .filter(|&i| events.by_id(i).is_some_and(|e| !is_engine(analysis, e)))
            .collect();
        let Some(instance) = nova_lines.iter().find_map(|&i| {
            let http = events.by_id(i)?.http()?;
            (http.status == 400)
                .then(|| action_instance(&http.method, &http.path))
                .flatten()
        }) else {
            continue;
        };
        let texts: Vec<String> = nova_lines
            .iter()
            .filter_map(|&i| events.by_id(i).map(|e| e.message().into_owned()))
            .chain([message.to_string()])
            .collect();
        let has = |needles: &[&str]| texts.iter().any(|t| needles.iter().any(|n| t.contains(n)));
        let worded = has(&RACE_TEXTS);
        if has(&OTHER_400_TEXTS) && !worded {
            continue;
        }
        let warning = EventId::at(position);
        let call = evacuate_call_before(analysis, instance, warning);
        // A bare 400 is the race only as the answer to an evacuate call.
        if !worded && call.is_none() {
            continue;
        }
        out.push(ChainedRefusal {
            warning,
            nova_request: quoted,
            call,
            host: texts.iter().find_map(|t| host_still_in_use(t)),
            nova_lines,
            instance,
            worded,
        });
    }
    out
}

/// The engine's latest call line for `instance` before `warning`, when it is an
/// evacuate call (the call is logged before the request, the error after its answer).
fn evacuate_call_before(analysis: &Analysis, instance: Uuid, warning: EventId) -> Option<EventId> {
    let events = &analysis.events;
    let engine_host = events.by_id(warning)?.host;
    let (call, action) = instance_events(analysis, instance)
        .filter(|&(i, _)| i < warning)
        .filter_map(|(i, e)| {
            let engine = e.host == engine_host && is_engine(analysis, e);
            engine.then(|| CallAction::of(&e.message()).map(|a| (i, a)))?
        })
        .max_by_key(|(i, _)| *i)?;
    (action == CallAction::Evacuate).then_some(call)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_url_names_the_instance_of_an_action() {
        let i = "6307306f-f3eb-4496-a751-db87e94fb0d6";
        assert_eq!(
            action_instance("POST", &format!("/v2.1/servers/{i}/action")),
            Uuid::parse(i)
        );
        assert_eq!(action_instance("GET", &format!("/v2.1/servers/{i}")), None);
        assert_eq!(
            host_still_in_use(
                "HTTP exception thrown: Compute service of cmp02.maas is still in use."
            ),
            Some("cmp02".into())
        );
    }
}
