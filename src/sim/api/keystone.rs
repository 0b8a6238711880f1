//! Keystone v3 under `/identity`: version documents, and tokens by password or
//! application credential, with a catalog that points back at the simulator.

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Value, json};

use super::context::{SimState, keystone_error};
use crate::sim::clock::iso_z;
use crate::sim::cloud::model::Token;
use crate::sim::cloud::state::{Cloud, hex_id};

/// How long a token lives, in scenario seconds (Keystone's default).
const TOKEN_LIFETIME_S: f64 = 3600.0;

fn version_entry(base: &str) -> Value {
    json!({
        "id": "v3.14",
        "status": "stable",
        "updated": "2020-04-07T00:00:00Z",
        "links": [{"rel": "self", "href": format!("{base}/identity/v3/")}],
        "media-types": [{"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}],
    })
}

/// `GET /identity/`: the versions (300 Multiple Choices, as Keystone answers).
pub async fn versions(State(sim): State<SimState>) -> Response {
    let body = json!({"versions": {"values": [version_entry(&sim.base_url)]}});
    (StatusCode::MULTIPLE_CHOICES, Json(body)).into_response()
}

/// `GET /identity/v3`.
pub async fn version(State(sim): State<SimState>) -> Response {
    Json(json!({ "version": version_entry(&sim.base_url) })).into_response()
}

fn unauthorized() -> Response {
    keystone_error(
        401,
        "Unauthorized",
        "The request you have made requires authentication.",
    )
}

fn bad_request(message: &str) -> Response {
    keystone_error(400, "Bad Request", message)
}

/// Whether a `{"name": ...}` or `{"id": ...}` domain reference names the scenario's.
fn domain_matches(reference: Option<&Value>, domain: &str) -> bool {
    let Some(reference) = reference else {
        return false;
    };
    let by = |key: &str| reference.get(key).and_then(Value::as_str);
    by("name").is_some_and(|n| n == domain) || by("id").is_some_and(|i| i == domain.to_lowercase())
}

/// Why an auth request fails.
#[derive(Debug)]
enum Denied {
    /// Wrong or missing credentials: 401.
    Credentials,
    /// No identity at all: 400.
    NoIdentity,
}

impl Denied {
    fn response(&self) -> Response {
        match self {
            Denied::Credentials => unauthorized(),
            Denied::NoIdentity => bad_request("Expecting to find identity in auth."),
        }
    }
}

/// Checks the identity part of an auth request; the methods used on success.
fn authenticate(cloud: &Cloud, auth: &Value) -> Result<Vec<String>, Denied> {
    let identity = auth.get("identity").ok_or(Denied::NoIdentity)?;
    let methods: Vec<String> = identity
        .get("methods")
        .and_then(Value::as_array)
        .map(|m| {
            m.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    let config = &cloud.scenario.auth;
    if methods.iter().any(|m| m == "password") {
        let user = identity
            .pointer("/password/user")
            .ok_or(Denied::Credentials)?;
        let name_ok = user.get("name").and_then(Value::as_str) == Some(config.user.as_str())
            && domain_matches(user.get("domain"), &config.domain);
        let id_ok = user.get("id").and_then(Value::as_str) == Some(cloud.user_id.as_str());
        let password_ok =
            user.get("password").and_then(Value::as_str) == Some(config.password.as_str());
        return if (name_ok || id_ok) && password_ok {
            Ok(methods)
        } else {
            Err(Denied::Credentials)
        };
    }
    if methods.iter().any(|m| m == "application_credential") {
        let credential = identity
            .get("application_credential")
            .ok_or(Denied::Credentials)?;
        let Some(expected) = &config.application_credential else {
            return Err(Denied::Credentials);
        };
        let field = |k: &str| credential.get(k).and_then(Value::as_str);
        let named = field("id") == Some(expected.id.as_str())
            || (field("name").is_some() && field("name") == expected.name.as_deref());
        return if named && field("secret") == Some(expected.secret.as_str()) {
            Ok(methods)
        } else {
            Err(Denied::Credentials)
        };
    }
    Err(Denied::Credentials)
}

/// Whether the requested scope (if any) is the scenario's project.
fn scope_ok(cloud: &Cloud, auth: &Value) -> bool {
    let Some(project) = auth.pointer("/scope/project") else {
        return true;
    };
    let config = &cloud.scenario.auth;
    let by_name = project.get("name").and_then(Value::as_str) == Some(config.project.as_str())
        && domain_matches(project.get("domain"), &config.domain);
    let by_id = project.get("id").and_then(Value::as_str) == Some(cloud.project_id.as_str());
    by_name || by_id
}

/// The token body: user, project, roles, expiry and the catalog.
fn token_body(cloud: &Cloud, base: &str, token: &Token) -> Value {
    let config = &cloud.scenario.auth;
    let region = &config.region;
    let domain = json!({"id": config.domain.to_lowercase(), "name": config.domain});
    let endpoints = |url: String| {
        let url = url.as_str();
        json!(["public", "internal", "admin"].map(|interface| json!({
            "id": hex_id(),
            "interface": interface,
            "region": region,
            "region_id": region,
            "url": url,
        })))
    };
    let volume = format!("{base}/volume/v3/{}", cloud.project_id);
    let service = |kind: &str, name: &str, url: String| json!({"id": hex_id(), "type": kind, "name": name, "endpoints": endpoints(url)});
    json!({"token": {
        "methods": token.methods,
        "user": {"id": cloud.user_id, "name": config.user, "domain": domain, "password_expires_at": null},
        "project": {"id": cloud.project_id, "name": config.project, "domain": domain},
        "roles": [{"id": hex_id(), "name": "admin"}, {"id": hex_id(), "name": "member"}, {"id": hex_id(), "name": "reader"}],
        "is_domain": false,
        "audit_ids": [hex_id()],
        "issued_at": iso_z(cloud.clock.at(token.issued_s)),
        "expires_at": iso_z(cloud.clock.at(token.expires_s)),
        "catalog": [
            service("identity", "keystone", format!("{base}/identity")),
            service("compute", "nova", format!("{base}/compute/v2.1")),
            service("volumev3", "cinderv3", volume.clone()),
            service("block-storage", "cinder", volume),
        ],
    }})
}

/// `POST /identity/v3/auth/tokens`.
pub async fn issue(State(sim): State<SimState>, body: axum::body::Bytes) -> Response {
    let Ok(request) = serde_json::from_slice::<Value>(&body) else {
        return bad_request("The request body is not valid JSON.");
    };
    let Some(auth) = request.get("auth") else {
        return bad_request("Expecting to find auth in request.");
    };
    let mut cloud = sim.cloud();
    let methods = match authenticate(&cloud, auth) {
        Ok(m) => m,
        Err(denied) => return denied.response(),
    };
    if !scope_ok(&cloud, auth) {
        return unauthorized();
    }
    let now = cloud.now();
    let token = Token {
        issued_s: now,
        expires_s: now + TOKEN_LIFETIME_S,
        methods,
    };
    let id = format!("gAAAAA{}{}", hex_id(), hex_id());
    let body = token_body(&cloud, &sim.base_url, &token);
    cloud.tokens.insert(id.clone(), token);
    let mut response = (StatusCode::CREATED, Json(body)).into_response();
    if let Ok(value) = HeaderValue::from_str(&id) {
        response.headers_mut().insert("x-subject-token", value);
    }
    response
}

/// `GET /identity/v3/auth/tokens`: validates `X-Subject-Token` for `X-Auth-Token`.
pub async fn validate(State(sim): State<SimState>, headers: HeaderMap) -> Response {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_string)
    };
    let cloud = sim.cloud();
    let now = cloud.now();
    if !header("x-auth-token").is_some_and(|t| cloud.token_valid(&t, now)) {
        return unauthorized();
    }
    let Some(subject) = header("x-subject-token") else {
        return bad_request("Expecting to find X-Subject-Token in headers.");
    };
    match cloud.tokens.get(&subject).filter(|t| t.expires_s > now) {
        Some(token) => {
            let mut response = Json(token_body(&cloud, &sim.base_url, token)).into_response();
            if let Ok(value) = HeaderValue::from_str(&subject) {
                response.headers_mut().insert("x-subject-token", value);
            }
            response
        }
        None => keystone_error(
            404,
            "Not Found",
            &format!("Could not find token: {subject}."),
        ),
    }
}
