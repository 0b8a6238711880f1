//! The one table of Masakari's calls to Nova: the line `masakari.compute.nova` logs for
//! each (reference §2.5) and the HTTP request it makes. Joins pair calls with requests by
//! it; recoveries name calls by it.

/// What a Masakari call to Nova does.
#[derive(
    Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "kebab-case")]
pub enum CallAction {
    /// `Call get server command` (`GET /servers/<id>`).
    GetServer,
    /// `Call lock server command`.
    Lock,
    /// `Call unlock server command`.
    Unlock,
    /// `Call evacuate command`.
    Evacuate,
    /// `Call stop server command`.
    Stop,
    /// `Call start server command`.
    Start,
    /// `Call reset state command`.
    ResetState,
    /// `Fetch Server list on <host>`.
    ListServers,
    /// `Disable nova-compute on <host>`.
    DisableService,
    /// `Enable nova-compute on <host>`.
    EnableService,
    /// `Call aggregate-list command`.
    ListAggregates,
    /// `Call add_host command to add host '<host>' to aggregate '<name>'`.
    AddHostToAggregate,
}

/// The shape of the request path a call makes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathShape {
    /// `/servers/<instance>`, nothing after it.
    Server,
    /// `/servers/<instance>/action`.
    ServerAction,
    /// `/servers/detail?…host=<host>`, the host named after the call's prefix.
    ServersOnHost,
    /// `/os-services…`.
    Services,
    /// `/os-aggregates`.
    Aggregates,
    /// `/os-aggregates/<id>/action`.
    AggregateAction,
}

/// One kind of call: how the engine logs it and what Nova receives.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CallKind {
    /// The action.
    pub action: CallAction,
    /// The start of the `masakari.compute.nova` message.
    pub prefix: &'static str,
    /// The HTTP method.
    pub method: &'static str,
    /// The request path.
    pub path: PathShape,
}

/// Every call kind.
pub const CALLS: [CallKind; 12] = [
    call(
        CallAction::GetServer,
        "Call get server command",
        "GET",
        PathShape::Server,
    ),
    call(
        CallAction::Lock,
        "Call lock server command",
        "POST",
        PathShape::ServerAction,
    ),
    call(
        CallAction::Unlock,
        "Call unlock server command",
        "POST",
        PathShape::ServerAction,
    ),
    call(
        CallAction::Evacuate,
        "Call evacuate command",
        "POST",
        PathShape::ServerAction,
    ),
    call(
        CallAction::Stop,
        "Call stop server command",
        "POST",
        PathShape::ServerAction,
    ),
    call(
        CallAction::Start,
        "Call start server command",
        "POST",
        PathShape::ServerAction,
    ),
    call(
        CallAction::ResetState,
        "Call reset state command",
        "POST",
        PathShape::ServerAction,
    ),
    call(
        CallAction::ListServers,
        "Fetch Server list on ",
        "GET",
        PathShape::ServersOnHost,
    ),
    // GET /os-services?host=… first, then the PUT that changes it.
    call(
        CallAction::DisableService,
        "Disable nova-compute on ",
        "PUT",
        PathShape::Services,
    ),
    call(
        CallAction::EnableService,
        "Enable nova-compute on ",
        "PUT",
        PathShape::Services,
    ),
    call(
        CallAction::ListAggregates,
        "Call aggregate-list command",
        "GET",
        PathShape::Aggregates,
    ),
    call(
        CallAction::AddHostToAggregate,
        "Call add_host command",
        "POST",
        PathShape::AggregateAction,
    ),
];

const fn call(
    action: CallAction,
    prefix: &'static str,
    method: &'static str,
    path: PathShape,
) -> CallKind {
    CallKind {
        action,
        prefix,
        method,
        path,
    }
}

impl CallKind {
    /// The kind of call a `masakari.compute.nova` message logs.
    pub fn of(message: &str) -> Option<&'static CallKind> {
        CALLS.iter().find(|k| message.starts_with(k.prefix))
    }

    /// The host a host call names (`Disable nova-compute on <host>`).
    pub fn host<'m>(&self, message: &'m str) -> Option<&'m str> {
        if !matches!(self.path, PathShape::ServersOnHost | PathShape::Services) {
            return None;
        }
        let rest = message.strip_prefix(self.prefix)?;
        let host = rest.split_whitespace().next()?.trim_end_matches('.');
        (!host.is_empty()).then_some(host)
    }
}

impl CallAction {
    /// The action a `masakari.compute.nova` message logs.
    pub fn of(message: &str) -> Option<CallAction> {
        CallKind::of(message).map(|k| k.action)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_one_kind_and_messages_find_it() {
        for (i, k) in CALLS.iter().enumerate() {
            assert!(CALLS[..i].iter().all(|o| o.action != k.action));
            assert_eq!(CallAction::of(k.prefix), Some(k.action));
        }
        let disable = CallKind::of("Disable nova-compute on node02ob100.maas").unwrap();
        assert_eq!(
            disable.host("Disable nova-compute on node02ob100.maas"),
            Some("node02ob100.maas")
        );
        assert_eq!(
            CallAction::of(
                "Call evacuate command for instance 56ce6206-3659-495e-a6ea-f4d3d578cc96 on host None"
            ),
            Some(CallAction::Evacuate)
        );
        assert_eq!(
            CallAction::of("Creating a Nova client using \"nova\" user"),
            None
        );
    }
}
