//! Around every request: scripted faults, the token check, the microversion, the
//! request-id headers, and the access and request-log lines.

use std::time::{Duration, Instant};

use axum::body::{Body, HttpBody};
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;

use super::context::{RequestCtx, SimState, fault, keystone_error};
use crate::sim::cloud::model::RequestIds;
use crate::sim::cloud::state::request_id;
use crate::sim::logs::{AccessEntry, AccessLog, Level};
use crate::sim::microversion::{Microversion, Requested, requested};

/// Which service a path belongs to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Api {
    Identity,
    Compute,
    Volume,
    Other,
}

impl Api {
    fn of(path: &str) -> Api {
        let first = path.trim_start_matches('/').split('/').next().unwrap_or("");
        match first {
            "identity" => Api::Identity,
            "compute" => Api::Compute,
            "volume" => Api::Volume,
            _ => Api::Other,
        }
    }
}

/// Paths that answer without a token: the version documents.
fn is_version_document(api: Api, path: &str) -> bool {
    let p = path.trim_end_matches('/');
    match api {
        Api::Compute => p == "/compute" || p == "/compute/v2.1" || p == "/compute/v2",
        Api::Volume => p == "/volume" || p == "/volume/v3",
        _ => false,
    }
}

/// The global request id a caller passed on (`X-OpenStack-Request-ID: req-<uuid>`).
fn global_request_id(headers: &HeaderMap) -> Option<String> {
    let value = headers.get("x-openstack-request-id")?.to_str().ok()?;
    evacdoc_parsers::text::is_request_id(value).then(|| value.to_string())
}

/// Runs a request through faults, auth and microversion checks, then logs it.
pub async fn around(State(sim): State<SimState>, mut request: Request, next: Next) -> Response {
    let started = Instant::now();
    let method = request.method().as_str().to_string();
    let uri = request.uri().path_and_query().map_or_else(
        || request.uri().path().to_string(),
        |p| p.as_str().to_string(),
    );
    let path = request.uri().path().to_string();
    let api = Api::of(&path);
    let headers = request.headers().clone();
    let user_agent = headers
        .get("user-agent")
        .and_then(|v| v.to_str().ok())
        .map(str::to_string);

    let (applied, now, mut ids, token_ok, max_nova, max_cinder) = {
        let mut cloud = sim.cloud();
        let now = cloud.now();
        let applied = cloud.faults.apply(&method, &uri, now);
        let token_ok = headers
            .get("x-auth-token")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|t| cloud.token_valid(t, now));
        let ids = RequestIds {
            request_id: request_id(),
            global_request_id: global_request_id(&headers),
            user_id: cloud.user_id.clone(),
            project_id: cloud.project_id.clone(),
        };
        let max_nova = Microversion::parse(&cloud.scenario.nova.max_microversion);
        let max_cinder = Microversion::parse(&cloud.scenario.cinder.max_microversion);
        (applied, now, ids, token_ok, max_nova, max_cinder)
    };
    if applied.latency_ms > 0 {
        tokio::time::sleep(Duration::from_millis(applied.latency_ms)).await;
    }

    let needs_token = matches!(api, Api::Compute | Api::Volume) && !is_version_document(api, &path);
    let (min, max, service, legacy) = match api {
        Api::Volume => (
            Microversion::new(3, 0),
            max_cinder.unwrap_or(Microversion::new(3, 0)),
            "volume",
            "x-openstack-volume-api-version",
        ),
        _ => (
            Microversion::new(2, 1),
            max_nova.unwrap_or(Microversion::new(2, 1)),
            "compute",
            "x-openstack-nova-api-version",
        ),
    };
    let asked = requested(&headers, service, legacy);
    let version = match asked {
        _ if !matches!(api, Api::Compute | Api::Volume) => Some(min),
        Requested::Default => Some(min),
        Requested::Latest => Some(max),
        Requested::Exact(v) if v >= min && v <= max => Some(v),
        Requested::Exact(_) | Requested::Invalid => None,
    };

    let mut response = if let Some(status) = applied.status {
        let mut response = match api {
            Api::Identity => keystone_error(status, "Service Unavailable", "simulated fault"),
            _ => fault(status, "simulated fault"),
        };
        if let Some(location) = applied
            .location
            .as_deref()
            .and_then(|l| HeaderValue::from_str(l).ok())
        {
            response.headers_mut().insert("location", location);
        }
        response
    } else if needs_token && !token_ok {
        ids.user_id = "-".into();
        ids.project_id = "-".into();
        keystone_error(
            401,
            "Unauthorized",
            "The request you have made requires authentication.",
        )
    } else if let Some(version) = version {
        request.extensions_mut().insert(RequestCtx {
            ids: ids.clone(),
            microversion: version,
        });
        next.run(request).await
    } else {
        let text = match asked {
            Requested::Exact(v) => format!(
                "Version {v} is not supported by the API. Minimum is {min} and maximum is {max}."
            ),
            _ => "API Version String is of invalid format. Must be of format MajorNum.MinorNum."
                .to_string(),
        };
        fault(
            if matches!(asked, Requested::Exact(_)) {
                406
            } else {
                400
            },
            &text,
        )
    };

    let status = response.status().as_u16();
    let body_len = response.body().size_hint().exact().unwrap_or(0);
    let headers_out = response.headers_mut();
    if let Ok(id) = HeaderValue::from_str(&ids.request_id) {
        headers_out.insert("x-openstack-request-id", id.clone());
        if api == Api::Compute {
            headers_out.insert("x-compute-request-id", id);
        }
    }
    let shown_version = version.filter(|_| matches!(api, Api::Compute | Api::Volume));
    if let Some(v) = shown_version {
        if let Ok(value) = HeaderValue::from_str(&format!("{service} {v}")) {
            headers_out.insert("openstack-api-version", value);
        }
        if api == Api::Compute
            && let Ok(value) = HeaderValue::from_str(&v.to_string())
        {
            headers_out.insert("x-openstack-nova-api-version", value);
        }
        headers_out.insert(
            "vary",
            HeaderValue::from_static("OpenStack-API-Version, X-OpenStack-Nova-API-Version"),
        );
    }
    let header_bytes: u64 = response
        .headers()
        .iter()
        .map(|(k, v)| (k.as_str().len() + v.len() + 4) as u64)
        .sum::<u64>()
        + 17;

    let log = match api {
        Api::Compute => Some(AccessLog::Nova),
        Api::Volume => Some(AccessLog::Cinder),
        Api::Identity => Some(AccessLog::Keystone),
        Api::Other => None,
    };
    let thrown = if api == Api::Compute && status >= 400 && status != 401 {
        Some(fault_message(&mut response).await)
    } else {
        None
    };
    if let Some(log) = log {
        let mut cloud = sim.cloud();
        // Apache stamps the arrival; nova-api's lines are written as the answer goes.
        let time = cloud.clock.at(now);
        let answered = cloud.clock.at(cloud.now());
        if let Some(message) = thrown {
            cloud.logs.nova_api(
                answered,
                Level::Info,
                "nova.api.openstack.wsgi",
                Some(&ids),
                None,
                &format!("HTTP exception thrown: {message}"),
            );
        }
        let entry = AccessEntry {
            time,
            method: &method,
            uri: &uri,
            status,
            bytes: body_len + header_bytes,
            user_agent: user_agent.as_deref(),
        };
        cloud.logs.access(log, &entry);
        if api == Api::Compute {
            // Version documents are not versioned: Nova writes `-` for them.
            let microversion = shown_version
                .filter(|_| !is_version_document(api, &path))
                .map(|v| v.to_string());
            let seconds = started.elapsed().as_secs_f64();
            let entry = AccessEntry {
                time: answered,
                ..entry
            };
            cloud
                .logs
                .nova_request(&ids, &entry, body_len, microversion.as_deref(), seconds);
        }
    }
    response
}

/// The message of a fault body, put back into the response after reading it.
async fn fault_message(response: &mut Response) -> String {
    let body = std::mem::replace(response.body_mut(), Body::empty());
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    let message = serde_json::from_slice::<serde_json::Value>(&bytes)
        .ok()
        .and_then(|v| {
            v.as_object()?
                .values()
                .next()?
                .get("message")?
                .as_str()
                .map(str::to_string)
        })
        .unwrap_or_default();
    *response.body_mut() = Body::from(bytes);
    message
}
