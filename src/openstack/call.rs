//! One request through the session ([`Api`]) with the microversion chosen here, and its
//! answer or failure as a [`CloudError`] naming the method, the path, the status and the
//! cloud's own message (or the redirect it answered, which is not followed).

use std::borrow::Cow;
use std::collections::HashMap;

use bytes::Bytes;
use http::{HeaderMap, HeaderName, HeaderValue, Response};
use openstack_sdk::api::rest_endpoint_prelude::{
    ApiVersion, BodyError, QueryParams, RestEndpoint, ServiceType,
};
use openstack_sdk::api::{ApiError, QueryAsync, raw};
use serde_json::Value;

use super::session::{Api, TransportError};
use super::transport;
use super::versions::{Version, show};
use crate::openstack::cloud::CloudError;

/// The service a microversion header is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Service {
    Compute,
    Volume,
}

/// Who calls, in the clouds' access logs (`evacdoc analyze` tells the executor's calls
/// from Masakari's by it).
pub const USER_AGENT: &str = concat!("evacdoc/", env!("CARGO_PKG_VERSION"), " openstack_sdk");

/// The headers of every request: the `OpenStack-API-Version` asking `service` for
/// `version` (Nova also gets the legacy header: before 2.27 it reads only that one), and
/// the user agent.
pub fn version_headers(
    service: Service,
    version: Version,
) -> Vec<(Option<HeaderName>, HeaderValue)> {
    let text = show(version);
    let mut headers = Vec::new();
    let mut push = |name: &'static str, value: String| {
        if let Ok(value) = HeaderValue::from_str(&value) {
            headers.push((Some(HeaderName::from_static(name)), value));
        }
    };
    match service {
        Service::Compute => {
            push("openstack-api-version", format!("compute {text}"));
            push("x-openstack-nova-api-version", text);
        }
        Service::Volume => push("openstack-api-version", format!("volume {text}")),
    }
    push("user-agent", USER_AGENT.to_string());
    headers
}

/// What the call was, for messages: `GET`, `/servers/{id}`.
#[derive(Debug, Clone)]
pub struct Call {
    pub method: &'static str,
    pub path: String,
}

impl Call {
    pub fn new(method: &'static str, path: impl Into<String>) -> Call {
        Call {
            method,
            path: path.into(),
        }
    }

    /// A request builder's result; a builder error (a field the request needs was not
    /// set) is an `Unexpected` of this call.
    pub fn built<T, E: std::fmt::Display>(&self, result: Result<T, E>) -> Result<T, CloudError> {
        result.map_err(|e| self.unexpected(format!("could not build the request: {e}")))
    }

    pub fn unexpected(&self, message: impl Into<String>) -> CloudError {
        CloudError::Unexpected {
            method: self.method.into(),
            path: self.path.clone(),
            message: message.into(),
        }
    }
}

/// A request with extra headers: everything else is the wrapped request's.
struct WithHeaders<E> {
    inner: E,
    headers: HeaderMap,
}

impl<E: RestEndpoint> RestEndpoint for WithHeaders<E> {
    fn method(&self) -> http::Method {
        self.inner.method()
    }
    fn endpoint(&self) -> Cow<'static, str> {
        self.inner.endpoint()
    }
    fn service_type(&self) -> ServiceType {
        self.inner.service_type()
    }
    fn parameters(&self) -> QueryParams<'_> {
        self.inner.parameters()
    }
    fn body(&self) -> Result<Option<(&'static str, Vec<u8>)>, BodyError> {
        self.inner.body()
    }
    fn response_key(&self) -> Option<Cow<'static, str>> {
        self.inner.response_key()
    }
    fn response_list_item_key(&self) -> Option<Cow<'static, str>> {
        self.inner.response_list_item_key()
    }
    fn response_headers(&self) -> HashMap<&str, &str> {
        self.inner.response_headers()
    }
    fn request_headers(&self) -> Option<&HeaderMap> {
        Some(&self.headers)
    }
    fn api_version(&self) -> Option<ApiVersion> {
        self.inner.api_version()
    }
    fn min_version(&self) -> Option<ApiVersion> {
        self.inner.min_version()
    }
    fn max_version(&self) -> Option<ApiVersion> {
        self.inner.max_version()
    }
}

/// Sends `endpoint` and returns the body of a 2xx answer (JSON, or `Null` when empty).
pub async fn send<E>(api: &Api, call: &Call, endpoint: E) -> Result<Value, CloudError>
where
    E: RestEndpoint + Sync + Send,
{
    let mut headers = endpoint.request_headers().cloned().unwrap_or_default();
    if let Ok(id) = HeaderValue::from_str(&api.global_request_id) {
        headers.insert(HeaderName::from_static("x-openstack-request-id"), id);
    }
    let endpoint = WithHeaders {
        inner: endpoint,
        headers,
    };
    let response: Response<Bytes> = raw(endpoint)
        .skip_error_check(true)
        .query_async(api)
        .await
        .map_err(|e| from_api_error(call, e))?;
    let status = response.status().as_u16();
    let body = response.body();
    if !(200..300).contains(&status) {
        let message = error_message(body);
        if status == 401 {
            return Err(CloudError::Auth(format!(
                "{} {} answered 401: {message}",
                call.method, call.path
            )));
        }
        return Err(CloudError::Status {
            method: call.method.into(),
            path: call.path.clone(),
            status,
            message,
        });
    }
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(Value::Null);
    }
    serde_json::from_slice(body).map_err(|e| call.unexpected(format!("not JSON: {e}")))
}

/// The message of an OpenStack error body: Nova and Cinder's `{"badRequest": {"message":
/// ..}}`, Keystone's `{"error": {"message": ..}}`, else the text itself.
pub fn error_message(body: &[u8]) -> String {
    let text = String::from_utf8_lossy(body);
    let Ok(value) = serde_json::from_slice::<Value>(body) else {
        return text.trim().chars().take(300).collect();
    };
    let from = |v: &Value| {
        v.get("message")
            .or_else(|| v.get("explanation"))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    if let Some(message) = from(&value) {
        return message;
    }
    if let Some(object) = value.as_object()
        && let Some(message) = object.values().find_map(from)
    {
        return message;
    }
    text.trim().chars().take(300).collect()
}

/// A failure before any answer: the connection, a redirect refused, the token, or the
/// request itself.
fn from_api_error(call: &Call, error: ApiError<TransportError>) -> CloudError {
    if let Some(refused) = transport::refused(&error) {
        return CloudError::Redirect {
            method: call.method.into(),
            path: call.path.clone(),
            status: refused.status,
            location: refused.location.clone(),
        };
    }
    match error {
        ApiError::Client {
            source: TransportError::Send(source),
        } => CloudError::Connection {
            method: call.method.into(),
            path: call.path.clone(),
            message: error_chain(&source),
        },
        ApiError::Client {
            source: TransportError::SignIn(error),
        } => *error,
        other => call.unexpected(error_chain(&other)),
    }
}

/// An error and its sources, `: `-joined.
pub fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let line = cause.to_string();
        if !text.contains(&line) {
            text.push_str(": ");
            text.push_str(&line);
        }
        source = cause.source();
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_come_from_each_services_error_shape() {
        assert_eq!(
            error_message(
                br#"{"badRequest":{"code":400,"message":"Compute service of compute-1 is still in use."}}"#
            ),
            "Compute service of compute-1 is still in use."
        );
        assert_eq!(
            error_message(br#"{"error":{"code":401,"message":"The request you have made requires authentication.","title":"Unauthorized"}}"#),
            "The request you have made requires authentication."
        );
        assert_eq!(
            error_message(b"<html>Service Unavailable</html>\n"),
            "<html>Service Unavailable</html>"
        );
    }

    #[test]
    fn nova_gets_both_version_headers() {
        let headers = version_headers(Service::Compute, (2, 11));
        assert_eq!(headers.len(), 3);
        assert_eq!(headers[0].1, "compute 2.11");
        assert!(headers[2].1.to_str().unwrap().starts_with("evacdoc/"));
        assert_eq!(headers[1].1, "2.11");
        assert_eq!(
            version_headers(Service::Volume, (3, 27))[0].1,
            "volume 3.27"
        );
    }
}
