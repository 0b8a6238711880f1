//! Nova calls: services, servers, lock, unlock, evacuate, each with the request variant
//! of the microversion chosen in `versions`, and the answers read into the trait's types.

use std::collections::BTreeMap;

use openstack_sdk::api::compute::v2::{migration, server, service};
use serde_json::Value;

use super::call::{Call, Service, send, version_headers};
use super::session::Api;
use super::versions::{self, EvacuateForm, ServiceUpdate, Version};
use crate::openstack::cloud::{CloudError, ComputeService, Migration, NovaService, Server};

/// The binary of the services the executor acts on.
const COMPUTE_BINARY: &str = "nova-compute";

/// `GET /os-services?binary=nova-compute&host=HOST`.
pub async fn compute_service(
    session: &Api,
    max: Version,
    host: &str,
) -> Result<Option<ComputeService>, CloudError> {
    let call = Call::new(
        "GET",
        format!("/os-services?binary={COMPUTE_BINARY}&host={host}"),
    );
    let request = call.built(
        service::list_20::Request::builder()
            .binary(COMPUTE_BINARY)
            .host(host)
            .headers(version_headers(Service::Compute, versions::compute_read(max)).into_iter())
            .build(),
    )?;
    let body = send(session, &call, request).await?;
    let services = body
        .get("services")
        .and_then(Value::as_array)
        .ok_or_else(|| call.unexpected("no services list"))?;
    services
        .iter()
        .filter(|s| s.get("host").and_then(Value::as_str) == Some(host))
        .map(|s| parse_service(&call, s))
        .next()
        .transpose()
}

/// `GET /os-services`: every binary, for the guards.
pub async fn services(session: &Api, max: Version) -> Result<Vec<NovaService>, CloudError> {
    let call = Call::new("GET", "/os-services");
    let request = call.built(
        service::list_20::Request::builder()
            .headers(version_headers(Service::Compute, versions::compute_read(max)).into_iter())
            .build(),
    )?;
    let body = send(session, &call, request).await?;
    let services = body
        .get("services")
        .and_then(Value::as_array)
        .ok_or_else(|| call.unexpected("no services list"))?;
    services
        .iter()
        // A service of a cell that is down (2.69) shows no id or state: it is not counted.
        .filter(|s| s.get("id").is_some())
        .map(|s| {
            let binary = s
                .get("binary")
                .and_then(Value::as_str)
                .ok_or_else(|| call.unexpected("a service without a binary"))?;
            Ok(NovaService {
                binary: binary.to_string(),
                service: parse_service(&call, s)?,
            })
        })
        .collect()
}

/// `GET /os-migrations?source_compute=HOST&migration_type=evacuation&status=done`.
pub async fn done_evacuations(
    session: &Api,
    max: Version,
    host: &str,
) -> Result<Vec<Migration>, CloudError> {
    let call = Call::new(
        "GET",
        format!("/os-migrations?source_compute={host}&migration_type=evacuation&status=done"),
    );
    let request = call.built(
        migration::get_20::Request::builder()
            .source_compute(host)
            .migration_type("evacuation")
            .status("done")
            .headers(version_headers(Service::Compute, versions::compute_read(max)).into_iter())
            .build(),
    )?;
    let body = send(session, &call, request).await?;
    let list = body
        .get("migrations")
        .and_then(Value::as_array)
        .ok_or_else(|| call.unexpected("no migrations list"))?;
    list.iter()
        .map(|m| {
            let text = |key: &str| m.get(key).and_then(Value::as_str).map(str::to_string);
            let id = match m.get("uuid").or_else(|| m.get("id")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Number(n)) => n.to_string(),
                _ => return Err(call.unexpected("a migration without an id")),
            };
            Ok(Migration {
                id,
                instance: text("instance_uuid")
                    .ok_or_else(|| call.unexpected("a migration without an instance"))?,
                destination: text("dest_compute"),
                status: text("status").unwrap_or_default(),
            })
        })
        .collect()
}

/// A service from its JSON view.
pub fn parse_service(call: &Call, value: &Value) -> Result<ComputeService, CloudError> {
    let text = |key: &str| value.get(key).and_then(Value::as_str);
    let id = match value.get("id") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => return Err(call.unexpected("a service without an id")),
    };
    let host = text("host")
        .ok_or_else(|| call.unexpected("a service without a host"))?
        .to_string();
    Ok(ComputeService {
        id,
        host,
        enabled: text("status") != Some("disabled"),
        up: text("state") == Some("up"),
        forced_down: value
            .get("forced_down")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        disabled_reason: text("disabled_reason").map(str::to_string),
    })
}

/// The service after a pre-2.53 update, whose answer holds only the fields it set.
fn merge_partial(service: &ComputeService, answer: &Value) -> ComputeService {
    let mut merged = service.clone();
    if let Some(forced) = answer.get("forced_down").and_then(Value::as_bool) {
        merged.forced_down = forced;
        if forced {
            merged.up = false;
        }
    }
    if let Some(status) = answer.get("status").and_then(Value::as_str) {
        merged.enabled = status != "disabled";
    }
    if let Some(reason) = answer.get("disabled_reason") {
        merged.disabled_reason = reason.as_str().map(str::to_string);
    }
    merged
}

/// What an update of a compute service changes.
#[derive(Debug, Clone, Copy)]
enum Change<'a> {
    ForcedDown(bool),
    Disable(&'a str),
    Enable,
}

impl Change<'_> {
    /// The action path of the pre-2.53 API (`/os-services/<action>`, host and binary in
    /// the body).
    fn action(self) -> &'static str {
        match self {
            Change::ForcedDown(_) => "force-down",
            Change::Disable(_) => "disable-log-reason",
            Change::Enable => "enable",
        }
    }
}

/// Sets `forced_down` on `service`.
pub async fn force_down(
    session: &Api,
    max: Version,
    target: &ComputeService,
    forced_down: bool,
) -> Result<ComputeService, CloudError> {
    update(session, max, target, Change::ForcedDown(forced_down)).await
}

/// Disables `service` with `reason`.
pub async fn disable(
    session: &Api,
    max: Version,
    target: &ComputeService,
    reason: &str,
) -> Result<ComputeService, CloudError> {
    update(session, max, target, Change::Disable(reason)).await
}

/// Enables `service` (its disabled reason is cleared by Nova).
pub async fn enable(
    session: &Api,
    max: Version,
    target: &ComputeService,
) -> Result<ComputeService, CloudError> {
    let mut enabled = update(session, max, target, Change::Enable).await?;
    enabled.disabled_reason = None;
    Ok(enabled)
}

/// One update of a compute service in the form the cloud's microversion takes: by its
/// UUID from 2.53 (the answer is the whole service), by host and binary before (the
/// answer holds only the fields set, merged into `target`).
async fn update(
    session: &Api,
    max: Version,
    target: &ComputeService,
    change: Change<'_>,
) -> Result<ComputeService, CloudError> {
    let (form, version) = versions::service_update(max);
    let headers = version_headers(Service::Compute, version);
    if form == ServiceUpdate::ByUuid {
        let call = Call::new("PUT", format!("/os-services/{}", target.id));
        let mut builder = service::set_253::Request::builder();
        builder.id(target.id.as_str()).headers(headers.into_iter());
        match change {
            Change::ForcedDown(down) => builder.forced_down(down),
            Change::Disable(reason) => builder
                .status(service::set_253::Status::Disabled)
                .disabled_reason(reason),
            Change::Enable => builder.status(service::set_253::Status::Enabled),
        };
        let body = send(session, &call, call.built(builder.build())?).await?;
        return service_answer(&call, &body);
    }
    let action = change.action();
    let call = Call::new("PUT", format!("/os-services/{action}"));
    // The 2.11 request variant has exactly the pre-2.53 body (and forced_down); the 2.0
    // one serves older clouds, which have no forced_down.
    let body = match (form, change) {
        (ServiceUpdate::Legacy, Change::ForcedDown(_)) => {
            return Err(CloudError::Status {
                method: "PUT".into(),
                path: call.path.clone(),
                status: 404,
                message: format!(
                    "the cloud's compute API ({}) predates forced_down (2.11)",
                    versions::show(max)
                ),
            });
        }
        (ServiceUpdate::Legacy, _) => {
            let mut builder = service::set_20::Request::builder();
            builder
                .id(action)
                .host(target.host.as_str())
                .binary(COMPUTE_BINARY)
                .headers(headers.into_iter());
            if let Change::Disable(reason) = change {
                builder.disabled_reason(reason);
            }
            send(session, &call, call.built(builder.build())?).await?
        }
        _ => {
            let mut builder = service::set_211::Request::builder();
            builder
                .id(action)
                .host(target.host.as_str())
                .binary(COMPUTE_BINARY)
                .headers(headers.into_iter());
            match change {
                Change::ForcedDown(down) => {
                    builder.forced_down(down);
                }
                Change::Disable(reason) => {
                    builder.disabled_reason(reason);
                }
                Change::Enable => {}
            }
            send(session, &call, call.built(builder.build())?).await?
        }
    };
    Ok(merge_partial(target, body.get("service").unwrap_or(&body)))
}

fn service_answer(call: &Call, body: &Value) -> Result<ComputeService, CloudError> {
    let service = body
        .get("service")
        .ok_or_else(|| call.unexpected("no service in the answer"))?;
    parse_service(call, service)
}

/// A server from its admin JSON view.
pub fn parse_server(call: &Call, value: &Value) -> Result<Server, CloudError> {
    let text = |key: &str| value.get(key).and_then(Value::as_str).map(str::to_string);
    let id = text("id").ok_or_else(|| call.unexpected("a server without an id"))?;
    let metadata: BTreeMap<String, String> = value
        .get("metadata")
        .and_then(Value::as_object)
        .map(|m| {
            m.iter()
                .map(|(k, v)| {
                    (
                        k.clone(),
                        v.as_str().map_or_else(|| v.to_string(), str::to_string),
                    )
                })
                .collect()
        })
        .unwrap_or_default();
    let volumes = value
        .get("os-extended-volumes:volumes_attached")
        .and_then(Value::as_array)
        .map(|vs| {
            vs.iter()
                .filter_map(|v| v.get("id").and_then(Value::as_str).map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    Ok(Server {
        name: text("name").unwrap_or_default(),
        status: text("status").unwrap_or_default(),
        host: text("OS-EXT-SRV-ATTR:host").filter(|h| !h.is_empty()),
        task_state: text("OS-EXT-STS:task_state"),
        vm_state: text("OS-EXT-STS:vm_state"),
        locked: value
            .get("locked")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        locked_reason: text("locked_reason"),
        metadata,
        volumes,
        id,
    })
}

/// The `marker` of a `servers_links` `next` link.
fn next_marker(body: &Value) -> Option<String> {
    let links = body.get("servers_links")?.as_array()?;
    let next = links
        .iter()
        .find(|l| l.get("rel").and_then(Value::as_str) == Some("next"))?;
    let href = next.get("href")?.as_str()?;
    let query = href.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (key, value) = pair.split_once('=')?;
        (key == "marker").then(|| value.to_string())
    })
}

/// `GET /servers/detail?all_tenants=1&host=HOST`, every page.
pub async fn servers_on_host(
    session: &Api,
    max: Version,
    host: &str,
) -> Result<Vec<Server>, CloudError> {
    let mut servers = Vec::new();
    let mut marker: Option<String> = None;
    loop {
        let mut path = format!("/servers/detail?all_tenants=1&host={host}");
        if let Some(m) = &marker {
            path.push_str(&format!("&marker={m}"));
        }
        let call = Call::new("GET", path);
        let mut builder = server::list_detailed_21::Request::builder();
        builder
            .all_tenants("1")
            .host(host)
            .headers(version_headers(Service::Compute, versions::compute_read(max)).into_iter());
        if let Some(m) = &marker {
            builder.marker(m.clone());
        }
        let request = call.built(builder.build())?;
        let body = send(session, &call, request).await?;
        let page = body
            .get("servers")
            .and_then(Value::as_array)
            .ok_or_else(|| call.unexpected("no servers list"))?;
        for value in page {
            servers.push(parse_server(&call, value)?);
        }
        match next_marker(&body) {
            Some(next) if !page.is_empty() && marker.as_ref() != Some(&next) => marker = Some(next),
            _ => break,
        }
    }
    Ok(servers)
}

/// `GET /servers/{id}`.
pub async fn get_server(session: &Api, max: Version, id: &str) -> Result<Server, CloudError> {
    let call = Call::new("GET", format!("/servers/{id}"));
    let request = call.built(
        server::get_20::Request::builder()
            .id(id)
            .headers(version_headers(Service::Compute, versions::compute_read(max)).into_iter())
            .build(),
    )?;
    let body = send(session, &call, request).await?;
    let value = body
        .get("server")
        .ok_or_else(|| call.unexpected("no server in the answer"))?;
    parse_server(&call, value)
}

/// `lock`, with the reason from 2.73.
pub async fn lock(session: &Api, max: Version, id: &str, reason: &str) -> Result<(), CloudError> {
    let call = Call::new("POST", format!("/servers/{id}/action lock"));
    if versions::lock_with_reason(max) && !reason.is_empty() {
        let lock = call.built(
            server::lock_273::LockBuilder::default()
                .locked_reason(reason)
                .build(),
        )?;
        let request = call.built(
            server::lock_273::Request::builder()
                .id(id)
                .lock(lock)
                .headers(version_headers(Service::Compute, (2, 73)).into_iter())
                .build(),
        )?;
        send(session, &call, request).await?;
    } else {
        let request = call.built(
            server::lock_21::Request::builder()
                .id(id)
                .lock(Value::Null)
                .headers(version_headers(Service::Compute, (2, 1)).into_iter())
                .build(),
        )?;
        send(session, &call, request).await?;
    }
    Ok(())
}

/// `unlock`.
pub async fn unlock(session: &Api, id: &str) -> Result<(), CloudError> {
    let call = Call::new("POST", format!("/servers/{id}/action unlock"));
    let request = call.built(
        server::unlock_21::Request::builder()
            .id(id)
            .unlock(Value::Null)
            .headers(version_headers(Service::Compute, (2, 1)).into_iter())
            .build(),
    )?;
    send(session, &call, request).await?;
    Ok(())
}

/// `evacuate` in the body form of the highest microversion both sides know, up to 2.94
/// (see [`EvacuateForm`]); no target host, no admin password, and shared storage left to
/// Nova to find out (2.14+).
pub async fn evacuate(session: &Api, max: Version, id: &str) -> Result<(), CloudError> {
    let call = Call::new("POST", format!("/servers/{id}/action evacuate"));
    let (form, version) = versions::evacuate_form(max);
    let headers = version_headers(Service::Compute, version).into_iter();
    // Each form is a module of the SDK with its own types, built alike: the form's body
    // (with the fields given), then the request around it.
    macro_rules! send_form {
        ($form:ident $(, $field:ident($value:expr))*) => {{
            let body = server::$form::EvacuateBuilder::default()$(.$field($value))*.build();
            let request = server::$form::Request::builder()
                .id(id)
                .evacuate(call.built(body)?)
                .headers(headers)
                .build();
            send(session, &call, call.built(request)?).await?
        }};
    }
    match form {
        EvacuateForm::V268 => send_form!(evacuate_268),
        EvacuateForm::V229 => send_form!(evacuate_229),
        EvacuateForm::V214 => send_form!(evacuate_214),
        // Before 2.14 the caller states whether the disk is on shared storage; false
        // rebuilds from the image or the volume, which is right for both.
        EvacuateForm::V21 => send_form!(evacuate_20, on_shared_storage(false)),
    };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_server_reads_from_the_admin_view() {
        let call = Call::new("GET", "/servers/x");
        let server = parse_server(
            &call,
            &json!({"id": "s1", "name": "web", "status": "ACTIVE",
                "OS-EXT-SRV-ATTR:host": "compute-1", "OS-EXT-STS:task_state": null,
                "OS-EXT-STS:vm_state": "active", "locked": true,
                "metadata": {"HA_Enabled": "True"},
                "os-extended-volumes:volumes_attached": [{"id": "v1", "delete_on_termination": false}]}),
        )
        .unwrap();
        assert_eq!(server.host.as_deref(), Some("compute-1"));
        assert!(server.locked);
        assert_eq!(server.task_state, None);
        assert_eq!(server.metadata["HA_Enabled"], "True");
        assert_eq!(server.volumes, vec!["v1".to_string()]);
    }

    #[test]
    fn service_ids_are_integers_before_253_and_uuids_after() {
        let call = Call::new("GET", "/os-services");
        let old = parse_service(
            &call,
            &json!({"id": 7, "host": "c1", "status": "disabled", "state": "down", "disabled_reason": "x"}),
        )
        .unwrap();
        assert_eq!(old.id, "7");
        assert!(!old.enabled && !old.up && !old.forced_down);
        let new = parse_service(
            &call,
            &json!({"id": "4f9c", "host": "c1", "status": "enabled", "state": "up", "forced_down": true}),
        )
        .unwrap();
        assert_eq!(new.id, "4f9c");
        assert!(new.enabled && new.up && new.forced_down);
    }

    #[test]
    fn the_next_page_marker_comes_from_servers_links() {
        let body = json!({"servers": [], "servers_links": [{"rel": "next",
            "href": "http://n/v2.1/servers/detail?all_tenants=1&limit=1000&marker=abc"}]});
        assert_eq!(next_marker(&body).as_deref(), Some("abc"));
        assert_eq!(next_marker(&json!({"servers": []})), None);
    }
}
