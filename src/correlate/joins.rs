//! Joining each Masakari call to Nova with the request Nova logged for it.
//!
//! The Apache access log has no request id, so the join is by what the call was: the
//! instance (or host) it names, the HTTP method and path it makes (reference §2.5), and a
//! time window. Zed+ request-log lines also carry Masakari's global request id, which
//! then must match.

use serde::{Deserialize, Serialize};

use crate::correlate::calls::{CallKind, PathShape};
use crate::model::{Event, EventId, EventKind, Project, Uuid};

/// A Masakari call and the Nova request that served it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Join {
    /// The `masakari.compute.nova` event (`Call evacuate command for instance ...`).
    #[serde(with = "crate::correlate::document::stable")]
    pub call: EventId,
    /// The Nova request event (access-log or request-log line).
    #[serde(with = "crate::correlate::document::stable")]
    pub request: EventId,
    /// The instance both name, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub instance: Option<Uuid>,
    /// Request time minus call time, in milliseconds (one-second stamps counted from the
    /// middle of their second).
    pub delay_ms: i64,
}

/// How far before the call a request may be logged (clock granularity) and how long
/// after it (a slow Keystone token request comes first).
const BEFORE_NS: i64 = 2_000_000_000;
const AFTER_NS: i64 = 15_000_000_000;

/// What request a Masakari call makes.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Expected {
    method: &'static str,
    /// The request path must contain all of these.
    path_parts: Vec<String>,
    /// The path must end at the server id (a plain `GET /servers/<id>`).
    exact_server: Option<String>,
    instance: Option<Uuid>,
}

fn expected_request(message: &str, instance: Option<Uuid>) -> Option<Expected> {
    let kind = CallKind::of(message)?;
    let expected = |path_parts: Vec<String>, exact_server: Option<String>, instance| Expected {
        method: kind.method,
        path_parts,
        exact_server,
        instance,
    };
    Some(match kind.path {
        PathShape::Server => {
            let i = instance?;
            expected(vec![format!("/servers/{i}")], Some(i.to_string()), Some(i))
        }
        PathShape::ServerAction => {
            let i = instance?;
            expected(vec![format!("/servers/{i}/action")], None, Some(i))
        }
        PathShape::ServersOnHost => {
            let host = message.strip_prefix(kind.prefix)?.trim();
            expected(
                vec!["/servers/detail".into(), format!("host={host}")],
                None,
                None,
            )
        }
        PathShape::Services => expected(vec!["/os-services".into()], None, None),
        PathShape::Aggregates => expected(vec!["/os-aggregates".into()], None, None),
        PathShape::AggregateAction => {
            expected(vec!["/os-aggregates/".into(), "/action".into()], None, None)
        }
    })
}

fn matches(expected: &Expected, request: &Event) -> bool {
    let Some(http) = request.http() else {
        return false;
    };
    if http.method != expected.method
        || !expected
            .path_parts
            .iter()
            .all(|p| http.path.contains(p.as_str()))
    {
        return false;
    }
    match &expected.exact_server {
        Some(id) => {
            let path = http.path.split('?').next().unwrap_or("");
            path.ends_with(&format!("/servers/{id}"))
        }
        None => true,
    }
}

/// Whether `request` is the kind of request the Masakari `call` makes (method, path,
/// instance), whatever their times and ids.
pub fn makes(call: &Event, request: &Event) -> bool {
    expected_request(call.message(), call.instances.first().copied())
        .is_some_and(|expected| matches(&expected, request))
}

/// What a Masakari call makes (`POST /servers/<id>/action`), or `None` for a line that
/// is no Nova call.
pub fn call_key(call: &Event) -> Option<String> {
    expected_request(call.message(), call.instances.first().copied())
        .map(|e| format!("{} {}", e.method, e.path_parts.join(" ")))
}

/// The time of a request counted from the middle of its second when it has one-second
/// precision.
pub fn request_midpoint(event: &Event) -> i64 {
    if event.second_precision {
        event.time + 500_000_000
    } else {
        event.time
    }
}

/// A candidate with the instance its call names.
type Paired = (Candidate, Option<Uuid>);

/// A Masakari call and a Nova request that could be its pair.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Candidate {
    /// The call event.
    pub call: EventId,
    /// The request event.
    pub request: EventId,
    /// Request time minus call time in nanoseconds (midpoint for one-second stamps).
    pub delay: i64,
}

/// Every (call, request) pair whose request is what the call makes, with the request
/// logged between `before` nanoseconds before the call and `after` nanoseconds after it.
/// Each comes with the instance the call names and the key of what the call makes
/// (`POST /servers/<id>/action`), which groups calls that compete for the same requests.
pub fn candidates(
    events: &[Event],
    project_of: impl Fn(&Event) -> Project,
    before: i64,
    after: i64,
) -> Vec<(Candidate, Option<Uuid>, String)> {
    let requests: Vec<EventId> = events
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.kind == EventKind::Request && e.http().is_some() && project_of(e) == Project::Nova
        })
        .map(|(i, _)| i as EventId)
        .collect();
    let mut out = Vec::new();
    for (position, call) in events.iter().enumerate() {
        if call.logger() != Some("masakari.compute.nova") {
            continue;
        }
        let Some(expected) = expected_request(call.message(), call.instances.first().copied())
        else {
            continue;
        };
        let start = requests.partition_point(|&r| events[r as usize].time < call.time - before);
        for &r in &requests[start..] {
            let request = &events[r as usize];
            if request.time > call.time + after {
                break;
            }
            if let (Some(g), Some(rg)) = (call.global_request_id, request.global_request_id)
                && g != rg
            {
                continue;
            }
            if matches(&expected, request) {
                let candidate = Candidate {
                    call: position as EventId,
                    request: r,
                    delay: request_midpoint(request) - call.time,
                };
                let key = format!("{} {}", expected.method, expected.path_parts.join(" "));
                out.push((candidate, expected.instance, key));
            }
        }
    }
    out
}

/// Joins Masakari calls with Nova requests. `project_of(event)` tells which project's
/// log an event comes from. Events must be in time order.
///
/// Calls and requests of one kind (say every `POST /servers/<id>/action` of one
/// instance) are paired in order, the way they happened, choosing the pairing with the
/// most pairs and, among those, the smallest delays; so two requests stamped in the
/// same second go to the two calls in the order they were made. Access lines and
/// request-log lines are paired separately, since a request often appears in both.
pub fn join_calls(events: &[Event], project_of: impl Fn(&Event) -> Project) -> Vec<Join> {
    let all = candidates(events, project_of, BEFORE_NS, AFTER_NS);
    // Group by what the call makes and by which log the request is in.
    let mut groups: std::collections::BTreeMap<(String, bool), Vec<Paired>> = Default::default();
    for (candidate, instance, key) in all {
        let kind = events[candidate.request as usize].second_precision;
        groups
            .entry((key, kind))
            .or_default()
            .push((candidate, instance));
    }
    let mut joins = Vec::new();
    for (_, group) in groups {
        joins.extend(pair_in_order(&group));
    }
    // A request-log line and an access line may be claimed by different calls of one
    // group; that is fine. A request may not be claimed twice within its kind, which
    // `pair_in_order` guarantees.
    joins.sort_by_key(|j| (j.call, j.request));
    joins
}

/// Order-preserving pairing of one group's calls and requests (dynamic programming over
/// the calls and requests sorted by time): most pairs first, then the least total delay.
fn pair_in_order(group: &[Paired]) -> Vec<Join> {
    let mut calls: Vec<EventId> = group.iter().map(|(c, _)| c.call).collect();
    let mut requests: Vec<EventId> = group.iter().map(|(c, _)| c.request).collect();
    calls.sort_unstable();
    calls.dedup();
    requests.sort_unstable();
    requests.dedup();
    let lookup: std::collections::HashMap<(EventId, EventId), (i64, Option<Uuid>)> = group
        .iter()
        .map(|(c, i)| ((c.call, c.request), (c.delay, *i)))
        .collect();
    let (n, m) = (calls.len(), requests.len());
    // score[i][j]: best (pairs, -cost) using calls[i..] and requests[j..].
    let mut score = vec![vec![(0i64, 0i64); m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            let mut best = score[i + 1][j].max(score[i][j + 1]);
            if let Some((delay, _)) = lookup.get(&(calls[i], requests[j])) {
                let cost = if *delay < 0 { delay.abs() * 4 } else { *delay };
                let (pairs, neg_cost) = score[i + 1][j + 1];
                best = best.max((pairs + 1, neg_cost - cost / 1_000_000));
            }
            score[i][j] = best;
        }
    }
    let mut out = Vec::new();
    let (mut i, mut j) = (0, 0);
    while i < n && j < m {
        if let Some((delay, instance)) = lookup.get(&(calls[i], requests[j])) {
            let cost = if *delay < 0 { delay.abs() * 4 } else { *delay };
            let (pairs, neg_cost) = score[i + 1][j + 1];
            if score[i][j] == (pairs + 1, neg_cost - cost / 1_000_000) {
                out.push(Join {
                    call: calls[i],
                    request: requests[j],
                    instance: *instance,
                    delay_ms: delay / 1_000_000,
                });
                i += 1;
                j += 1;
                continue;
            }
        }
        if score[i][j] == score[i + 1][j] {
            i += 1;
        } else {
            j += 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::HttpRequest;

    fn event(
        time_s: f64,
        logger: Option<&str>,
        text: &str,
        http: Option<(&str, &str, u16)>,
    ) -> Event {
        let kind = if http.is_some() {
            EventKind::Request
        } else {
            EventKind::Log
        };
        let mut e = Event::new(0, 1, 0, kind);
        e.time = (time_s * 1e9) as i64;
        if let Some(logger) = logger {
            e.set_logger(logger);
        }
        e.instances = crate::correlate::ids::classified_uuids(text)
            .into_iter()
            .map(|(_, u)| u)
            .collect::<Vec<_>>()
            .into();
        if let Some((m, p, s)) = http {
            e.set_http(HttpRequest {
                method: m.into(),
                path: p.into(),
                status: s,
                user_agent: None,
            });
        }
        e.set_text(text, &[]);
        e.message_len = text.len() as u32;
        e.second_precision = http.is_some();
        e
    }

    const I: &str = "56ce6206-3659-495e-a6ea-f4d3d578cc96";

    #[test]
    fn seed_calls_join_their_access_lines() {
        let nova = Some("masakari.compute.nova");
        let events = vec![
            event(
                9.618,
                nova,
                &format!("Call get server command for instance {I}"),
                None,
            ),
            event(
                11.0,
                None,
                "",
                Some(("GET", &format!("/v2.1/servers/{I}"), 200)),
            ),
            event(
                11.734,
                nova,
                &format!("Call lock server command for instance {I}"),
                None,
            ),
            event(
                12.0,
                None,
                "",
                Some(("POST", &format!("/v2.1/servers/{I}/action"), 202)),
            ),
            event(
                12.309,
                nova,
                &format!("Call evacuate command for instance {I} on host None"),
                None,
            ),
            event(
                12.0,
                None,
                "",
                Some(("POST", &format!("/v2.1/servers/{I}/action"), 400)),
            ),
            event(
                14.214,
                nova,
                &format!("Call unlock server command for instance {I}"),
                None,
            ),
            event(
                14.0,
                None,
                "",
                Some(("POST", &format!("/v2.1/servers/{I}/action"), 202)),
            ),
        ];
        let mut sorted = events.clone();
        sorted.sort_by_key(|e| e.time);
        let joins = join_calls(&sorted, |e| {
            if e.http().is_some() {
                Project::Nova
            } else {
                Project::Masakari
            }
        });
        // Two POSTs stamped in the same second go to the lock and the evacuate in the
        // order they were made.
        let pairs: Vec<(String, u16)> = joins
            .iter()
            .map(|j| {
                (
                    sorted[j.call as usize]
                        .text()
                        .split(" command")
                        .next()
                        .unwrap()
                        .to_string(),
                    sorted[j.request as usize].http().unwrap().status,
                )
            })
            .collect();
        assert_eq!(
            pairs,
            [
                ("Call get server".to_string(), 200),
                ("Call lock server".to_string(), 202),
                ("Call evacuate".to_string(), 400),
                ("Call unlock server".to_string(), 202)
            ]
        );
    }

    #[test]
    fn get_server_needs_the_exact_path() {
        let e = expected_request(
            &format!("Call get server command for instance {I}"),
            crate::model::Uuid::parse(I),
        )
        .unwrap();
        let action = event(
            1.0,
            None,
            "",
            Some((
                "GET",
                &format!("/v2.1/servers/{I}/os-instance-actions"),
                200,
            )),
        );
        let get = event(
            1.0,
            None,
            "",
            Some(("GET", &format!("/v2.1/servers/{I}"), 200)),
        );
        assert!(!matches(&e, &action));
        assert!(matches(&e, &get));
    }
}
